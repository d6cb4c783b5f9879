"""Clustered multi-task learning, convex relaxation (CMTL), with the logistic loss.

Zhou, Chen & Ye, "Clustered multi-task learning via alternating structure optimization", NIPS 2011
(the cMTL relaxation as implemented in MALSAR, which the I-MTSL paper ran):

    min_{W,b,M}  (1/n) sum_q sum_i logloss(y_iq, x_i^T w_q + b_q)
                 + rho1 eta (1 + eta) tr(W (eta I + M)^{-1} W^T)
    s.t. tr(M) = k,  0 <= M <= I (M symmetric Q x Q),   eta = rho2 / rho1,

where k is the number of task clusters.  The penalty is a matrix-fractional function, jointly convex
in (W, M), so the problem is solved jointly by the FISTA engine: the smooth part's gradients are
2 c W A and -c A W^T W A with A = (eta I + M)^{-1}, c = rho1 eta (1 + eta), and the prox is the
Euclidean projection of M onto the constraint set (eigenvalues projected onto the capped simplex).
The grid's end points are the exact limits of the penalty: rho1 = 0 (eta -> inf) gives the ridge
penalty rho2 ||W||_F^2; rho2 = 0 (eta -> 0) gives 0, because M = (k/Q) I is then feasible with no
null space.  rho1 and rho2 are chosen on the hold-out of the I-MTSL paper, Section 5.3.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

from mlbench.errors import ConfigError
from mlbench.methods.mtl.estimator import HoldoutMTL
from mlbench.methods.mtl.fista import fista
from mlbench.methods.mtl.holdout import PAPER_GRID, grid_values
from mlbench.methods.mtl.logistic import LogisticLoss
from mlbench.methods.mtl.prox import project_cmtl_set
from mlbench.methods.registry import register


def fit_cmtl(X, Y, rho1, rho2, k, *, x0=None, lipschitz=1.0, max_iter=1000, tol=1e-5, record=False):
    """Solve the CMTL relaxation; returns (FistaResult, W, b, M) with x = [vec(W; b), vec(M)]."""
    loss = LogisticLoss(X, Y, reduction="mean")
    d1, Q = X.shape[1] + 1, Y.shape[1]
    nw = d1 * Q
    I = np.eye(Q)
    mode = "none" if rho2 == 0 else ("ridge" if rho1 == 0 else "cluster")
    eta = rho2 / rho1 if mode == "cluster" else 0.0
    c = rho1 * eta * (1.0 + eta)

    def unpack(x):
        return x[:nw].reshape(d1, Q), x[nw:].reshape(Q, Q)

    def smooth(x, grad):
        Wb, M = unpack(x)
        W = Wb[:-1]
        if mode == "cluster":
            A = scipy.linalg.inv(eta * I + 0.5 * (M + M.T), check_finite=False)
            WA = W @ A
            pen = c * float(np.vdot(W, WA))
        elif mode == "ridge":
            pen = rho2 * float(np.vdot(W, W))
        else:
            pen = 0.0
        if not grad:
            return loss(Wb, False) + pen
        value, G = loss(Wb, True)
        GM = np.zeros((Q, Q))
        if mode == "cluster":
            G[:-1] += 2.0 * c * WA
            GM = -c * (WA.T @ WA)
        elif mode == "ridge":
            G[:-1] += 2.0 * rho2 * W
        return value + pen, np.concatenate([G.ravel(), GM.ravel()])

    def prox(v, step):
        out = v.copy()
        out[nw:] = project_cmtl_set(v[nw:].reshape(Q, Q), k).ravel()
        return out

    if x0 is None:
        x0 = np.concatenate([np.zeros(nw), (k / Q * I).ravel()])
    res = fista(smooth, prox, x0, lipschitz=lipschitz, max_iter=max_iter, tol=tol, record=record)
    Wb, M = unpack(res.x)
    return res, Wb[:-1], Wb[-1], M


class ClusteredMTL(HoldoutMTL):
    """CMTL (Zhou, Chen & Ye 2011), convex relaxation, logistic loss.

    Parameters
    ----------
    rho1s, rho2s : None, float or list of float
        Candidate rho1 (cluster penalty) and rho2 (global penalty); None: ten values in [0, 5].
    n_clusters : int, default 3
        k, the number of task clusters (at most the number of labels; capped there).
    validation_fraction, max_iter, tol, random_state : as in :class:`~mlbench.methods.mtl.imtsl.IMTSL`.
    """

    def __init__(self, *, rho1s=None, rho2s=None, n_clusters=3, validation_fraction=0.2,
                 max_iter=1000, tol=1e-5, random_state=None):
        self.rho1s = rho1s
        self.rho2s = rho2s
        self.n_clusters = n_clusters
        self.validation_fraction = validation_fraction
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    _estimator_checks = {"params": {"max_iter": 50, "rho1s": [0.5], "rho2s": [0.0, 0.5]}}

    def _check_params(self):
        super()._check_params()
        if int(self.n_clusters) < 1 or int(self.max_iter) < 1:
            raise ConfigError("n_clusters and max_iter must be >= 1")

    def _grid_points(self):
        r1 = grid_values(self.rho1s, "rho1s")
        r2 = grid_values(self.rho2s, "rho2s")
        return [{"rho1": a, "rho2": b} for a in sorted(r1, reverse=True) for b in sorted(r2, reverse=True)]

    def _fit_point(self, X, Y, point, state, rng):
        k = min(int(self.n_clusters), Y.shape[1])
        warm = state.get("warm")
        res, W, b, M = fit_cmtl(X, Y, point["rho1"], point["rho2"], k,
                                x0=None if warm is None else warm[0],
                                lipschitz=1.0 if warm is None else warm[1],
                                max_iter=int(self.max_iter), tol=float(self.tol))
        state["warm"] = (res.x, res.lipschitz)
        self.cluster_matrix_ = M
        info = {"n_iter": res.n_iter, "converged": bool(res.converged), "n_clusters": k,
                "rel_change": float(f"{res.rel_change:.3g}")}
        return W, b, info


register("cmtl", ClusteredMTL, family="mtl", paper="imtsl",
         grid={"rho1s": list(PAPER_GRID), "rho2s": list(PAPER_GRID)},
         description="clustered MTL, convex relaxation (Zhou, Chen & Ye 2011), logistic loss, FISTA")
