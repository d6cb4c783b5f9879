"""``plain``: per metric, datasets as rows and methods as columns, mean ± std over splits; the best
per dataset highlighted; an average-rank row when ranks exist."""
from __future__ import annotations

from mlbench.report.styles.common import arrow, friedman_line, mean_sd
from mlbench.report.table import Cell, Row, Table, fmt, mark_best

#: no paper fixes one control: each metric's is the best mean rank on it unless one is given
PER_METRIC_CONTROL = True


def build(analysis):
    tables = []
    for ma in analysis.metrics:
        single = bool((ma.n.fillna(0).to_numpy() <= 1).all())  # a std of one split says nothing
        t = Table(f"plain:{ma.metric}", f"{ma.display} {arrow(ma)} "
                  + ("(one split per dataset)" if single else "(mean ± std over splits)"),
                  ["Dataset"] + ma.methods)
        for d in ma.datasets:
            mean, std = ma.mean.loc[d], ma.std.loc[d]
            cells = [Cell(fmt(mean[m]) if single else mean_sd(mean[m], std[m]), float(mean[m]),
                          float(std[m])) for m in ma.methods]
            mark_best(cells, ma.greater_is_better)
            t.rows.append(Row(d, cells))
        if len(ma.used_datasets):
            avg = ma.ranks.mean(axis=0)
            cells = [Cell(fmt(avg[m], 2), float(avg[m])) if m in avg.index else Cell("—")
                     for m in ma.methods]
            mark_best(cells, greater_is_better=False)
            n = len(ma.used_datasets)
            t.rows.append(Row(f"Avg. rank ({n} dataset{'' if n == 1 else 's'})", cells))
        t.notes.append(f"control: {ma.control or analysis.control} "
                       f"({ma.control_source or analysis.control_source})")
        if ma.friedman is not None:
            t.notes.append(friedman_line(ma))
        t.notes.extend(ma.notes)
        tables.append(t)
    return tables
