"""Significance tests of Yang & Liu (SIGIR 1999, "A re-examination of text categorization methods").

HierCost (Charuvaka & Rangwala 2015, Sec. 5.5) marks Micro-F1 by the micro sign test and Macro-F1
by the macro t-test, † for p < 0.05 and ‡ for p < 0.001.  Both compare system A with system B on
the same test set and are one-sided ("A is better than B"):

* **micro sign test** (s-test): over every binary decision (document, category), a_i = 1 when A
  decides correctly, b_i likewise for B.  With n the number of decisions where a_i != b_i and k
  those where A is right and B wrong, under H0 k ~ Binomial(n, 1/2); p = P(K >= k).  (Yang & Liu
  use the normal approximation for n > 12; we compute the exact binomial tail.)
* **macro t-test** (T-test): the paired t-test over categories on the per-category F1 of A and B,
  d_j = F1_j(A) - F1_j(B), t = mean(d) / (sd(d) / sqrt(m)), m - 1 degrees of freedom; p = P(T >= t).
  Categories where A and B score the same contribute d_j = 0.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from mlbench.errors import MlbenchError
from mlbench.metrics import _prf


@dataclass(frozen=True)
class SignTestResult:
    statistic: float
    p: float
    n: int


def _binary(A, name):
    A = np.asarray(A)
    if A.ndim != 2 or not np.isin(A, (0, 1)).all():
        raise MlbenchError(f"{name} must be a 0/1 matrix (documents x categories)")
    return A.astype(bool)


def micro_sign_test(Y_true, P_a, P_b) -> SignTestResult:
    """One-sided s-test that A's decisions are more often right than B's; statistic = k."""
    Y = _binary(Y_true, "Y_true")
    A, B = _binary(P_a, "predictions A"), _binary(P_b, "predictions B")
    if A.shape != Y.shape or B.shape != Y.shape:
        raise MlbenchError("predictions and truth must have the same shape")
    a, b = A == Y, B == Y
    n = int(np.sum(a != b))
    k = int(np.sum(a & ~b))
    p = 1.0 if n == 0 else float(stats.binomtest(k, n, 0.5, alternative="greater").pvalue)
    return SignTestResult(float(k), p, n)


def per_category_f1(Y_true, P):
    """F1 of every category (column) with the empty-set rule of :mod:`mlbench.metrics._prf`."""
    Y, P = _binary(Y_true, "Y_true"), _binary(P, "predictions")
    return np.asarray(_prf.f1(*_prf.counts(Y.astype(np.int8), P.astype(np.int8), axis=0)), dtype=float)


def macro_t_test(Y_true, P_a, P_b) -> SignTestResult:
    """One-sided paired t-test over categories that A's per-category F1 exceeds B's."""
    fa, fb = per_category_f1(Y_true, P_a), per_category_f1(Y_true, P_b)
    d = fa - fb
    m = d.size
    if m == 0:
        raise MlbenchError("the macro t-test needs at least one category")
    if m < 2 or np.all(d == d[0]):                  # no spread: the sign of the mean decides
        mean = float(d[0])
        return SignTestResult(np.inf if mean > 0 else -np.inf if mean < 0 else 0.0,
                              0.0 if mean > 0 else 1.0, m)
    t = float(d.mean() / (d.std(ddof=1) / np.sqrt(m)))
    return SignTestResult(t, float(stats.t.sf(t, m - 1)), m)


def marker(p) -> str:
    """‡ for p < 0.001, † for p < 0.05, else empty (HierCost's tables)."""
    return "‡" if p < 0.001 else "†" if p < 0.05 else ""


#: which test marks which measure in HierCost's tables
TESTS = {"micro_f1": micro_sign_test, "macro_f1": macro_t_test}


def _predictions(directory, protocol, dataset, method):
    """The one saved-predictions file of (protocol, dataset, method) in ``directory``, or None."""
    import glob
    import os

    from mlbench.safety import file_part as _safe

    pattern = os.path.join(glob.escape(directory),
                           f"{_safe(protocol)}__{_safe(dataset)}__{_safe(method)}__*.npz")
    found = sorted(glob.glob(pattern))
    return found[0] if len(found) == 1 else None


def attach_yang_liu(analysis, paths):
    """Set ``analysis.yang_liu[(dataset, metric)] = (rival, SignTestResult)`` from saved predictions.

    For Micro-F1 and Macro-F1 on each dataset the control is tested against the strongest other
    method (highest mean), as HierCost's tables mark it, with the files ``mlbench run
    --save-predictions`` leaves in ``<results>.predictions/``.  Datasets without both files (or with
    several splits) are left out and keep the report's split-level test.
    """
    import os

    analysis.yang_liu = {}
    dirs = [f"{p}.predictions" for p in paths if os.path.isdir(f"{p}.predictions")]
    ctrl = analysis.control
    protocol = getattr(analysis.results, "protocol", None)
    if not dirs or not ctrl or not protocol:
        return analysis
    for ma in analysis.metrics:
        test = TESTS.get(ma.metric)
        if test is None or ctrl not in ma.methods:
            continue
        for d in ma.datasets:
            others = [m for m in ma.methods if m != ctrl and np.isfinite(ma.mean.loc[d, m])]
            if not others:
                continue
            rival = max(others, key=lambda m: ma.mean.loc[d, m])
            for directory in dirs:
                fa = _predictions(directory, protocol, d, ctrl)
                fb = _predictions(directory, protocol, d, rival)
                if fa and fb:
                    with np.load(fa) as A, np.load(fb) as B:
                        if A["Y_true"].shape != B["Y_true"].shape:
                            break
                        res = test(A["Y_true"], A["predictions"], B["predictions"])
                    analysis.yang_liu[(d, ma.metric)] = (rival, res)
                    break
    return analysis
