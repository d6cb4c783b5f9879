"""Label-based measures of 0/1 predictions: micro- and macro-averaged precision, recall and F1.

For label j let tp_j, fp_j, fn_j count the test instances that are true and predicted positives,
predicted but not true, true but not predicted.  Following HierCost (hiercost.md, Section 5.2):

* micro-F1, eq. (13): 2 P R / (P + R) with P and R computed from the counts summed over all labels
  (P = sum tp / sum (tp + fp), R = sum tp / sum (tp + fn)); it equals 2 sum tp / (2 sum tp + sum fp
  + sum fn).  Micro precision and recall are P and R.
* macro-F1, eq. (14): (1 / L) sum_j 2 P_j R_j / (P_j + R_j), the F1 of each label averaged over
  labels (also the "macro-f-measure" of SOSHF, the macro F1 of MC and I-MTSL).  Macro precision and
  recall average P_j and R_j.

**Labels with no positive test instance** are kept in the macro averages (each label counts 1/L,
as eq. (14) says) and scored by the empty-set rule of :mod:`mlbench.metrics._prf` (MULAN's): a label
that is neither true nor predicted for any test instance has P_j = R_j = F1_j = 1; one predicted for
some instance but true for none has P_j = R_j = F1_j = 0.  scikit-learn's ``f1_score(average=
"macro", zero_division=1)`` gives the same macro-F1; for macro precision and recall scikit-learn
has no matching ``zero_division`` (it would give an unpredicted label with positives precision 1).
"""
from __future__ import annotations

import numpy as np

from mlbench.metrics import _prf
from mlbench.metrics._validate import check_binary
from mlbench.metrics.base import register_measure


def _counts(Y_true, P, axis):
    Y = check_binary(Y_true, "Y_true")
    P = check_binary(P, "predictions", Y.shape)
    return _prf.counts(Y, P, axis=axis)


def _averaged(fn, axis, name, doc):
    def measure(Y_true, P, **_):
        return float(np.mean(fn(*_counts(Y_true, P, axis))))

    measure.__name__ = measure.__qualname__ = name
    measure.__doc__ = doc
    return measure


micro_precision = _averaged(_prf.precision, None, "micro_precision", "sum tp / sum (tp + fp).")
micro_recall = _averaged(_prf.recall, None, "micro_recall", "sum tp / sum (tp + fn).")
micro_f1 = _averaged(_prf.f1, None, "micro_f1", "HierCost eq. (13): 2 P R / (P + R) from pooled counts.")
macro_precision = _averaged(_prf.precision, 0, "macro_precision", "Mean over labels of tp_j / (tp_j + fp_j).")
macro_recall = _averaged(_prf.recall, 0, "macro_recall", "Mean over labels of tp_j / (tp_j + fn_j).")
macro_f1 = _averaged(_prf.f1, 0, "macro_f1", "HierCost eq. (14): mean over labels of F1_j.")

_LABEL = dict(greater_is_better=True, needs="predictions", kind="label")
register_measure("micro_precision", micro_precision, display="Micro-P",
                 description="precision of all (instance, label) pairs pooled", **_LABEL)
register_measure("micro_recall", micro_recall, display="Micro-R",
                 description="recall of all (instance, label) pairs pooled", **_LABEL)
register_measure("micro_f1", micro_f1, display="Micro-F1",
                 description="F1 of all (instance, label) pairs pooled (HierCost eq. 13)", **_LABEL)
register_measure("macro_precision", macro_precision, display="Macro-P",
                 description="precision of each label, averaged over labels", **_LABEL)
register_measure("macro_recall", macro_recall, display="Macro-R",
                 description="recall of each label, averaged over labels", **_LABEL)
register_measure("macro_f1", macro_f1, display="Macro-F1",
                 description="F1 of each label averaged over labels (HierCost eq. 14; SOSHF, MC, I-MTSL)",
                 **_LABEL)
