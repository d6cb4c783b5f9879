"""Signed label graph of an Ising model: neighbourhood selection with stability selection.

I-MTSL paper, Sections 2.1 and 3.1, Algorithm 1 lines 1-4.

* Neighbourhoods (Ravikumar, Wainwright & Lafferty, Ann. Statist. 2010; Eq. 2): for every label r,
  an l1-regularised logistic regression of y_r on the other labels coded as spins in {-1, +1}, plus
  an unpenalised intercept (a node field: multi-label data are far from the zero-field model of
  Eq. 1, and without it the edges would absorb the label frequencies).  The signs of the nonzero
  coefficients theta_rs are the signed neighbourhood of r (Eq. 3).  Eq. 2 writes "logloss" with no
  scale; ``loss`` reads it at the scale of the task problem it feeds: ``"sum"`` beside the summed
  Eq. 8 (protocol imtsl, where the [0, 5] grid of Section 5.3 runs from dense to sparse graphs) and
  ``"mean"`` beside the mean-loss Eq. 5 (protocol imtsl-paper; Ravikumar et al. also normalise the
  log-likelihood by n), where lambda above about 0.5 empties every neighbourhood, so that protocol
  searches log-spaced values.  All Q regressions are one matrix problem: the parameter
  is Theta (Q x Q, column r = regression of label r) with a zero diagonal, and the prox is
  soft-thresholding followed by zeroing the diagonal (both separable, so their composition is the
  exact prox).  The same FISTA engine solves it (Section 3.3).
* The two directions of an edge are combined by ``rule``: ``"and"`` keeps (r, s) when theta_rs and
  theta_sr are both nonzero with the same sign (the common sign is the edge's sign; opposite signs
  give no edge); ``"or"`` keeps it when either is nonzero, with the sign of theta_rs + theta_sr (no
  edge if that sum is 0).
* Stability selection (Meinshausen & Bühlmann, JRSS-B 2010): B subsamples of floor(n/2) rows drawn
  without replacement; an edge with sign s is stable when it appears with that sign in at least
  pi_thr of the B graphs.  The B subsamples are solved together as one batched problem, and the
  lambda path from largest to smallest is warm-started.
* Signed Laplacian (Kunegis et al., SDM 2010; Section 3.2): Lbar = Dbar - Ebar with
  Dbar_ii = sum_j |Ebar_ij|; it is positive semi-definite.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mlbench.methods.mtl.fista import fista
from mlbench.methods.mtl.logistic import LogisticLoss
from mlbench.methods.mtl.prox import soft_threshold

RULES = ("and", "or")


def draw_subsamples(n, n_subsamples, rng):
    """``n_subsamples`` sorted index sets of size floor(n/2), each drawn without replacement."""
    m = n // 2
    return np.stack([np.sort(rng.choice(n, size=m, replace=False)) for _ in range(n_subsamples)])


def neighbourhood_coefficients(Y, lambdas, subsamples=None, *, loss="sum", max_iter=300, tol=1e-4):
    """Theta of Eq. 2 for every lambda and subsample: array (n_lambda, B, Q, Q).

    ``out[k, b, s, r]`` is the coefficient of label s in the regression of label r, for
    ``lambdas[k]`` on rows ``subsamples[b]`` (all rows when ``subsamples`` is None, B = 1).  Also
    returns the total number of FISTA iterations and whether every solve met ``tol``.
    """
    Y = np.asarray(Y, dtype=np.float64)
    n, Q = Y.shape
    subsamples = np.arange(n)[None, :] if subsamples is None else np.asarray(subsamples)
    B, m = subsamples.shape
    # Why: label vectors repeat (yeast: ~200 distinct among ~1000 rows), and a subsample's summed
    # loss is the sum over the distinct vectors weighted by how often each occurs in it.  When there
    # are fewer distinct vectors than subsample rows, all B problems share that small design and
    # differ only in the weights: the same objective at a fraction of the cost.
    Yu, inverse = np.unique(Y, axis=0, return_inverse=True)
    if len(Yu) < m:
        counts = np.zeros((B, len(Yu)))
        np.add.at(counts, (np.repeat(np.arange(B), m), inverse.ravel()[subsamples].ravel()), 1.0)
        f = LogisticLoss(2.0 * Yu - 1.0, Yu, reduction=loss, weights=counts[:, :, None])
        freq = counts @ Yu / m                 # (B, Q) label frequencies of each subsample
    else:
        Yb = Y[subsamples]                     # (B, m, Q) responses in {0, 1}
        f = LogisticLoss(2.0 * Yb - 1.0, Yb, reduction=loss)   # predictors: spins in {-1, +1}
        freq = Yb.mean(axis=1)
    off_diag = ~np.eye(Q, dtype=bool)

    Wb = np.zeros((B, Q + 1, Q))
    # the intercepts of the empty model are the logits of the label frequencies: a warm start that
    # puts the first lambda's solve close to its answer
    p = np.clip(freq, 1e-3, 1 - 1e-3)
    Wb[:, -1, :] = np.log(p / (1 - p))
    out = np.zeros((len(lambdas), B, Q, Q))
    order = np.argsort(lambdas)[::-1]          # warm start from the sparsest graph down
    L, iters, all_converged = 1.0, 0, True
    for k in order:
        lam = float(lambdas[k])

        def prox(V, step, lam=lam):
            out_ = V.copy()
            out_[:, :-1, :] = soft_threshold(V[:, :-1, :], step * lam) * off_diag
            return out_

        res = fista(f, prox, Wb, lipschitz=L, max_iter=max_iter, tol=tol, affine=f.logits)
        Wb, L = res.x, max(res.lipschitz / 4.0, 1e-8)
        iters += res.n_iter
        all_converged &= res.converged
        out[k] = Wb[:, :-1, :]
    return out, iters, all_converged


def combine_directions(theta, rule="and"):
    """Signed edge matrices (..., Q, Q) in {-1, 0, 1}, symmetric, from directed coefficients.

    ``theta[..., s, r]`` is label s's coefficient for label r (the layout of
    :func:`neighbourhood_coefficients`).
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    S = np.sign(theta)
    St = np.swapaxes(S, -1, -2)
    if rule == "and":
        E = np.where(S == St, S, 0.0)
    else:
        E = np.sign(theta + np.swapaxes(theta, -1, -2))
    Q = theta.shape[-1]
    E[..., np.arange(Q), np.arange(Q)] = 0.0
    return E


def stable_edges(freq_pos, freq_neg, pi_thr):
    """Ebar: +1 where the positive edge's frequency reaches ``pi_thr``, -1 for the negative one
    (the more frequent sign when both reach it; neither on a tie)."""
    pos = (freq_pos >= pi_thr) & (freq_pos > freq_neg)
    neg = (freq_neg >= pi_thr) & (freq_neg > freq_pos)
    return pos.astype(np.float64) - neg.astype(np.float64)


def signed_laplacian(E):
    """Lbar = Dbar - Ebar, Dbar_ii = sum_j |Ebar_ij| (Section 3.2)."""
    E = np.asarray(E, dtype=np.float64)
    return np.diag(np.abs(E).sum(axis=1)) - E


@dataclass
class StructurePath:
    """Selection frequencies of positive and negative edges for every lambda: (n_lambda, Q, Q)."""

    lambdas: tuple
    freq_pos: np.ndarray
    freq_neg: np.ndarray
    n_subsamples: int
    n_iter: int
    converged: bool

    def edges(self, k, pi_thr):
        return stable_edges(self.freq_pos[k], self.freq_neg[k], pi_thr)


def stability_path(Y, lambdas, n_subsamples, rng, *, rule="and", loss="sum", max_iter=300, tol=1e-4):
    """Stability selection of signed edges along ``lambdas`` on ``n_subsamples`` halves of Y."""
    Y = np.asarray(Y)
    subs = draw_subsamples(Y.shape[0], n_subsamples, rng)
    theta, iters, conv = neighbourhood_coefficients(Y, lambdas, subs, loss=loss, max_iter=max_iter,
                                                    tol=tol)
    E = combine_directions(theta, rule)        # (n_lambda, B, Q, Q)
    return StructurePath(tuple(float(v) for v in lambdas), (E > 0).mean(axis=1),
                         (E < 0).mean(axis=1), n_subsamples, iters, conv)
