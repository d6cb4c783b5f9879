"""Imbalance-aware binary relevance: the six BR baselines of the SOSHF comparison table.

Source: Daniels & Metaxas (AAAI 2019), "Binary Relevance (BR) Methods": one linear SVM or one random
forest per label, with within-label imbalance corrected in three ways:

* ``cost`` - SVM: each row weighted by the inverse probability of its class in the label
  (scikit-learn's ``class_weight="balanced"``: ``n / (2 n_c)``); forest: trained as is, the label's
  decision threshold chosen to maximise the F-measure of its out-of-bag scores;
* ``down`` - the majority class undersampled at random to the size of the minority class
  (imbalanced-learn ``RandomUnderSampler``);
* ``adasyn`` - the minority class oversampled with ADASYN (He et al. 2008; imbalanced-learn).

The forest follows the paper's rule for every forest in its table: ``n_estimators`` = 50 entropy
trees, each grown on 75% of the rows and 75% of the features drawn without replacement, leaves of at
least three rows, no pruning (scikit-learn ``BaggingClassifier`` over ``DecisionTreeClassifier``;
out-of-bag rows are the ones a tree did not draw).  With ``backend="cython"`` (the default) the
forest is :class:`~mlbench.methods.components.fast_tree.BaggedEntropyForest`: Bagging's
draws of rows, features and seeds, and the very same trees grown faster from X's columns sorted
once for the whole forest (once for all labels when X is not resampled) instead of once per
tree (a sparse X small enough to densify, such as enron's bag of words, is given to it as dense
float32, whose 0/1 columns it grows from bit sets; a larger sparse X keeps scikit-learn's
Bagging and sparse splitter).  Both backends give the same forest and the same scores bit for
bit (tests/methods/test_cocoa_fast.py); ``backend="sklearn"`` is the reference.  The members'
out-of-bag and test probabilities are read by routing X through each tree once
(:func:`bagging_proba`), with scikit-learn's sums.

ADASYN needs ``k`` nearest minority neighbours of each minority row.  Rule used here: with ``m``
minority rows, ``k = min(adasyn_neighbors, m - 1)``; a label with fewer than two minority rows, or
one for which ADASYN finds nothing to generate (no minority row has a majority neighbour), is learnt
from its original rows.  ``fit_info_["adasyn_skipped"]`` counts such labels.
"""
from __future__ import annotations

import numpy as np
from sklearn.ensemble import BaggingClassifier
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._available_if import available_if

from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.registry import register
from mlbench.methods.components.thresholds import best_f1_threshold
from mlbench.methods.components.binary import ConstantBinary, draw_seeds
from mlbench.methods.components.fast_tree import (BaggedEntropyForest, Presorted, as_float32,
                                                      bagged_member_proba, bagging_proba,
                                                      densify_ok)

LEARNERS = ("svm", "rf")
STRATEGIES = ("cost", "down", "adasyn")
BACKENDS = ("cython", "sklearn")


def paper_forest(n_estimators=50, sample_fraction=0.75, min_samples_leaf=3, random_state=None,
                 backend="sklearn"):
    """The SOSHF paper's forest: entropy trees on 75% of rows and features without replacement."""
    if backend == "cython":
        return BaggedEntropyForest(n_estimators=n_estimators, max_samples=sample_fraction,
                                   max_features=sample_fraction,
                                   min_samples_leaf=min_samples_leaf, random_state=random_state)
    tree = DecisionTreeClassifier(criterion="entropy", min_samples_leaf=min_samples_leaf)
    return BaggingClassifier(tree, n_estimators=n_estimators, max_samples=sample_fraction,
                             max_features=sample_fraction, bootstrap=False,
                             bootstrap_features=False, random_state=random_state)


def forest_oob_proba(forest, X, n_rows, X32=None):
    """Mean P(y = 1) over the trees that did not draw each row; NaN for rows every tree drew.

    ``X32`` (optional) is X as float32 for :func:`bagged_member_proba` (same values, faster).
    """
    num = np.zeros(n_rows)
    den = np.zeros(n_rows)
    for est, rows, feats in zip(forest.estimators_, forest.estimators_samples_,
                                forest.estimators_features_):
        oob = np.ones(n_rows, dtype=bool)
        oob[rows] = False
        if not oob.any():
            continue
        if X32 is None:
            proba = est.predict_proba(X[oob][:, feats])
        else:
            proba = bagged_member_proba(est, feats, X32)[oob]
        classes = list(est.classes_)
        num[oob] += proba[:, classes.index(1)] if 1 in classes else 0.0
        den[oob] += 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def adasyn_resample(X, y, n_neighbors, seed):
    """ADASYN oversampling of the minority class of ``y``; ``None`` when the rule above skips it."""
    m = int(min(y.sum(), y.size - y.sum()))
    if m < 2:
        return None
    from imblearn.over_sampling import ADASYN    # imblearn loads pandas and pytest: only when used

    sampler = ADASYN(n_neighbors=min(n_neighbors, m - 1), random_state=seed)
    try:
        return sampler.fit_resample(X, y)
    except (RuntimeError, ValueError):
        # imbalanced-learn raises when no minority row has a majority-class neighbour (nothing to
        # generate); the label is then learnt from its original rows.
        return None


class ResampledBinaryRelevance(MultiLabelClassifier):
    """Binary relevance with a linear SVM or the paper's forest, corrected for within-label imbalance.

    Parameters: ``learner`` in {svm, rf}; ``strategy`` in {cost, down, adasyn}; ``C`` of the SVM;
    forest ``n_estimators`` (50), ``sample_fraction`` (0.75), ``min_samples_leaf`` (3);
    ``adasyn_neighbors`` (5); ``backend`` of the forest's trees (cython | sklearn, same trees);
    ``random_state``.  SVM scores are margins (``decision_function``,
    threshold 0); forest scores are ``predict_proba`` (threshold 0.5, or the out-of-bag F-measure
    thresholds with ``strategy="cost"``).
    """

    @property
    def _estimator_checks(self):
        xfail = {"check_classifiers_multilabel_output_format_predict_proba":
                 "tree-based scores reach exactly 0 and 1; the check wants the open interval (0, 1)"}
        if self.learner == "rf" and self.strategy == "cost":
            xfail["check_classifier_multioutput"] = ("predicts with out-of-bag F-measure thresholds, "
                                                     "not round(predict_proba)")
        return {"xfail": xfail}

    def __init__(self, *, learner="svm", strategy="cost", C=1.0, n_estimators=50,
                 sample_fraction=0.75, min_samples_leaf=3, adasyn_neighbors=5, backend="cython",
                 random_state=None):
        self.learner = learner
        self.strategy = strategy
        self.C = C
        self.n_estimators = n_estimators
        self.sample_fraction = sample_fraction
        self.min_samples_leaf = min_samples_leaf
        self.adasyn_neighbors = adasyn_neighbors
        self.backend = backend
        self.random_state = random_state

    def _make(self, seed, weighted, fast):
        if self.learner == "svm":
            return LinearSVC(C=self.C, class_weight="balanced" if weighted else None,
                             random_state=seed)
        return paper_forest(self.n_estimators, self.sample_fraction, self.min_samples_leaf, seed,
                            "cython" if fast else "sklearn")

    def _float32(self, X):
        """X as float32 when the forest's trees are grown by the Cython builder, else None.

        A sparse X is densified when it is small enough (:func:`densify_ok`): its trees then grow
        from bit sets (0/1 columns) or presorted columns, several times faster than scikit-learn's
        sparse splitter grows the same trees; the members are also applied to X32 directly.
        """
        if self.learner != "rf" or self.backend != "cython" or not densify_ok(X):
            return None
        return as_float32(X)

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        if self.learner not in LEARNERS:
            raise ConfigError(f"learner must be one of {', '.join(LEARNERS)}, got {self.learner!r}")
        if self.strategy not in STRATEGIES:
            raise ConfigError(f"strategy must be one of {', '.join(STRATEGIES)}, got {self.strategy!r}")
        if self.backend not in BACKENDS:
            raise ConfigError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        L = Y.shape[1]
        seeds = draw_seeds(self.random_state, 2 * L)
        rf = self.learner == "rf"
        self.estimators_ = []
        thresholds = np.full(L, 0.5 if rf else 0.0)
        skipped = 0
        X32 = self._float32(X)
        shared = None  # X32's sorted columns, for every label that is not resampled
        for l in range(L):
            y = Y[:, l].astype(int)
            if np.all(y == y[0]):
                self.estimators_.append(ConstantBinary(value=int(y[0])).fit(X, y))
                continue
            Xl, yl = X, y
            if self.strategy == "down":
                from imblearn.under_sampling import RandomUnderSampler

                Xl, yl = RandomUnderSampler(random_state=seeds[2 * l]).fit_resample(X, y)
            elif self.strategy == "adasyn":
                res = adasyn_resample(X, y, self.adasyn_neighbors, seeds[2 * l])
                if res is None:
                    skipped += 1
                else:
                    Xl, yl = res
            est = self._make(seeds[2 * l + 1], weighted=self.strategy == "cost",
                             fast=X32 is not None)
            if X32 is None:
                est.fit(Xl, yl)
            elif Xl is X:
                if shared is None:
                    shared = Presorted(X32)
                est.fit(X32, yl, presorted=shared)
            else:  # the resampled rows as the trees read them (same values)
                est.fit(as_float32(Xl), yl)
            if rf and self.strategy == "cost":
                thresholds[l] = best_f1_threshold(forest_oob_proba(est, X, X.shape[0], X32), y)
            self.estimators_.append(est)
        self.threshold_ = thresholds
        self.fit_info_ = {"adasyn_skipped": skipped} if self.strategy == "adasyn" else {}
        return self

    def _label_scores(self, X):
        X = self._validate_predict(X)
        X32 = self._float32(X)
        cols = []
        for est in self.estimators_:
            if self.learner == "rf":
                if X32 is not None and isinstance(est, BaggedEntropyForest):
                    proba = bagging_proba(est, X32)  # = est.predict_proba(X), bit for bit
                else:
                    proba = est.predict_proba(X)
                cols.append(proba[:, list(est.classes_).index(1)])
            else:
                cols.append(est.decision_function(X))
        return np.column_stack(cols) if cols else np.zeros((X.shape[0], 0))

    @available_if(lambda self: self.learner == "rf")
    def predict_proba(self, X):
        """Per-label forest probability of the positive class, shape (n, L)."""
        return self._label_scores(X)

    @available_if(lambda self: self.learner != "rf")
    def decision_function(self, X):
        """Per-label SVM margin, shape (n, L)."""
        return self._label_scores(X)


_SRC = "Daniels & Metaxas 2019, BR baselines"
for _learner, _what in (("svm", "linear SVM"), ("rf", "50-tree entropy forest")):
    register(f"{_learner}-cost", ResampledBinaryRelevance, family="transformation", paper="soshf",
             params={"learner": _learner, "strategy": "cost"},
             description=f"BR, {_what}, cost-sensitive "
                         + ("(balanced class weights)" if _learner == "svm" else
                            "(out-of-bag F-measure thresholds)") + f" ({_SRC})")
    register(f"{_learner}-down", ResampledBinaryRelevance, family="transformation", paper="soshf",
             params={"learner": _learner, "strategy": "down"},
             description=f"BR, {_what}, random undersampling of the majority class ({_SRC})")
    register(f"{_learner}-adasyn", ResampledBinaryRelevance, family="transformation", paper="soshf",
             params={"learner": _learner, "strategy": "adasyn"},
             description=f"BR, {_what}, ADASYN oversampling of the minority class ({_SRC})")
