"""``imtsl``: Table 2 of Gonçalves et al. (IJCAI 2015): relative performance RP (see
:mod:`mlbench.stats.rp`) of each method (rows) on each measure (columns), mean ± std over datasets;
the best per measure is highlighted.

The graph-ablation methods (``imtsl-empty``, ``imtsl-random``: I-MTSL with an empty or a random label
graph) are not among the paper's compared methods, so they are left out of the RP table (its ranks
are over the paper's methods only) and get a table of their own: per dataset and measure, the mean
over splits of I-MTSL minus the ablation, marked ∗ / ⊛ when I-MTSL is significantly better / worse
by the per-dataset test across splits, with #win/#tie/#loss for I-MTSL."""
from __future__ import annotations

import numpy as np

from mlbench.report.styles.common import mean_sd, metric_notes
from mlbench.report.table import Cell, Row, Table, mark_best
from mlbench.stats.rp import relative_performance

ABLATIONS = ("imtsl-empty", "imtsl-random")
PROPOSED = "imtsl"
MARK = {1: "∗", -1: "⊛", 0: "", None: ""}


def _rp(ma):
    """(methods, datasets, RP mean, RP std) over the paper's methods and the datasets that have all."""
    block = ma.block_methods or []
    methods = [m for m in block if m not in ABLATIONS]
    datasets = [d for d in ma.datasets if methods and np.isfinite(ma.mean.loc[d, methods].to_numpy(float)).all()]
    if len(methods) < 2 or not datasets:
        return methods, datasets, {}, {}
    _, mean, std = relative_performance(ma.mean.loc[datasets, methods].to_numpy(float), ma.greater_is_better)
    return methods, datasets, dict(zip(methods, mean)), dict(zip(methods, std))


def _rp_table(analysis):
    methods = [m for m in analysis.metrics[0].methods if m not in ABLATIONS]
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


def _ablation_table(analysis):
    ma0 = analysis.metrics[0]
    ablations = [a for a in ABLATIONS if a in ma0.methods]
    if not ablations or analysis.control != PROPOSED:
        return None
    datasets = ma0.datasets
    t = Table("imtsl:graph", f"What the learned graph adds: {PROPOSED} minus the ablation (mean over "
              f"splits); ∗/⊛: {PROPOSED} significantly better/worse", ["Ablation"] + datasets
              + ["#win/#tie/#loss"])
    for ma in analysis.metrics:
        for a in ablations:
            cells = []
            for d in datasets:
                diff = ma.mean.loc[d, PROPOSED] - ma.mean.loc[d, a]
                cells.append(Cell("—") if not np.isfinite(diff) else
                             Cell(f"{diff:+.4f}", float(diff), marker=MARK[ma.split_marker(d, a)]))
            w, ti, lo = ma.wtl.get(a, [0, 0, 0])
            t.rows.append(Row(a, cells + [Cell(f"{w}/{ti}/{lo}")], group=ma.display))
    t.notes.append(f"∗/⊛ and #win/#tie/#loss: {PROPOSED} against the ablation, "
                   f"{analysis.split_test_name} across splits at α = {ma0.alpha:g}")
    t.notes.append("imtsl-empty: the same model with no label graph; imtsl-random: a random graph with "
                   "the learned graph's numbers of positive and negative edges")
    return t


def build(analysis):
    tables = [_rp_table(analysis)]
    ablation = _ablation_table(analysis)
    if ablation is not None:
        tables.append(ablation)
    return tables
