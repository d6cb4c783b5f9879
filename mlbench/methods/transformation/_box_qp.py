"""Binary quadratic programs of output coding, solved approximately when 2^L is too many to list.

MMOC's two inference problems (loss-augmented inference while learning the metric, and decoding)
are, for every row n, the same binary quadratic program

    min_{y in {0,1}^L}  f_n(y) = c_n . y + lam (y - p_n)^T Q (y - p_n),      Q positive semi-definite,

with a row-specific linear term c_n and point p_n.  Because Q is PSD, f_n is convex in y, so its
relaxation to the box [0, 1]^L is a convex QP (:func:`relaxed_minimise`, accelerated projected
gradient, Beck & Teboulle 2009).  Its minimum is a lower bound on the binary one, so a relaxed
minimiser that is already 0/1 is the exact binary answer.  This is the "overgenerating" relaxation
that Finley & Joachims (ICML 2008, "Training structural SVMs when exact inference is intractable")
propose for structural max-margin training and that Zhang & Schneider use for MMOC (ICML 2012,
Sec. 4): the fractional maximiser is used as the most violated constraint.  For a 0/1 answer
(decoding), the relaxed minimiser is rounded and then improved by best-improvement single flips
(:func:`flip_descent`) until no flip lowers f: a 1-flip local optimum, never worse than the rounding.
"""
from __future__ import annotations

import numpy as np


def relaxed_minimise(C, P, Q, lam, n_iter=200, tol=1e-7, start=None):
    """argmin over y in [0,1]^L of ``C[n] . y + lam (y - P[n])^T Q (y - P[n])`` for every row n.

    FISTA with the constant step 1 / (2 lam lambda_max(Q)) (the gradient's Lipschitz constant);
    stops when no coordinate moves more than ``tol`` in an iteration.  ``start`` (n x L, default
    P clipped to the box) warm-starts it, e.g. from the previous metric's solution.  With
    lam * lambda_max(Q) = 0
    the objective is linear and the minimiser is the 0/1 vector ``C < 0``.
    """
    C = np.asarray(C, dtype=np.float64)
    lip = 2.0 * float(lam) * float(np.linalg.eigvalsh((Q + Q.T) / 2).max(initial=0.0))
    if lip <= 1e-12:
        return (C < 0).astype(np.float64)
    step = 1.0 / lip
    PQ = P @ Q
    y = np.clip(P if start is None else start, 0.0, 1.0)
    z, t = y.copy(), 1.0
    for _ in range(int(n_iter)):
        grad = C + 2.0 * lam * (z @ Q - PQ)
        y_new = np.clip(z - step * grad, 0.0, 1.0)
        t_new = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        z = y_new + ((t - 1.0) / t_new) * (y_new - y)
        moved = np.abs(y_new - y).max(initial=0.0)
        y, t = y_new, t_new
        if moved < tol:
            break
    return y


def flip_gains(C, P, Q, lam, Y, G=None, PQ=None):
    """k[n, i] = f_n(y with y_i = 1) - f_n(y with y_i = 0), the other labels as in ``Y`` (0/1).

    For 0/1 vectors y_i^2 = y_i, so f_n is linear in each y_i with slope
    k_i = c_i + lam (Q_ii + 2 sum_{j != i} Q_ij y_j - 2 (Q p)_i).  ``G`` = Y Q and ``PQ`` = P Q
    when already known.
    """
    G = Y @ Q if G is None else G
    PQ = P @ Q if PQ is None else PQ
    diag = np.diag(Q)
    return C + lam * (diag + 2.0 * (G - diag * Y) - 2.0 * PQ)


def flip_descent(C, P, Q, lam, Y0, max_sweeps=None):
    """Best-improvement single flips from ``Y0`` (0/1, n x L) until no flip lowers any row's f.

    Each flip lowers f strictly, so the walk ends; ``max_sweeps`` (default 10 L) only guards
    against numerical cycling.  Returns the 0/1 matrix (float) and the final gains of
    :func:`flip_gains` (so callers reuse them).
    """
    Y = np.array(Y0, dtype=np.float64)
    n, L = Y.shape
    G, PQ = Y @ Q, P @ Q
    rows = np.arange(n)
    for _ in range(10 * L if max_sweeps is None else int(max_sweeps)):
        k = flip_gains(C, P, Q, lam, Y, G, PQ)
        delta = (1.0 - 2.0 * Y) * k                      # change of f if label i is flipped
        best = delta.argmin(axis=1)
        improve = delta[rows, best] < -1e-12
        if not improve.any():
            return Y, k
        r, i = rows[improve], best[improve]
        sign = 1.0 - 2.0 * Y[r, i]
        Y[r, i] += sign
        G[r] += sign[:, None] * Q[i]
    return Y, flip_gains(C, P, Q, lam, Y, G, PQ)
