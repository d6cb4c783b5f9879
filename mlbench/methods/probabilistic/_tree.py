"""Conditional tree-structured Bayesian networks (CTBN; Batal, Hong & Hauskrecht 2013), as arrays.

A CTBN over L labels is a forest: ``parent[i]`` is the parent label of Y_i, or -1 for a root.  The
network defines (MC paper, Eq. 4)

    P(y | x, T) = prod_i P(y_i | x, y_parent(i)),

and node i with a parent holds one L2 logistic regression for each value of that parent (Batal,
Hong & Hauskrecht, CIKM 2013, the MC paper's ref. [2]; ``node_model="per_parent"``):

    P(y_i = 1 | x, y_p = v) = sigmoid(coef_i^v . x + b_i^v),   v in {0, 1},

so the parent interacts with every feature.  ``node_model="shared"`` is the earlier single
regression on (x, y_p), sigmoid(coef_i . x + b_i + w_i y_p), where the parent only shifts the
intercept (kept for the ablation of issue 22).  Both are stored the same way: ``coef``/``intercept``
for y_p = 0 (and for roots), ``coef1``/``intercept1`` for y_p = 1.  The numerics take them as two
(n, L) arrays, ``A`` = the logit with the parent off (a root's logit) and ``D`` = the change of the
logit when the parent is on (0 for roots): logit_i = A_i + D_i y_p.

This module holds the NumPy parts: node inputs ``A = X coef^T + b`` (n, L), the log-likelihood of
label vectors, exact MAP by max-sum over the forest (linear in L), exact label marginals by a
top-down pass, and structure learning by the maximum-weight directed spanning tree (section 5.3.1).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mlbench.methods.components.logistic import bernoulli_loglik, fit_logistic, hstack, log_sigmoid


NODE_MODELS = ("per_parent", "shared")


@dataclass
class CTBN:
    """Parameters of one CTBN: ``parent`` (L,); ``coef`` (L, m), ``intercept`` (L,) of each node's
    regression with its parent off (or of a root); ``coef1``, ``intercept1`` with its parent on."""

    parent: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    coef1: np.ndarray
    intercept1: np.ndarray

    def inputs(self, X):
        """(A, D), each (n, L): node logits with the parent off, and their change when it is on."""
        A = np.asarray(X @ self.coef.T) + self.intercept
        D = np.asarray(X @ self.coef1.T) + self.intercept1 - A
        D[:, self.parent < 0] = 0.0
        return A, D


def topological_order(parent):
    """Labels ordered so every parent precedes its children (roots first, breadth first)."""
    parent = np.asarray(parent)
    children = [[] for _ in parent]
    for i, p in enumerate(parent):
        if p >= 0:
            children[p].append(i)
    order = [i for i, p in enumerate(parent) if p < 0]
    k = 0
    while k < len(order):
        order.extend(children[order[k]])
        k += 1
    if len(order) != len(parent):
        raise ValueError("parent array contains a cycle")
    return np.array(order, dtype=np.intp)


def tree_loglik(A, D, parent, Y):
    """log P(y | x, T) per row (Eq. 4) from node inputs ``A``, ``D`` (n, L) and label vectors ``Y``."""
    Y = np.asarray(Y)
    ypar = np.where(parent >= 0, Y[:, np.maximum(parent, 0)], 0)
    logit = A + D * ypar
    return bernoulli_loglik(logit, Y).sum(axis=1)


def tree_map(A, D, parent, order=None):
    """Exact MAP label vectors of one CTBN by max-sum over the forest; returns ``(Y, logp)``.

    Upward pass in reverse topological order: node i sends its parent the message
    m_i(y_p) = max_{y_i} [log P(y_i | x, y_p) + sum_{children c of i} m_c(y_i)];
    a root takes the best value of its own table.  Downward pass reads the stored argmaxes.
    Cost O(n L), vectorised over the rows.
    """
    n, L = A.shape
    order = topological_order(parent) if order is None else order
    inbox = np.zeros((n, L, 2))           # sum of children's messages, indexed by y_i
    best = np.zeros((n, L, 2), dtype=np.int8)  # argmax y_i for each parent value
    logp = np.zeros(n)
    ys = np.array([0.0, 1.0])
    for i in order[::-1]:
        # table[n, y_p, y_i] = log P(y_i | x, y_p) + inbox_i(y_i)
        logit = A[:, i, None] + D[:, i, None] * ys[None, :]        # (n, y_p)
        table = np.stack([log_sigmoid(-logit), log_sigmoid(logit)], axis=2) + inbox[:, i, None, :]
        best[:, i, :] = table.argmax(axis=2)
        msg = table.max(axis=2)
        if parent[i] >= 0:
            inbox[:, parent[i], :] += msg
        else:
            logp += msg[:, 0]
    Y = np.zeros((n, L), dtype=np.int8)
    rows = np.arange(n)
    for i in order:
        yp = Y[:, parent[i]] if parent[i] >= 0 else np.zeros(n, dtype=np.int8)
        Y[:, i] = best[rows, i, yp]
    return Y, logp


def tree_marginals(A, D, parent, order=None):
    """Exact P(y_i = 1 | x, T) per row and label: P(y_i) = sum_{y_p} P(y_i | y_p) P(y_p), top-down."""
    order = topological_order(parent) if order is None else order
    P = np.zeros_like(A)
    for i in order:
        p = parent[i]
        if p < 0:
            P[:, i] = np.exp(log_sigmoid(A[:, i]))
        else:
            on = np.exp(log_sigmoid(A[:, i] + D[:, i]))
            off = np.exp(log_sigmoid(A[:, i]))
            P[:, i] = P[:, p] * on + (1.0 - P[:, p]) * off
    return P


def _fit_node(X, y, yp, w, C, node_model, start=None):
    """One node's regressions given its parent's values ``yp``: ((coef0, b0), (coef1, b1)).

    ``start``: the previous ((coef0, b0), (coef1, b1)) to warm-start from, or None.  per_parent:
    one fit on the rows with y_p = 0 and one on the rows with y_p = 1 (a value absent from the
    rows gets :func:`fit_logistic`'s intercept-only answer, P = 1/2).  shared: one fit on (x, y_p).
    """
    m = X.shape[1]
    if node_model == "shared":
        init = None if start is None else (np.append(start[0][0], start[1][1] - start[0][1]),
                                           start[0][1])
        wv, b = fit_logistic(hstack(X, yp), y, w, C, init=init)
        return (wv[:m], b), (wv[:m].copy(), b + wv[m])
    fits = []
    for v in (0, 1):
        rows = yp == v
        fits.append(fit_logistic(X[rows], y[rows], w[rows], C,
                                 init=None if start is None else start[v]))
    return fits[0], fits[1]


def fit_tree_params(X, Y, parent, sample_weight, Cs, init=None, node_model="per_parent"):
    """Weighted maximum-likelihood (L2-penalised) node regressions for a fixed structure (Eq. 10)."""
    n, L = Y.shape
    m = X.shape[1]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    coef, coef1 = np.zeros((L, m)), np.zeros((L, m))
    intercept, intercept1 = np.zeros(L), np.zeros(L)
    for i in range(L):
        p = parent[i]
        if p < 0:
            start = None if init is None else (init.coef[i], init.intercept[i])
            coef[i], intercept[i] = fit_logistic(X, Y[:, i], w, Cs[i], init=start)
            coef1[i], intercept1[i] = coef[i], intercept[i]
            continue
        start = None if init is None else ((init.coef[i], init.intercept[i]),
                                           (init.coef1[i], init.intercept1[i]))
        (coef[i], intercept[i]), (coef1[i], intercept1[i]) = _fit_node(
            X, Y[:, i], Y[:, p], w, Cs[i], node_model, start)
    return CTBN(np.asarray(parent, dtype=np.intp), coef, intercept, coef1, intercept1)


def edge_weights(X, Y, weight, Cs, holdout, rng, node_model="per_parent"):
    """Matrix W (L+1, L) of Section 5.3.1: W[j, i] = W_{j->i}, the last row the self-loops W_{phi->i}.

    Each regression is fitted on the instance-weighted training part and scored by the weighted
    conditional log-likelihood of Y_i on the held-out part.  ``weight`` sums to 1 (omega(n));
    regressions see it multiplied by the row count so ``C`` keeps its per-instance meaning.  The
    edge j -> i is node i's model (``node_model``) with parent j, warm-started from the self-loop's.
    """
    n, L = Y.shape
    perm = rng.permutation(n)
    n_h = min(max(1, int(round(holdout * n))), n - 1)
    te, tr = perm[:n_h], perm[n_h:]
    w_tr = weight[tr] * n
    w_te = weight[te]
    Xtr, Xte = X[tr], X[te]
    W = np.full((L + 1, L), -np.inf)
    for i in range(L):
        coef, b = fit_logistic(Xtr, Y[tr, i], w_tr, Cs[i])
        base_te = np.asarray(Xte @ coef).ravel() + b
        W[L, i] = float(w_te @ bernoulli_loglik(base_te, Y[te, i]))
        for j in range(L):
            if j == i:
                continue
            (c0, b0), (c1, b1) = _fit_node(Xtr, Y[tr, i], Y[tr, j], w_tr, Cs[i], node_model,
                                           start=((coef, b), (coef, b)))
            on = Y[te, j] == 1
            logit = np.where(on, np.asarray(Xte @ c1).ravel() + b1, np.asarray(Xte @ c0).ravel() + b0)
            W[j, i] = float(w_te @ bernoulli_loglik(logit, Y[te, i]))
    return W


def best_structure(W):
    """Parent array of the maximum-weight branching for edge weights ``W`` (L+1, L).

    A virtual root r carries the self-loop weights (r -> i weighs W_{phi->i}); a maximum spanning
    arborescence of this graph (Chu-Liu/Edmonds, networkx) rooted at r is exactly a maximum-weight
    forest over the labels, each label taking at most one parent (Eq. 11 as a sum of edge weights).
    """
    import networkx as nx      # only structure learning needs it

    L = W.shape[1]
    G = nx.DiGraph()
    root = L
    for i in range(L):
        G.add_edge(root, i, weight=float(W[L, i]))
        for j in range(L):
            if j != i:
                G.add_edge(j, i, weight=float(W[j, i]))
    arb = nx.maximum_spanning_arborescence(G, attr="weight", preserve_attrs=False)
    parent = np.full(L, -1, dtype=np.intp)
    for u, v in arb.edges():
        if u != root:
            parent[v] = u
    return parent
