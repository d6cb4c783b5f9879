"""Proximal operators, one per regulariser, and the projection CMTL needs.

prox_{t g}(V) = argmin_X g(X) + ||X - V||_F^2 / (2 t).

* ``soft_threshold``: g = ||X||_1, element-wise (|v| - t)_+ sgn(v) (I-MTSL paper, Eq. 7).
* ``singular_value_threshold``: g = ||X||_* (trace norm), U diag((s - t)_+) V^T for V = U diag(s) V^T
  (Cai, Candès & Shen 2010; the operator of Ji & Ye 2009, Theorem 3.1).
* ``group_soft_threshold``: g = sum_i ||X_i,:||_2 (the l2,1 norm over rows, i.e. over features
  shared by all tasks), each row scaled by (1 - t / ||v_i||)_+.
* ``project_capped_simplex`` / ``project_cmtl_set``: Euclidean projection of a symmetric Q x Q matrix
  onto {M : tr M = k, 0 <= M <= I} (Zhou, Chen & Ye 2011, the convex relaxation of clustered MTL): the
  eigenvalues are projected onto {mu : sum mu = k, 0 <= mu_i <= 1}, the eigenvectors kept.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg


def soft_threshold(V, t):
    """Element-wise soft-thresholding (Eq. 7): the prox of ``t * ||.||_1``.

    Written as V - clip(V, -t, t) (= sign(V) max(|V| - t, 0), exactly 0 where |V| <= t): two passes
    over the array instead of four, which matters for the Q x Q x B structure problems.
    """
    V = np.asarray(V, dtype=np.float64)
    return V - np.clip(V, -t, t)


def singular_value_threshold(V, t):
    """The prox of ``t * ||.||_*``: shrink every singular value of the matrix ``V`` by ``t``."""
    if t <= 0:
        return np.array(V, dtype=np.float64, copy=True)
    U, s, Vt = scipy.linalg.svd(V, full_matrices=False, lapack_driver="gesdd", check_finite=False)
    s = np.maximum(s - t, 0.0)
    keep = s > 0
    return (U[:, keep] * s[keep]) @ Vt[keep]


def group_soft_threshold(V, t):
    """The prox of ``t * sum_i ||V[i, :]||_2``: each row shrunk towards zero by ``t`` in norm."""
    norms = np.sqrt(np.einsum("ij,ij->i", V, V))
    scale = np.zeros_like(norms)
    keep = norms > t                    # rows with norm <= t go to zero (no division by tiny norms)
    scale[keep] = 1.0 - t / norms[keep]
    return V * scale[:, None]


def project_capped_simplex(v, k):
    """Euclidean projection of the vector ``v`` onto {mu : sum(mu) = k, 0 <= mu <= 1}.

    The solution is mu_i = clip(v_i - theta, 0, 1) with theta the root of the non-increasing piecewise
    linear function sum_i clip(v_i - theta, 0, 1) - k; its breakpoints are v_i and v_i - 1, so theta
    is found exactly by sorting them and interpolating on the bracketing segment.
    """
    v = np.asarray(v, dtype=np.float64)
    if not 0 <= k <= v.size:
        raise ValueError(f"k must be in [0, {v.size}], got {k}")

    knots = np.unique(np.concatenate([v, v - 1.0]))
    # excess(theta) = sum_i clip(v_i - theta, 0, 1) - k at every knot, non-increasing in theta
    vals = np.clip(v[None, :] - knots[:, None], 0.0, 1.0).sum(axis=1) - k
    if vals[0] < 0:  # only possible through rounding when k == v.size
        return np.ones_like(v)
    j = np.searchsorted(-vals, 0.0, side="left")  # first knot with excess <= 0
    if j >= knots.size:
        return np.clip(v - knots[-1], 0.0, 1.0)
    if vals[j] == 0 or j == 0:
        theta = knots[j]
    else:  # linear between knots j-1 (excess > 0) and j (excess < 0)
        a, b = knots[j - 1], knots[j]
        fa, fb = vals[j - 1], vals[j]
        theta = a + (b - a) * fa / (fa - fb)
    return np.clip(v - theta, 0.0, 1.0)


def project_cmtl_set(M, k):
    """Projection of the symmetric part of ``M`` onto {tr M = k, 0 <= M <= I} (eigen-decomposition)."""
    S = 0.5 * (M + M.T)
    mu, U = scipy.linalg.eigh(S, check_finite=False)
    mu = project_capped_simplex(mu, k)
    return (U * mu) @ U.T
