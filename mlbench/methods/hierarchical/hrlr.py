"""HRLR: recursive regularisation of logistic regression over a hierarchy (Gopal & Yang, KDD 2013).

The objective, eq. (1) of HierCost (Charuvaka & Rangwala 2015):

    min_W  sum_{v in N} 1/2 ||w_v - w_pi(v)||^2 + C sum_{n in T} sum_i log(1 + exp(-y_i^n w_n'x_i))

over a weight vector per node; losses only on the terminal classes T, the other nodes only carry
the regularisation (the implicit root's parent is the zero vector; in a DAG every edge contributes
a term).  Solved by block coordinate descent over nodes, as Gopal & Yang do:

* a terminal class n, with the rest fixed, is a logistic regression whose penalty pulls towards its
  m neighbours (parents and children): sum_u 1/2 ||w - w_u||^2 = m/2 ||w - mean_u w_u||^2 + const,
  i.e. eq. (9) with unit costs, rho = m / (2C) and centre mean_u w_u (Algorithm 1, warm-started);
  terminal classes of one depth are never adjacent, so each depth's block is solved at once;
* any other node has the closed form w_v = mean of its neighbours' weights, updated deepest first.

A pass updates every block once; passes repeat until the weights change by less than ``tol_outer``
(relative) or ``n_passes`` is reached.  Each terminal class also has an unpenalised intercept.
C is chosen from ``cs`` on the validation part (the family's rho tuning with rho = 1 / C).
"""
from __future__ import annotations

import numpy as np

from mlbench.methods.hierarchical._base import HierarchicalClassifier
from mlbench.methods.hierarchical.hiercost import fit_columns
from mlbench.methods.registry import register

DEFAULT_CS = (0.01, 0.1, 1.0, 10.0)


class RecursiveRegularizedLR(HierarchicalClassifier):
    """Hierarchically (recursively) regularised logistic regression."""

    _estimator_checks = {"params": {"cs": (1.0,), "max_iter": 50, "n_passes": 2}}

    def __init__(self, *, cs=DEFAULT_CS, n_passes=10, tol_outer=1e-3, fit_intercept=True,
                 max_iter=1000, tol=1e-6, validation_fraction=0.2, n_jobs=1, random_state=None):
        self.cs = cs
        self.n_passes = n_passes
        self.tol_outer = tol_outer
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.validation_fraction = validation_fraction
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, Y, validation=None, hierarchy=None):
        super().fit(X, Y, validation=validation, hierarchy=hierarchy)
        self.fit_info_["C"] = 1.0 / self.rho_   # the chosen point of ``cs`` (the report's grid-end note)
        return self

    def _rho_grid(self):
        cs = np.atleast_1d(np.asarray(self.cs, dtype=np.float64))
        if np.any(cs <= 0):
            raise ValueError("cs must be positive")
        return 1.0 / cs

    def _prepare(self, S):
        h, t = self.hier_, self.terminal_
        node_of_t = h.label_index[t]
        A = h._anc()
        relevant = np.flatnonzero(A[node_of_t].any(axis=0))  # terminal classes and their ancestors
        pos = {int(v): k for k, v in enumerate(relevant)}
        R = len(relevant)                                   # index R = the implicit root
        nbrs = [[] for _ in range(R + 1)]
        for p, c in h.graph.edges:
            ip, ic = h.index[p], h.index[c]
            if ip in pos and ic in pos:
                nbrs[pos[ip]].append(pos[ic])
                nbrs[pos[ic]].append(pos[ip])
        for r in h.roots:
            if h.index[r] in pos:
                nbrs[pos[h.index[r]]].append(R)
                nbrs[R].append(pos[h.index[r]])
        self._nbrs = [np.array(sorted(set(n)), dtype=np.int64) for n in nbrs]
        self._row_of_t = np.array([pos[int(v)] for v in node_of_t], dtype=np.int64)
        depth = np.array([h.depth(h.nodes[v]) for v in relevant] + [-1])
        is_t = np.zeros(R + 1, dtype=bool)
        is_t[self._row_of_t] = True
        leaf = np.array([len(n) == 1 for n in self._nbrs]) & is_t   # only its parent
        col_of_row = {int(r): j for j, r in enumerate(self._row_of_t)}
        groups = [np.array([col_of_row[r] for r in np.flatnonzero(leaf)], dtype=np.int64)]
        for d in sorted(set(depth[is_t & ~leaf])):
            groups.append(np.array([col_of_row[r] for r in np.flatnonzero(is_t & ~leaf & (depth == d))],
                                   dtype=np.int64))
        self._groups = [g for g in groups if g.size]
        others = np.flatnonzero(~is_t)
        self._others = others[np.argsort(-depth[others], kind="stable")]   # deepest first
        self._n_nodes = R + 1

    def _train(self, X, S, rho, warm):
        C = 1.0 / rho
        D = X.shape[1]
        Ypm = np.where(np.asarray(S, bool), 1.0, -1.0)
        if warm is None:
            Wn, b = np.zeros((D, self._n_nodes)), np.zeros(S.shape[1])
        else:
            Wn, b = warm[0].copy(), warm[1].copy()
        m = np.array([n.size for n in self._nbrs], dtype=np.float64)
        for _ in range(int(self.n_passes)):
            before = Wn.copy()
            for g in self._groups:
                rows = self._row_of_t[g]
                centre = np.column_stack([Wn[:, self._nbrs[r]].mean(axis=1) for r in rows])
                W, bg, iters = fit_columns(X, Ypm[:, g], np.ones((X.shape[0], g.size)), m[rows] / (2.0 * C),
                                       self.n_jobs, center=centre, warm=(Wn[:, rows], b[g]),
                                       fit_intercept=self.fit_intercept, max_iter=self.max_iter,
                                       tol=self.tol)
                Wn[:, rows], b[g] = W, bg
                self._last_iters = max(getattr(self, "_last_iters", 1), int(iters.max()))
            for r in self._others:                 # closed form; the root also pulls towards 0
                total = Wn[:, self._nbrs[r]].sum(axis=1)
                Wn[:, r] = total / (m[r] + (1.0 if r == self._n_nodes - 1 else 0.0))
            change = np.linalg.norm(Wn - before) / max(np.linalg.norm(Wn), 1e-12)
            if change < self.tol_outer:
                break
        return Wn, b

    def _margins(self, model, X):
        Wn, b = model
        return np.asarray(X @ Wn[:, self._row_of_t]) + b[None, :]


register("hrlr", RecursiveRegularizedLR, family="hierarchical", paper="hiercost",
         grid={"cs": list(DEFAULT_CS)},
         description="recursive regularisation (Gopal & Yang 2013), block coordinate descent over nodes")
