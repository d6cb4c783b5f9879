"""Post-hoc tests after the Friedman test, and the Wilcoxon signed-rank test against a control.

Mean-ranks tests (Demšar 2006, section 3.2.2):

* Nemenyi (all pairs): two methods differ when their average ranks differ by at least
  ``CD = q_alpha * sqrt(k(k+1) / (6N))``, where ``q_alpha`` is the upper-``alpha`` quantile of the
  studentized range of ``k`` means with infinite degrees of freedom, divided by ``sqrt(2)`` (his
  Table 5a; computed here with :data:`scipy.stats.studentized_range`);
* Bonferroni-Dunn (against a control): the same CD with ``q_alpha`` the two-sided normal quantile at
  ``alpha / (k-1)`` (his Table 5b);
* the statistic comparing methods ``i`` and ``j`` is ``z = (R_i - R_j) / sqrt(k(k+1) / (6N))`` with a
  two-sided normal p-value; Holm's step-down procedure (Holm 1979) tests the ``k-1`` p-values against a
  control in increasing order against ``alpha / (k - i)`` and stops at the first retained hypothesis.
  Adjusted p-values: Bonferroni ``min(1, m p_i)``; Holm ``max_{j <= i} min(1, (m - j + 1) p_(j))`` over
  the sorted p-values (:func:`adjust`; equal to statsmodels' ``multipletests``, checked in the tests,
  which we do not call at run time because it triggers a full garbage collection on every call).

Wilcoxon signed-rank test (Wilcoxon 1945; Demšar 2006, section 3.1.3), the post-hoc test Benavoli,
Corani & Mangili (JMLR 17, 2016) recommend instead of the mean-ranks tests: the differences ``d_i``
over datasets are ranked by absolute value (ties averaged); ``R+`` sums the ranks where the control is
better, ``R-`` where it is worse; zero differences are split evenly between ``R+`` and ``R-`` and, when
their number is odd, one of them is dropped first (Demšar's rule).  ``T = min(R+, R-)`` and
``z = (T - N(N+1)/4) / sqrt(N(N+1)(2N+1)/24)`` as in Demšar.  The p-value is scipy's
``wilcoxon(..., zero_method="zsplit")`` on the same differences (exact distribution when there are
no ties and no zeros and N <= 50, otherwise the normal approximation with tie correction, never
scipy's slow permutation test); scipy's
"zsplit" is Demšar's rule except for dropping one zero when their number is odd, which we do before
calling it.  Differences equal to 12 decimals count as ties (values computed from rounded scores).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from mlbench.errors import MlbenchError

TIE_DECIMALS = 12


def adjust(p, alpha=0.05, method="holm"):
    """``(reject, adjusted p)`` for Bonferroni or Holm's step-down correction of the p-values ``p``."""
    p = np.asarray(p, dtype=float)
    m = p.size
    if method == "bonferroni":
        adj = np.minimum(1.0, m * p)
    elif method == "holm":
        order = np.argsort(p, kind="stable")
        steps = np.minimum(1.0, (m - np.arange(m)) * p[order])
        adj = np.empty(m)
        adj[order] = np.maximum.accumulate(steps)
    else:
        raise ValueError(method)
    return adj <= alpha, adj


def q_nemenyi(k, alpha=0.05):
    """Critical value of the two-tailed Nemenyi test for ``k`` methods (Demšar's Table 5a)."""
    _check_k_alpha(k, alpha)
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def q_bonferroni_dunn(k, alpha=0.05):
    """Critical value of the two-tailed Bonferroni-Dunn test, ``k`` methods incl. the control (Table 5b)."""
    _check_k_alpha(k, alpha)
    return float(stats.norm.ppf(1.0 - alpha / (2.0 * (k - 1))))


def rank_standard_error(k, n):
    """``sqrt(k(k+1) / (6N))``: the standard error of a difference of two average ranks."""
    return float(np.sqrt(k * (k + 1) / (6.0 * n)))


def critical_difference(k, n, alpha=0.05, test="nemenyi"):
    """The critical difference of average ranks for ``k`` methods over ``n`` datasets."""
    if test == "nemenyi":
        q = q_nemenyi(k, alpha)
    elif test in ("bonferroni-dunn", "bonferroni"):
        q = q_bonferroni_dunn(k, alpha)
    else:
        raise MlbenchError(f"unknown post-hoc test {test!r} (nemenyi or bonferroni-dunn)")
    return q * rank_standard_error(k, n)


def _check_k_alpha(k, alpha):
    if k < 2:
        raise MlbenchError(f"a post-hoc test needs at least two methods (got {k})")
    if not 0.0 < alpha < 1.0:
        raise MlbenchError(f"alpha must lie in (0, 1) (got {alpha})")


@dataclass(frozen=True)
class NemenyiResult:
    """All-pairs comparison: ``different[i, j]`` when ``|R_i - R_j| >= cd``."""

    cd: float
    q: float
    differences: np.ndarray  # (k, k) |R_i - R_j|
    different: np.ndarray    # (k, k) bool


def nemenyi(average_ranks, n, alpha=0.05):
    """The Nemenyi test on ``average_ranks`` over ``n`` datasets."""
    r = np.asarray(average_ranks, dtype=float)
    k = r.size
    cd = critical_difference(k, n, alpha, "nemenyi")
    diff = np.abs(r[:, None] - r[None, :])
    return NemenyiResult(cd, q_nemenyi(k, alpha), diff, diff >= cd)


@dataclass(frozen=True)
class ControlComparison:
    """Mean-ranks comparison of every other method with a control.

    ``z[i] = (R_i - R_control) / SE``: positive when the control has the better (smaller) rank.
    ``p`` is two-sided; ``p_bonferroni`` and ``p_holm`` are the adjusted p-values; ``bonferroni``
    and ``holm`` say which hypotheses are rejected at ``alpha``.
    """

    control: int
    others: np.ndarray  # indices of the compared methods
    z: np.ndarray
    p: np.ndarray
    p_bonferroni: np.ndarray
    p_holm: np.ndarray
    bonferroni: np.ndarray
    holm: np.ndarray
    cd_bonferroni_dunn: float


def mean_ranks_vs_control(average_ranks, n, control, alpha=0.05):
    """Bonferroni-Dunn and Holm tests of every method against ``control`` (an index)."""
    r = np.asarray(average_ranks, dtype=float)
    k = r.size
    others = np.array([j for j in range(k) if j != control])
    se = rank_standard_error(k, n)
    z = (r[others] - r[control]) / se
    p = 2.0 * stats.norm.sf(np.abs(z))
    rej_b, p_b = adjust(p, alpha, "bonferroni")
    rej_h, p_h = adjust(p, alpha, "holm")
    return ControlComparison(control, others, z, p, p_b, p_h, rej_b, rej_h,
                             critical_difference(k, n, alpha, "bonferroni-dunn"))


@dataclass(frozen=True)
class WilcoxonResult:
    """Wilcoxon signed-rank test of a control against one other method over datasets.

    ``r_plus`` sums the ranks where the control is better; ``n`` counts the differences used (after
    dropping one zero when their number is odd).
    """

    r_plus: float
    r_minus: float
    t: float
    z: float
    p: float
    n: int
    n_zeros: int


def wilcoxon_signed_rank(control, other, greater_is_better=True):
    """Demšar's Wilcoxon signed-rank test of ``control`` against ``other`` (paired over datasets)."""
    a = np.asarray(control, dtype=float)
    b = np.asarray(other, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise MlbenchError("the Wilcoxon test needs two paired vectors of scores")
    if np.isnan(a).any() or np.isnan(b).any():
        raise MlbenchError("the Wilcoxon test needs complete pairs: a score is missing")
    if a.size < 2:
        raise MlbenchError(f"the Wilcoxon test needs at least two datasets (got {a.size})")
    d = np.round(a - b if greater_is_better else b - a, TIE_DECIMALS)
    zeros = np.flatnonzero(d == 0)
    if zeros.size % 2 == 1:
        d = np.delete(d, zeros[0])
    n = d.size
    if n < 2:   # two datasets, one a tie: Demsar's rule leaves one pair, which cannot reject
        r = float(d[d > 0].sum() > 0)
        return WilcoxonResult(r, 1.0 - r, 0.0, float("nan"), 1.0, int(n), int(zeros.size))
    ranks = stats.rankdata(np.abs(d))
    half_zero = 0.5 * ranks[d == 0].sum()
    r_plus = float(ranks[d > 0].sum() + half_zero)
    r_minus = float(ranks[d < 0].sum() + half_zero)
    t = min(r_plus, r_minus)
    z = (t - n * (n + 1) / 4.0) / np.sqrt(n * (n + 1) * (2 * n + 1) / 24.0)
    if np.all(d == 0):
        p = 1.0
    else:
        # scipy's "auto" would run a slow permutation test for small N with ties; we choose explicitly
        exact = n <= 50 and not (d == 0).any() and np.unique(np.abs(d)).size == n
        p = float(stats.wilcoxon(d, zero_method="zsplit", method="exact" if exact else "approx").pvalue)
    return WilcoxonResult(r_plus, r_minus, float(t), float(z), p, int(n), int(zeros.size))


@dataclass(frozen=True)
class WilcoxonVsControl:
    """Wilcoxon tests of a control against each other method, with Bonferroni and Holm corrections."""

    control: int
    others: np.ndarray
    results: list
    p: np.ndarray
    p_bonferroni: np.ndarray
    p_holm: np.ndarray
    bonferroni: np.ndarray
    holm: np.ndarray


def wilcoxon_vs_control(scores, control, greater_is_better=True, alpha=0.05):
    """Wilcoxon signed-rank tests of column ``control`` of ``scores`` (datasets x methods) vs the rest."""
    scores = np.asarray(scores, dtype=float)
    k = scores.shape[1]
    others = np.array([j for j in range(k) if j != control])
    results = [wilcoxon_signed_rank(scores[:, control], scores[:, j], greater_is_better) for j in others]
    p = np.array([r.p for r in results])
    rej_b, p_b = adjust(p, alpha, "bonferroni")
    rej_h, p_h = adjust(p, alpha, "holm")
    return WilcoxonVsControl(control, others, results, p, p_b, p_h, rej_b, rej_h)
