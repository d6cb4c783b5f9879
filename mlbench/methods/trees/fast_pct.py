"""scikit-learn's multi-output variance forests on 0/1 labels, grown by :mod:`mlbench._ext._pct`.

:class:`VarianceForest` and :class:`ExtraVarianceForest` are ``RandomForestRegressor`` and
``ExtraTreesRegressor`` whose trees (:class:`VarianceTree`, :class:`ExtraVarianceTree`) grow
scikit-learn's own tree, node for node, from the labels' positive entries instead of all L
per-label sums (see the kernel's docstring for why the two agree bit for bit).  scikit-learn still
draws every seed and bootstrap sample and assembles the forest, so a fitted forest is the one
scikit-learn fits: same ``tree_`` arrays, same predictions (tests/methods/test_pct_fast.py).

A tree takes the fast path when its inputs are in the kernel's scope - dense float32 X without
NaN, a 0/1 target, integer row weights, ``criterion="squared_error"``, no monotonic constraints,
no ``max_leaf_nodes``, no pruning - and otherwise is scikit-learn's tree unchanged.  A sparse X
small enough to densify (:func:`~mlbench.methods.components.fast_tree.densify_ok`) is given
to the forest dense: scikit-learn's sparse and dense splitters grow the same trees.

Measured (``benchmarks/bench_pct.py --fit``): see that script; the gain grows with the number of
labels, since scikit-learn's split search costs O(n L) per candidate feature and this one
O(n log n + sum of the rows' positive labels).
"""
from __future__ import annotations

import math
import numbers
import threading

import numpy as np
import scipy.sparse as sp
from sklearn.ensemble import ExtraTreesRegressor, RandomForestRegressor
from sklearn.tree import DecisionTreeRegressor, ExtraTreeRegressor
from sklearn.tree._tree import NODE_DTYPE, Tree

from mlbench._ext._pct import grow_variance_tree
from mlbench.methods.components.fast_tree import densify_ok, splitter_seed

_INT32_MAX = np.iinfo(np.int32).max
#: nodes of at least this many rows sort their values by radix, smaller ones by introsort (the
#: same trees; benchmarks/bench_pct.py --fit sets it out of reach to time the introsort alone)
RADIX_MIN = 192

#: per forest fit, the transposed float32 X and the 0/1 target's positive entries, shared by its
#: trees (keyed by the id of the object the forest hands every tree; the object is held too, so
#: the id cannot be reused while the entry exists)
_SHARED = {}
_LOCK = threading.Lock()


def positive_entries(y):
    """``(indptr, indices)`` of the 1s of the (n, L) array ``y`` row by row, or None when ``y``
    holds a value other than 0 and 1."""
    if not np.all((y == 0) | (y == 1)):
        return None
    rows, cols = np.nonzero(y)
    indptr = np.zeros(y.shape[0] + 1, dtype=np.intp)
    np.cumsum(np.bincount(rows, minlength=y.shape[0]), out=indptr[1:])
    return indptr, cols.astype(np.intp)


_NOT_YET = object()


def _shared(obj, make):
    """``make(obj)``, computed once per forest fit when the forest registered ``obj`` (a None
    result too: a target that is not 0/1 is checked once, not once per tree)."""
    entry = _SHARED.get(id(obj))
    if entry is None or entry[0] is not obj:
        return make(obj)
    with _LOCK:
        if entry[1] is _NOT_YET:
            entry[1] = make(obj)
    return entry[1]


def _resolve_max_features(max_features, n_features):
    """scikit-learn's ``max_features_`` (BaseDecisionTree._fit)."""
    if isinstance(max_features, str):
        return max(1, int(np.sqrt(n_features) if max_features == "sqrt" else np.log2(n_features)))
    if max_features is None:
        return n_features
    if isinstance(max_features, numbers.Integral):
        return int(max_features)
    return max(1, int(max_features * n_features)) if max_features > 0.0 else 0


class _FastVarianceMixin:
    """``_fit`` of a variance tree: the kernel when the inputs are in its scope, else scikit-learn."""

    def _fit(self, X, y, sample_weight=None, check_input=True, missing_values_in_feature_mask=None):
        fast = (not check_input and missing_values_in_feature_mask is None
                and isinstance(X, np.ndarray) and X.dtype == np.float32 and X.ndim == 2
                and y.ndim == 2 and self.criterion == "squared_error"
                and self.monotonic_cst is None and self.max_leaf_nodes is None
                and self.ccp_alpha == 0.0 and self.min_weight_fraction_leaf == 0.0
                and isinstance(self.splitter, str))
        if fast:
            n = X.shape[0]
            if sample_weight is None:
                w = np.ones(n, dtype=np.int64)
            else:
                w = np.asarray(sample_weight)
                fast = bool(np.all((w >= 0) & (w == np.floor(w))) and w.sum() < 2**31)
                w = w.astype(np.int64)
            pos = _shared(y, positive_entries) if fast else None
            # every per-label sum of squares must stay an exact float64 integer
            fast = pos is not None and float(w.sum()) ** 2 * max(y.shape[1], 1) < 2.0**53
        if not fast:
            return super()._fit(X, y, sample_weight=sample_weight, check_input=check_input,
                                missing_values_in_feature_mask=missing_values_in_feature_mask)
        n_samples, self.n_features_in_ = X.shape
        self.n_outputs_ = y.shape[1]
        msl = self.min_samples_leaf
        msl = msl if isinstance(msl, numbers.Integral) else math.ceil(msl * n_samples)
        mss = self.min_samples_split
        mss = mss if isinstance(mss, numbers.Integral) else max(2, math.ceil(mss * n_samples))
        mss = max(mss, 2 * msl)
        self.max_features_ = _resolve_max_features(self.max_features, self.n_features_in_)
        Xt = _shared(X, lambda a: np.ascontiguousarray(a.T))
        nodes, value, depth = grow_variance_tree(
            Xt, pos[0], pos[1], self.n_outputs_, w, splitter_seed(self.random_state),
            self.max_features_, _INT32_MAX if self.max_depth is None else int(self.max_depth),
            int(msl), int(mss), float(self.min_impurity_decrease), self.splitter == "random",
            RADIX_MIN)
        arr = np.zeros(len(value), dtype=NODE_DTYPE)
        for field, column in zip(("left_child", "right_child", "feature", "threshold", "impurity",
                                  "n_node_samples", "weighted_n_node_samples",
                                  "missing_go_to_left"), nodes):
            arr[field] = column
        tree = Tree(self.n_features_in_, np.ones(self.n_outputs_, dtype=np.intp), self.n_outputs_)
        tree.__setstate__({"max_depth": depth, "node_count": len(value), "nodes": arr,
                           "values": value[:, :, None]})
        self.tree_ = tree
        return self


class VarianceTree(_FastVarianceMixin, DecisionTreeRegressor):
    """``DecisionTreeRegressor`` grown by :mod:`mlbench._ext._pct` on a 0/1 target."""


class ExtraVarianceTree(_FastVarianceMixin, ExtraTreeRegressor):
    """``ExtraTreeRegressor`` grown by :mod:`mlbench._ext._pct` on a 0/1 target."""


class _FastForestMixin:
    """A scikit-learn regression forest whose trees are the fast twins of its own."""

    _tree_class = None

    def _validate_estimator(self, default=None):
        super()._validate_estimator(default)
        self.estimator_ = self._tree_class()

    def fit(self, X, y, sample_weight=None):
        if sp.issparse(X) and densify_ok(X):
            X = X.toarray()                 # the same trees as scikit-learn's sparse splitter
        if not sp.issparse(X):
            X = np.ascontiguousarray(X, dtype=np.float32)
        y = np.asarray(y, dtype=np.float64)
        if y.ndim == 2:
            y = np.ascontiguousarray(y)
        keys = [id(X), id(y)]
        _SHARED[keys[0]] = [X, _NOT_YET]
        _SHARED[keys[1]] = [y, _NOT_YET]
        try:
            return super().fit(X, y, sample_weight=sample_weight)
        finally:
            for key in keys:
                _SHARED.pop(key, None)


class VarianceForest(_FastForestMixin, RandomForestRegressor):
    """``RandomForestRegressor`` (RF-PCT) with :class:`VarianceTree` trees."""

    _tree_class = VarianceTree


class ExtraVarianceForest(_FastForestMixin, ExtraTreesRegressor):
    """``ExtraTreesRegressor`` (ERF-PCT) with :class:`ExtraVarianceTree` trees."""

    _tree_class = ExtraVarianceTree
