"""Area under the ROC curve of label scores: macro-AUC (per label, averaged) and micro-AUC (pooled);
micro AUC-PR (:func:`micro_auc_pr`), the area under the pooled precision-recall curve.

For one label, AUC is the share of (positive instance a, negative instance b) pairs that the scores
order correctly, f(x_a) > f(x_b) (MLDF paper, mldf.md, Table 1, last row, the set S_macro).  It is
computed from ranks (the Mann-Whitney U statistic): with R_a the rank of a among all test scores
of the label (1 = lowest, tied scores get the mean of their ranks) and n+ / n- the numbers of
positives / negatives,

    AUC = (sum over positives of R_a - n+ (n+ + 1) / 2) / (n+ n-).

**Ties** between a positive and a negative count 1/2, as in scikit-learn's ``roc_auc_score`` and
Weka's ``ThresholdCurve.getROCArea`` that MULAN uses (the trapezoid under the ROC curve).  MLDF's
Table 1 writes ``>=`` in S_macro, which would count a tie as correctly ordered; mlbench does not
follow that reading because then a constant scorer would get AUC 1.

* ``macro_auc``: the mean of the per-label AUCs (SOSHF's macro-AUC; MLDF Table 1).  **A label with
  no positive (or no negative) test instance has no AUC and is left out of the mean**; if no label
  has both, the value is NaN.
* ``micro_auc``: one AUC over all (instance, label) pairs pooled (MULAN's ``MicroAUC``); NaN when
  the test labels are all 0 or all 1.

Computed by the Cython kernel ``mlbench._ext._ranking.label_auc`` (per label, sort the scores of
the smaller class and place the others among them by binary search); :func:`_auc_columns_numpy`
is the same in vectorised NumPy (one ``scipy.stats.rankdata`` call), used when the extension is
not built and as an independent check in the tests.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

from mlbench.metrics._validate import check_binary, check_scores
from mlbench.metrics.base import register_measure


try:
    from mlbench._ext._ranking import label_auc as _kernel
except ImportError:  # extension not built: the rank-based NumPy version gives the same numbers
    _kernel = None


def _auc_columns_numpy(Y, S):
    """AUC of every column of ``S`` against the 0/1 column of ``Y``; NaN where a class is missing."""
    ranks = rankdata(S, method="average", axis=0)
    pos = Y.astype(bool)
    n_pos = pos.sum(axis=0).astype(np.float64)
    n_neg = Y.shape[0] - n_pos
    rank_sum = np.where(pos, ranks, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
    auc[(n_pos == 0) | (n_neg == 0)] = np.nan
    return auc


def _auc_columns(Y, S):
    if _kernel is None:
        return _auc_columns_numpy(Y, S)
    return _kernel(Y.view(np.uint8), S)


def label_auc(Y_true, S):
    """Per-label AUC (NaN for a label without both classes in the test set)."""
    Y = check_binary(Y_true, "Y_true")
    return _auc_columns(Y, check_scores(S, Y.shape))


def macro_auc(Y_true, S, **_):
    """Mean AUC over the labels that have positive and negative test instances (MLDF Table 1)."""
    auc = label_auc(Y_true, S)
    defined = ~np.isnan(auc)
    return float(auc[defined].mean()) if defined.any() else float("nan")


def micro_auc(Y_true, S, **_):
    """AUC of all (instance, label) pairs pooled."""
    Y = check_binary(Y_true, "Y_true")
    S = check_scores(S, Y.shape)
    return float(_auc_columns(Y.reshape(-1, 1), S.reshape(-1, 1))[0])


def _no_label_with_both_classes(Y_true, **_):
    Y = np.asarray(Y_true).astype(bool)
    if (Y.any(axis=0) & ~Y.all(axis=0)).any():
        return None
    return "no label has both a positive and a negative test instance"


def _one_class_only(Y_true, **_):
    Y = np.asarray(Y_true).astype(bool)
    return None if Y.any() and not Y.all() else "the test labels are all 0 or all 1"


_AUC = dict(greater_is_better=True, needs="scores", kind="label")
register_measure("macro_auc", macro_auc, display="Macro-AUC",
                 description="AUC per label, averaged over labels with both classes (SOSHF, MLDF)",
                 undefined=_no_label_with_both_classes, **_AUC)
register_measure("micro_auc", micro_auc, display="Micro-AUC",
                 description="AUC of all (instance, label) pairs pooled", undefined=_one_class_only,
                 **_AUC)


def micro_auc_pr(Y_true, S, **_):
    """Area under the precision-recall curve of all (instance, label) pairs pooled, as average
    precision: AP = sum over thresholds t of (R_t - R_{t-1}) P_t, the precision at each distinct
    score weighted by the recall it adds (scikit-learn's ``average_precision_score`` with
    ``average="micro"``, the Bogatinovski et al. 2022 study's "AUPRC MICRO"; tied scores form one
    threshold, no interpolation).  NaN when no test label is positive."""
    from sklearn.metrics import average_precision_score

    Y = check_binary(Y_true, "Y_true")
    S = check_scores(S, Y.shape)
    if not Y.any():
        return float("nan")
    return float(average_precision_score(Y.reshape(-1), S.reshape(-1)))


def _no_positive(Y_true, **_):
    return None if np.asarray(Y_true).astype(bool).any() else "no test label is positive"


register_measure("micro_auc_pr", micro_auc_pr, display="Micro AUC-PR",
                 description="area under the precision-recall curve of all (instance, label) pairs "
                             "pooled, as average precision (Bogatinovski et al. 2022)",
                 undefined=_no_positive, **_AUC)
