"""``hiercost``: the tables of Charuvaka & Rangwala (ECML PKDD 2015): datasets as row groups, methods
as rows, the measures (Micro-F1, Macro-F1, hF1, TE when present) as columns, the mean over splits.
The control's Micro-F1 and Macro-F1 carry † (p < 0.05) or ‡ (p < 0.001) when it is significantly
better than the strongest other method on that dataset.

The paper tests per-document / per-category decisions (Yang & Liu 1999): Micro-F1 by the micro sign
test, Macro-F1 by the macro t-test.  A results CSV does not hold them, so
:func:`mlbench.stats.sign_tests.attach_yang_liu` runs both on the predictions ``mlbench run
--save-predictions`` left in ``<results>.predictions/`` (control vs the method with the highest mean).
A dataset without both files falls back to the per-dataset test across splits (paired or corrected
t-test); with the datasets' single given split there is then nothing to test and the table says so.

When the run stored a test-row bootstrap (the protocol's ``bootstrap`` key), a second table gives
each method's 95% interval and, for every other method, the control's advantage on the whole test
set (control − method) with its paired 95% interval ("*" when it excludes 0); the intervals are
bias-corrected percentile intervals around the point values: :mod:`mlbench.stats.bootstrap`.
"""
from __future__ import annotations

import numpy as np

from mlbench.report.analysis import NO_COMMON_SPLITS
from mlbench.report.styles.common import arrow, metric_notes
from mlbench.report.table import Cell, Row, Table, fmt, mark_best

MARKED = ("micro_f1", "macro_f1")
#: measure columns added to the protocol's when present (hF1, tree-induced error)
HIERARCHICAL_COLUMNS = ("hierarchical_f1", "hf1", "tree_induced_error", "tree_error", "te")


def extra_metrics(results):
    """The hierarchical measures of the results (shown beside the protocol's)."""
    return [c for c in HIERARCHICAL_COLUMNS if c in results.metrics]


def attach(analysis, paths):
    """Yang & Liu's tests from the per-document predictions saved beside the results, if any."""
    from mlbench.stats.sign_tests import attach_yang_liu

    attach_yang_liu(analysis, [str(p) for p in paths])


def _marker(ma, dataset, ctrl, yang_liu=None):
    if ma.metric not in MARKED:
        return ""
    if yang_liu and (dataset, ma.metric) in yang_liu:  # micro sign test / macro t-test
        from mlbench.stats.sign_tests import marker

        return marker(yang_liu[(dataset, ma.metric)][1].p)
    others = [m for m in ma.methods if m != ctrl and np.isfinite(ma.mean.loc[dataset, m])]
    if not others or not np.isfinite(ma.mean.loc[dataset, ctrl]):
        return ""
    values = ma.mean.loc[dataset, others].to_numpy(dtype=float)
    rival = others[int(np.argmax(values) if ma.greater_is_better else np.argmin(values))]
    res = ma.per_dataset.get((dataset, rival))
    if res is None or ma.split_marker(dataset, rival) != 1:
        return ""
    return "‡" if res.p < 0.001 else "†" if res.p < 0.05 else ""


def build(analysis):
    ctrl = analysis.control
    first = analysis.metrics[0]
    t = Table("hiercost", f"mean over splits; †/‡: {ctrl} significantly better than the strongest "
              "other method (p < 0.05 / p < 0.001)", ["Method"] + [f"{ma.display} {arrow(ma)}"
                                                                    for ma in analysis.metrics])
    for d in first.datasets:
        columns = []
        for ma in analysis.metrics:
            col = [Cell(fmt(ma.mean.loc[d, m]), float(ma.mean.loc[d, m]),
                        marker=_marker(ma, d, ctrl, getattr(analysis, "yang_liu", None))
                        if m == ctrl else "") for m in ma.methods]
            mark_best(col, ma.greater_is_better)
            columns.append(col)
        for j, m in enumerate(first.methods):
            t.rows.append(Row(f"{m} (control)" if m == ctrl else m, [col[j] for col in columns], group=d))
    tested = any(ma.per_dataset for ma in analysis.metrics if ma.metric in MARKED)
    yl = getattr(analysis, "yang_liu", None)
    if yl:
        t.notes.append("significance: Micro-F1 by the micro sign test, Macro-F1 by the macro t-test "
                       "(Yang & Liu 1999) on the saved predictions, control vs the strongest other "
                       "method: " + "; ".join(f"{d} {m}: vs {r} p = {res.p:.3g}"
                                              for (d, m), (r, res) in sorted(yl.items())))
    else:
        t.notes.append(f"significance: {analysis.split_test_name} across splits" if tested else
                       "significance: not computed (each dataset has a single split; the paper's tests "
                       "need per-document decisions: run with --save-predictions)")
    # a single given split: the significance note above already says what was tested
    t.notes.extend(metric_notes(analysis.metrics, skip=() if tested else (NO_COMMON_SPLITS,)))
    boot = bootstrap_table(analysis)
    return [t] + ([boot] if boot else [])


def bootstrap_table(analysis):
    """The 95% bootstrap intervals of single-split cells that stored replicates (None if none)."""
    from mlbench.stats.bootstrap import paired_interval, row_interval

    frame = analysis.results.frame
    if "extra" not in frame.columns or not frame["extra"].astype(str).str.contains('"bootstrap"').any():
        return None
    ctrl = analysis.control
    t = Table("hiercost-bootstrap", f"bias-corrected 95% bootstrap intervals over the test rows; "
              f"other methods: {ctrl} − method on the whole test set, paired (* excludes 0)",
              ["Method"] + [f"{ma.display} {arrow(ma)}" for ma in analysis.metrics])
    for d in analysis.metrics[0].datasets:
        part = frame[frame["dataset"] == d]
        if part["split"].nunique() != 1:
            continue
        rows = part.drop_duplicates("method", keep="last").set_index("method")
        for m in analysis.metrics[0].methods:
            if m not in rows.index:
                continue
            cells = []
            for ma in analysis.metrics:
                if m == ctrl:
                    ci = row_interval(rows.loc[m], ma.metric)
                    cells.append(Cell("—" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"))
                    continue
                pair = (paired_interval(rows.loc[ctrl], rows.loc[m], ma.metric)
                        if ctrl in rows.index else None)
                if pair is None:
                    cells.append(Cell("—"))
                    continue
                diff, lo, hi = pair
                cells.append(Cell(f"{diff:+.3f} [{lo:+.3f}, {hi:+.3f}]" if np.isfinite(lo) else
                                  f"{diff:+.3f} [—]", marker="*" if lo > 0 or hi < 0 else ""))
            t.rows.append(Row(f"{m} (control)" if m == ctrl else m, cells, group=d))
    if not t.rows:
        return None
    t.notes.append("bias-corrected percentile intervals (BC) of resamples of each dataset's test "
                   "rows around the value on the whole test set, the same resamples for every method "
                   "(so the differences are paired); other methods show the point difference. [—]: "
                   "every replicate lies on one side of the point value, so no interval is defined "
                   "(macro-F1's empty-label rule scores a label missing from a resample 1). A "
                   "bootstrap over test rows holds the model fixed: it measures test-set noise, not "
                   "training variation")
    return t
