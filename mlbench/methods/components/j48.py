"""Weka's J48 (C4.5 release 8) for numeric features: the tree the study's MEKA methods use.

Quinlan, *C4.5: Programs for Machine Learning* (1993); Weka's implementation,
``weka.classifiers.trees.J48`` with ``C45ModelSelection``, ``C45Split``,
``C45PruneableClassifierTree``, ``Distribution`` and ``Stats`` (weka/classifiers/trees/j48/).
:class:`J48` follows their rules for numeric, never-missing features (what mlbench's
preprocessed data sets have), dense or sparse:

1. **Growing** (``C45ModelSelection.selectModel``): a node with weight below 2 M or of a single
   class is a leaf.  Otherwise every feature's best binary cut ``x <= t`` is found by information
   gain with C4.5's MDL correction, the features whose corrected gain reaches their mean gain
   (minus 1e-3) compete by gain ratio, and the best ratio splits the node (the exact rules,
   including the minimum split size 0.1 W / K clipped to [M, 25] and Weka's 1e-6 tolerances, are
   in :mod:`mlbench._ext._j48`, which does the search).  The cut's threshold is then moved down
   to the largest value of that feature in the whole training set that is at most the midpoint
   of the two values it separates (``C45Split.setSplitPoint``), so test values between the two
   go right, as in Weka.
2. **Collapsing** (``collapse``, on by default in J48): a node whose leaves make no fewer
   training errors than the node itself (minus 1e-3) becomes a leaf.
3. **Pruning** (unless ``unpruned``): error-based pruning at confidence ``C`` with subtree raising
   (``subtree_raising``), :func:`mlbench.methods.components.c45_pruning.prune`, where the
   "largest" child is the last of the heaviest (``Distribution.maxBag``) and comparisons have
   Weka's 1e-6 tolerance.  ``C`` is used as Java's float, as J48 stores it: z is the normal
   quantile of ``1 - C`` computed in single precision.

A row's class probabilities are the class fractions of the training rows in its leaf
(``ClassifierTree.getProbs`` with Laplace off, J48's default); a leaf left with no rows gives all
zeros, and a leaf that was empty when grown takes its parent's fractions for that branch.

Weka's missing-value handling (fractional instances) and nominal multiway splits are not needed
here and not implemented: X must be finite.  ``tests/methods/reference/j48_weka.py`` compares the
probabilities with Weka's own J48 (Weka compiled from source).
"""
from __future__ import annotations

import sys

import numpy as np
import scipy.sparse as sp
from scipy.special import ndtri
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from mlbench._ext._j48 import apply_csr, apply_dense, select_split
from mlbench.methods.components import c45_pruning

#: Weka's ``Utils.SMALL``: the tolerance of its comparisons
SMALL = 1e-6


def _csr(X):
    """X as a CSR float64 matrix in canonical form (sorted, no duplicates) without stored zeros."""
    X = sp.csr_matrix(X, dtype=np.float64, copy=True) if sp.issparse(X) else sp.csr_matrix(
        np.asarray(X, dtype=np.float64))
    X.sum_duplicates()
    X.eliminate_zeros()
    return X


class _Columns:
    """Dense columns of the training X, made when a split first needs them."""

    def __init__(self, X):
        self.csc = X.tocsc()
        self.n = X.shape[0]
        self.cache = {}

    def __getitem__(self, f):
        col = self.cache.get(f)
        if col is None:
            col = np.zeros(self.n)
            lo, hi = self.csc.indptr[f], self.csc.indptr[f + 1]
            col[self.csc.indices[lo:hi]] = self.csc.data[lo:hi]
            self.cache[f] = col
        return col

    def split_point(self, f, low, high):
        """``C45Split.setSplitPoint``: the largest training value of f at most the midpoint."""
        mid = (high + low) / 2
        if mid == high:
            mid = low
        lo, hi = self.csc.indptr[f], self.csc.indptr[f + 1]
        vals = self.csc.data[lo:hi]
        vals = vals[vals <= mid]
        best = vals.max() if vals.size else -np.finfo(np.float64).max
        if hi - lo < self.n and 0.0 <= mid:
            best = max(best, 0.0)
        return float(best)


class _Node:
    """A J48 node: its test, children and the class weights of its training rows."""

    __slots__ = ("feature", "threshold", "children", "counts", "empty", "tree")

    def __init__(self, tree, rows, Y):
        self.tree = tree
        self.feature, self.threshold, self.children, self.empty = -1, 0.0, [], False
        self.set_rows(rows, Y)

    # -- statistics ---------------------------------------------------------------------------
    def set_rows(self, rows, Y):
        self.counts = self.tree.class_weights(rows)

    def error(self):
        """``Distribution.numIncorrect``: weight minus the largest class weight."""
        return _incorrect(self.counts)

    def estimated(self):
        return self.tree.estimated(self.counts)

    def estimate_rows(self, rows, Y):
        return self.tree.estimated(self.tree.class_weights(rows))

    # -- structure ----------------------------------------------------------------------------
    def split(self, rows, X):
        go_left = X[self.feature][rows] <= self.threshold
        return [rows[go_left], rows[~go_left]]

    def largest_child(self):
        """``Distribution.maxBag``: the last child whose weight is the largest (tolerance 1e-6)."""
        best, index = 0.0, -1
        for i, c in enumerate(self.children):
            w = c.counts.sum()
            if (best - w < SMALL) or w >= best:
                best, index = w, i
        return index

    def make_leaf(self):
        self.children = []
        self.feature, self.threshold = -1, 0.0

    def raise_child(self, child):
        self.feature, self.threshold, self.children = child.feature, child.threshold, child.children


def _incorrect(counts):
    """``Distribution.numIncorrect``: weight minus the largest class weight (Weka's ``maxClass``
    takes the first class above the others by more than 1e-6; its weight differs from the
    largest by less than that, and not at all for integer weights)."""
    return counts.sum() - counts.max()


def _eq(a, b):
    """Weka's ``Utils.eq``."""
    return a == b or (a - b < SMALL and b - a < SMALL)


class J48(ClassifierMixin, BaseEstimator):
    """Weka's J48 decision tree (C4.5 release 8) on numeric features.

    Parameters
    ----------
    C : float, default 0.25
        Pruning confidence (J48 ``-C``), in (0, 1); above 0.5 Weka adds no pessimistic errors.
    M : int, default 2
        Fewest rows (weight) in at least two branches of a split (J48 ``-M``).
    unpruned : bool, default False
        Keep the grown (collapsed) tree (J48 ``-U``).
    subtree_raising : bool, default True
        Consider replacing a node by its largest branch when pruning (J48 ``-S`` turns it off).
    collapse : bool, default True
        Collapse subtrees that do not reduce training errors (J48 ``-O`` turns it off).
    use_mdl_correction : bool, default True
        C4.5's MDL correction of a numeric cut's gain (J48 ``-J`` turns it off).
    """

    def __init__(self, *, C=0.25, M=2, unpruned=False, subtree_raising=True, collapse=True,
                 use_mdl_correction=True):
        self.C = C
        self.M = M
        self.unpruned = unpruned
        self.subtree_raising = subtree_raising
        self.collapse = collapse
        self.use_mdl_correction = use_mdl_correction

    # -- helpers the nodes call ---------------------------------------------------------------
    def class_weights(self, rows):
        return np.bincount(self._y[rows], weights=self._w[rows], minlength=self._K)

    def estimated(self, counts):
        """``getEstimatedErrorsForDistribution``: errors plus C4.5's extra errors."""
        total = counts.sum()
        if abs(total) < SMALL:
            return 0.0
        e = _incorrect(counts)
        return e + c45_pruning.added_errors(total, e, self._cf, self._z)

    # -- fitting ------------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Grow, collapse and prune the tree on (X, y).  ``sample_weight`` act as Weka's instance
        weights (in every class count and in the minimum sizes; the split-size rule's row count
        counts rows); only unit weights are compared with Weka in the tests."""
        X, y = validate_data(self, X, y, accept_sparse=("csr", "csc", "coo"), dtype=np.float64,
                             ensure_all_finite=True)
        check_classification_targets(y)
        if not 0.0 < self.C < 1.0:
            raise ValueError(f"C must be in (0, 1), got {self.C!r}")
        if int(self.M) != self.M or self.M < 1:
            raise ValueError(f"M must be a positive integer, got {self.M!r}")
        self.classes_, codes = np.unique(y, return_inverse=True)
        self._K = len(self.classes_)
        self._y = codes.astype(np.int64)
        self._w = _check_sample_weight(sample_weight, X, dtype=np.float64)
        # J48 keeps C as a Java float: 1 - C is a float subtraction, pow() sees the widened float
        cf32 = np.float32(self.C)
        self._cf = float(cf32)
        self._z = float(ndtri(float(np.float32(1.0) - cf32)))
        Xc = _csr(X)
        cols = _Columns(Xc)
        root = self._grow(Xc, cols)
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * self._depth + 200))
        if self.collapse:
            c45_pruning.collapse(root)
        if not self.unpruned:
            c45_pruning.prune(root, np.arange(X.shape[0]), cols, None,
                              raising=self.subtree_raising, tol=SMALL)
        self._flatten(root)
        del self._y, self._w
        return self

    def _grow(self, Xc, cols):
        n = Xc.shape[0]
        indptr = Xc.indptr.astype(np.int64)
        indices = Xc.indices.astype(np.int32)
        M = int(self.M)
        root = _Node(self, np.arange(n), None)
        stack = [(root, np.arange(n, dtype=np.int64), 0)]
        self._depth = 0
        while stack:
            node, rows, depth = stack.pop()
            self._depth = max(self._depth, depth)
            counts = node.counts
            total = counts.sum()
            if abs(total) < SMALL:
                node.empty = True
            # C45ModelSelection: too few rows (Utils.sm) or a single class -> leaf
            if 2 * M - total > SMALL or _eq(total, counts.max()):
                continue
            f, low, high, _, _ = select_split(indptr, indices, Xc.data, Xc.shape[1], rows,
                                              self._y, self._w, self._K, M,
                                              bool(self.use_mdl_correction))
            if f < 0:
                continue
            node.feature = int(f)
            node.threshold = cols.split_point(node.feature, low, high)
            left, right = node.split(rows, cols)
            node.children = [_Node(self, left, None), _Node(self, right, None)]
            stack.append((node.children[1], right, depth + 1))
            stack.append((node.children[0], left, depth + 1))
        return root

    def _flatten(self, root):
        """Arrays ``feature_, threshold_, left_, right_, value_`` (value: the class fractions
        the node predicts; a child empty when grown predicts its parent's)."""
        feature, threshold, left, right, value = [], [], [], [], []

        def add(node, parent_value):
            i = len(feature)
            feature.append(node.feature)
            threshold.append(node.threshold)
            left.append(-1)
            right.append(-1)
            total = node.counts.sum()
            if node.empty and parent_value is not None:
                value.append(parent_value)
            elif abs(total) < SMALL:
                value.append(np.zeros(self._K))
            else:
                value.append(node.counts / total)
            if node.children:
                # C45Split.classProb for an empty son: the parent's bag fractions, or its own
                left[i] = add(node.children[0], value[i])
                right[i] = add(node.children[1], value[i])
            return i

        add(root, None)
        self.feature_ = np.array(feature, dtype=np.intp)
        self.threshold_ = np.array(threshold, dtype=np.float64)
        self.left_ = np.array(left, dtype=np.intp)
        self.right_ = np.array(right, dtype=np.intp)
        self.value_ = np.array(value, dtype=np.float64).reshape(len(feature), self._K)

    # -- prediction ---------------------------------------------------------------------------
    def apply(self, X):
        """Index of the leaf each row reaches."""
        check_is_fitted(self, "value_")
        # finiteness is checked on the features the tree reads only (CDN's Gibbs loop predicts
        # tens of thousands of times on the same wide X)
        X = validate_data(self, X, accept_sparse=("csr", "csc", "coo"), dtype=np.float64,
                          reset=False, ensure_all_finite=False)
        used = np.unique(self.feature_[self.left_ != -1])
        vals = X.data if sp.issparse(X) else X[:, used]
        if used.size and not np.isfinite(vals).all():
            raise ValueError("Input X contains NaN or infinity.")
        if sp.issparse(X):
            X = X.tocsr()
            if not X.has_canonical_format:
                X = X.copy()
                X.sum_duplicates()
            return apply_csr(X.indptr.astype(np.int64, copy=False),
                             X.indices.astype(np.int32, copy=False),
                             X.data.astype(np.float64, copy=False), self.feature_,
                             self.threshold_, self.left_, self.right_)
        return apply_dense(X, self.feature_, self.threshold_, self.left_, self.right_)

    def predict_proba(self, X):
        """Class fractions of the leaf each row reaches, shape (n, len(classes_))."""
        leaf = self.apply(X)
        return self.value_[leaf]

    def predict(self, X):
        """The class of largest probability (the first on ties, as ``classifyInstance``)."""
        check_is_fitted(self, "value_")
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

