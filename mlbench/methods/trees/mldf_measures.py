"""The six MLDF measures per row or per column, for Algorithm 2 and the layer growth of Algorithm 3.

Algorithm 2 compares a measure *per label* (label-based measures) or *per instance*
(instance-based ones) between two layers, and Algorithm 3 (line 7) needs the training value.
The values come from ``mlbench.metrics`` so that training and test use one definition (MLDF
Table 1; ties pessimistic for the ranking measures, 1/2 for AUC; see those modules):

* hamming loss of label j: share of rows with ``[F_ij > 0.5] != y_ij`` (``predict``'s rule);
* macro-AUC of label j: :func:`mlbench.metrics.auc.label_auc` (NaN without both classes);
* one-error, coverage (normalised by l, as MLDF reports it), ranking loss and average precision of
  row i: :func:`mlbench.metrics.ranking.ranking_stats` (NaN for rows with no relevant or no
  irrelevant label).

:func:`aggregate` is the mean over the defined values, i.e. the measure ``mlbench.metrics`` reports.
"""
from __future__ import annotations

import numpy as np

from mlbench.methods.trees.mldf_confidence import check_measure
from mlbench.metrics.auc import label_auc
from mlbench.metrics.ranking import ranking_stats

GREATER_IS_BETTER = {"hamming_loss": False, "macro_auc": True, "one_error": False,
                     "coverage": False, "ranking_loss": False, "average_precision": True}


def per_unit(F, Y, measure):
    """The measure on each column (label-based) or row (instance-based) of scores ``F``; NaN where
    undefined."""
    measure = check_measure(measure)
    F = np.asarray(F, dtype=np.float64)
    Y = np.asarray(Y)
    if measure == "hamming_loss":
        return ((F > 0.5) != Y.astype(bool)).mean(axis=0)
    if measure == "macro_auc":
        return label_auc(Y, F)
    values = getattr(ranking_stats(Y, F), measure)
    return values / Y.shape[1] if measure == "coverage" else values


def aggregate(values):
    """The dataset value: the mean of the defined per-unit values (NaN if none is defined)."""
    values = np.asarray(values, dtype=np.float64)
    ok = ~np.isnan(values)
    return float(values[ok].mean()) if ok.any() else float("nan")


def is_better(new, old, measure):
    """``new`` strictly better than ``old`` for this measure (NaN is never better; anything beats
    NaN)."""
    measure = check_measure(measure)
    if np.isnan(new):
        return False
    if np.isnan(old):
        return True
    return new > old if GREATER_IS_BETTER[measure] else new < old


def worse_mask(new, old, measure):
    """Element-wise: ``new`` strictly worse than ``old`` (False where either is undefined)."""
    measure = check_measure(measure)
    new = np.asarray(new)
    old = np.asarray(old)
    with np.errstate(invalid="ignore"):
        worse = new < old if GREATER_IS_BETTER[measure] else new > old
    return worse & ~np.isnan(new) & ~np.isnan(old)
