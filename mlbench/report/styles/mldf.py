"""``mldf``: the comparison table of Yang et al. (2019): measures as row groups (with ↓/↑), datasets
as rows, methods as columns, mean ± std over splits; • / ◦ after a method's cell when the control is
significantly better / worse on that dataset by the per-dataset t-test at α (paired t-test, 95%, as
in the paper, unless the corrected test was requested).  The best per dataset is highlighted."""
from __future__ import annotations

from mlbench.report.styles.common import arrow, mean_sd, metric_notes
from mlbench.report.table import Cell, Row, Table, mark_best

#: the paper's per-dataset paired t-test
DEFAULT_STATS = ("ttest",)
MARK = {1: "•", -1: "◦", 0: "", None: ""}


def build(analysis):
    ctrl = analysis.control
    methods = analysis.metrics[0].methods
    t = Table("mldf", f"mean±std over splits; •/◦: {ctrl} significantly better/worse "
              f"({analysis.split_test_name}, α = {analysis.alpha:g})",
              ["Dataset"] + [f"{m} (control)" if m == ctrl else m for m in methods])
    for ma in analysis.metrics:
        group = f"{ma.display} {arrow(ma)}"
        for d in ma.datasets:
            cells = [Cell(mean_sd(ma.mean.loc[d, m], ma.std.loc[d, m]), float(ma.mean.loc[d, m]),
                          float(ma.std.loc[d, m]), marker=MARK[ma.split_marker(d, m)])
                     for m in ma.methods]
            mark_best(cells, ma.greater_is_better)
            t.rows.append(Row(d, cells, group=group))
    t.notes.extend(metric_notes(analysis.metrics))
    t.notes.insert(0, f"control: {ctrl} ({analysis.control_source}); per-dataset test: "
                   f"{analysis.split_test_name} across splits")
    return [t]
