"""Multi-label forests of predictive clustering trees (RF-PCT, ERF-PCT) and of ML-C4.5 trees.

Definitions (Kocev, Vens, Struyf & Dzeroski, Pattern Recognition 46(3), 2013; Clare & King, PKDD
2001; Madjarov et al., Pattern Recognition 45(9), 2012; MLDF paper, Section 2.2):

* A **predictive clustering tree** (PCT) for multi-label data splits a node so that the summed
  per-label variance of the two children, weighted by their sizes, is smallest:
  ``sum_{c in {left,right}} n_c * sum_j Var_c(y_j)``.  Its leaf stores the mean label vector, i.e.
  the fraction of positives per label, which is the forest's per-label probability.
* An **ML-C4.5** tree splits on the summed per-label entropy
  ``sum_j -(p_j log p_j + (1-p_j) log(1-p_j))`` of the children, weighted by their sizes.
* **RF-PCT** / **RFML-C4.5**: bagging (bootstrap samples) plus sqrt(d) random candidate features per
  split, best cut point per candidate; **ERF-PCT** / **ERFML-C4.5** (Kocev & Ceci, DS 2015; Geurts et
  al. 2006): no bootstrap, sqrt(d) candidate features, one uniformly random cut point per candidate.
  The forest's output is the average of its trees' leaf vectors.

How this maps exactly onto scikit-learn (checked against sklearn/tree/_criterion.pyx, 1.9):

* ``split="variance"`` uses the multi-output *regressors* (``RandomForestRegressor`` /
  ``ExtraTreesRegressor``, ``criterion="squared_error"``) on the 0/1 label matrix.  The node
  impurity there is ``(1/L) sum_j Var(y_j)``, so the weighted children impurity the splitter minimises
  is the PCT heuristic divided by the constant L: the same split is chosen.  The leaf value is the
  (bootstrap-weighted) mean of each label column = the fraction of positives per label.  The
  multi-output *classifier* with ``criterion="gini"`` would choose the same splits too (binary Gini
  ``2 p (1-p)`` is twice the variance ``p (1-p)``, summed and divided by L), but the regressor gives the
  (n, L) probability matrix directly and handles labels that are constant in the training part.
* ``split="entropy"`` uses the multi-output *classifiers* with ``criterion="entropy"``: the node
  impurity is ``(1/L) sum_j H(y_j)`` (per-output entropies summed, divided by L), i.e. the ML-C4.5
  heuristic up to a constant factor.  (Unlike C4.5 there is no gain ratio and no pruning; the same
  holds for the other engineers' ``c45`` base learner.)

Memory.  scikit-learn's regression tree keeps a dense float64 value per node and label, internal
nodes included: about 1 GB per 100 fully grown trees at 374 labels.  A fitted variance forest is
therefore kept as a :class:`CompactForest`: each tree's structure without values (for ``apply``)
and its leaves' label vectors as one sparse matrix.  A leaf holds the mean of its few training
rows, so most of its labels are 0.  The prediction is bit for bit scikit-learn's (the same leaf
values added tree by tree in the same order, then divided by the number of trees).

``rfpct`` is RF-PCT as configured by Bogatinovski, Todorovski, Dzeroski & Kocev, "Comprehensive
comparative study of multi-label classification methods", Expert Systems with Applications 203,
2022, which ran Clus: 100 trees, and Clus's defaults where the study sets nothing else - a feature
subset of ceil(log2 d) (``SelectRandomSubspaces = log``) and at least two rows per leaf
(``MinimalWeight = 2``, Clus manual).  Clus's forest votes by default (``VotingType = Majority``);
mlbench's forest averages the trees' leaf label fractions (Clus's ``ProbabilityDistribution``),
which gives the scores that the study's ranking measures need.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from sklearn.ensemble import (ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                              RandomForestRegressor)
from sklearn.tree._tree import Tree
from sklearn.utils import check_array, check_random_state
from sklearn.utils.validation import check_is_fitted

from mlbench._ext._pct import leaf_csr
from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.registry import register
from mlbench.methods.trees.fast_pct import ExtraVarianceForest, VarianceForest

SPLITS = ("variance", "entropy")
RANDOMIZATIONS = ("rf", "erf")

_ESTIMATORS = {
    ("variance", "rf"): VarianceForest,
    ("variance", "erf"): ExtraVarianceForest,
    ("entropy", "rf"): RandomForestClassifier,
    ("entropy", "erf"): ExtraTreesClassifier,
}


#: feature-subset sizes that scikit-learn does not name: Clus's default for random forests,
#: ceil(log2 d) (``SelectRandomSubspaces = log``, Clus manual), and Weka's RandomForest default,
#: floor(log2 d) + 1 (``-K 0``)
MAX_FEATURES_RULES = {
    "ceil-log2": lambda d: max(1, math.ceil(math.log2(d))),
    "log2+1": lambda d: int(math.log2(d)) + 1,
}


def resolve_max_features(max_features, n_features):
    """``max_features`` for scikit-learn: a rule of :data:`MAX_FEATURES_RULES` evaluated at
    ``n_features`` (capped at it), anything else unchanged."""
    if isinstance(max_features, str) and max_features in MAX_FEATURES_RULES:
        return min(n_features, MAX_FEATURES_RULES[max_features](max(n_features, 1)))
    return max_features


def make_forest(split, randomization, *, n_estimators, max_depth=None, max_features="sqrt",
                min_samples_leaf=1, n_jobs=1, random_state=None, fast=True):
    """The scikit-learn multi-output forest computing the heuristic named by ``split`` (see module doc).

    ``randomization="rf"`` bags (bootstrap) and searches the best cut point; ``"erf"`` uses the whole
    training part and one random cut point per candidate feature.  A variance forest's trees are
    grown by :mod:`~mlbench.methods.trees.fast_pct` (the same trees, faster); ``fast=False`` gives
    scikit-learn's own forest (the reference of the tests and benchmarks).
    """
    if split not in SPLITS:
        raise ConfigError(f"unknown split heuristic {split!r}; choose one of {', '.join(SPLITS)}")
    if randomization not in RANDOMIZATIONS:
        raise ConfigError(f"unknown randomization {randomization!r}; choose one of "
                          f"{', '.join(RANDOMIZATIONS)}")
    kw = dict(n_estimators=n_estimators, max_depth=max_depth, max_features=max_features,
              min_samples_leaf=min_samples_leaf, n_jobs=n_jobs, random_state=random_state,
              bootstrap=(randomization == "rf"))
    kw["criterion"] = "squared_error" if split == "variance" else "entropy"
    if not fast and split == "variance":
        return (RandomForestRegressor if randomization == "rf" else ExtraTreesRegressor)(**kw)
    return _ESTIMATORS[split, randomization](**kw)


class CompactForest:
    """A fitted variance forest's trees as structure + sparse leaf vectors (see module doc)."""

    def __init__(self, forest):
        self.skeletons, self.leaf_values = [], []
        for est in forest.estimators_:
            state = est.tree_.__getstate__()
            values = state["values"]                                  # (nodes, L, 1)
            # only leaves are ever read: internal nodes' rows stay empty
            self.leaf_values.append(sp.csr_matrix(leaf_csr(values, state["nodes"]["left_child"]),
                                                  shape=values.shape[:2]))
            skeleton = Tree(est.tree_.n_features, np.ones(1, dtype=np.intp), 1)
            skeleton.__setstate__({**state, "values": np.zeros((len(values), 1, 1))})
            self.skeletons.append(skeleton)

    def predict(self, X):
        """The average of the trees' leaf vectors, (n, L) (scikit-learn's order of operations)."""
        X = check_array(X, dtype=np.float32, accept_sparse="csr")
        if sp.issparse(X):   # the trees' Cython apply reads 32-bit sparse indices
            X.indices, X.indptr = X.indices.astype(np.intc), X.indptr.astype(np.intc)
        out = np.zeros((X.shape[0], self.leaf_values[0].shape[1]))
        for skeleton, values in zip(self.skeletons, self.leaf_values):
            out += values[skeleton.apply(X)].toarray()
        out /= len(self.skeletons)
        return out

    def nbytes(self):
        """Bytes held by the leaf vectors and the node arrays."""
        return sum(v.data.nbytes + v.indices.nbytes + v.indptr.nbytes for v in self.leaf_values) + \
            sum(s.__getstate__()["nodes"].nbytes for s in self.skeletons)


def _is_variance(forest):
    return isinstance(forest, (RandomForestRegressor, ExtraTreesRegressor))


def fit_forest(forest, X, Y):
    """Fit ``forest`` (from :func:`make_forest`) on the 0/1 matrix ``Y`` (n, L); returns it.

    A variance forest keeps only its :class:`CompactForest` (attribute ``compact_``): its
    scikit-learn trees are dropped after the fit.
    """
    target = Y.astype(np.float64) if _is_variance(forest) else Y
    if target.shape[1] == 1:  # scikit-learn wants a 1-D target for a single output
        target = target[:, 0]
    forest.fit(X, target)
    if _is_variance(forest):
        forest.compact_ = CompactForest(forest)
        del forest.estimators_
    return forest


def forest_proba(forest, X):
    """Per-label probability (n, L): the average over trees of the leaves' fractions of positives."""
    if _is_variance(forest):
        out = forest.compact_.predict(X)
        return np.clip(out, 0.0, 1.0)
    probas = forest.predict_proba(X)
    if not isinstance(probas, list):
        probas = [probas]
    classes = forest.classes_ if isinstance(forest.classes_, list) else [forest.classes_]
    out = np.empty((probas[0].shape[0], len(probas)))
    for j, (p, c) in enumerate(zip(probas, classes)):
        # a label constant in the training part has a single class: its probability is constant
        pos = np.flatnonzero(np.asarray(c) == 1)
        out[:, j] = p[:, pos[0]] if pos.size else 0.0
    return out


class MultiLabelForest(MultiLabelClassifier):
    """A forest of multi-label trees: RF-PCT, ERF-PCT, RFML-C4.5 or ERFML-C4.5 (see module doc).

    Parameters
    ----------
    n_estimators : number of trees (100 in the MLDF paper's RF-PCT baseline, Section 4.2).
    split : ``"variance"`` (PCT) or ``"entropy"`` (ML-C4.5).
    randomization : ``"rf"`` (bootstrap, best cut point) or ``"erf"`` (no bootstrap, one random cut
        point per candidate feature).
    max_features : candidate features per split (``"sqrt"``: sqrt(d), as in the paper; also
        ``"ceil-log2"``, Clus's default ceil(log2 d), and ``"log2+1"``, Weka's floor(log2 d) + 1).
    max_depth, min_samples_leaf : tree size limits (None / 1: fully grown trees).
    n_jobs : threads for scikit-learn's forest (1 by default; the runner parallelises over cells).
    """

    _estimator_checks = {"xfail": {
        "check_classifiers_multilabel_output_format_predict_proba":
            "forest probabilities reach exactly 0 and 1; the check wants the open interval (0, 1)"}}

    def __init__(self, *, n_estimators=100, split="variance", randomization="rf",
                 max_features="sqrt", max_depth=None, min_samples_leaf=1, n_jobs=1,
                 random_state=None):
        self.n_estimators = n_estimators
        self.split = split
        self.randomization = randomization
        self.max_features = max_features
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        rng = check_random_state(self.random_state)
        self.forest_ = make_forest(self.split, self.randomization, n_estimators=self.n_estimators,
                                   max_depth=self.max_depth,
                                   max_features=resolve_max_features(self.max_features, X.shape[1]),
                                   min_samples_leaf=self.min_samples_leaf, n_jobs=self.n_jobs,
                                   random_state=rng.randint(np.iinfo(np.int32).max))
        fit_forest(self.forest_, X, Y)
        return self

    def predict(self, X):
        """Labels whose fraction of positives is above 0.5 (a tie at exactly 0.5 is negative)."""
        return (self.predict_proba(X) > 0.5).astype(int)

    def predict_proba(self, X):
        X = self._validate_predict(X)
        check_is_fitted(self, "forest_")
        return forest_proba(self.forest_, X)


register("rf-pct", MultiLabelForest, family="trees", paper="mldf",
         params={"n_estimators": 100, "split": "variance", "randomization": "rf"},
         description="random forest of predictive clustering trees (summed label variance), 100 trees")
register("erf-pct", MultiLabelForest, family="trees", paper="mldf",
         params={"n_estimators": 100, "split": "variance", "randomization": "erf"},
         description="extremely randomised forest of predictive clustering trees, 100 trees")
register("rfml-c45", MultiLabelForest, family="trees", paper="mldf",
         params={"n_estimators": 100, "split": "entropy", "randomization": "rf"},
         description="random forest of ML-C4.5 trees (entropy summed over labels), 100 trees")
register("erfml-c45", MultiLabelForest, family="trees", paper="mldf",
         params={"n_estimators": 100, "split": "entropy", "randomization": "erf"},
         description="extremely randomised forest of ML-C4.5 trees, 100 trees")
register("rfpct", MultiLabelForest, family="trees", paper="bogatinovski2022",
         params={"n_estimators": 100, "split": "variance", "randomization": "rf",
                 "max_features": "ceil-log2", "min_samples_leaf": 2},
         description="RFPCT of the study: random forest of 100 predictive clustering trees with "
                     "Clus's defaults (ceil(log2 d) candidate features, leaves of at least 2 rows)")
