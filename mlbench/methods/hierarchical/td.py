"""TD-LR: top-down logistic regression (the TD baseline of HierCost, Sec. 5.4).

At every decision node v (the implicit root and each node with a child leading to a terminal
class) a one-vs-rest L2 logistic regression is trained among v's options: its children that have
a terminal class at or below them, plus v itself when v is a terminal class (an example may stop
at an internal node, as in Diatoms).  Node v learns from the training examples with an own class
at or below v only (the root from all).  Option c's target: the example has an own class at or below
c ("v itself": the own class is v).  Each node's models are Algorithm 1 with unit costs.

Prediction descends greedily from the root: single-label data takes the highest-scoring option at
each node until it stops at a terminal class; multi-label data follows every option whose margin is
positive (the arg-max option when none is), collecting the terminal classes where it stops.
``decision_function`` scores a terminal class by the sum of log sigmoid(margin) along its best path.
rho is tuned on the validation part like every method of the family (``_base``).
"""
from __future__ import annotations

import numpy as np
from scipy.special import log_expit

from mlbench.methods.hierarchical._base import DEFAULT_RHOS, HierarchicalClassifier
from mlbench.methods.hierarchical.hiercost import fit_columns
from mlbench.methods.registry import register

ROOT = -1


class TopDownLR(HierarchicalClassifier):
    """Top-down one-vs-rest logistic regression with greedy descent."""

    _scut = False

    def __init__(self, *, rhos=DEFAULT_RHOS, fit_intercept=True, max_iter=1000, tol=1e-6,
                 validation_fraction=0.2, n_jobs=1, random_state=None):
        self.rhos = rhos
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.validation_fraction = validation_fraction
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _prepare(self, S):
        h, t = self.hier_, self.terminal_
        li = h.label_index
        A = h._anc()                                  # (n_nodes, n_nodes) ancestor-or-self
        node_of_t = li[t]
        # below[v, j] = terminal class j is at or below node v (v a hierarchy node)
        below = A[node_of_t].T                       # (n_nodes, T)
        relevant = below.any(axis=1)
        is_terminal_node = np.zeros(len(h.nodes), dtype=bool)
        is_terminal_node[node_of_t] = True
        self._term_of_node = {int(v): j for j, v in enumerate(node_of_t)}
        options = {}
        roots = [h.index[r] for r in h.roots if relevant[h.index[r]]]
        options[ROOT] = [(int(r), False) for r in roots]
        for v in range(len(h.nodes)):
            if not relevant[v]:
                continue
            kids = [h.index[c] for c in h.graph.successors(h.nodes[v]) if relevant[h.index[c]]]
            if kids:
                opts = [(int(c), False) for c in kids]
                if is_terminal_node[v]:
                    opts.append((int(v), True))
                options[v] = opts
        self._options = options
        self._below = below
        self._order = [ROOT] + [v for v in self._topological() if v in options]

    def _topological(self):
        import networkx as nx

        h = self.hier_
        return [h.index[v] for v in nx.topological_sort(h.graph)]

    def _targets(self, S, v, opts):
        """(rows at v, 0/1 targets (rows, options))."""
        S = np.asarray(S, dtype=bool)
        rows = np.arange(S.shape[0]) if v == ROOT else np.flatnonzero(S[:, self._below[v]].any(axis=1))
        cols = []
        for c, is_self in opts:
            if is_self:
                cols.append(S[rows, self._term_of_node[c]])
            else:
                cols.append(S[np.ix_(rows, np.flatnonzero(self._below[c]))].any(axis=1))
        return rows, np.column_stack(cols) if cols else np.zeros((rows.size, 0), bool)

    def _train(self, X, S, rho, warm):
        model = {}
        for v, opts in self._options.items():
            rows, T = self._targets(S, v, opts)
            if rows.size == 0:
                continue
            if len(opts) == 1:                       # a single way down: nothing to learn
                model[v] = (np.zeros((X.shape[1], 1)), np.array([np.inf]))
                continue
            Ypm = np.where(T, 1.0, -1.0)
            w = None if warm is None or v not in warm else warm[v]
            W, b, iters = fit_columns(X[rows], Ypm, np.ones(Ypm.shape), rho, self.n_jobs, warm=w,
                                  fit_intercept=self.fit_intercept, max_iter=self.max_iter,
                                  tol=self.tol)
            model[v] = (W, b)
            self._last_iters = max(getattr(self, "_last_iters", 1), int(iters.max()))
        return model

    def _node_margins(self, model, X, v):
        W, b = model[v]
        return np.asarray(X @ W) + b[None, :]

    def _margins(self, model, X):
        n = X.shape[0]
        T = self.terminal_.size
        score = {ROOT: np.zeros(n)}
        out = np.full((n, T), -np.inf)
        for v in self._order:
            if v not in score or v not in model:
                continue
            M = self._node_margins(model, X, v)
            for k, (c, is_self) in enumerate(self._options[v]):
                s = score[v] + log_expit(M[:, k])
                if is_self:
                    j = self._term_of_node[c]
                    out[:, j] = np.maximum(out[:, j], s)
                else:
                    score[c] = np.maximum(score[c], s) if c in score else s
                    if c in self._term_of_node and c not in self._options:
                        j = self._term_of_node[c]
                        out[:, j] = np.maximum(out[:, j], score[c])
        return out

    def _own_predictions(self, model, X, thresholds):
        n = X.shape[0]
        P = np.zeros((n, self.terminal_.size), dtype=np.int8)
        here = {ROOT: np.ones(n, dtype=bool)}           # examples that reach each node
        for v in self._order:
            at = here.get(v)
            if at is None or not at.any() or v not in model:
                continue
            rows = np.flatnonzero(at)
            M = self._node_margins(model, X[rows], v)
            pick = np.zeros(M.shape, dtype=bool)
            best = np.argmax(M, axis=1)
            if self.single_label_:
                pick[np.arange(rows.size), best] = True
            else:
                pick = M > 0
                none = ~pick.any(axis=1)
                pick[none, best[none]] = True
            for k, (c, is_self) in enumerate(self._options[v]):
                go = rows[pick[:, k]]
                if go.size == 0:
                    continue
                if is_self or c not in self._options:
                    P[go, self._term_of_node[c]] = 1
                else:
                    mask = here.setdefault(c, np.zeros(n, dtype=bool))
                    mask[go] = True
        return P


register("td-lr", TopDownLR, family="hierarchical", paper="hiercost",
         grid={"rhos": list(DEFAULT_RHOS)},
         description="top-down one-vs-rest logistic regression at each internal node, greedy descent")
