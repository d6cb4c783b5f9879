"""``imtsl``: Table 2 of Gonçalves et al. (IJCAI 2015): relative performance RP (see
:mod:`mlbench.stats.rp`) of each method (rows) on each measure (columns), mean ± std over datasets;
the best per measure is highlighted.

The graph-ablation methods (``imtsl-empty``, ``imtsl-random``: I-MTSL with an empty or a random label
graph) are variants of ``imtsl`` in the protocol, so they are not among the RP table's methods (its
ranks are over the paper's methods only); the variants table, titled "What the learned graph adds",
gives per dataset and measure the mean over splits of I-MTSL minus the ablation, marked ∗ / ⊛ when
I-MTSL is significantly better / worse by the per-dataset test across splits, with #win/#tie/#loss
for I-MTSL (:mod:`mlbench.report.styles.variants`)."""
from __future__ import annotations

import numpy as np

from mlbench.report.styles.common import mean_sd, metric_notes
from mlbench.report.table import Cell, Row, Table, mark_best
from mlbench.stats.rp import relative_performance

VARIANTS_TITLE = ("What the learned graph adds: imtsl minus the ablation (mean over splits); "
                  "∗/⊛: imtsl significantly better/worse")


def _rp(ma):
    """(methods, datasets, RP mean, RP std) over the paper's methods and the datasets that have all."""
    methods = ma.block_methods or []
    datasets = [d for d in ma.datasets if methods and np.isfinite(ma.mean.loc[d, methods].to_numpy(float)).all()]
    if len(methods) < 2 or not datasets:
        return methods, datasets, {}, {}
    _, mean, std = relative_performance(ma.mean.loc[datasets, methods].to_numpy(float), ma.greater_is_better)
    return methods, datasets, dict(zip(methods, mean)), dict(zip(methods, std))


def _rp_table(analysis):
    methods = analysis.metrics[0].methods
    t = Table("imtsl", "Relative performance RP (mean ± std over datasets; 1 = ranked first or second)",
              ["Method"] + [ma.display for ma in analysis.metrics])
    columns = []
    rp_over = {}  # one line per distinct set of datasets, naming its metrics
    for ma in analysis.metrics:
        _, used, rp_mean, rp_std = _rp(ma)
        col = [Cell(mean_sd(rp_mean[m], rp_std[m], 3), float(rp_mean[m]), float(rp_std[m]))
               if m in rp_mean else Cell("—") for m in methods]
        mark_best(col, greater_is_better=True)
        columns.append(col)
        text = ", ".join(used) if rp_mean else "none"
        n = len(used) if rp_mean else 0
        rp_over.setdefault(f"RP over {n} datasets with every method ({text})", []).append(ma.metric)
    t.notes.extend(f"{', '.join(names)}: {text}" for text, names in rp_over.items())
    t.notes.extend(metric_notes(analysis.metrics))
    for j, m in enumerate(methods):
        t.rows.append(Row(m, [col[j] for col in columns]))
    return t


def build(analysis):
    return [_rp_table(analysis)]
