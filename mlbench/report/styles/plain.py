"""``plain``: per metric, datasets as rows and methods as columns, mean ± std over splits; the best
per dataset highlighted; an average-rank row when ranks exist."""
from __future__ import annotations

from mlbench.report.styles.common import arrow, friedman_line, mean_sd
from mlbench.report.table import Cell, Row, Table, fmt, mark_best


def build(analysis):
    tables = []
    for ma in analysis.metrics:
        t = Table(f"plain:{ma.metric}", f"{ma.display} {arrow(ma)} (mean ± std over splits)",
                  ["Dataset"] + ma.methods)
        for d in ma.datasets:
            cells = [Cell(mean_sd(ma.mean.loc[d, m], ma.std.loc[d, m]), float(ma.mean.loc[d, m]),
                          float(ma.std.loc[d, m])) for m in ma.methods]
            mark_best(cells, ma.greater_is_better)
            t.rows.append(Row(d, cells))
        if len(ma.used_datasets):
            avg = ma.ranks.mean(axis=0)
            cells = [Cell(fmt(avg[m], 2), float(avg[m])) if m in avg.index else Cell("—")
                     for m in ma.methods]
            mark_best(cells, greater_is_better=False)
            t.rows.append(Row(f"Avg. rank ({len(ma.used_datasets)} datasets)", cells))
        t.notes.append(f"control: {analysis.control} ({analysis.control_source})")
        if ma.friedman is not None:
            t.notes.append(friedman_line(ma))
        t.notes.extend(ma.notes)
        tables.append(t)
    return tables
