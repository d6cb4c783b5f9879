"""Per-dataset tests across splits: the paired t-test and the Nadeau-Bengio corrected t-test.

Both compare two methods on the same ``J`` splits of one dataset through the differences
``d_j = a_j - b_j`` (mean ``d``, sample variance ``s^2`` with ``J - 1`` degrees of freedom):

* paired t-test: ``t = d / sqrt(s^2 / J)``, Student t with ``J - 1`` degrees of freedom; this is the
  test behind the win/tie/loss counts of the MLDF (Yang et al. 2019) and MC (Hong et al. 2014)
  papers.  It ignores that training sets of different splits overlap, so it rejects too often
  (Dietterich 1998; Nadeau & Bengio 2003).
* corrected resampled t-test (Nadeau & Bengio, "Inference for the Generalization Error", Machine
  Learning 52, 2003; the form of Bouckaert & Frank 2004):
  ``t = d / sqrt((1/J + n_test/n_train) * s^2)``, Student t with ``J - 1`` degrees of freedom, where
  ``n_test / n_train`` is the ratio of test to training set sizes.  It is the right test for repeated
  random holdout and is used the same way for k-fold cross-validation (ratio ``1/(k-1)``).

Two-sided p-values.  When every difference is equal (``s = 0``) the statistic is undefined: the
p-value is 1 if the differences are all zero and 0 otherwise (a constant non-zero difference).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from mlbench.errors import MlbenchError


@dataclass(frozen=True)
class TTestResult:
    """One paired comparison across splits; ``mean_difference`` is ``mean(a - b)``."""

    test: str
    t: float
    p: float
    df: int
    mean_difference: float
    n_splits: int


def _differences(a, b):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise MlbenchError("a paired t-test needs two vectors of scores on the same splits")
    if np.isnan(a).any() or np.isnan(b).any():
        raise MlbenchError("a paired t-test needs complete pairs: a score is missing")
    if a.size < 2:
        raise MlbenchError(f"a paired t-test needs at least two splits (got {a.size})")
    return a - b


def _result(test, d, variance_factor):
    J = d.size
    mean = float(d.mean())
    var = float(d.var(ddof=1))
    if var <= 0.0 or not np.isfinite(var):
        t = 0.0 if mean == 0.0 else float(np.sign(mean) * np.inf)
        p = 1.0 if mean == 0.0 else 0.0
    else:
        t = mean / np.sqrt(variance_factor * var)
        p = float(2.0 * stats.t.sf(abs(t), J - 1))
    return TTestResult(test, float(t), p, J - 1, mean, J)


def paired_ttest(a, b):
    """The paired t-test of ``a`` against ``b`` (same splits)."""
    d = _differences(a, b)
    return _result("paired t-test", d, 1.0 / d.size)


def corrected_resampled_ttest(a, b, n_train, n_test):
    """The Nadeau-Bengio corrected resampled t-test; ``n_train``, ``n_test``: set sizes per split."""
    d = _differences(a, b)
    n_train = float(np.mean(n_train))
    n_test = float(np.mean(n_test))
    if not (n_train > 0 and n_test > 0):
        raise MlbenchError("the corrected resampled t-test needs positive n_train and n_test")
    return _result("corrected resampled t-test", d, 1.0 / d.size + n_test / n_train)
