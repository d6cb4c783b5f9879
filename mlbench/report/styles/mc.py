"""``mc``: the tables of Hong, Batal & Hauskrecht (CIKM 2014), one per measure: methods as rows,
datasets as columns, the mean over splits; ∗ / ⊛ when the control is significantly better / worse
than the row's method on that dataset (paired t-test at α across the folds, as in the paper, unless
the corrected test was requested), and a #win/#tie/#loss column counting those outcomes for the
control against each method.  The best per dataset is highlighted."""
from __future__ import annotations

from mlbench.report.styles.common import arrow
from mlbench.report.table import Cell, Row, Table, fmt, mark_best

#: the paper's per-dataset paired t-test
DEFAULT_STATS = ("ttest",)
MARK = {1: "∗", -1: "⊛", 0: "", None: ""}


def build(analysis):
    ctrl = analysis.control
    tables = []
    for ma in analysis.metrics:
        t = Table(f"mc:{ma.metric}", f"{ma.display} {arrow(ma)}: mean over splits; ∗/⊛: {ctrl} "
                  f"significantly better/worse", ["Method"] + ma.datasets + ["#win/#tie/#loss"])
        columns = []
        for d in ma.datasets:
            col = [Cell(fmt(ma.mean.loc[d, m]), float(ma.mean.loc[d, m]), marker=MARK[ma.split_marker(d, m)])
                   for m in ma.methods]
            mark_best(col, ma.greater_is_better)
            columns.append(col)
        for j, m in enumerate(ma.methods):
            if m == ctrl:
                wtl = Cell("—")
                label = f"{m} (control)"
            else:
                w, ti, lo = ma.wtl[m]
                wtl = Cell(f"{w}/{ti}/{lo}")
                label = m
            t.rows.append(Row(label, [col[j] for col in columns] + [wtl]))
        t.notes.append(f"∗/⊛ and #win/#tie/#loss: {ctrl} against the row's method, "
                       f"{analysis.split_test_name} across splits at α = {ma.alpha:g}")
        # a note already given under an earlier measure's table (a method's missing cells) once
        t.notes.extend(n for n in ma.notes if not any(n in u.notes for u in tables))
        tables.append(t)
    return tables
