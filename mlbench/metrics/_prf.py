"""Precision, recall, F1 and Jaccard of two sets given their counts, with the empty-set rule.

Every set-based measure of mlbench (example-based, micro, macro) reduces to counts of true
positives ``tp``, false positives ``fp`` and false negatives ``fn`` of some pair of sets: the
predicted and true label sets of one instance (example-based), the predicted and true instance
sets of one label (macro), or all (instance, label) pairs together (micro).

**Empty-set rule** (MULAN's, ``mulan.evaluation.measure.InformationRetrievalMeasures``):

* both sets empty (``tp + fp + fn == 0``): precision = recall = F1 = Jaccard = 1 -- nothing was
  to be found and nothing was claimed, a perfect answer;
* empty prediction, non-empty truth (``tp + fp == 0 < fn``): precision = 0 (and recall = F1 = 0);
* non-empty prediction, empty truth (``tp + fn == 0 < fp``): recall = 0 (and precision = F1 = 0).

scikit-learn instead uses one ``zero_division`` value for every 0/0: with ``zero_division=1`` it
gives precision 1 to an empty prediction even when the truth is not empty, with ``zero_division=0``
it gives 0 to the both-empty case.  mlbench follows MULAN because the papers' numbers come from
MULAN/MEKA-style evaluation.  Otherwise the usual definitions hold:
precision = tp / (tp + fp), recall = tp / (tp + fn), F1 = 2 tp / (2 tp + fp + fn) (the harmonic mean
of precision and recall), Jaccard = tp / (tp + fp + fn).
"""
from __future__ import annotations

import numpy as np


def _ratio(num, den, both_empty):
    """num / den elementwise, 1 where both sets are empty and 0 where only ``den`` is 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)
    return np.where(both_empty, 1.0, out)


def precision(tp, fp, fn):
    tp, fp, fn = np.asarray(tp), np.asarray(fp), np.asarray(fn)
    return _ratio(tp, tp + fp, tp + fp + fn == 0)


def recall(tp, fp, fn):
    tp, fp, fn = np.asarray(tp), np.asarray(fp), np.asarray(fn)
    return _ratio(tp, tp + fn, tp + fp + fn == 0)


def f1(tp, fp, fn):
    tp, fp, fn = np.asarray(tp), np.asarray(fp), np.asarray(fn)
    return _ratio(2 * tp, 2 * tp + fp + fn, tp + fp + fn == 0)


def jaccard(tp, fp, fn):
    tp, fp, fn = np.asarray(tp), np.asarray(fp), np.asarray(fn)
    return _ratio(tp, tp + fp + fn, tp + fp + fn == 0)


def counts(Y, P, axis):
    """(tp, fp, fn) of 0/1 matrices summed along ``axis`` (1: per instance, 0: per label, None: all)."""
    Y = Y.astype(bool, copy=False)
    P = P.astype(bool, copy=False)
    tp = np.count_nonzero(Y & P, axis=axis)
    fp = np.count_nonzero(~Y & P, axis=axis)
    fn = np.count_nonzero(Y & ~P, axis=axis)
    return tp, fp, fn
