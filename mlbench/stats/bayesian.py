"""Bayesian signed-rank test (Benavoli, Corani, Demšar & Zaffalon, "Time for a Change: a Tutorial
for Comparing Multiple Classifiers Through Bayesian Analysis", JMLR 18, 2017, section 5).

The differences ``z_1..z_n`` (control minus other, oriented so that positive = control better) over
datasets get a Dirichlet-process prior ``DP(s, delta_{z_0})`` with one pseudo-observation ``z_0 = 0``
of weight ``s`` (the prior strength, 0.5 by default as in the paper).  The posterior weights are
``w ~ Dirichlet(s, 1, ..., 1)`` over ``(z_0, z_1, ..., z_n)``, and for each posterior sample

    theta_left  = sum_ij w_i w_j [z_i + z_j < -2 r]      (other better)
    theta_rope  = sum_ij w_i w_j [|z_i + z_j| <= 2 r]    (practically equivalent)
    theta_right = sum_ij w_i w_j [z_i + z_j >  2 r]      (control better)

with ``r`` the half-width of the region of practical equivalence (rope), in the units of the metric.
We report the posterior probability that each region is the most probable (the share of Monte-Carlo
samples in which its theta is the largest), as the paper does.  The rope defaults to 0.01, i.e. one
point of a metric in [0, 1]; choose another with ``--rope`` for metrics on other scales (coverage,
CLL-loss).  ``n_samples`` draws from ``random_state`` make the result reproducible.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from mlbench.errors import MlbenchError

DEFAULT_ROPE = 0.01
DEFAULT_PRIOR = 0.5
DEFAULT_SAMPLES = 50_000


@dataclass(frozen=True)
class BayesResult:
    """Posterior probabilities that the control is better, equivalent (rope) or worse."""

    p_control_better: float
    p_rope: float
    p_control_worse: float
    rope: float
    prior_strength: float
    n_samples: int
    seed: object


def posterior_samples(control, other, greater_is_better=True, rope=DEFAULT_ROPE,
                      prior_strength=DEFAULT_PRIOR, n_samples=DEFAULT_SAMPLES, random_state=0):
    """Posterior samples (n_samples, 3) of (theta_right, theta_rope, theta_left): control better,
    practically equivalent, other better (see the module docstring)."""
    a = np.asarray(control, dtype=float)
    b = np.asarray(other, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or np.isnan(a).any() or np.isnan(b).any():
        raise MlbenchError("the Bayesian signed-rank test needs two complete paired vectors of scores")
    if a.size < 2:
        raise MlbenchError(f"the Bayesian signed-rank test needs at least two datasets (got {a.size})")
    if rope < 0:
        raise MlbenchError(f"the rope must be non-negative (got {rope})")
    z = np.concatenate(([0.0], a - b if greater_is_better else b - a))
    sums = z[:, None] + z[None, :]
    right = (sums > 2 * rope).astype(float)
    left = (sums < -2 * rope).astype(float)
    rng = check_random_state(random_state)
    w = rng.dirichlet(np.concatenate(([prior_strength], np.ones(a.size))), size=n_samples)
    theta_right = np.einsum("si,ij,sj->s", w, right, w)
    theta_left = np.einsum("si,ij,sj->s", w, left, w)
    theta_rope = 1.0 - theta_right - theta_left
    return np.column_stack([theta_right, theta_rope, theta_left])


def bayesian_signed_rank(control, other, greater_is_better=True, rope=DEFAULT_ROPE,
                         prior_strength=DEFAULT_PRIOR, n_samples=DEFAULT_SAMPLES, random_state=0):
    """The Bayesian signed-rank test of ``control`` against ``other`` (paired over datasets)."""
    theta = posterior_samples(control, other, greater_is_better, rope, prior_strength, n_samples,
                              random_state)
    counts = np.bincount(np.argmax(theta, axis=1), minlength=3) / n_samples
    return BayesResult(float(counts[0]), float(counts[1]), float(counts[2]), float(rope),
                       float(prior_strength), int(n_samples), random_state)
