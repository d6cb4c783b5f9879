"""HierCost and its cost variants: one cost-sensitive logistic regression per terminal class.

Charuvaka & Rangwala, "HierCost: Improving Large Scale Hierarchical Classification with Cost
Sensitive Learning" (ECML PKDD 2015).  Class n's model minimises eq. (9),
sum_i c_i^n log(1 + exp(-y_i^n w'x_i)) + rho ||w||^2, with y_i^n = +1 iff n is one of example i's own
classes and c_i^n from :mod:`costs` (eq. (5)-(8)); Algorithm 1 solves it (:mod:`solver`).  The
classes train independently (Sec. 3), here in ``n_jobs`` parallel blocks of classes (joblib).

Registered: ``lr`` (flat one-vs-rest, unit costs), ``trd``, ``nca``, ``extrd``, ``imb-lr``,
``imb-trd``, ``imb-nca`` and ``hiercost`` (IMB x ExTrD, the paper's method).
"""
from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed

from mlbench.methods.hierarchical._base import DEFAULT_RHOS, HierarchicalClassifier
from mlbench.methods.hierarchical.costs import HIERARCHICAL, example_costs
from mlbench.methods.hierarchical.solver import fit_cost_lr
from mlbench.methods.registry import register


def _blocks(n, n_jobs):
    k = max(1, min(int(n_jobs), n))
    return [b for b in np.array_split(np.arange(n), k) if b.size]


def fit_columns(X, Ypm, C, rho, n_jobs=1, center=None, warm=None, **kw):
    """Algorithm 1 on every column, in ``n_jobs`` blocks of columns run by joblib."""
    blocks = _blocks(Ypm.shape[1], 1 if n_jobs is None else (n_jobs if n_jobs > 0 else 2))

    def one(b):
        W0 = None if warm is None else warm[0][:, b]
        b0 = None if warm is None else warm[1][b]
        ctr = None if center is None else center[:, b]
        return fit_cost_lr(X, Ypm[:, b], C[:, b], rho, center=ctr, W0=W0, b0=b0, **kw)

    if len(blocks) == 1:
        parts = [one(blocks[0])]
    else:
        parts = Parallel(n_jobs=len(blocks))(delayed(one)(b) for b in blocks)
    W = np.hstack([p[0] for p in parts])
    b = np.concatenate([p[1] for p in parts])
    iters = np.concatenate([p[2] for p in parts])
    return W, b, iters


class HierCostLR(HierarchicalClassifier):
    """Cost-sensitive one-vs-rest logistic regression over the terminal classes.

    Parameters
    ----------
    cost : "lr", "trd", "nca" or "extrd"
        the hierarchical cost (eq. (5)-(7); "lr" = unit costs).
    imbalance : bool
        multiply by the imbalance cost IMB, eq. (8).
    k : float
        ExTrD base (the paper tunes 1.1 <= k <= 1.25).
    n0, imb_l : float
        N0 and L of eq. (8) (10 and 20 in the paper).
    rhos : tuple of float
        regularisation grid (powers of ten), chosen on the validation part.
    fit_intercept : bool
        add an unpenalised intercept to each model (the paper's eq. (9) has none).
    max_iter, tol : Algorithm 1's iteration cap and relative objective tolerance.
    validation_fraction : float
        held-out share of the rows when the runner passes no validation part.
    n_jobs : int
        parallel blocks of classes.
    """

    def __init__(self, *, cost="extrd", imbalance=True, k=1.25, n0=10.0, imb_l=20.0,
                 rhos=DEFAULT_RHOS, fit_intercept=True, max_iter=1000, tol=1e-6,
                 validation_fraction=0.2, n_jobs=1, random_state=None):
        self.cost = cost
        self.imbalance = imbalance
        self.k = k
        self.n0 = n0
        self.imb_l = imb_l
        self.rhos = rhos
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.validation_fraction = validation_fraction
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _prepare(self, S):
        if self.cost not in HIERARCHICAL:
            raise ValueError(f"cost must be one of {', '.join(HIERARCHICAL)}, got {self.cost!r}")
        if self.cost == "extrd" and not float(self.k) > 1.0:
            raise ValueError("ExTrD needs k > 1")
        h, t = self.hier_, self.terminal_
        self._dist = h.label_distance()[np.ix_(t, t)]
        self._common = h.label_common_ancestors()[np.ix_(t, t)]

    def _train(self, X, S, rho, warm):
        C = example_costs(S, self._dist, self._common, self.cost, bool(self.imbalance),
                          float(self.k), float(self.n0), float(self.imb_l))
        Ypm = np.where(np.asarray(S, bool), 1.0, -1.0)
        W, b, iters = fit_columns(X, Ypm, C, rho, self.n_jobs, warm=warm,
                                  fit_intercept=self.fit_intercept, max_iter=self.max_iter,
                                  tol=self.tol)
        self._last_iters = max(1, int(iters.max()))
        return W, b

    def _margins(self, model, X):
        W, b = model
        return np.asarray(X @ W) + b[None, :]

    @property
    def coef_(self):
        return self.model_[0].T

    @property
    def intercept_(self):
        return self.model_[1]


_VARIANTS = {
    "lr": ("lr", False, "flat one-vs-rest logistic regression (unit costs)"),
    "trd": ("trd", False, "cost-sensitive LR, tree-distance costs (eq. 5)"),
    "nca": ("nca", False, "cost-sensitive LR, common-ancestor costs (eq. 6)"),
    "extrd": ("extrd", False, "cost-sensitive LR, exponentiated tree-distance costs (eq. 7)"),
    "imb-lr": ("lr", True, "LR with the imbalance cost IMB (eq. 8)"),
    "imb-trd": ("trd", True, "IMB x TrD costs"),
    "imb-nca": ("nca", True, "IMB x NCA costs"),
    "hiercost": ("extrd", True, "HierCost: IMB x ExTrD costs (k = 1.25), the paper's method"),
}

for _name, (_cost, _imb, _desc) in _VARIANTS.items():
    register(_name, HierCostLR, family="hierarchical", paper="hiercost",
             params={"cost": _cost, "imbalance": _imb}, grid={"rhos": list(DEFAULT_RHOS)},
             description=_desc)
