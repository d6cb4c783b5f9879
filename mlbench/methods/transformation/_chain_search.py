"""Approximate inference in probabilistic classifier chains when 2^L label vectors are too many.

A chain (:class:`mlbench.methods.transformation.pcc._Chain`) factorises
P(y | x) = prod_j P(y_{o_j} | x, y_{o_1..o_{j-1}}) with logistic factors.  Two questions need more
than one greedy pass:

* the joint mode argmax_y P(y | x) (subset 0/1 loss): :func:`beam_search` keeps, position by
  position, the ``width`` most probable prefixes of every row (Kumar, Vembu, Menon & Elkan, "Beam
  search algorithms for multilabel learning", Machine Learning 92, 2013).  Width 1 is the greedy
  chain; a width of 2^L keeps every prefix and is exact.  For a mixture of chains (EPCC),
  :func:`mixture_mode` pools every chain's beam and scores each candidate exactly under the
  mixture, returning the best candidate found (Kumar et al. Sec. 4 use the same pooled candidates);
* the marginals P(y_i = 1 | x): :func:`sampled_marginals` draws label vectors by ancestral
  sampling down the chain (exact in expectation; Dembczynski, Cheng & Huellermeier, ICML 2010,
  Sec. 6, and Mena et al., "An overview of inference methods in probabilistic classifier chains",
  2015), with a fixed seed so the same model gives the same scores.
"""
from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from mlbench.methods.components.logistic import log_sigmoid


def beam_search(chain, X, width):
    """The ``width`` most probable label vectors of every row found by beam search.

    Returns (vectors, log-probabilities): shapes (n, b, L) in LABEL order (0/1 int8) and (n, b),
    best first, with b = min(width, 2^L).  Prefixes are extended one chain position at a time and
    only the ``width`` most probable survive (ties broken towards the earlier candidate).
    """
    A = np.asarray(X @ chain.coef.T) + chain.intercept           # (n, L) position order
    n, L = A.shape
    prefixes = np.zeros((n, 1, 0), dtype=np.int8)
    logp = np.zeros((n, 1))
    for j in range(L):
        z = A[:, j, None] + prefixes @ chain.lcoef[j, :j]          # (n, b)
        b = prefixes.shape[1]
        ext = np.concatenate([np.repeat(prefixes, 2, axis=1),
                              np.tile(np.array([0, 1], dtype=np.int8), b)[None, :, None]
                              .repeat(n, axis=0)], axis=2)         # (n, 2b, j+1)
        lp = np.stack([logp + log_sigmoid(-z), logp + log_sigmoid(z)], axis=2).reshape(n, 2 * b)
        keep = np.argsort(-lp, axis=1, kind="stable")[:, :int(width)]
        prefixes = np.take_along_axis(ext, keep[:, :, None], axis=1)
        logp = np.take_along_axis(lp, keep, axis=1)
    out = np.empty_like(prefixes)
    out[:, :, chain.order] = prefixes                              # position j holds label order[j]
    return out, logp


def mixture_mode(chains, X, width):
    """Best label vector under the equal-weight mixture of ``chains`` among all their beams.

    Every candidate of every chain's beam is scored by log (1/K) sum_k P_k(y | x); returns the
    best candidate per row (n, L) and its mixture log-probability (n,).
    """
    cands = np.concatenate([beam_search(c, X, width)[0] for c in chains], axis=1)   # (n, B, L)
    n, B, L = cands.shape
    flat = cands.reshape(n * B, L)
    Xr = X[np.repeat(np.arange(n), B)]
    J = np.stack([c.loglik(Xr, flat) for c in chains]).reshape(len(chains), n, B)
    mix = logsumexp(J, axis=0) - np.log(len(chains))
    best = mix.argmax(axis=1)
    return cands[np.arange(n), best].astype(int), mix[np.arange(n), best]


def sampled_marginals(chains, X, n_samples, seed):
    """Monte Carlo marginals P(y_i = 1 | x) of the equal-weight mixture of ``chains``.

    ``n_samples`` label vectors per row by ancestral sampling, split evenly over the chains (each
    chain's factors sampled in its order from one seeded stream); shape (n, L).
    """
    rng = np.random.RandomState(seed)
    n = X.shape[0]
    per_chain = max(1, int(n_samples) // len(chains))
    total = np.zeros((n, chains[0].coef.shape[0]))
    for c in chains:
        A = np.asarray(X @ c.coef.T) + c.intercept
        L = A.shape[1]
        S = np.zeros((n, per_chain, L))
        for j in range(L):
            z = A[:, j, None] + S[:, :, :j] @ c.lcoef[j, :j]
            S[:, :, j] = rng.random_sample((n, per_chain)) < np.exp(log_sigmoid(z))
        total[:, c.order] += S.mean(axis=1)
    return total / len(chains)
