"""Conditional tree-structured Bayesian networks (CTBN; Batal, Hong & Hauskrecht 2013), as arrays.

A CTBN over L labels is a forest: ``parent[i]`` is the parent label of Y_i, or -1 for a root.  Node
i is a logistic regression on (x, y_parent):

    P(y_i = 1 | x, y_parent) = sigmoid(a_i(x) + v_i * y_parent),   a_i(x) = coef_i . x + b_i,

and the network defines (MC paper, Eq. 4)

    P(y | x, T) = prod_i P(y_i | x, y_parent(i)).

This module holds the NumPy parts: node inputs ``A = X coef^T + b`` (n, L), the log-likelihood of
label vectors, exact MAP by max-sum over the forest (linear in L), exact label marginals by a
top-down pass, and structure learning by the maximum-weight directed spanning tree (section 5.3.1).
"""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from mlbench.methods.probabilistic._logistic import bernoulli_loglik, fit_logistic, hstack, log_sigmoid


@dataclass
class CTBN:
    """Parameters of one CTBN: ``parent`` (L,), ``coef`` (L, m), ``intercept`` (L,), ``pcoef`` (L,)."""

    parent: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    pcoef: np.ndarray

    def inputs(self, X):
        """a_i(x) for every row and label, shape (n, L)."""
        return np.asarray(X @ self.coef.T) + self.intercept


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


def tree_loglik(A, pcoef, parent, Y):
    """log P(y | x, T) per row (Eq. 4) from node inputs ``A`` (n, L) and label vectors ``Y`` (n, L)."""
    Y = np.asarray(Y)
    ypar = np.where(parent >= 0, Y[:, np.maximum(parent, 0)], 0)
    logit = A + pcoef * ypar
    return bernoulli_loglik(logit, Y).sum(axis=1)


def tree_map(A, pcoef, parent, order=None):
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
        logit = A[:, i, None] + pcoef[i] * ys[None, :]             # (n, y_p)
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


def tree_marginals(A, pcoef, parent, order=None):
    """Exact P(y_i = 1 | x, T) per row and label: P(y_i) = sum_{y_p} P(y_i | y_p) P(y_p), top-down."""
    order = topological_order(parent) if order is None else order
    P = np.zeros_like(A)
    for i in order:
        p = parent[i]
        if p < 0:
            P[:, i] = np.exp(log_sigmoid(A[:, i]))
        else:
            on = np.exp(log_sigmoid(A[:, i] + pcoef[i]))
            off = np.exp(log_sigmoid(A[:, i]))
            P[:, i] = P[:, p] * on + (1.0 - P[:, p]) * off
    return P


def fit_tree_params(X, Y, parent, sample_weight, Cs, init=None):
    """Weighted maximum-likelihood (L2-penalised) node regressions for a fixed structure (Eq. 10)."""
    n, L = Y.shape
    m = X.shape[1]
    coef = np.zeros((L, m))
    intercept = np.zeros(L)
    pcoef = np.zeros(L)
    for i in range(L):
        p = parent[i]
        start = None
        if init is not None:
            start = (init.coef[i], init.intercept[i]) if p < 0 else (
                np.append(init.coef[i], init.pcoef[i]), init.intercept[i])
        if p < 0:
            coef[i], intercept[i] = fit_logistic(X, Y[:, i], sample_weight, Cs[i], init=start)
        else:
            w, intercept[i] = fit_logistic(hstack(X, Y[:, p]), Y[:, i], sample_weight, Cs[i], init=start)
            coef[i], pcoef[i] = w[:m], w[m]
    return CTBN(np.asarray(parent, dtype=np.intp), coef, intercept, pcoef)


def edge_weights(X, Y, weight, Cs, holdout, rng):
    """Matrix W (L+1, L) of Section 5.3.1: W[j, i] = W_{j->i}, the last row the self-loops W_{phi->i}.

    Each regression is fitted on the instance-weighted training part and scored by the weighted
    conditional log-likelihood of Y_i on the held-out part.  ``weight`` sums to 1 (omega(n));
    regressions see it multiplied by the row count so ``C`` keeps its per-instance meaning.
    """
    n, L = Y.shape
    perm = rng.permutation(n)
    n_h = min(max(1, int(round(holdout * n))), n - 1)
    te, tr = perm[:n_h], perm[n_h:]
    w_tr = weight[tr] * n
    w_te = weight[te]
    m = X.shape[1]
    Xtr, Xte = X[tr], X[te]
    W = np.full((L + 1, L), -np.inf)
    for i in range(L):
        coef, b = fit_logistic(Xtr, Y[tr, i], w_tr, Cs[i])
        base_te = np.asarray(Xte @ coef).ravel() + b
        W[L, i] = float(w_te @ bernoulli_loglik(base_te, Y[te, i]))
        for j in range(L):
            if j == i:
                continue
            wj, bj = fit_logistic(hstack(Xtr, Y[tr, j]), Y[tr, i], w_tr, Cs[i],
                                  init=(np.append(coef, 0.0), b))
            logit = np.asarray(Xte @ wj[:m]).ravel() + bj + wj[m] * Y[te, j]
            W[j, i] = float(w_te @ bernoulli_loglik(logit, Y[te, i]))
    return W


def best_structure(W):
    """Parent array of the maximum-weight branching for edge weights ``W`` (L+1, L).

    A virtual root r carries the self-loop weights (r -> i weighs W_{phi->i}); a maximum spanning
    arborescence of this graph (Chu-Liu/Edmonds, networkx) rooted at r is exactly a maximum-weight
    forest over the labels, each label taking at most one parent (Eq. 11 as a sum of edge weights).
    """
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
