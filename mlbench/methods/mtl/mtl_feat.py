"""Convex multi-task feature learning (MTL-FEAT), with the logistic loss.

Argyriou, Evgeniou & Pontil, "Convex multi-task feature learning", Machine Learning 73(3), 2008.
The tasks share a low-dimensional set of features; the convex problem (their Eq. 3.4, with the
epsilon-perturbation of Section 4.1 that makes it strictly convex) is

    min_{W,b,D}  (1/n) sum_q sum_i logloss(y_iq, x_i^T w_q + b_q)
                 + gamma tr(W^T D^{-1} W) + gamma epsilon tr(D^{-1}),   D > 0, tr(D) <= 1,

equivalent to the squared trace norm gamma ||W||_*^2 as epsilon -> 0.  It is solved by their
Algorithm 1, alternating minimisation:

* D-step (closed form, their Eq. 4.5/Theorem 4.1):
  D = (W W^T + epsilon I)^{1/2} / tr((W W^T + epsilon I)^{1/2});
* W-step: Q independent problems loss + gamma w^T D^{-1} w, written with V = D^{-1/2} W as logistic
  regressions on the transformed inputs X D^{1/2} with the ridge penalty gamma ||V||_F^2, solved by
  the FISTA engine (a smooth problem: the prox is the identity).

D is never formed: with the thin SVD W = U S R^T, (W W^T + epsilon I)^{1/2} =
U diag(sqrt(s^2 + epsilon)) U^T + sqrt(epsilon) (I - U U^T), so X D^{1/2} costs O(n d Q).  The
monitored objective is the value at the optimal D, loss + gamma (tr (W W^T + epsilon I)^{1/2})^2.
gamma = 0 is plain (unregularised) logistic regression per label.  gamma is chosen on the hold-out
of the I-MTSL paper, Section 5.3; the path runs from the largest gamma down, warm-started.

``variant="l21"`` is the joint feature *selection* form instead (D restricted to diagonal matrices
in Argyriou et al., Section 2; the l2,1-regularised MTL of MALSAR, whose "MTL-FEAT" the I-MTSL
paper ran): loss + gamma sum_j ||W_j,:||_2, solved directly by FISTA with the row-wise group
soft-thresholding prox.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from mlbench.errors import ConfigError
from mlbench.methods.mtl.estimator import HoldoutMTL
from mlbench.methods.mtl.fista import fista
from mlbench.methods.mtl.holdout import PAPER_GRID, grid_values
from mlbench.methods.mtl.logistic import LogisticLoss
from mlbench.methods.mtl.prox import group_soft_threshold
from mlbench.methods.registry import register

VARIANTS = ("convex", "l21")


def _identity(V, step):
    return V


def _factor(W, epsilon):
    """Thin SVD pieces of (W W^T + eps I)^{1/2}: U (d x r), its eigenvalues on U, its trace."""
    U, s, _ = scipy.linalg.svd(W, full_matrices=False, check_finite=False)
    keep = s > 1e-12 * max(1.0, s[0] if s.size else 0.0)
    U, s = U[:, keep], s[keep]
    root = np.sqrt(s * s + epsilon)
    trace = float(root.sum() + np.sqrt(epsilon) * (W.shape[0] - s.size))
    return U, root, trace


def _transform(X, U, root, trace, epsilon):
    """X D^{1/2} for D = (W W^T + eps I)^{1/2} / trace."""
    XU = X @ U
    out = np.sqrt(epsilon) ** 0.5 * (X - XU @ U.T) + (XU * np.sqrt(root)) @ U.T
    return out / np.sqrt(trace)


def fit_mtl_feat(X, Y, gamma, *, epsilon=1e-6, W0=None, b0=None, outer_iter=50, outer_tol=1e-5,
                 max_iter=1000, tol=1e-5):
    """Algorithm 1 of Argyriou et al.; returns (W, b, objectives per outer iteration, inner iters)."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    d, Q = X.shape[1], Y.shape[1]
    b0 = np.zeros(Q) if b0 is None else b0
    if gamma == 0:  # no coupling: unregularised logistic regression of every label
        Wb0 = np.vstack([np.zeros((d, Q)) if W0 is None else W0, b0[None, :]])
        res = fista(LogisticLoss(X, Y), _identity, Wb0, max_iter=max_iter, tol=tol)
        return res.x[:-1], res.x[-1], [res.objective], res.n_iter
    W = np.zeros((d, Q)) if W0 is None else W0
    b = b0
    history, inner, L = [], 0, 1.0
    for _ in range(int(outer_iter)):
        U, root, trace = _factor(W, epsilon)                       # D-step
        Xt = _transform(X, U, root, trace, epsilon)
        # V = D^{-1/2} W; W lies in span(U), where D^{-1/2} = sqrt(trace) U diag(root^{-1/2}) U^T
        V = np.sqrt(trace) * (U * root ** -0.5) @ (U.T @ W)
        loss = LogisticLoss(Xt, Y)

        def smooth(Vb, grad, loss=loss):
            ridge = gamma * float(np.vdot(Vb[:-1], Vb[:-1]))
            if not grad:
                return loss(Vb, False) + ridge
            value, G = loss(Vb, True)
            G[:-1] += 2.0 * gamma * Vb[:-1]
            return value + ridge, G

        res = fista(smooth, _identity, np.vstack([V, b[None, :]]), lipschitz=L, max_iter=max_iter,
                    tol=tol)                                        # W-step
        inner += res.n_iter
        L = max(res.lipschitz / 4.0, 1e-8)
        V, b = res.x[:-1], res.x[-1]
        W = np.sqrt(epsilon) ** 0.5 * (V - U @ (U.T @ V)) + (U * np.sqrt(root)) @ (U.T @ V)
        W /= np.sqrt(trace)
        _, root2, trace2 = _factor(W, epsilon)
        history.append(LogisticLoss(X, Y)(np.vstack([W, b[None, :]]), False) + gamma * trace2 ** 2)
        if len(history) > 1 and abs(history[-2] - history[-1]) <= outer_tol * max(1.0, abs(history[-1])):
            break
    return W, b, history, inner


def fit_l21(X, Y, gamma, *, Wb0=None, lipschitz=1.0, max_iter=1000, tol=1e-5):
    """FISTA for loss + gamma sum_j ||W_j,:||_2 (rows = features shared by the tasks)."""
    def prox(V, step):
        out = V.copy()
        out[:-1] = group_soft_threshold(V[:-1], step * gamma)
        return out

    def l21(Wb):
        return gamma * float(np.sqrt((Wb[:-1] ** 2).sum(axis=1)).sum())

    if Wb0 is None:
        Wb0 = np.zeros((X.shape[1] + 1, Y.shape[1]))
    loss = LogisticLoss(X, Y)
    return fista(loss, prox, Wb0, nonsmooth=l21, lipschitz=lipschitz, max_iter=max_iter, tol=tol,
                 affine=loss.logits)


class MultiTaskFeatureLearning(HoldoutMTL):
    """MTL-FEAT (Argyriou, Evgeniou & Pontil 2008), logistic loss, alternating minimisation.

    Parameters
    ----------
    gammas : None, float or list of float
        Candidate gamma (None: ten values in [0, 5]); one value skips the search.
    variant : {"convex", "l21"}, default "convex"
        Argyriou et al.'s feature learning (alternating minimisation) or the l2,1 feature selection.
    epsilon : float, default 1e-6
        Perturbation epsilon of the convex problem (keeps D invertible).
    outer_iter, outer_tol : limits of the alternation (relative change of the objective).
    validation_fraction, max_iter, tol, random_state : as in :class:`~mlbench.methods.mtl.imtsl.IMTSL`.
    """

    def __init__(self, *, gammas=None, variant="convex", epsilon=1e-6, outer_iter=50, outer_tol=1e-5,
                 validation_fraction=0.2, max_iter=1000, tol=1e-5, random_state=None):
        self.gammas = gammas
        self.variant = variant
        self.epsilon = epsilon
        self.outer_iter = outer_iter
        self.outer_tol = outer_tol
        self.validation_fraction = validation_fraction
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    _estimator_checks = {"params": {"max_iter": 50, "outer_iter": 5, "gammas": [0.0, 0.1]}}

    def _check_params(self):
        super()._check_params()
        if self.variant not in VARIANTS:
            raise ConfigError(f"variant must be one of {', '.join(VARIANTS)}, got {self.variant!r}")
        if not float(self.epsilon) > 0:
            raise ConfigError(f"epsilon must be > 0, got {self.epsilon!r}")
        if int(self.outer_iter) < 1 or int(self.max_iter) < 1:
            raise ConfigError("outer_iter and max_iter must be >= 1")

    def _grid_points(self):
        return [{"gamma": v} for v in sorted(grid_values(self.gammas, "gammas"), reverse=True)]

    def _fit_point(self, X, Y, point, state, rng):
        if self.variant == "l21":
            warm = state.get("warm_l21")
            res = fit_l21(X, Y, point["gamma"], Wb0=None if warm is None else warm[0],
                          lipschitz=1.0 if warm is None else warm[1], max_iter=int(self.max_iter),
                          tol=float(self.tol))
            state["warm_l21"] = (res.x, res.lipschitz)
            W = res.x[:-1]
            info = {"n_iter": res.n_iter, "converged": bool(res.converged),
                    "rel_change": float(f"{res.rel_change:.3g}"),
                    "n_features_used": int(np.count_nonzero(np.abs(W).sum(axis=1)))}
            return W, res.x[-1], info
        W0, b0 = state.get("warm", (None, None))
        W, b, history, inner = fit_mtl_feat(
            X, Y, point["gamma"], epsilon=float(self.epsilon), W0=W0, b0=b0,
            outer_iter=int(self.outer_iter), outer_tol=float(self.outer_tol),
            max_iter=int(self.max_iter), tol=float(self.tol))
        state["warm"] = (W, b)
        info = {"outer_iter": len(history), "n_iter": inner, "objective": round(float(history[-1]), 6)}
        return W, b, info


register("mtl-feat", MultiTaskFeatureLearning, family="mtl", paper="imtsl",
         grid={"gammas": list(PAPER_GRID)},
         description="convex multi-task feature learning (Argyriou et al. 2008), logistic loss")
