"""Hierarchical measures of 0/1 predictions: hP, hR, hF1 and the tree-induced error.

HierCost (Charuvaka & Rangwala 2015), Sec. 5.2.  A(l) is l with all its ancestors, the root
excluded; for a set of labels A_ml(l) is the union of A(a) over a in l.  Over the N test examples
with true and predicted label sets l_i and l^_i:

* hP, eq. (15): sum_i |A(l_i) & A(l^_i)| / sum_i |A(l^_i)|;
* hR, eq. (16): sum_i |A(l_i) & A(l^_i)| / sum_i |A(l_i)|;
* hF1, eq. (17): 2 hP hR / (hP + hR);
* TE, eq. (18): (1/N) sum_i gamma(l_i, l^_i), gamma the undirected graph distance; for label sets
  gamma_ml(l, l^) = |l^|^-1 sum_{a in l^} min_{b in l} gamma(a, b).

The label sets are the most specific positive columns of each row (a closed row's implied
ancestors are not labels of their own); the ancestor sets come from the rows as given, so closed
and own-class layouts give the same hP/hR.  **Empty sets** (our convention, the paper's methods
always predict): an empty set stands for the root, so A = {} and gamma from the root to a node is
its depth + 1; a ratio 0/0 in hP or hR is 1 when both sums are 0 (nothing true, nothing predicted),
else 0.  The hierarchy maps the matrix columns to nodes (``Hierarchy.labels``).
"""
from __future__ import annotations

import numpy as np

from mlbench.metrics._validate import MetricInputError, check_binary
from mlbench.metrics.base import register_measure


def _inputs(Y_true, P, hierarchy):
    if hierarchy is None:
        raise MetricInputError("hierarchical measures need the dataset's hierarchy")
    Y = check_binary(Y_true, "Y_true")
    P = check_binary(P, "predictions", Y.shape)
    if len(hierarchy.labels) != Y.shape[1]:
        raise MetricInputError(f"the hierarchy maps {len(hierarchy.labels)} labels but Y_true has "
                               f"{Y.shape[1]} columns")
    return Y, P


def _overlap_sums(Y, P, hierarchy):
    """(sum |A(l) & A(l^)|, sum |A(l^)|, sum |A(l)|) over the examples."""
    A = hierarchy.label_ancestor_matrix().astype(np.float32)       # (L, n_nodes)
    AY = (Y.astype(np.float32) @ A) > 0
    AP = (P.astype(np.float32) @ A) > 0
    return float((AY & AP).sum()), float(AP.sum()), float(AY.sum())


def _ratio(num, den, other):
    if den == 0:
        return 1.0 if other == 0 else 0.0
    return num / den


def h_precision(Y_true, P, hierarchy=None, **_):
    """Eq. (15)."""
    Y, P = _inputs(Y_true, P, hierarchy)
    both, pred, true = _overlap_sums(Y, P, hierarchy)
    return _ratio(both, pred, true)


def h_recall(Y_true, P, hierarchy=None, **_):
    """Eq. (16)."""
    Y, P = _inputs(Y_true, P, hierarchy)
    both, pred, true = _overlap_sums(Y, P, hierarchy)
    return _ratio(both, true, pred)


def h_f1(Y_true, P, hierarchy=None, **_):
    """Eq. (17): harmonic mean of hP and hR (0 when both are 0)."""
    Y, P = _inputs(Y_true, P, hierarchy)
    both, pred, true = _overlap_sums(Y, P, hierarchy)
    hp, hr = _ratio(both, pred, true), _ratio(both, true, pred)
    return 0.0 if hp + hr == 0 else 2.0 * hp * hr / (hp + hr)


def tree_induced_error(Y_true, P, hierarchy=None, **_):
    """Eq. (18) with gamma_ml: mean over examples of the mean distance from each predicted label to
    its nearest true label."""
    Y, P = _inputs(Y_true, P, hierarchy)
    Ys = hierarchy.most_specific(Y).astype(bool)
    Ps = hierarchy.most_specific(P).astype(bool)
    L = Y.shape[1]
    # distances between columns, plus a last row/column for the root (the empty set)
    G = np.empty((L + 1, L + 1), dtype=np.float64)
    G[:L, :L] = hierarchy.label_distance()
    G[L, :L] = G[:L, L] = hierarchy.root_distance()[hierarchy.label_index]
    G[L, L] = 0.0
    Ys = np.hstack([Ys, ~Ys.any(axis=1, keepdims=True)])
    Ps = np.hstack([Ps, ~Ps.any(axis=1, keepdims=True)])
    # nearest true label of every candidate predicted label, per distinct true set
    sets, inverse = np.unique(Ys, axis=0, return_inverse=True)
    nearest = np.stack([G[:, row].min(axis=1) for row in sets])      # (n_sets, L + 1)
    D = nearest[np.ravel(inverse)]
    per_example = (D * Ps).sum(axis=1) / Ps.sum(axis=1)
    return float(per_example.mean())


_H = dict(needs="hierarchy", kind="hierarchical")
register_measure("h_precision", h_precision, greater_is_better=True, display="hP",
                 description="hierarchical precision over ancestor sets (HierCost eq. 15)", **_H)
register_measure("h_recall", h_recall, greater_is_better=True, display="hR",
                 description="hierarchical recall over ancestor sets (HierCost eq. 16)", **_H)
register_measure("h_f1", h_f1, greater_is_better=True, display="hF1",
                 description="hierarchical F1 (HierCost eq. 17)", **_H)
register_measure("tree_error", tree_induced_error, greater_is_better=False, display="TE",
                 description="tree-induced error: mean graph distance of predicted to true labels "
                             "(HierCost eq. 18, gamma_ml for label sets)", **_H)
