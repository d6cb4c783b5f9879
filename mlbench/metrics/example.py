"""Example-based measures of 0/1 predictions: each instance is scored, then the scores are averaged.

Notation: m test instances, L labels, Y_i the true and Z_i the predicted label set of instance i,
h_ij / y_ij the predicted / true bit.  Sources:

* hamming loss -- MLDF paper (mldf.md), Table 1, row 1: (1 / mL) sum_i sum_j [h_ij != y_ij];
* subset accuracy, the "exact match accuracy" (EMA) of the MC paper (mc.md, Section 6.2): the share
  of instances whose predicted label vector equals the true one;
* accuracy, precision, recall, F1 -- the example-based measures of Madjarov et al. (2012), the
  reference the I-MTSL paper (imtsl.md, Section 5.4) gives for its "accuracy, precision, recall and
  F1-score": per instance |Y_i & Z_i| / |Y_i | Z_i| (Jaccard), |Y_i & Z_i| / |Z_i|,
  |Y_i & Z_i| / |Y_i|, 2 |Y_i & Z_i| / (|Y_i| + |Z_i|), averaged over instances.  I-MTSL's table
  reports these example-based versions next to *macro*-F1, so its "precision, recall, F1" are
  ``example_precision``, ``example_recall``, ``example_f1`` here;
* 1 - hamming loss, as the I-MTSL paper reports it (Section 5.4, "1-HL").

Empty sets follow the rule of :mod:`mlbench.metrics._prf`: an instance with no true and no
predicted label scores 1 on accuracy / precision / recall / F1; an empty prediction for an
instance with true labels scores precision 0.
"""
from __future__ import annotations

import numpy as np

from mlbench.metrics import _prf
from mlbench.metrics._validate import check_binary
from mlbench.metrics.base import register_measure


def _pair(Y_true, P):
    Y = check_binary(Y_true, "Y_true")
    return Y, check_binary(P, "predictions", Y.shape)


def hamming_loss(Y_true, P, **_):
    """Share of the m x L label bits predicted wrongly (MLDF Table 1)."""
    Y, P = _pair(Y_true, P)
    return np.count_nonzero(Y != P) / Y.size


def one_minus_hamming(Y_true, P, **_):
    """1 - hamming loss: share of label bits predicted right (I-MTSL Section 5.4)."""
    return 1.0 - hamming_loss(Y_true, P)


def subset_accuracy(Y_true, P, **_):
    """Share of instances whose whole label vector is predicted exactly (MC paper, EMA)."""
    Y, P = _pair(Y_true, P)
    return float(np.mean(np.all(Y == P, axis=1)))


def _example(fn, name, doc):
    def measure(Y_true, P, **_):
        Y, P = _pair(Y_true, P)
        return float(np.mean(fn(*_prf.counts(Y, P, axis=1))))

    measure.__name__ = measure.__qualname__ = name
    measure.__doc__ = doc
    return measure


accuracy = _example(_prf.jaccard, "accuracy", "Mean over instances of |Y & Z| / |Y | Z| (Jaccard).")
example_precision = _example(_prf.precision, "example_precision", "Mean over instances of |Y & Z| / |Z|.")
example_recall = _example(_prf.recall, "example_recall", "Mean over instances of |Y & Z| / |Y|.")
example_f1 = _example(_prf.f1, "example_f1", "Mean over instances of 2 |Y & Z| / (|Y| + |Z|).")

_EXAMPLE = dict(needs="predictions", kind="example")
register_measure("hamming_loss", hamming_loss, greater_is_better=False, display="Hamming loss",
                 description="share of label bits predicted wrongly (MLDF Table 1)", **_EXAMPLE)
register_measure("one_minus_hamming", one_minus_hamming, greater_is_better=True, display="1 - HL",
                 description="1 - Hamming loss, as I-MTSL reports it", **_EXAMPLE)
register_measure("subset_accuracy", subset_accuracy, greater_is_better=True, display="Subset accuracy",
                 description="share of instances with the exact label vector (MC paper's EMA)", **_EXAMPLE)
register_measure("exact_match", subset_accuracy, greater_is_better=True, display="EMA",
                 description="exact match accuracy: alias of subset_accuracy (MC paper)", **_EXAMPLE)
register_measure("accuracy", accuracy, greater_is_better=True, display="Accuracy",
                 description="example-based Jaccard |Y&Z|/|Y|Z| averaged over instances (Madjarov 2012)",
                 **_EXAMPLE)
register_measure("example_precision", example_precision, greater_is_better=True, display="Precision",
                 description="example-based precision |Y&Z|/|Z| (Madjarov 2012; I-MTSL)", **_EXAMPLE)
register_measure("example_recall", example_recall, greater_is_better=True, display="Recall",
                 description="example-based recall |Y&Z|/|Y| (Madjarov 2012; I-MTSL)", **_EXAMPLE)
register_measure("example_f1", example_f1, greater_is_better=True, display="F1",
                 description="example-based F1 2|Y&Z|/(|Y|+|Z|) (Madjarov 2012; I-MTSL)", **_EXAMPLE)
