"""``soshf``: the result tables of Daniels & Metaxas (AAAI 2019), one per metric.

Methods as rows, datasets as columns, the mean over splits per cell (best per dataset highlighted),
then the mean rank in parentheses followed by two markers comparing the control with the row's
method: ● / ○ for Friedman + the mean-ranks post-hoc test with Bonferroni correction
(Bonferroni-Dunn), ▲ / △ for Friedman + the Wilcoxon signed-rank test with Bonferroni correction
(Benavoli et al. 2016).  Filled = control significantly better, open = no significant difference;
the paper needs no symbol for "control significantly worse", which we print as ✕ and ▼.
"""
from __future__ import annotations

from mlbench.report.styles.common import arrow, friedman_line
from mlbench.report.table import Cell, Row, Table, fmt, mark_best

#: Friedman with both post-hoc tests, as the paper marks its tables
DEFAULT_STATS = ("friedman", "wilcoxon")
RANK_MARK = {1: "●", 0: "○", -1: "✕", None: ""}
WILCOXON_MARK = {1: "▲", 0: "△", -1: "▼", None: ""}


def build(analysis):
    tables = []
    for ma in analysis.metrics:
        t = Table(f"soshf:{ma.metric}", f"{ma.display} {arrow(ma)}: mean over splits (mean rank); "
                  f"control {analysis.control}", ["Method"] + ma.datasets + ["Mean rank"])
        columns = [[Cell(fmt(ma.mean.loc[d, m]), float(ma.mean.loc[d, m])) for m in ma.methods]
                   for d in ma.datasets]
        for col in columns:
            mark_best(col, ma.greater_is_better)
        rank_cells = []
        for m in ma.methods:
            marks = RANK_MARK[ma.mean_rank_marker(m)] + WILCOXON_MARK[ma.wilcoxon_marker(m)]
            r = ma.average_rank(m)
            rank_cells.append(Cell(f"({fmt(r, 2)})" if r is not None else "—",
                                   None if r is None else float(r), marker=f" {marks}" if marks else ""))
        mark_best(rank_cells, greater_is_better=False)
        for j, m in enumerate(ma.methods):
            label = f"{m} (control)" if m == analysis.control else m
            t.rows.append(Row(label, [col[j] for col in columns] + [rank_cells[j]]))
        t.notes.append(f"●/○: {analysis.control} significantly better / not significantly different by "
                       f"Friedman + Bonferroni-Dunn mean-ranks test; ▲/△: by Friedman + Wilcoxon "
                       f"signed-rank with Bonferroni correction (α = {ma.alpha:g}); ✕/▼: {analysis.control} "
                       "significantly worse")
        t.notes.append(friedman_line(ma))
        t.notes.append(f"control: {analysis.control} ({analysis.control_source})")
        t.notes.extend(ma.notes)
        tables.append(t)
    return tables
