"""scikit-learn's entropy decision tree, grown by the Cython builder of :mod:`mlbench._ext._cocoa`.

The SOSHF table's tree-based comparison methods grow tens of thousands of small entropy trees per
cell (COCOA on yeast: 7150; each ``rf-*`` forest: 50 per label).  :func:`grow` builds exactly the
tree ``DecisionTreeClassifier(criterion="entropy", min_samples_leaf=m, random_state=seed)`` builds
on the same rows - the same splits, thresholds and leaf class fractions, node for node - from
columns sorted once per tree instead of at every node (see the kernel's docstring for why the two
agree).  :class:`EntropyTree` wraps it as an estimator so scikit-learn's ``BaggingClassifier`` can
draw rows, features and seeds exactly as it does for its own trees.

Scope: dense or sparse finite X (used as float32 like scikit-learn's tree), unit or zero sample
weights (Bagging without bootstrap passes those), no depth limit, all features at every node.
"""
from __future__ import annotations

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from mlbench._ext._cocoa import apply_tree, grow_tree
from mlbench.errors import ConfigError

#: scikit-learn's splitter draws its xorshift seed as ``RandomState(seed).randint(0, RAND_R_MAX)``
RAND_R_MAX = 2147483647


def as_float32(X):
    """X as the builder reads it: dense C-order float32, the values scikit-learn's trees compare."""
    X = X.toarray() if sparse.issparse(X) else X
    return np.ascontiguousarray(X, dtype=np.float32)


def presort(Xl):
    """Row-wise argsort of ``Xl`` (features x rows); the order among equal values is free.

    Sparse data sets (bag-of-words) give many rows that are constant or two-valued within a tree's
    rows; those are ordered in linear time (identity, or a stable sort of ``x != min``), and only
    the others go through a comparison sort, which handles many duplicates slowly.
    """
    order = np.empty(Xl.shape, dtype=np.intp)
    lo = Xl.min(axis=1, keepdims=True)
    hi = Xl.max(axis=1, keepdims=True)
    two = ((Xl == lo) | (Xl == hi)).all(axis=1)
    general = ~two
    if general.any():
        order[general] = np.argsort(Xl[general], axis=1)
    if two.any():
        order[two] = np.argsort(Xl[two] != lo[two], axis=1, kind="stable")
    return order


def grow(X32, rows, codes, n_classes, random_state, min_samples_leaf=1):
    """Grow the tree of ``rows`` of ``X32`` with class codes ``codes`` (0..n_classes-1, one per
    row of X32); ``(feature, threshold, left, right, value)`` as :func:`grow_tree` returns them."""
    Xl = np.ascontiguousarray(X32[rows].T)
    S = np.empty((Xl.shape[0] + 1, Xl.shape[1]), dtype=np.intp)
    S[:-1] = presort(Xl)
    S[-1] = np.arange(Xl.shape[1])
    state = check_random_state(random_state).randint(0, RAND_R_MAX)
    return grow_tree(Xl, S, np.ascontiguousarray(codes[rows], dtype=np.intp), n_classes, state,
                     min_samples_leaf)


class EntropyTree(ClassifierMixin, BaseEstimator):
    """``DecisionTreeClassifier(criterion="entropy", min_samples_leaf=...)``, grown by :func:`grow`.

    ``fit`` accepts 0/1 ``sample_weight`` (rows of weight 0 are left out, as scikit-learn's
    splitter leaves them out); ``predict_proba`` returns the class fractions of the leaf reached.
    """

    def __init__(self, *, min_samples_leaf=1, random_state=None):
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        X, y = validate_data(self, X, y, accept_sparse=("csr", "csc"), dtype=None)
        if int(self.min_samples_leaf) < 1:
            raise ConfigError("min_samples_leaf must be >= 1")
        self.classes_, codes = np.unique(y, return_inverse=True)
        rows = np.arange(X.shape[0])
        if sample_weight is not None:
            w = np.asarray(sample_weight, dtype=float)
            if not np.all((w == 0) | (w == 1)):
                raise ConfigError("EntropyTree accepts only 0/1 sample weights")
            rows = np.flatnonzero(w)
        (self.feature_, self.threshold_, self.left_, self.right_,
         self.value_) = grow(as_float32(X), rows, codes, self.classes_.size, self.random_state,
                             int(self.min_samples_leaf))
        return self

    def apply(self, X):
        """Index of the leaf each row reaches."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=None, reset=False)
        return apply_tree(as_float32(X), self.feature_, self.threshold_, self.left_, self.right_)

    def predict_proba(self, X):
        """Class fractions of the leaf reached, shape (n, n_classes)."""
        return self.value_[self.apply(X)]

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
