"""Mixture-of-CTBN numerics: component log-likelihoods and annealed MAP search.

MC (Eq. 5) defines P(y | x) = sum_k lambda_k P(y | x, T_k).  The components are stacked as arrays:
``A`` (K, n, L) node logits with the parent off, ``D`` (K, n, L) their change when the parent is on
(see :mod:`._tree`), ``parent`` (K, L) parent labels (-1 for roots) and ``log_lambda`` (K,).

Two hot loops run in Cython (``mlbench._ext._mc``, nogil): the (n, K) component log-likelihoods of
given label vectors (the E-step of Algorithm 1, Eq. 8, and every likelihood evaluation) and the
simulated-annealing MAP search of section 5.4.  The NumPy functions here are the reference the
tests hold the kernels to; :func:`component_loglik` and :func:`anneal` use the kernel when it is
built and fall back to the reference otherwise.

Annealing (Yuan, Lu & Druzdzel 2004, as used in section 5.4): a Markov chain over label vectors whose
moves flip one label.  At step t the flip of label ``flips[t]`` changes the mixture log-probability
by delta; it is accepted when delta >= 0 or ``u[t] < exp(delta / temps[t])``.  The best vector
visited is returned.  The random draws are made by the caller (NumPy generator) and passed in, so
kernel and reference see the same chain and a seed fixes the result.
"""
from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from mlbench.methods.probabilistic._tree import tree_loglik

try:  # the compiled kernel; built by setup.py from mlbench/_ext/_mc.pyx
    from mlbench._ext import _mc as _kernel
except ImportError:  # pragma: no cover - only when the extension has not been built
    _kernel = None


def component_loglik_numpy(A, D, parent, Y):
    """log P(y_n | x_n, T_k) as an (n, K) array (reference implementation)."""
    return np.stack([tree_loglik(A[k], D[k], parent[k], Y) for k in range(A.shape[0])], axis=1)


def mixture_loglik_numpy(A, D, parent, log_lambda, Y):
    """log P(y_n | x_n) under the mixture (Eq. 5), shape (n,)."""
    return logsumexp(component_loglik_numpy(A, D, parent, Y) + log_lambda, axis=1)


def anneal_numpy(A, D, parent, log_lambda, Y0, flips, u, temps):
    """Annealed MAP search from ``Y0`` (reference); returns ``(best Y (n, L) int8, best score (n,))``."""
    n, L = Y0.shape
    Y = np.array(Y0, dtype=np.int8, copy=True)
    cur = mixture_loglik_numpy(A, D, parent, log_lambda, Y)
    bestY = Y.copy()
    best = cur.copy()
    rows = np.arange(n)
    for t in range(len(temps)):
        j = flips[:, t]
        Y[rows, j] ^= 1
        new = mixture_loglik_numpy(A, D, parent, log_lambda, Y)
        delta = new - cur
        with np.errstate(over="ignore"):
            accept = (delta >= 0) | (u[:, t] < np.exp(np.minimum(delta, 0.0) / temps[t]))
        Y[rows[~accept], j[~accept]] ^= 1
        cur = np.where(accept, new, cur)
        better = accept & (cur > best)
        best[better] = cur[better]
        bestY[better] = Y[better]
    return bestY, best


def _prep(A, D, parent, Y):
    """Contiguous arrays for the kernel, whose loops trust these shapes and parent indices."""
    A = np.ascontiguousarray(A, dtype=np.float64)
    D = np.ascontiguousarray(D, dtype=np.float64)
    parent = np.ascontiguousarray(parent, dtype=np.intp)
    Y = np.ascontiguousarray(Y, dtype=np.int8)
    K, n, L = A.shape
    if D.shape != A.shape or parent.shape != (K, L) or Y.shape != (n, L):
        raise ValueError(f"mixture arrays disagree: A {A.shape}, D {D.shape}, parent {parent.shape}, "
                         f"Y {Y.shape}")
    if parent.size and (parent.min() < -1 or parent.max() >= L):
        raise ValueError("parent labels must lie in -1 .. L-1")
    return A, D, parent, Y


def component_loglik(A, D, parent, Y):
    """(n, K) component log-likelihoods; the Cython kernel when built."""
    if _kernel is None:
        return component_loglik_numpy(A, D, parent, Y)
    return np.asarray(_kernel.component_loglik(*_prep(A, D, parent, Y)))


def mixture_loglik(A, D, parent, log_lambda, Y):
    """log P(y_n | x_n) under the mixture, shape (n,)."""
    return logsumexp(component_loglik(A, D, parent, Y) + log_lambda, axis=1)


def anneal(A, D, parent, log_lambda, Y0, flips, u, temps):
    """Annealed MAP search; the Cython kernel when built."""
    if _kernel is None:
        return anneal_numpy(A, D, parent, log_lambda, Y0, flips, u, temps)
    A, D, parent, Y0 = _prep(A, D, parent, Y0)
    flips = np.ascontiguousarray(flips, dtype=np.intp)
    u = np.ascontiguousarray(u, dtype=np.float64)
    temps = np.ascontiguousarray(temps, dtype=np.float64)
    log_lambda = np.ascontiguousarray(log_lambda, dtype=np.float64)
    steps = (A.shape[1], len(temps))
    if flips.shape != steps or u.shape != steps or log_lambda.shape != (A.shape[0],):
        raise ValueError(f"annealing draws disagree: flips {flips.shape}, u {u.shape}, "
                         f"{len(temps)} temperatures, {A.shape[1]} rows, {A.shape[0]} components")
    if flips.size and (flips.min() < 0 or flips.max() >= A.shape[2]):
        raise ValueError("flips must hold label indices in 0 .. L-1")
    Y, score = _kernel.anneal(A, D, parent, log_lambda, Y0, flips, u, temps)
    return np.asarray(Y), np.asarray(score)


def temperatures(n_iter, t0=1.0, t_end=0.01):
    """Geometric cooling schedule from ``t0`` to ``t_end`` over ``n_iter`` steps."""
    if n_iter <= 1:
        return np.full(max(n_iter, 0), float(t0))
    return t0 * (t_end / t0) ** (np.arange(n_iter) / (n_iter - 1))
