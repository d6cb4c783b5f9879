"""Hierarchical measures of 0/1 predictions: hP, hR, hF1 and the tree-induced error.

HierCost (Charuvaka & Rangwala 2015), Sec. 5.2.  A(l) is l with all its ancestors, the root
excluded; for a set of labels A_ml(l) is the union of A(a) over a in l.  Over the N test examples
with true and predicted label sets l_i and l^_i:

* hP, eq. (15): sum_i |A(l_i) & A(l^_i)| / sum_i |A(l^_i)|;
* hR, eq. (16): sum_i |A(l_i) & A(l^_i)| / sum_i |A(l_i)|;
* hF1, eq. (17): 2 hP hR / (hP + hR);
* TE, eq. (18): (1/N) sum_i gamma(l_i, l^_i), gamma the undirected graph distance; for label sets
  gamma_ml(l, l^) = |l^|^-1 sum_{a in l^} min_{b in l} gamma(a, b).

Two conventions of hF1 are offered.  ``h_f1`` pools the overlaps over the examples before dividing
(eqs. (15)-(17) as printed: "micro" hF1); ``h_f1_example`` computes hP_i, hR_i and their harmonic
mean for each example and averages the per-example hF1 (the example-based hF1 of Kiritchenko,
Matwin & Famili 2005, used in much of the HMC literature).  On a tree whose predicted and true
classes all sit at the same depth d (one class per example) both equal 1 - TE / (2 d): hP_i =
hR_i = overlap_i / d and gamma_i = 2 (d - overlap_i).  Counting the root in A(l) instead, as some
implementations do, gives 1 - TE / (2 (d + 1)): a published table can be checked against either.

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


def row_overlaps(Y, P, hierarchy):
    """Per example (n, 3): |A(l) & A(l^)|, |A(l^)|, |A(l)|."""
    A = hierarchy.label_ancestor_matrix().astype(np.float32)       # (L, n_nodes)
    AY = (Y.astype(np.float32) @ A) > 0
    AP = (P.astype(np.float32) @ A) > 0
    return np.column_stack([(AY & AP).sum(axis=1), AP.sum(axis=1), AY.sum(axis=1)]).astype(np.float64)


def _overlap_sums(Y, P, hierarchy):
    """(sum |A(l) & A(l^)|, sum |A(l^)|, sum |A(l)|) over the examples."""
    both, pred, true = row_overlaps(Y, P, hierarchy).sum(axis=0)
    return float(both), float(pred), float(true)


def _f1_from_sums(both, pred, true):
    hp, hr = _ratio(both, pred, true), _ratio(both, true, pred)
    return 0.0 if hp + hr == 0 else 2.0 * hp * hr / (hp + hr)


def _example_f1(rows):
    """Per-example hF1 from :func:`row_overlaps` rows (the empty-set rules of :func:`_ratio`)."""
    return np.array([_f1_from_sums(*r) for r in rows])


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
    return _f1_from_sums(*_overlap_sums(Y, P, hierarchy))


def h_f1_example(Y_true, P, hierarchy=None, **_):
    """Example-based hF1: the mean over examples of 2 hP_i hR_i / (hP_i + hR_i)."""
    Y, P = _inputs(Y_true, P, hierarchy)
    return float(_example_f1(row_overlaps(Y, P, hierarchy)).mean())


def tree_induced_error(Y_true, P, hierarchy=None, **_):
    """Eq. (18) with gamma_ml: mean over examples of the mean distance from each predicted label to
    its nearest true label."""
    return float(row_tree_errors(Y_true, P, hierarchy).mean())


def row_tree_errors(Y_true, P, hierarchy):
    """gamma_ml(l_i, l^_i) of each example."""
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
    return (D * Ps).sum(axis=1) / Ps.sum(axis=1)


#: measure -> (per-example statistics, the measure from a subset of them): what a bootstrap over
#: the test rows resamples instead of recomputing the ancestor sets (mlbench.stats.bootstrap)
ROWWISE = {
    "h_precision": (row_overlaps, lambda r: _ratio(r[:, 0].sum(), r[:, 1].sum(), r[:, 2].sum())),
    "h_recall": (row_overlaps, lambda r: _ratio(r[:, 0].sum(), r[:, 2].sum(), r[:, 1].sum())),
    "h_f1": (row_overlaps, lambda r: _f1_from_sums(*r.sum(axis=0))),
    "h_f1_example": (lambda Y, P, h: _example_f1(row_overlaps(Y, P, h)), np.mean),
    "tree_error": (row_tree_errors, np.mean),
}


_H = dict(needs="hierarchy", kind="hierarchical")
register_measure("h_precision", h_precision, greater_is_better=True, display="hP",
                 description="hierarchical precision over ancestor sets (HierCost eq. 15)", **_H)
register_measure("h_recall", h_recall, greater_is_better=True, display="hR",
                 description="hierarchical recall over ancestor sets (HierCost eq. 16)", **_H)
register_measure("h_f1", h_f1, greater_is_better=True, display="hF1",
                 description="hierarchical F1 over pooled overlaps (HierCost eq. 17, 'micro')", **_H)
register_measure("h_f1_example", h_f1_example, greater_is_better=True, display="hF1-ex",
                 description="example-based hierarchical F1: the mean of each example's hF1 "
                             "(Kiritchenko et al. 2005)", **_H)
register_measure("tree_error", tree_induced_error, greater_is_better=False, display="TE",
                 description="tree-induced error: mean graph distance of predicted to true labels "
                             "(HierCost eq. 18, gamma_ml for label sets)", **_H)
