"""Trace-norm regularised multi-task logistic regression (low-rank MTL, "LowRank" in the I-MTSL paper).

Ji & Ye, "An accelerated gradient method for trace norm minimization", ICML 2009:

    min_{W,b}  (1/n) sum_q sum_i logloss(y_iq, x_i^T w_q + b_q) + lambda ||W||_*,

solved by the accelerated gradient method with line search (their Algorithm 2, extended gradient
method + Nesterov momentum; the same FISTA engine here) whose step is singular value thresholding
(their Theorem 3.1).  ``lambda`` is chosen on the hold-out of the I-MTSL paper, Section 5.3 (ten
values in [0, 5]), warm-starting the path from the largest value down; intercepts are not penalised.
"""
from __future__ import annotations

import numpy as np

from mlbench.errors import ConfigError
from mlbench.methods.mtl.estimator import HoldoutMTL
from mlbench.methods.mtl.fista import fista
from mlbench.methods.mtl.holdout import PAPER_GRID, grid_values
from mlbench.methods.mtl.logistic import LogisticLoss
from mlbench.methods.mtl.prox import singular_value_threshold
from mlbench.methods.registry import register


def fit_trace(X, Y, lam, *, Wb0=None, lipschitz=1.0, max_iter=1000, tol=1e-5, record=False):
    """FISTA for logistic loss + lam ||W||_*; returns the FistaResult (x = [W; b])."""
    loss = LogisticLoss(X, Y, reduction="mean")

    def prox(V, step):
        out = V.copy()
        out[:-1] = singular_value_threshold(V[:-1], step * lam)
        return out

    def nuclear(Wb):
        return lam * float(np.linalg.svd(Wb[:-1], compute_uv=False).sum())

    if Wb0 is None:
        Wb0 = np.zeros((X.shape[1] + 1, Y.shape[1]))
    return fista(loss, prox, Wb0, nonsmooth=nuclear if record else None, lipschitz=lipschitz,
                 max_iter=max_iter, tol=tol, record=record, affine=loss.logits)


class TraceNormMTL(HoldoutMTL):
    """Low-rank MTL (Ji & Ye 2009) with the logistic loss.

    Parameters
    ----------
    lambdas : None, float or list of float
        Trace-norm weights to search (None: ten values in [0, 5]); one value skips the search.
    validation_fraction, max_iter, tol, random_state : as in :class:`~mlbench.methods.mtl.imtsl.IMTSL`.
    """

    def __init__(self, *, lambdas=None, validation_fraction=0.2, max_iter=1000, tol=1e-5,
                 random_state=None):
        self.lambdas = lambdas
        self.validation_fraction = validation_fraction
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    _estimator_checks = {"params": {"max_iter": 50, "lambdas": [0.0, 0.1]}}

    def _check_params(self):
        super()._check_params()
        if int(self.max_iter) < 1:
            raise ConfigError("max_iter must be >= 1")

    def _grid_points(self):
        return [{"lambda": v} for v in sorted(grid_values(self.lambdas, "lambdas"), reverse=True)]

    def _fit_point(self, X, Y, point, state, rng):
        warm = state.get("warm")
        res = fit_trace(X, Y, point["lambda"], Wb0=None if warm is None else warm[0],
                        lipschitz=1.0 if warm is None else warm[1], max_iter=int(self.max_iter),
                        tol=float(self.tol))
        state["warm"] = (res.x, res.lipschitz)
        W = res.x[:-1]
        rank = int(np.sum(np.linalg.svd(W, compute_uv=False) > 1e-10)) if W.size else 0
        info = {"rank": rank, "n_iter": res.n_iter, "converged": bool(res.converged),
                "rel_change": float(f"{res.rel_change:.3g}")}
        return W, res.x[-1], info


register("trace", TraceNormMTL, family="mtl", paper="imtsl", grid={"lambdas": list(PAPER_GRID)},
         description="low-rank MTL: logistic loss + trace norm, accelerated gradient (Ji & Ye 2009)")
