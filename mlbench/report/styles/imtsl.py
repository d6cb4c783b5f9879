"""``imtsl``: Table 2 of Gonçalves et al. (IJCAI 2015): relative performance RP (see
:mod:`mlbench.stats.rp`) of each method (rows) on each measure (columns), mean ± std over datasets;
the best per measure is highlighted."""
from __future__ import annotations

from mlbench.report.styles.common import mean_sd, metric_notes
from mlbench.report.table import Cell, Row, Table, mark_best


def build(analysis):
    methods = analysis.metrics[0].methods
    t = Table("imtsl", "Relative performance RP (mean ± std over datasets; 1 = ranked first or second)",
              ["Method"] + [ma.display for ma in analysis.metrics])
    columns = []
    for ma in analysis.metrics:
        col = []
        for m in methods:
            if ma.rp_mean is None or m not in ma.rp_mean.index:
                col.append(Cell("—"))
            else:
                col.append(Cell(mean_sd(ma.rp_mean[m], ma.rp_std[m], 3), float(ma.rp_mean[m]),
                                float(ma.rp_std[m])))
        mark_best(col, greater_is_better=True)
        columns.append(col)
    rp_over = {}  # one line per distinct set of datasets, naming its metrics
    for ma in analysis.metrics:
        used = ", ".join(ma.used_datasets) or "none"
        rp_over.setdefault(f"RP over {len(ma.used_datasets)} datasets with every method ({used})",
                           []).append(ma.metric)
    t.notes.extend(f"{', '.join(names)}: {text}" for text, names in rp_over.items())
    t.notes.extend(metric_notes(analysis.metrics))
    for j, m in enumerate(methods):
        t.rows.append(Row(m, [col[j] for col in columns]))
    return [t]
