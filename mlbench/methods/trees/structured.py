"""Structured forests for multi-label classification and SOSHF (Daniels & Metaxas, AAAI 2019).

A structured tree (Dollar & Zitnick 2013) grows like a decision tree, except that at each node the
label vectors are first mapped to one binary label by 2-means in label space (optionally weighted
by the IDF of eq. 1, :mod:`.clustering`); a split of the features is learned for that binary
problem and the node recurses.  Leaves keep the mean label vector (over *all* labels) of their
training rows; a node becomes a leaf when it has fewer than ``2 * min_samples_leaf`` rows, when its
label vectors form one cluster, or when the learned split would leave fewer than
``min_samples_leaf`` (3) rows on a side; there is no pruning and no depth limit.

Splits (all stored as ``[x, 1] . w >= 0`` -> right, so one Cython traversal serves every variant):

* ``gain`` - axis-parallel, information gain (a depth-one scikit-learn entropy tree; with
  ``backend="cython"`` the same stump, grown by :mod:`mlbench.methods.components.fast_tree`);
* ``logistic`` - oblique, L2 logistic regression (C = 1, liblinear: lbfgs needs ~100x longer on the
  small, often separable node problems; ``backend="numpy"`` through ``LogisticRegression``, the
  others through the liblinear call it makes, without its per-node input checks);
* ``hellinger`` - oblique, the sparse Hellinger loss (eqs. 2-10, :mod:`.hellinger`).

Forest ("Ensembling procedure"): each tree samples 75% of the training rows, of the features and of
the labels without replacement (labels drive the clustering only); a tree's vote on a label it was
trained on weighs ``used_label_weight`` (5) times its vote on another label; the forest score is
the weighted mean of the leaf means; per-label thresholds maximise the F-measure of the out-of-bag
scores of the training rows (:mod:`.thresholds`).

Registered variants, as the paper names them: ``sf`` (gain, plain clustering), ``sf-lr``
(logistic), ``sf-lr-cs`` (logistic, IDF clustering), ``sf-h`` (Hellinger), ``sf-h-cs`` (= SOSHF).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.registry import register
from mlbench.methods.trees.clustering import cluster_labels, idf_weights
from mlbench.methods.trees.hellinger import fit_hellinger_split
from mlbench.methods.components.thresholds import oob_thresholds
from mlbench.methods.components.fast_tree import as_float32, grow

try:  # scikit-learn's private liblinear entry point (1.9); without it sf-lr goes through the estimator
    from sklearn.svm._base import _fit_liblinear
except ImportError:  # pragma: no cover - another scikit-learn
    _fit_liblinear = None

SPLITS = ("gain", "logistic", "hellinger")
BACKENDS = ("cython", "numpy", "sparse")


# -- node splitters: (X_node, member, rng) -> w (bias last) or None ------------------------------
def _split_gain(X, member, rng, min_leaf, backend="cython", **_):
    seed = int(rng.integers(2**31 - 1))
    if backend in ("cython", "sparse"):
        # the same stump, grown by the Cython entropy-tree builder (fast_tree.grow: bit sets on
        # 0/1 columns), without scikit-learn's per-node validation and sort of every feature
        feature, threshold, *_rest = grow(as_float32(X), np.arange(X.shape[0]),
                                          member.astype(np.intp), 2, seed, min_leaf, max_depth=1)
        if len(feature) < 3:
            return None
        f, t = feature[0], threshold[0]
    else:
        stump = DecisionTreeClassifier(criterion="entropy", max_depth=1, min_samples_leaf=min_leaf,
                                       random_state=seed)
        stump.fit(X, member)
        if stump.tree_.node_count < 3:
            return None
        f, t = stump.tree_.feature[0], stump.tree_.threshold[0]
    w = np.zeros(X.shape[1] + 1)
    w[f] = 1.0
    # scikit-learn sends x_f <= t left; x_f - t' >= 0 with t' just above t sends exactly those right
    w[-1] = -np.nextafter(t, np.inf)
    return w


def _split_logistic(X, member, rng, backend="cython", **_):
    if backend in ("cython", "sparse") and _fit_liblinear is not None and np.max(X) <= 1e30:
        # what LogisticRegression(C=1.0, solver="liblinear").fit(X, member) runs after checking
        # its input, with its defaults (l2 penalty, primal, tol 1e-4, 100 iterations, intercept
        # scaling 1): the same coefficients, without the per-node validation that was half of
        # sf-lr's fit time on yeast (tests/methods/test_soshf_trees.py compares the two)
        coef, intercept, _n = _fit_liblinear(np.ascontiguousarray(X, dtype=np.float64), member,
                                             1.0, True, 1, None, "l2", False, 0, 100, 1e-4, None)
        return np.r_[coef[0], intercept[0]]
    lr = LogisticRegression(C=1.0, solver="liblinear")
    lr.fit(X, member)
    return np.r_[lr.coef_[0], lr.intercept_[0]]


def _split_hellinger(X, member, rng, hellinger, **_):
    return fit_hellinger_split(X, member, rng, **hellinger)


_SPLITTERS = {"gain": _split_gain, "logistic": _split_logistic, "hellinger": _split_hellinger}


class _Tree:
    """Arrays of one grown tree (node 0 is the root)."""

    __slots__ = ("features", "labels", "W", "split_row", "left", "right", "value", "depth")

    def apply(self, X):
        from mlbench._ext._soshf import apply_tree

        return apply_tree(X, self.features, self.W, self.split_row, self.left, self.right)


def grow_tree(X, Y, rows, features, labels, rng, *, split, cost_sensitive, global_counts,
              min_leaf=3, beta=0.5, hellinger=None, backend="cython"):
    """Grow one structured tree on ``X[rows][:, features]``; clustering on ``Y[rows][:, labels]``.

    ``global_counts`` = (N_g, positives per label of ``labels``) for eq. 1.
    """
    Xt = np.ascontiguousarray(X[np.ix_(rows, features)])
    Yt = Y[rows].astype(np.float64)
    Yc = Y[np.ix_(rows, labels)]
    splitter = _SPLITTERS[split]
    split_row, left, right, value, W = [], [], [], [], []
    depth = 0

    def new_node():
        split_row.append(-1)
        left.append(-1)
        right.append(-1)
        value.append(None)
        return len(split_row) - 1

    stack = [(new_node(), np.arange(len(rows)), 0)]
    while stack:
        node, idx, d = stack.pop()
        depth = max(depth, d)
        n = idx.size
        if n >= 2 * min_leaf:
            Yn = Yc[idx]
            weights = None
            if cost_sensitive:
                weights = idf_weights(global_counts[0], global_counts[1], n, Yn.sum(axis=0), beta)
            member = cluster_labels(Yn, rng, weights)
            if member is not None:
                Xn = Xt[idx]
                w = splitter(Xn, member, rng, min_leaf=min_leaf, hellinger=hellinger or {},
                             backend=backend)
                if w is not None:
                    go = Xn @ w[:-1] + w[-1] >= 0.0
                    n_right = int(go.sum())
                    if min_leaf <= n_right <= n - min_leaf:
                        split_row[node] = len(W)
                        W.append(w)
                        left[node], right[node] = new_node(), new_node()
                        stack.append((right[node], idx[go], d + 1))
                        stack.append((left[node], idx[~go], d + 1))
                        continue
        value[node] = Yt[idx].mean(axis=0)
    tree = _Tree()
    tree.features = np.asarray(features, dtype=np.intp)
    tree.labels = np.asarray(labels, dtype=np.intp)
    q = len(features)
    tree.W = np.ascontiguousarray(np.array(W, dtype=np.float64).reshape(len(W), q + 1))
    tree.split_row = np.asarray(split_row, dtype=np.intp)
    tree.left = np.asarray(left, dtype=np.intp)
    tree.right = np.asarray(right, dtype=np.intp)
    tree.value = np.array([v if v is not None else np.zeros(Y.shape[1]) for v in value])
    tree.depth = depth
    return tree


class StructuredForest(MultiLabelClassifier):
    """Structured forest / SOSHF (Daniels & Metaxas 2019); see the module docstring.

    Parameters: ``split`` in {gain, logistic, hellinger}; ``cost_sensitive`` (IDF clustering, eq. 1,
    mixing ``beta``); ``n_estimators`` (50); ``sample_fraction`` (0.75 of rows, features, labels);
    ``min_samples_leaf`` (3); ``used_label_weight`` (5); Hellinger solver: ``n_iter`` Adam steps
    per stage, ``batch_size`` (1000), ``learning_rate`` (0.05), ``eta`` (1e6); ``backend`` "cython",
    "numpy" (the reference; for ``gain``: scikit-learn's stump, the same split) or "sparse" (the
    Hellinger solver on each node's nonzero columns, in CSR form: the same problem, other rounding,
    for bag-of-words data; see :func:`.hellinger.fit_hellinger_split`); ``n_jobs``
    trees grown in parallel (joblib threads: the Cython kernel releases the GIL).
    """

    _estimator_checks = {"xfail": {
        "check_classifier_multioutput":
        "predicts with out-of-bag F-measure thresholds, not round(predict_proba)",
        "check_classifiers_multilabel_output_format_predict_proba":
        "tree-based scores reach exactly 0 and 1; the check wants the open interval (0, 1)"}}

    def __init__(self, *, split="hellinger", cost_sensitive=True, n_estimators=50,
                 sample_fraction=0.75, min_samples_leaf=3, beta=0.5, used_label_weight=5.0,
                 n_iter=120, batch_size=1000, learning_rate=0.05, eta=1e6, backend="cython",
                 n_jobs=1, random_state=None):
        self.split = split
        self.cost_sensitive = cost_sensitive
        self.n_estimators = n_estimators
        self.sample_fraction = sample_fraction
        self.min_samples_leaf = min_samples_leaf
        self.beta = beta
        self.used_label_weight = used_label_weight
        self.n_iter = n_iter
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.eta = eta
        self.backend = backend
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _check_params(self):
        if self.split not in SPLITS:
            raise ConfigError(f"split must be one of {', '.join(SPLITS)}, got {self.split!r}")
        if self.backend not in BACKENDS:
            raise ConfigError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if not 0.0 < self.sample_fraction <= 1.0:
            raise ConfigError(f"sample_fraction must be in (0, 1], got {self.sample_fraction!r}")
        if int(self.n_estimators) < 1 or int(self.min_samples_leaf) < 1:
            raise ConfigError("n_estimators and min_samples_leaf must be positive")
        if not 0.0 <= self.beta <= 1.0:
            raise ConfigError(f"beta must be in [0, 1], got {self.beta!r}")

    @staticmethod
    def _dense(X):
        return np.ascontiguousarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        self._check_params()
        X = self._dense(X)
        rng = check_random_state(self.random_state)
        n, p = X.shape
        L = Y.shape[1]
        frac = self.sample_fraction
        hell = dict(n_iter=int(self.n_iter), batch_size=int(self.batch_size),
                    lr=float(self.learning_rate), eta=float(self.eta), backend=self.backend)
        draws = []
        for _ in range(int(self.n_estimators)):
            rows = np.sort(rng.choice(n, max(1, int(round(frac * n))), replace=False))
            feats = np.sort(rng.choice(p, max(1, int(round(frac * p))), replace=False))
            labs = np.sort(rng.choice(L, max(1, int(round(frac * L))), replace=False))
            draws.append((rows, feats, labs, int(rng.randint(2**31 - 1))))
        pos_global = Y.sum(axis=0)

        def build(rows, feats, labs, seed):
            return grow_tree(X, Y, rows, feats, labs, np.random.default_rng(seed), split=self.split,
                             cost_sensitive=bool(self.cost_sensitive),
                             global_counts=(n, pos_global[labs]), min_leaf=int(self.min_samples_leaf),
                             beta=float(self.beta), hellinger=hell, backend=self.backend)

        # One BLAS thread: node problems are small, and multithreaded BLAS on a shared machine made
        # each least-squares solve ~50x slower (measured) than a single thread.
        with threadpool_limits(1):
            self.trees_ = Parallel(n_jobs=self.n_jobs, prefer="threads")(
                delayed(build)(*d) for d in draws)
        # out-of-bag scores -> per-label F-measure thresholds
        num = np.zeros((n, L))
        den = np.zeros((n, L))
        for tree, (rows, *_rest) in zip(self.trees_, draws):
            oob = np.setdiff1d(np.arange(n), rows, assume_unique=True)
            if oob.size == 0:
                continue
            wt = self._label_weights(tree, L)
            num[oob] += wt * tree.value[tree.apply(X[oob])]
            den[oob] += wt
        with np.errstate(invalid="ignore", divide="ignore"):
            oob_scores = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        self.threshold_ = oob_thresholds(oob_scores, Y)
        self.fit_info_ = {
            "mean_depth": float(np.mean([t.depth for t in self.trees_])),
            "mean_leaves": float(np.mean([(t.split_row < 0).sum() for t in self.trees_])),
        }
        return self

    def _label_weights(self, tree, L):
        wt = np.ones(L)
        wt[tree.labels] = float(self.used_label_weight)
        return wt

    def predict_proba(self, X):
        """Weighted mean over trees of the leaf label means (n, L)."""
        X = self._dense(self._validate_predict(X))
        L = self.n_labels_
        num = np.zeros((X.shape[0], L))
        den = np.zeros(L)
        for tree in self.trees_:
            wt = self._label_weights(tree, L)
            num += wt * tree.value[tree.apply(X)]
            den += wt
        return num / den


_SRC = "Daniels & Metaxas 2019"
register("sf", StructuredForest, family="trees", paper="soshf",
         params={"split": "gain", "cost_sensitive": False},
         description=f"structured forest, axis-parallel information-gain splits ({_SRC})")
register("sf-lr", StructuredForest, family="trees", paper="soshf",
         params={"split": "logistic", "cost_sensitive": False},
         description=f"structured forest, logistic-regression oblique splits ({_SRC})")
register("sf-lr-cs", StructuredForest, family="trees", paper="soshf",
         params={"split": "logistic", "cost_sensitive": True},
         description=f"structured forest, logistic splits, IDF cost-sensitive clustering ({_SRC})")
register("sf-h", StructuredForest, family="trees", paper="soshf",
         params={"split": "hellinger", "cost_sensitive": False},
         description=f"structured forest, sparse Hellinger oblique splits ({_SRC})")
register("sf-h-cs", StructuredForest, family="trees", paper="soshf",
         params={"split": "hellinger", "cost_sensitive": True},
         description=f"SOSHF: sparse Hellinger splits + cost-sensitive clustering ({_SRC})")
