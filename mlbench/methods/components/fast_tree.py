"""scikit-learn's entropy decision tree, grown by the Cython builder of :mod:`mlbench._ext._cocoa`.

The SOSHF table's tree-based comparison methods grow tens of thousands of small entropy trees per
cell (COCOA on yeast: 7150; each ``rf-*`` forest: 50 per label).  :func:`grow` builds exactly the
tree ``DecisionTreeClassifier(criterion="entropy", min_samples_leaf=m, random_state=seed)`` builds
on the same rows - the same splits, thresholds and leaf class fractions, node for node - from
columns sorted once per tree instead of at every node, or, when every column takes at most two
values (0/1 bag-of-words data), from one bit set per column (see the kernel's docstrings for why
they agree).  :class:`EntropyTree` wraps it as an estimator so scikit-learn's ``BaggingClassifier`` can
draw rows, features and seeds exactly as it does for its own trees.

Scope: dense or sparse finite X (used as float32 like scikit-learn's tree, densified), unit or zero
sample weights (Bagging without bootstrap passes those), ``max_depth`` or none, all features at
every node.
"""
from __future__ import annotations

import threading

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.random import sample_without_replacement
from sklearn.utils.validation import check_is_fitted, validate_data

from mlbench._ext._cocoa import (apply_tree, gather_transpose, grow_tree, grow_tree_binary,
                                 pack_rows, presort_majority, subset_presorted,
                                 two_valued_columns)
from mlbench.errors import ConfigError

#: scikit-learn's splitter draws its xorshift seed as ``RandomState(seed).randint(0, RAND_R_MAX)``
RAND_R_MAX = 2147483647
#: scikit-learn's ensembles draw their members' seeds below this (``ensemble._bagging.MAX_INT``)
MAX_INT = np.iinfo(np.int32).max


#: densify a sparse X for the Cython builder only up to this many cells (67 MB as float32, 134 MB
#: while passing through float64); enron's 851 x 999 training half has 0.85 million, the largest
#: sparse soshf data set (tmc2007's 50% training part) about 7 million
DENSE_MAX_CELLS = 2**24


def as_float32(X):
    """X as the builder reads it: dense C-order float32, the values scikit-learn's trees compare."""
    X = X.toarray() if sparse.issparse(X) else X
    return np.ascontiguousarray(X, dtype=np.float32)


def densify_ok(X):
    """Whether ``X`` may be given to the Cython builder: dense, or sparse with at most
    ``DENSE_MAX_CELLS`` cells (a small bag-of-words matrix costs megabytes dense, and its trees
    grow several times faster from bit sets than by scikit-learn's sparse splitter)."""
    return not sparse.issparse(X) or X.shape[0] * X.shape[1] <= DENSE_MAX_CELLS


def bagged_member_proba(est, features, X32):
    """``est.predict_proba(X[:, features])`` of one Bagging member, for X given as ``X32``.

    An :class:`EntropyTree` member is routed by :func:`apply_tree` on ``X32`` itself (its split
    features mapped back to X's columns), so no column subset is copied and no scikit-learn input
    validation runs per member; any other member is asked through ``predict_proba``.
    """
    if not isinstance(est, EntropyTree):
        return est.predict_proba(X32[:, features])
    mapped = np.ascontiguousarray(np.asarray(features, dtype=np.intp)[np.maximum(est.feature_, 0)])
    return est.value_[apply_tree(X32, mapped, est.threshold_, est.left_, est.right_)]


def bagging_proba(forest, X32):
    """``forest.predict_proba(X)`` of a fitted ``BaggingClassifier`` for X given as float32 ``X32``.

    The same sums in the same order as scikit-learn's ``_parallel_predict_proba`` (one job): the
    members' probabilities added one by one into zeros, then divided by ``n_estimators``; so the
    result is bit for bit scikit-learn's (tests/methods/test_cocoa_fast.py).
    """
    proba = np.zeros((X32.shape[0], forest.n_classes_))
    for est, feats in zip(forest.estimators_, forest.estimators_features_):
        pe = bagged_member_proba(est, feats, X32)
        if forest.n_classes_ == len(est.classes_):
            proba += pe
        else:
            proba[:, est.classes_] += pe[:, range(len(est.classes_))]
    return proba / forest.n_estimators


def presort(Xl):
    """Row-wise argsort of ``Xl`` (features x rows); the order among equal values is free.

    Sparse data sets (bag-of-words, also once standardised) give rows that hold one value in most
    places: :func:`presort_majority` sorts only their minority.  The other rows go through NumPy's
    quicksort (SIMD, 4x faster than the stable sort on yeast's continuous values).
    """
    order = np.empty(Xl.shape, dtype=np.intp)
    rest = presort_majority(Xl, order) == 0
    if rest.any():
        order[rest] = np.argsort(Xl[rest], axis=1)
    return order


_LOCAL = threading.local()


def splitter_seed(random_state):
    """``check_random_state(random_state).randint(0, RAND_R_MAX)``, the xorshift seed
    scikit-learn's splitter draws; an int seed reseeds one cached ``RandomState`` per thread,
    the same stream without building a generator per tree (30x cheaper; COCOA grows 13750 trees
    on enron)."""
    if not isinstance(random_state, (int, np.integer)):
        return check_random_state(random_state).randint(0, RAND_R_MAX)
    rs = getattr(_LOCAL, "rs", None)
    if rs is None:
        rs = _LOCAL.rs = np.random.RandomState()
    rs.seed(random_state)
    return rs.randint(0, RAND_R_MAX)


def grow(X32, rows, codes, n_classes, random_state, min_samples_leaf=1, two_valued=None,
         max_depth=None):
    """Grow the tree of ``rows`` of ``X32`` with class codes ``codes`` (0..n_classes-1, one per
    row of X32); ``(feature, threshold, left, right, value)`` as :func:`grow_tree` returns them.

    When every column of ``X32`` takes at most two values (0/1 bag-of-words data), the tree is
    grown by :func:`grow_tree_binary` from bit sets, otherwise from presorted columns; both grow
    scikit-learn's tree.  ``two_valued``: ``two_valued_columns(X32)`` computed once by a caller
    growing many trees on the same X32, None to compute it here, or False to force the presorted
    builder (the reference the benchmarks compare with).  ``max_depth`` as scikit-learn's (None:
    no limit; the ``sf`` forests' depth-one stumps use 1).
    """
    depth = -1 if max_depth is None else int(max_depth)
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    y = np.ascontiguousarray(codes[rows], dtype=np.intp)
    state = splitter_seed(random_state)
    if two_valued is None:
        two_valued = two_valued_columns(X32)
    if two_valued:
        lo, hi, H = two_valued
        return grow_tree_binary(pack_rows(H, rows), lo, hi, y, n_classes, state, min_samples_leaf,
                                depth)
    Xl = gather_transpose(X32, rows)
    S = np.empty((Xl.shape[0] + 1, Xl.shape[1]), dtype=np.intp)
    S[:-1] = presort(Xl)
    S[-1] = np.arange(Xl.shape[1])
    return grow_tree(Xl, S, y, n_classes, state, min_samples_leaf, depth)


class PresortedPrefixes:
    """The columns of x plus a growing prefix of label columns, transposed and presorted for
    :func:`grow_tree`, for a classifier chain of :class:`EntropyTree` s: x's columns are sorted
    once per chain, not once per tree (each label column once, when it is appended).  A tree
    grown from it is the tree :func:`grow` grows from the same columns (the builder reads the
    presorted rows and overwrites only its own copy)."""

    def __init__(self, X32, n_extra):
        n, m = X32.shape
        self.Xl = np.empty((m + n_extra, n), dtype=np.float32)
        self.Xl[:m] = gather_transpose(X32, np.arange(n, dtype=np.intp))
        self.S = np.empty((m + n_extra, n), dtype=np.intp)
        self.S[:m] = presort(self.Xl[:m])
        self.p = m

    def append(self, column):
        """Add one column (e.g. the chain's next label) after those already there."""
        self.Xl[self.p] = column
        self.S[self.p] = presort(self.Xl[self.p:self.p + 1])[0]
        self.p += 1

    def grow(self, codes, n_classes, random_state, min_samples_leaf=1):
        """:func:`grow` on all rows and the current columns."""
        p, n = self.p, self.Xl.shape[1]
        S = np.empty((p + 1, n), dtype=np.intp)
        S[:p] = self.S[:p]
        S[p] = np.arange(n)
        return grow_tree(self.Xl[:p], S, np.ascontiguousarray(codes, dtype=np.intp), n_classes,
                         splitter_seed(random_state), min_samples_leaf, -1)


class Presorted:
    """X's columns transposed and sorted once, for every tree of a forest grown on X (or X's bit
    sets when every column is two-valued): a tree on some of X's rows and columns then takes its
    sorted columns from these (:func:`subset_presorted`, O(n) per column) instead of sorting its
    own.  The same trees as :func:`grow` on the tree's rows and columns."""

    def __init__(self, X32):
        self.X = X32
        self.two_valued = two_valued_columns(X32)
        if not self.two_valued:
            self.XT = gather_transpose(X32, np.arange(X32.shape[0], dtype=np.intp))
            self.S = presort(self.XT)

    def grow(self, features, rows, codes, n_classes, random_state, min_samples_leaf=1):
        """:func:`grow` on ``X[:, features]`` and ``rows`` (increasing)."""
        features = np.ascontiguousarray(features, dtype=np.intp)
        rows = np.ascontiguousarray(rows, dtype=np.intp)
        y = np.ascontiguousarray(codes[rows], dtype=np.intp)
        state = splitter_seed(random_state)
        if self.two_valued:
            lo, hi, H = self.two_valued
            return grow_tree_binary(pack_rows(H, rows)[features], lo[features], hi[features], y,
                                    n_classes, state, min_samples_leaf, -1)
        Xl, S = subset_presorted(self.XT, self.S, features, rows)
        return grow_tree(Xl, S, y, n_classes, state, min_samples_leaf, -1)


class BaggedEntropyForest(ClassifierMixin, BaseEstimator):
    """``BaggingClassifier(DecisionTreeClassifier(criterion="entropy", min_samples_leaf=...),
    n_estimators, max_samples, max_features, bootstrap=False, bootstrap_features=False,
    random_state)``: the same members, drawn and grown the same way, from X's columns sorted
    once for all of them (:class:`Presorted`) instead of once per member.

    The draws are scikit-learn's (``ensemble/_bagging.py``, 1.3-1.9): the members' seeds
    ``check_random_state(random_state).randint(MAX_INT, size=n_estimators)``; for each seed, the
    tree's ``random_state`` ``RandomState(seed).randint(MAX_INT)`` (``_set_random_states``), then,
    from a second ``RandomState(seed)``, ``max(1, int(max_features * p))`` features and
    ``max(1, int(max_samples * n))`` rows drawn by ``sample_without_replacement`` (features
    first); the tree sees those columns, in that order, and those rows (Bagging passes them as
    0/1 sample weights).  ``tests/methods/test_cocoa_fast.py`` checks every member against
    scikit-learn's ``BaggingClassifier``.  Fitted: ``estimators_`` (:class:`EntropyTree`),
    ``estimators_features_``, ``estimators_samples_`` (the drawn rows), ``classes_``,
    ``n_classes_``; ``predict_proba`` sums the members as scikit-learn does.
    """

    def __init__(self, *, n_estimators=10, max_samples=1.0, max_features=1.0, min_samples_leaf=1,
                 random_state=None):
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.max_features = max_features
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    @staticmethod
    def _count(fraction, total):
        if isinstance(fraction, (int, np.integer)) and not isinstance(fraction, bool):
            count = int(fraction)
        else:
            count = max(1, int(float(fraction) * total))
        if not 1 <= count <= total:
            raise ConfigError(f"cannot draw {fraction} of {total} without replacement")
        return count

    def fit(self, X, y, presorted=None):
        """Grow the members; ``presorted``: a :class:`Presorted` of this very X (float32,
        C-order), shared by forests on the same X, or None to sort here."""
        X, y = validate_data(self, X, y, accept_sparse=("csr", "csc"), dtype=None)
        if int(self.min_samples_leaf) < 1:
            raise ConfigError("min_samples_leaf must be >= 1")
        X32 = as_float32(X)
        if presorted is None:
            presorted = Presorted(X32)
        elif presorted.X is not X32:
            raise ValueError("presorted was built from another X")
        n, p = X32.shape
        n_rows, n_features = self._count(self.max_samples, n), self._count(self.max_features, p)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.n_classes_ = self.classes_.size
        member_classes = np.arange(self.n_classes_)  # Bagging gives its members y's codes
        seeds = check_random_state(self.random_state).randint(MAX_INT, size=self.n_estimators)
        self.estimators_, self.estimators_features_, self.estimators_samples_ = [], [], []
        for seed in seeds:
            tree = EntropyTree(min_samples_leaf=self.min_samples_leaf,
                               random_state=int(np.random.RandomState(seed).randint(MAX_INT)))
            draw = np.random.RandomState(seed)
            features = sample_without_replacement(p, n_features, random_state=draw)
            rows = sample_without_replacement(n, n_rows, random_state=draw)
            tree.classes_, tree.n_features_in_ = member_classes, n_features
            (tree.feature_, tree.threshold_, tree.left_, tree.right_,
             tree.value_) = presorted.grow(features, np.sort(rows), codes, self.n_classes_,
                                           tree.random_state, int(self.min_samples_leaf))
            self.estimators_.append(tree)
            self.estimators_features_.append(features)
            self.estimators_samples_.append(rows)
        return self

    def predict_proba(self, X):
        """Mean of the members' class fractions (scikit-learn's sums, in its order)."""
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=None, reset=False)
        return bagging_proba(self, as_float32(X))

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


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

    def fit_prefixes(self, prefixes, y):
        """``fit(X, y)`` where X holds the current columns of ``prefixes`` (a
        :class:`PresortedPrefixes`), without sorting them again: the same tree."""
        if int(self.min_samples_leaf) < 1:
            raise ConfigError("min_samples_leaf must be >= 1")
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.n_features_in_ = prefixes.p
        (self.feature_, self.threshold_, self.left_, self.right_,
         self.value_) = prefixes.grow(codes, self.classes_.size, self.random_state,
                                      int(self.min_samples_leaf))
        return self

    def apply(self, X):
        """Index of the leaf each row reaches."""
        check_is_fitted(self)
        # finiteness is checked below on the columns the tree reads only: scikit-learn's check of
        # all of X was most of the prediction time of a classifier chain of these trees
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=None, reset=False,
                          ensure_all_finite=False)
        if sparse.issparse(X) or X.dtype not in (np.float32, np.float64):
            X = as_float32(X)
        used = np.unique(self.feature_[self.left_ != -1])
        if used.size and not np.isfinite(X[:, used]).all():
            raise ValueError("Input X contains NaN or infinity.")
        # float64 X (any layout) is read value by value as float32 by the kernel, no copy
        return apply_tree(X, self.feature_, self.threshold_, self.left_, self.right_)

    def predict_proba(self, X):
        """Class fractions of the leaf reached, shape (n, n_classes)."""
        return self.value_[self.apply(X)]

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def tree_base(base, base_params):
    """``(base, base_params)`` with scikit-learn's default entropy tree - ``"tree"`` or ``"c45"``
    without parameters, ``DecisionTreeClassifier(criterion="entropy", random_state=seed)`` in
    :func:`~mlbench.methods.base.make_base_learner` - replaced by :class:`EntropyTree`, which grows
    that very tree faster (same seed, same tree); any other base learner is returned unchanged.
    The methods that grow many such trees (ECC, CLR, RAkEL, HOMER) call it in ``fit``; passing
    ``base=DecisionTreeClassifier(criterion="entropy")`` keeps scikit-learn's trees (the
    reference of tests/methods/test_tree_bases.py)."""
    if isinstance(base, str) and base in ("tree", "c45") and not base_params:
        return EntropyTree(), None
    return base, base_params


def tree_input(X, base):
    """X for a method whose base learner is ``base``: a small sparse X densified once when the
    base is an :class:`EntropyTree` (each tree would otherwise densify it again), else X."""
    if isinstance(base, EntropyTree) and sparse.issparse(X) and densify_ok(X):
        return X.toarray()
    return X

