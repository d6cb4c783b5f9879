"""Friedman test over datasets, with average ranks and the Iman-Davenport correction.

Definitions (Demšar, "Statistical Comparisons of Classifiers over Multiple Data Sets", JMLR 7, 2006,
section 3.2.2):

* rank ``r_i^j`` of method ``j`` on dataset ``i``: 1 for the best score, ``k`` for the worst; tied
  scores share the average of the ranks they span (the ``mushroom`` row of his Table 6);
* average rank ``R_j = (1/N) sum_i r_i^j``;
* Friedman statistic ``chi2_F = 12N / (k(k+1)) * [sum_j R_j^2 - k(k+1)^2 / 4]``, chi-square with
  ``k - 1`` degrees of freedom (Friedman 1937, 1940);
* Iman-Davenport statistic ``F_F = (N-1) chi2_F / (N(k-1) - chi2_F)``, F-distributed with ``k - 1``
  and ``(k-1)(N-1)`` degrees of freedom (Iman & Davenport 1980), less conservative than ``chi2_F``.
* When every dataset ranks the methods in the same order with no ties, ``chi2_F`` reaches its maximum
  ``N(k-1)``, the denominator of ``F_F`` is 0 and ``F_F`` is infinite: the F approximation says
  nothing there (it would give p = 0 even for two datasets and two methods). The p-value is then the
  exact one: under the null hypothesis each dataset's order is uniform over the ``k!`` permutations,
  and the maximum is reached only when all ``N`` orders coincide, so ``p = (k!)^(1-N)`` (0.5 for
  N = k = 2).

Scores are compared after rounding to ``TIE_DECIMALS`` decimals so that values equal on paper (for
example 0.931 and 0.931 computed by different floating-point paths) tie instead of being ordered by
representation noise.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from mlbench.errors import MlbenchError

#: scores equal to this many decimals are ties (see the module docstring)
TIE_DECIMALS = 12


def rank_scores(scores, greater_is_better=True):
    """Ranks per row of ``scores`` (datasets x methods): 1 = best, ties get the average rank."""
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2:
        raise MlbenchError("scores must be a datasets x methods matrix")
    if np.isnan(scores).any():
        raise MlbenchError("ranks need a complete block: a score is missing")
    keyed = np.round(scores, TIE_DECIMALS)
    if greater_is_better:
        keyed = -keyed
    return stats.rankdata(keyed, axis=1, method="average")


@dataclass(frozen=True)
class FriedmanResult:
    """The Friedman test on a complete block of ``n_datasets`` x ``n_methods`` scores."""

    ranks: np.ndarray          # (N, k) per-dataset ranks
    average_ranks: np.ndarray  # (k,) R_j
    chi2: float                # chi2_F
    p_chi2: float
    f: float                   # Iman-Davenport F_F
    p_f: float
    n_datasets: int
    n_methods: int

    @property
    def df_f(self):
        """Degrees of freedom of ``F_F``: (k - 1, (k - 1)(N - 1))."""
        return (self.n_methods - 1, (self.n_methods - 1) * (self.n_datasets - 1))

    def rejects(self, alpha):
        """Whether the Iman-Davenport test rejects "all methods are equivalent" at ``alpha``."""
        return bool(self.p_f < alpha)


def friedman_from_ranks(ranks):
    """The Friedman and Iman-Davenport statistics from a rank matrix (datasets x methods)."""
    ranks = np.asarray(ranks, dtype=float)
    n, k = ranks.shape
    if n < 2 or k < 2:
        raise MlbenchError(f"the Friedman test needs at least two datasets and two methods (got {n} and {k})")
    avg = ranks.mean(axis=0)
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(avg**2) - k * (k + 1) ** 2 / 4.0)
    p_chi2 = float(stats.chi2.sf(chi2, k - 1))
    denom = n * (k - 1) - chi2
    if denom <= 1e-9 * n * (k - 1):
        # every dataset ranks the methods identically: F_F is infinite; the exact p (module docstring)
        f, p_f = float("inf"), math.exp((1 - n) * math.lgamma(k + 1))
    else:
        f = (n - 1) * chi2 / denom
        p_f = float(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))
    return FriedmanResult(ranks, avg, float(chi2), p_chi2, float(f), p_f, n, k)


def friedman_test(scores, greater_is_better=True):
    """Rank ``scores`` (datasets x methods) per dataset and run the Friedman test on the ranks."""
    return friedman_from_ranks(rank_scores(scores, greater_is_better))


def top_k_counts(mean_ranks, k):
    """On how many measures each method has one of the ``k`` best mean ranks.

    ``mean_ranks`` is a measures x methods matrix of average ranks (lower is better; NaN: the method
    has no rank on that measure and is not counted there).  On each measure a method counts when its
    mean rank is at most the ``k``-th smallest, so methods tied at the ``k``-th place all count.
    Returns an integer array, one count per method (column).

    The Bogatinovski et al. (2022) study names its best methods "across the spectrum of performance
    measures"; applied to the per-dataset scores it published, this count with ``k = 5`` (the
    number of methods it names) gives exactly those five, where the mean of the mean ranks does
    not (``benchmarks/study_scores_diagnostic.py``).
    """
    R = np.asarray(mean_ranks, dtype=float)
    if R.ndim != 2 or k < 1:
        raise MlbenchError("top_k_counts needs a measures x methods matrix and k >= 1")
    counts = np.zeros(R.shape[1], dtype=int)
    for row in R:
        present = np.sort(row[~np.isnan(row)])
        if present.size:
            cut = present[min(k, present.size) - 1]
            counts += np.nan_to_num(row, nan=np.inf) <= cut + 1e-12
    return counts
