"""The sparse Hellinger loss of SOSHF and its Adam solver (Daniels & Metaxas, AAAI 2019).

This module is the pure NumPy *reference*; ``mlbench._ext._soshf.adam_hellinger`` is the nogil Cython
kernel the forests use, tested equal to :func:`adam_reference` (tests/methods/test_soshf_hellinger.py).

Definitions (node data ``X`` of shape (N, P) whose last column is all ones, cluster labels
``y`` in {-1, +1}, weights ``w`` with the bias last):

* soft assignment, eq. 3: ``phi = (tanh(alpha X w) + 1) / 2``; its gradient, eq. 4:
  ``alpha X^T sech^2(alpha X w) / 2``;
* soft rates, eq. 5: ``tpr = sum_{y=1} phi / N+``, ``fpr = sum_{y=-1} phi / N-``,
  ``1-tpr = sum_{y=1} (1 - phi) / N+``, ``1-fpr = sum_{y=-1} (1 - phi) / N-`` (the complements are
  summed directly, as eq. 5 writes them, rather than computed as ``1 - tpr``);
* Hellinger distance, eq. 2, and the loss, eq. 6: ``L = -d_H^2(tpr, fpr)``;
  gradient, eq. 7 (derived again in :func:`hellinger_loss_grad`);
* smooth l1 penalty, eq. 8 (Schmidt, Fung & Rosales 2007):
  ``Phi(w) = sum (1/eta) [log(1 + exp(-eta w)) + log(1 + exp(eta w))]``.  The paper prints a minus
  between the two logarithms, which makes Phi identically ``-sum w`` (not a penalty at all); the
  smooth l1 of the cited source has a plus, which we use.  Its gradient is ``tanh(eta w / 2)``.
  The bias is not penalised (the penalty asks for sparse *feature* weights);
* eq. 9: minimise ``L + gamma Phi``; eq. 10: ``gamma = rho d_H^2 / ||w||_1`` after stage 1 with
  ``rho = min(log(1 + features / node instances), 0.4)``.

Choices the paper leaves open, made here and used identically by the Cython kernel:

* one *iteration* is one Adam step on one mini-batch; each stage runs ``n_iter`` iterations
  (default 120: the alpha schedule 0.1 * 1.5^(k // 10) reaches its cap 4 at iteration 100);
* the alpha schedule and Adam's moments restart at each of the two stages;
* mini-batches: ``ceil(N / batch_size)`` near-equal slices of a fresh permutation per pass;
  a batch without both clusters gives no step;
* the four soft rates are clipped below at ``1e-12`` so eq. 7's square-root denominators stay finite.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.linalg

#: lower clip of the soft rates (eq. 5) so the square roots of eq. 7 can be divided by
RATE_FLOOR = 1e-12


def alpha_at(it, alpha0=0.1, growth=1.5, every=10, alpha_max=4.0):
    """Sigmoid sharpness at iteration ``it`` (0-based): ``min(alpha0 * growth^(it // every), alpha_max)``."""
    return min(alpha0 * growth ** (it // every), alpha_max)


def soft_rates(z, pos, alpha):
    """Soft tpr, fpr, 1-tpr, 1-fpr of eq. 5 from margins ``z = X w`` and the boolean mask ``pos``."""
    t = np.tanh(alpha * z)
    phi = (t + 1.0) / 2.0
    psi = (1.0 - t) / 2.0
    n_pos = pos.sum()
    n_neg = pos.size - n_pos
    rates = (phi[pos].sum() / n_pos, phi[~pos].sum() / n_neg,
             psi[pos].sum() / n_pos, psi[~pos].sum() / n_neg)
    return tuple(max(r, RATE_FLOOR) for r in rates)


def hellinger_sq(tpr, fpr, ntpr, nfpr):
    """Squared Hellinger distance of eq. 2 from the four (soft) rates."""
    return (math.sqrt(tpr) - math.sqrt(fpr)) ** 2 + (math.sqrt(ntpr) - math.sqrt(nfpr)) ** 2


def hellinger_loss_grad(w, X, pos, alpha):
    """Hellinger loss (eq. 6) and its gradient (eq. 7) on the rows of ``X``.

    With ``a, b, c, e = sqrt(tpr), sqrt(fpr), sqrt(1-tpr), sqrt(1-fpr)``:
    ``dL/dtpr = (b - a)/a + (c - e)/c`` and ``dL/dfpr = (a - b)/b + (e - c)/e``; the rates move with
    ``w`` through eq. 4, ``d tpr / dw = sum_{y=1} alpha x sech^2(alpha x w) / 2 / N+`` (and likewise
    for fpr), which is eq. 7 term by term.
    """
    z = X @ w
    tpr, fpr, ntpr, nfpr = soft_rates(z, pos, alpha)
    a, b, c, e = math.sqrt(tpr), math.sqrt(fpr), math.sqrt(ntpr), math.sqrt(nfpr)
    d_tpr = (b - a) / a + (c - e) / c
    d_fpr = (a - b) / b + (e - c) / e
    n_pos = pos.sum()
    n_neg = pos.size - n_pos
    sech2 = 1.0 - np.tanh(alpha * z) ** 2
    coef = 0.5 * alpha * sech2 * np.where(pos, d_tpr / n_pos, d_fpr / n_neg)
    return -hellinger_sq(tpr, fpr, ntpr, nfpr), X.T @ coef


def smooth_l1(w, eta):
    """Eq. 8 (with the plus sign of Schmidt et al.) and its gradient, written to avoid overflow."""
    a = np.abs(eta * w)
    value = float(np.sum(a + 2.0 * np.log1p(np.exp(-a))) / eta)
    return value, np.tanh(eta * w / 2.0)


def batch_bounds(n, batch_size):
    """Start offsets of the ``ceil(n / batch_size)`` near-equal mini-batches of a pass (length k + 1)."""
    k = max(1, -(-n // batch_size))
    return np.array([(b * n) // k for b in range(k + 1)], dtype=np.intp)


def draw_permutations(rng, n, n_iter, batch_size):
    """One fresh permutation of the node's rows per pass that ``n_iter`` iterations need.

    A node that fits in one batch gets the identity only: a full-batch gradient does not depend on
    the order of the rows, so reshuffling would cost time (and random draws) for nothing.  Passes
    beyond the drawn permutations reuse them cyclically (``pass % len(perms)``).
    """
    k = len(batch_bounds(n, batch_size)) - 1
    if k == 1:
        return np.arange(n, dtype=np.intp)[None, :]
    n_pass = -(-n_iter // k)
    return np.ascontiguousarray(np.stack([rng.permutation(n) for _ in range(n_pass)]), dtype=np.intp)


def adam_reference(X, pos, w, perms, bounds, n_iter, *, gamma=0.0, eta=1e6, lr=0.05,
                   beta1=0.9, beta2=0.999, eps=1e-8, alpha0=0.1, growth=1.5, every=10,
                   alpha_max=4.0):
    """One stage of the SOSHF optimisation (eq. 9) by Adam (Kingma & Ba 2015); returns the new ``w``.

    ``pos`` is the boolean mask of cluster +1; ``perms``/``bounds`` fix the mini-batches (see
    :func:`draw_permutations`, :func:`batch_bounds`).  The last entry of ``w`` is the unpenalised bias.
    """
    w = np.array(w, dtype=np.float64)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    k = len(bounds) - 1
    steps = 0
    for it in range(n_iter):
        rows = perms[(it // k) % len(perms), bounds[it % k]:bounds[it % k + 1]]
        p = pos[rows]
        if p.all() or not p.any():
            continue
        alpha = alpha_at(it, alpha0, growth, every, alpha_max)
        _, g = hellinger_loss_grad(w, X[rows], p, alpha)
        if gamma > 0.0:
            g[:-1] += gamma * smooth_l1(w[:-1], eta)[1]
        steps += 1
        m = beta1 * m + (1.0 - beta1) * g
        v = beta2 * v + (1.0 - beta2) * g * g
        m_hat = m / (1.0 - beta1 ** steps)
        v_hat = v / (1.0 - beta2 ** steps)
        w -= lr * m_hat / (np.sqrt(v_hat) + eps)
    return w


def least_squares_init(X, y):
    """Stage-0 weights: the minimum-norm least-squares solution of ``X w = y``, ``y`` in {-1, 1}.

    LAPACK ``gelsy`` (complete orthogonal factorisation) gives the same minimum-norm solution as the
    SVD driver, rank-deficient nodes included, about three times faster.
    """
    return scipy.linalg.lstsq(X, y.astype(np.float64), lapack_driver="gelsy", check_finite=False)[0]


def sparsity_rho(n_features, n_rows, rho_max=0.4):
    """The paper's heuristic ``rho = min(log(1 + features / node instances), 0.4)``."""
    return min(math.log1p(n_features / n_rows), rho_max)


def fit_hellinger_split(X, pos, rng, *, n_iter=120, batch_size=1000, lr=0.05, eta=1e6,
                        alpha0=0.1, growth=1.5, every=10, alpha_max=4.0, backend="cython"):
    """Learn the oblique split of one node: least squares, stage 1 (loss), eq. 10, stage 2 (loss + penalty).

    ``X`` (N, P) holds the node's features *without* the bias column; ``pos`` marks cluster +1.
    Returns ``w`` of length P + 1 (bias last); an instance goes right when ``[x, 1] . w >= 0``.
    ``backend`` is ``"cython"`` (the nogil kernel), ``"numpy"`` (this module's reference) or
    ``"sparse"``: the Cython kernel on the node's nonzero entries only (:func:`_nonzero_columns`).

    ``sparse`` solves the same problem: a column that is zero on every row of the node gets weight
    0 in the minimum-norm least-squares solution, its loss gradient (eq. 7) is 0, so stage 1 leaves
    it at 0, and so does stage 2 (the gradient of eq. 8 at 0 is 0).  Those columns are therefore
    left out and given weight exactly 0, the rest are solved in CSR form; eq. 10's rho still counts
    all P features.  Only the rounding differs from ``cython`` (sums in another order, a smaller
    least-squares problem): node weights agree to about 1e-9 (tests/methods/test_soshf_hellinger.py),
    whole forests in distribution, as ``numpy`` and ``cython`` do (see benchmarks/bench_soshf.py).
    """
    n, p = X.shape
    cols = _nonzero_columns(X) if backend == "sparse" else None
    Xw = X if cols is None else X[:, cols]
    q = Xw.shape[1]
    X1 = np.empty((n, q + 1), dtype=np.float64)
    X1[:, :q] = Xw
    X1[:, q] = 1.0
    y = np.where(pos, 1.0, -1.0)
    w = least_squares_init(X1, y)
    bounds = batch_bounds(n, batch_size)
    sched = dict(alpha0=alpha0, growth=growth, every=every, alpha_max=alpha_max)
    if backend == "cython":
        from mlbench._ext._soshf import adam_hellinger

        def stage(w, perms, gamma):
            return adam_hellinger(X1, pos.astype(np.int8), w, perms, bounds, n_iter, gamma=gamma,
                                  eta=eta, lr=lr, **sched)
    elif backend == "sparse":
        from scipy import sparse

        from mlbench._ext._soshf import adam_hellinger_sparse

        X1s = sparse.csr_matrix(X1)

        def stage(w, perms, gamma):
            return adam_hellinger_sparse(X1s, pos.astype(np.int8), w, perms, bounds, n_iter,
                                         gamma=gamma, eta=eta, lr=lr, **sched)
    elif backend == "numpy":
        def stage(w, perms, gamma):
            return adam_reference(X1, pos, w, perms, bounds, n_iter, gamma=gamma, eta=eta, lr=lr,
                                  **sched)
    else:
        raise ValueError(f"backend must be 'cython', 'sparse' or 'numpy', got {backend!r}")
    w = stage(w, draw_permutations(rng, n, n_iter, batch_size), 0.0)
    d2 = hellinger_sq(*soft_rates(X1 @ w, pos, alpha_at(n_iter - 1, **sched)))
    l1 = float(np.abs(w[:-1]).sum())
    gamma = sparsity_rho(p, n) * d2 / l1 if l1 > 0 else 0.0
    w = stage(w, draw_permutations(rng, n, n_iter, batch_size), gamma)
    if cols is None:
        return w
    full = np.zeros(p + 1)
    full[cols] = w[:-1]
    full[p] = w[-1]
    return full


def _nonzero_columns(X):
    """Indices of the columns of ``X`` with a nonzero entry."""
    return np.flatnonzero((X != 0).any(axis=0))
