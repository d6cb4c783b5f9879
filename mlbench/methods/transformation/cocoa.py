"""COCOA: cross-coupling aggregation for class-imbalanced multi-label learning.

Source: Zhang, Li & Liu, "Towards class-imbalance aware multi-label learning", IJCAI 2015.

For each label j:

* a binary imbalance learner g_j for y_j;
* ``K = min(L - 1, n_couplings)`` other labels k drawn at random; for each, a multi-class imbalance
  learner g_jk on the tri-class target ``psi(y_j, y_k)`` = 0 if y_j = 0 and y_k = 0, 1 if y_j = 0
  and y_k = 1, 2 if y_j = 1 (the two joint classes with y_j = 1 are merged because they are small);
* the real-valued output ``f_j(x) = (g_j(x) + sum_k P_jk(class 2 | x)) / (K + 1)``;
* a threshold t_j maximising the F-measure of f_j on the training set, searched on the grid
  0.05, 0.10, ..., 0.95 (as the MULAN implementation the SOSHF paper ran).

Imbalance learners. MULAN's ``COCOA`` (the implementation the SOSHF paper says it ran) grows one
base classifier per problem, on one random undersample that cuts every class to the size of the
smallest (``SpreadSubsample`` with spread 1), and has no ensemble size. The SOSHF paper nevertheless
runs COCOA "with 10 couplings and 50 models per ensemble" (10 on TMC2007 and Mediamill), with C4.5
as the base learner of every higher-order method. Our reading: every imbalance learner (the binary
g_j and each tri-class g_jk) is an under-bagging ensemble of ``n_estimators`` members, each an
entropy tree (C4.5's criterion, unpruned) grown on its own class-balanced undersample drawn without
replacement, and the learner's probability is the members' mean (see :class:`_ClassProbability`). So
one member equals MULAN's single undersampled learner, and "ensemble of 50" is 50 such undersamples
(not Bagging of one undersample, and not 50 couplings). A COCOA fit grows ``L * (K + 1) *
n_estimators`` trees: 13 * 11 * 50 = 7150 on yeast.
The SOSHF paper shrinks the ensembles to 10 on TMC2007 and Mediamill only; a method does not know
its data set's name, so the protocol states this as a size rule: ``large_n_estimators`` (10) when
the training part has at least ``large_from`` (10000) rows - only those two of its eleven data sets
(about 14300 and 22000 training rows under 50/50 splits; the next largest has about 3000).

Speed: ``backend="cython"`` (default) grows the trees with :mod:`mlbench._ext._cocoa`, which builds
the same trees as scikit-learn node for node (from bit sets when every column is two-valued, as
enron's and medical's 0/1 words are); ``backend="sklearn"`` is the reference.  Both give identical
scores, thresholds and predictions for the same seed (tests/methods/test_cocoa_fast.py;
benchmarks/bench_cocoa.py prints the speed ratio).  Not done, because it would change the method:
sharing the (j, k) and (k, j) tri-class problems (they merge different joint classes, so they are
different targets), or one multi-output tree in place of per-problem trees.
"""
from __future__ import annotations

import numpy as np
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_random_state

from mlbench._ext import _cocoa
from mlbench._ext._cocoa import two_valued_columns
from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.registry import register
from mlbench.methods.components.binary import draw_seeds
from mlbench.methods.components.fast_tree import as_float32, grow

_GRID = np.round(np.arange(0.05, 0.951, 0.05), 2)
BACKENDS = ("cython", "sklearn")


def _f1_grid_threshold(scores, y):
    """Grid threshold (0.05 ... 0.95) with the best F1 of ``scores >= t``; the first on ties."""
    best, best_t = -1.0, 0.5
    n_pos = y.sum()
    for t in _GRID:
        pred = scores >= t
        denom = pred.sum() + n_pos
        f = 2.0 * (pred & (y == 1)).sum() / denom if denom else 0.0
        if f > best:
            best, best_t = f, t
    return best_t


class _ClassProbability:
    """P(class c | x) from ``n_estimators`` entropy trees, each on its own class-balanced undersample.

    Each member draws, without replacement, as many rows of every class as the smallest class has
    (random undersampling to balance, as COCOA's imbalance learners do) and grows a tree on them.
    Written out rather than with imbalanced-learn's ``BalancedBaggingClassifier`` because that
    wraps every member in a sampler pipeline whose overhead was most of COCOA's fit time (COCOA
    grows L * (K + 1) * 50 trees, 7150 on yeast).  A target that never varies gives a constant.

    ``backend="cython"`` grows each member with :func:`mlbench._ext._cocoa.grow_tree`, which builds
    the very tree scikit-learn's ``DecisionTreeClassifier(criterion="entropy", random_state=seed)``
    builds on the same rows (node for node; see that module), several times faster; it needs the
    default tree (no ``base_params``).  ``backend="sklearn"`` is the reference: scikit-learn trees.
    Both give the same probabilities bit for bit (tests/methods/test_cocoa_fast.py).
    """

    def __init__(self, target, c, n_estimators, seed, base_params, backend="sklearn"):
        self.c = c
        self.n_estimators = n_estimators
        self.seed = seed
        self.base_params = base_params
        self.backend = backend
        classes = np.unique(target)
        self.const = None
        if classes.size < 2:
            self.const = float(classes.size and classes[0] == c)

    def _members(self, target):
        """(seed, rows) of every member: the balanced undersample it is grown on."""
        rng = np.random.RandomState(self.seed)
        groups = [np.flatnonzero(target == k) for k in np.unique(target)]
        m = min(g.size for g in groups)
        sub = np.random.RandomState()
        for seed in rng.randint(np.iinfo(np.int32).max, size=self.n_estimators):
            sub.seed(seed)  # the stream of RandomState(seed), without a new generator per member
            yield seed, np.sort(np.concatenate([sub.choice(g, m, replace=False) for g in groups]))

    def fit(self, X, target, two_valued=None):
        """Grow the members on ``X`` (float64 for ``sklearn``; float32 C-order for ``cython``,
        with ``two_valued_columns(X)`` computed once by the caller, see :func:`grow`)."""
        if self.const is not None:
            return self
        self.trees_ = []
        for seed, rows in self._members(target):
            if self.backend == "cython":
                self.trees_.append(_grow_fast(X, rows, target, seed, self.c, two_valued))
            else:
                tree = DecisionTreeClassifier(criterion="entropy", random_state=seed,
                                              **(self.base_params or {}))
                self.trees_.append(tree.fit(X[rows], target[rows]))
        return self

    def __call__(self, X):
        if self.const is not None:
            return np.full(X.shape[0], self.const)
        out = np.zeros(X.shape[0])
        for tree in self.trees_:
            if self.backend == "cython":
                feature, threshold, left, right, proba_c = tree
                if proba_c is not None:
                    out += proba_c[_cocoa.apply_tree(X, feature, threshold, left, right)]
                continue
            classes = list(tree.classes_)
            if self.c in classes:
                out += tree.predict_proba(X)[:, classes.index(self.c)]
        return out / len(self.trees_)


def _grow_fast(X32, rows, target, seed, c, two_valued=None):
    """One member grown by the Cython builder: ``(feature, threshold, left, right, P(c) per node)``,
    the tree that ``DecisionTreeClassifier(criterion="entropy", random_state=seed)`` grows on
    ``rows``."""
    classes = np.unique(target[rows])
    codes = np.searchsorted(classes, target)  # only the codes of ``rows`` are read
    feature, threshold, left, right, value = grow(X32, rows, codes, classes.size, seed,
                                                  two_valued=two_valued)
    hit = np.flatnonzero(classes == c)
    return feature, threshold, left, right, value[:, hit[0]] if hit.size else None


class COCOA(MultiLabelClassifier):
    """COCOA with ``n_couplings`` coupled labels per label and under-bagged entropy-tree learners."""

    _estimator_checks = {"xfail": {
        "check_classifier_multioutput":
        "predicts with per-label F-measure thresholds, not round(predict_proba)",
        "check_classifiers_multilabel_output_format_predict_proba":
        "tree-based scores reach exactly 0 and 1; the check wants the open interval (0, 1)"}}

    def __init__(self, *, n_couplings=10, n_estimators=50, large_n_estimators=None,
                 large_from=10000, base_params=None, backend="cython", random_state=None):
        self.n_couplings = n_couplings
        self.n_estimators = n_estimators
        self.large_n_estimators = large_n_estimators
        self.large_from = large_from
        self.base_params = base_params
        self.backend = backend
        self.random_state = random_state

    def _backend(self):
        if self.backend not in BACKENDS:
            raise ConfigError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        # the Cython builder replicates the default tree only; other tree settings use scikit-learn
        return "sklearn" if self.base_params else self.backend

    def _learner_input(self, X):
        """X as the learners read it: float32 C-order dense for ``cython`` (scikit-learn's tree
        compares float32 values too), unchanged for ``sklearn``."""
        if self.backend_ != "cython":
            return X
        return as_float32(X)

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        if int(self.n_couplings) < 0 or int(self.n_estimators) < 1:
            raise ConfigError("n_couplings must be >= 0 and n_estimators >= 1")
        self.backend_ = self._backend()
        rng = check_random_state(self.random_state)
        Xin = self._learner_input(X)
        # 0/1 columns (enron, medical): every member grows from bit sets (fast_tree.grow)
        two = two_valued_columns(Xin) if self.backend_ == "cython" else None
        two = two if two is not None else False
        L = Y.shape[1]
        K = min(L - 1, int(self.n_couplings))
        n_est = int(self.n_estimators)
        if self.large_n_estimators is not None and X.shape[0] >= int(self.large_from):
            n_est = int(self.large_n_estimators)
        self.fit_info_ = {"n_estimators": n_est}
        self.couplings_ = []
        self.learners_ = []
        for j in range(L):
            others = np.delete(np.arange(L), j)
            coupled = rng.permutation(others)[:K]
            seeds = draw_seeds(rng, K + 1)
            yj = Y[:, j].astype(int)
            models = [_ClassProbability(yj, 1, n_est, seeds[0], self.base_params,
                                        self.backend_).fit(Xin, yj, two)]
            for s, k in zip(seeds[1:], coupled):
                tri = np.where(yj == 1, 2, Y[:, k].astype(int))
                models.append(_ClassProbability(tri, 2, n_est, s, self.base_params,
                                                self.backend_).fit(Xin, tri, two))
            self.couplings_.append(coupled)
            self.learners_.append(models)
        train_scores = self._confidences(Xin)
        self.threshold_ = np.array([_f1_grid_threshold(train_scores[:, j], Y[:, j])
                                    for j in range(L)])
        return self

    def _confidences(self, X):
        out = np.zeros((X.shape[0], len(self.learners_)))
        for j, models in enumerate(self.learners_):
            out[:, j] = sum(m(X) for m in models) / len(models)
        return out

    def predict_proba(self, X):
        """``f_j(x)``: mean of the binary and tri-class positive probabilities, shape (n, L)."""
        return self._confidences(self._learner_input(self._validate_predict(X)))


register("cocoa", COCOA, family="transformation", paper="soshf",
         params={"n_couplings": 10, "n_estimators": 50},
         description="COCOA (Zhang, Li & Liu 2015): binary + tri-class coupled under-bagged trees, "
                     "F-measure thresholds")
