"""A single multi-label predictive clustering tree (PCT), the study's ``pct``.

Source: Blockeel, De Raedt & Ramon, "Top-down induction of clustering trees", ICML 1998 (PCTs);
Kocev, Vens, Struyf & Dzeroski, "Tree ensembles for predicting structured outputs", Pattern
Recognition 46(3), 2013 (the multi-label PCT); configuration of Bogatinovski, Todorovski, Dzeroski
& Kocev, "Comprehensive comparative study of multi-label classification methods", Expert Systems
with Applications 203, 2022 (PCT, run in Clus).

The tree is grown top-down.  A node holding the rows S is split by the test x_f <= c that minimises
the size-weighted summed per-label variance of the two parts,

    |S_left| sum_l Var_{S_left}(y_l) + |S_right| sum_l Var_{S_right}(y_l),

over every feature f and cut point c (all features at every node), as long as both parts keep at
least ``min_samples_leaf`` rows (Clus's ``MinimalWeight``, default 2) and the split lowers the
variance.  A leaf stores the fraction of positives per label, P(y_l = 1 | x) for the rows that
reach it; a label is predicted when that fraction is above 0.5 (Clus predicts the majority class;
a tie is negative).  For 0/1 labels, Clus's split heuristic on nominal targets (the Gini index
summed over the labels, ``ClassificationStat.getSVarS``) is twice this variance, so it chooses the
same split.

The tree is scikit-learn's ``DecisionTreeRegressor(criterion="squared_error")`` on the 0/1 label
matrix (see :mod:`mlbench.methods.trees.pct` for why it is the PCT heuristic), grown by the
kernel of :mod:`mlbench.methods.trees.fast_pct`.  It is not post-pruned: see
``docs/study-trees.md`` for Clus's C4.5 pruning, which is not reproduced.
"""
from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.registry import register
from mlbench.methods.trees.pct import fit_forest, forest_proba, make_forest


class PredictiveClusteringTree(MultiLabelClassifier):
    """One multi-label PCT (summed label variance, all features at every node, no bootstrap).

    Parameters
    ----------
    min_samples_leaf : int, default 2
        Fewest training rows in a leaf (Clus's ``MinimalWeight``).
    max_depth : int or None
        Depth limit (None: grown until no split is allowed or useful).
    random_state : int, RandomState or None
        Breaks ties between equally good splits (scikit-learn's feature permutation).
    """

    _estimator_checks = {"xfail": {
        "check_classifiers_multilabel_output_format_predict_proba":
            "leaf label fractions reach exactly 0 and 1; the check wants the open interval (0, 1)"}}

    def __init__(self, *, min_samples_leaf=2, max_depth=None, random_state=None):
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        tree = make_forest("variance", "rf", n_estimators=1, max_depth=self.max_depth,
                           max_features=None, min_samples_leaf=self.min_samples_leaf,
                           random_state=seed)
        tree.set_params(bootstrap=False)      # one tree on all training rows
        self.tree_ = fit_forest(tree, X, Y)
        return self

    def predict_proba(self, X):
        """Fraction of positives per label in the leaf reached, shape (n, L)."""
        X = self._validate_predict(X)
        check_is_fitted(self, "tree_")
        return forest_proba(self.tree_, X)

    def predict(self, X):
        """Labels whose leaf fraction is above 0.5 (Clus's majority class; a tie is negative)."""
        return (self.predict_proba(X) > 0.5).astype(int)


register("pct", PredictiveClusteringTree, family="trees", paper="bogatinovski2022",
         params={"min_samples_leaf": 2},
         description="a single predictive clustering tree (summed label variance, Clus's leaves "
                     "of at least 2 rows), not post-pruned")
