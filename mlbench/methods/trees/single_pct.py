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
kernel of :mod:`mlbench.methods.trees.fast_pct`.

Pruning (``pruning="c45"``, Clus's default for classification targets, ``C45Pruner``).  Every node
keeps the training rows that reach it; its error E is the mean over the labels of the minority
count, (1/L) sum_l min(n_l+, n - n_l+), and its estimated error is E + U(n, E), C4.5's upper
confidence bound at CF = 0.25 (the normal approximation with continuity correction; exact cases
for E < 1 and E + 0.5 >= n).  In order:

1. bottom-up, a node whose children are leaves predicting the same label vector becomes a leaf;
2. top-down, a node whose leaves' summed training error is not below its own minus 1e-3 becomes a
   leaf (its subtree is not visited);
3. bottom-up (children first), with the node's rows: let A be the estimated error as a leaf, B the
   summed estimated errors of its leaves, C those of its largest child's leaves with all the node's
   rows sent through that child.  If A <= B + 0.1 and A <= C + 0.1 the node becomes a leaf; else if
   C <= B + 0.1 the largest child replaces the node (subtree raising: its nodes' rows are recomputed
   from the node's rows) and step 3 is run on it again.

Steps 2 and 3 are :mod:`mlbench.methods.components.c45_pruning`, shared with Weka's J48 (which
breaks ties of the largest child the other way and compares with a 1e-6 tolerance).  A pruned leaf
predicts from all the rows of its node.  ``pruning="none"`` keeps the grown tree.
"""
from __future__ import annotations

import sys

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.components import c45_pruning
from mlbench.methods.components.c45_pruning import added_errors
from mlbench.methods.registry import register
from mlbench.methods.trees.pct import fit_forest, forest_proba, make_forest

PRUNINGS = ("c45", "none")
CONFIDENCE = 0.25                       # Clus's C45Pruner m_ConfidenceFactor


class _Node:
    """A node of the tree being pruned: its test, children and the statistics of its rows."""

    __slots__ = ("feature", "threshold", "children", "n", "pos")

    def __init__(self, feature, threshold, children, rows, Y):
        self.feature, self.threshold, self.children = feature, threshold, children
        self.set_rows(rows, Y)

    def set_rows(self, rows, Y):
        self.n = rows.size
        self.pos = Y[rows].sum(axis=0, dtype=np.float64)

    @property
    def leaf(self):
        return not self.children

    def error(self):
        """Mean over the labels of the minority count (Clus ``ClassificationStat.getError``)."""
        return float(np.minimum(self.pos, self.n - self.pos).mean()) if self.n else 0.0

    def estimated(self):
        return 0.0 if self.n == 0 else self.error() + added_errors(self.n, self.error(), CONFIDENCE)

    def estimate_rows(self, rows, Y):
        return _Node(-1, 0.0, [], rows, Y).estimated()

    def largest_child(self):
        """The first of the children with the most rows (Clus)."""
        return int(np.argmax([c.n for c in self.children]))

    def make_leaf(self):
        self.children = []

    def raise_child(self, child):
        self.feature, self.threshold, self.children = child.feature, child.threshold, child.children

    def majority(self):
        return self.pos > self.n - self.pos

    def split(self, rows, X):
        go_left = X[rows, self.feature] <= self.threshold
        return rows[go_left], rows[~go_left]


def _build(tree, X, Y):
    """The fitted scikit-learn tree as :class:`_Node` s carrying their training rows' statistics."""
    left, right = tree.children_left, tree.children_right

    def build(node, rows):
        if left[node] == -1:
            return _Node(-1, 0.0, [], rows, Y)
        out = _Node(int(tree.feature[node]), float(tree.threshold[node]), [], rows, Y)
        lrows, rrows = out.split(rows, X)
        out.children = [build(left[node], lrows), build(right[node], rrows)]
        return out

    return build(0, np.arange(X.shape[0]))


def _safe_prune(node):
    for c in node.children:
        _safe_prune(c)
    if node.children and all(c.leaf for c in node.children) and all(
            np.array_equal(c.majority(), node.children[0].majority()) for c in node.children):
        node.children = []


def _flatten(root):
    """(feature, threshold, left, right, value) arrays of the pruned tree (value: leaf fractions)."""
    feature, threshold, left, right, value = [], [], [], [], []

    def add(node):
        i = len(feature)
        feature.append(node.feature if not node.leaf else -1)
        threshold.append(node.threshold)
        left.append(-1)
        right.append(-1)
        value.append(node.pos / node.n if node.n else np.zeros_like(node.pos))
        if not node.leaf:
            left[i] = add(node.children[0])
            right[i] = add(node.children[1])
        return i

    add(root)
    return (np.array(feature), np.array(threshold), np.array(left), np.array(right),
            np.array(value))


def _as_float32(X):
    return (X.toarray() if sp.issparse(X) else np.asarray(X)).astype(np.float32)


class PredictiveClusteringTree(MultiLabelClassifier):
    """One multi-label PCT (summed label variance, all features at every node, no bootstrap).

    Parameters
    ----------
    min_samples_leaf : int, default 2
        Fewest training rows in a leaf (Clus's ``MinimalWeight``).
    max_depth : int or None
        Depth limit (None: grown until no split is allowed or useful).
    pruning : "c45" or "none", default "c45"
        Clus's C4.5 pruning with subtree raising (see module doc), or none.
    random_state : int, RandomState or None
        Breaks ties between equally good splits (scikit-learn's feature permutation).
    """

    _estimator_checks = {"xfail": {
        "check_classifiers_multilabel_output_format_predict_proba":
            "leaf label fractions reach exactly 0 and 1; the check wants the open interval (0, 1)"}}

    def __init__(self, *, min_samples_leaf=2, max_depth=None, pruning="c45", random_state=None):
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.pruning = pruning
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        if self.pruning not in PRUNINGS:
            raise ValueError(f"pruning must be one of {PRUNINGS}, got {self.pruning!r}")
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        forest = make_forest("variance", "rf", n_estimators=1, max_depth=self.max_depth,
                             max_features=None, min_samples_leaf=self.min_samples_leaf,
                             random_state=seed)
        forest.set_params(bootstrap=False)      # one tree on all training rows
        if self.pruning == "none":
            self.tree_ = fit_forest(forest, X, Y)
            return self
        X32 = _as_float32(X)          # the values the thresholds compare (the forest keeps it)
        forest.fit(X32, Y.astype(np.float64) if Y.shape[1] > 1 else Y[:, 0].astype(np.float64))
        tree = forest.estimators_[0].tree_
        # the pruning recurses once per level (a few frames each)
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * tree.max_depth + 200))
        root = _build(tree, X32, Y)
        _safe_prune(root)
        c45_pruning.collapse(root)
        c45_pruning.prune(root, np.arange(X.shape[0]), X32, Y)
        self.nodes_ = _flatten(root)
        return self

    def predict_proba(self, X):
        """Fraction of positives per label in the leaf reached, shape (n, L)."""
        X = self._validate_predict(X)
        if self.pruning == "none":
            check_is_fitted(self, "tree_")
            return forest_proba(self.tree_, X)
        check_is_fitted(self, "nodes_")
        feature, threshold, left, right, value = self.nodes_
        X32 = _as_float32(X)
        node = np.zeros(X.shape[0], dtype=np.intp)
        inner = np.flatnonzero(left[node] != -1)
        while inner.size:
            at = node[inner]
            go_left = X32[inner, feature[at]] <= threshold[at]
            node[inner] = np.where(go_left, left[at], right[at])
            inner = inner[left[node[inner]] != -1]
        return value[node]

    def predict(self, X):
        """Labels whose leaf fraction is above 0.5 (Clus's majority class; a tie is negative)."""
        return (self.predict_proba(X) > 0.5).astype(int)


register("pct", PredictiveClusteringTree, family="trees", paper="bogatinovski2022",
         params={"min_samples_leaf": 2, "pruning": "c45"},
         description="a single predictive clustering tree (summed label variance, Clus's leaves "
                     "of at least 2 rows, Clus's C4.5 pruning)")
