"""Relative performance (RP) of the I-MTSL paper.

Gonçalves, Von Zuben & Banerjee, "Multi-Label Structure Learning with Ising Model Selection"
(IJCAI 2015), section 6: rank all methods on one dataset and measure (1 = best), then
``RP(a) = 1`` when ``r_a = 1`` and ``RP(a) = 1 / log2(r_a)`` otherwise.  Like DCG, it gives the first
and second places the same credit (``1/log2(2) = 1``) and discounts lower places logarithmically.
The table reports the mean and standard deviation of RP over datasets per method and measure.

Ties: the paper does not say; tied methods share the average of their ranks (as in the Friedman
test), so two methods tied for first both get rank 1.5 and ``RP = 1/log2(1.5)`` would exceed 1.
To keep RP in (0, 1] we cap it at 1 (any rank <= 2 earns full credit, consistent with the first two
places being equal).  Standard deviations use ``ddof = 0`` (population), the spread of the observed
datasets.
"""
from __future__ import annotations

import numpy as np

from mlbench.stats.ranks import rank_scores


def rp_from_ranks(ranks):
    """RP for each rank (array-like of ranks, 1 = best)."""
    r = np.asarray(ranks, dtype=float)
    with np.errstate(divide="ignore"):
        rp = np.where(r <= 1.0, 1.0, 1.0 / np.log2(np.maximum(r, 1.0)))
    return np.minimum(rp, 1.0)


def relative_performance(scores, greater_is_better=True):
    """RP per dataset and method from ``scores`` (datasets x methods): returns (rp, mean, std)."""
    rp = rp_from_ranks(rank_scores(scores, greater_is_better))
    return rp, rp.mean(axis=0), rp.std(axis=0)
