"""RAkEL-o: random k-labelsets ("o": the labelsets may overlap), drawn without replacement.

Source: Tsoumakas, Katakis & Vlahavas, "Random k-labelsets for multilabel classification",
IEEE TKDE 23(7), 2011 (first: Tsoumakas & Vlahavas, ECML 2007): the RAkEL-o algorithm.

Training: draw m distinct k-subsets R_1..R_m of the L labels uniformly at random, without
replacement from the set of all k-subsets; on each, train a label-powerset (LP) classifier, i.e. a
multi-class classifier whose classes are the distinct restrictions y[R_i] seen in training.
Prediction: every LP model predicts a labelset; label l gets one vote per model whose R_i holds l
and whose predicted labelset contains l.  The score of l is its votes divided by the number of
labelsets holding l (the mean vote), and l is predicted when the mean vote is at least t = 0.5.
``aggregate="proba"`` replaces each model's 0/1 vote by its marginal probability of the label,
sum over the predicted labelset distribution (for a base learner with ``predict_proba``); the
mean of those is then the score and is thresholded at t (finer scores for the ranking measures).
Defaults follow the paper's recommendation: k = 3 and m = 2L.  A label that no drawn labelset holds
(probability about e^{-2k} per label with m = 2L) gets score 0; their count is in ``fit_info_``.
With ``base="tree"`` the LP trees are grown by
:class:`~mlbench.methods.components.fast_tree.EntropyTree` (scikit-learn's tree, faster).
"""
from __future__ import annotations

import itertools
from math import comb

import numpy as np
from sklearn.utils import check_random_state

from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.registry import register
from mlbench.methods.components.binary import ConstantBinary, draw_seeds, scores_kind, seeded_base
from mlbench.methods.components.fast_tree import tree_base, tree_input

#: enumerate every k-subset and sample from the list when there are at most this many
_ENUMERATE_MAX = 100_000


def draw_labelsets(n_labels, k, m, random_state):
    """``m`` distinct k-subsets of range(n_labels), drawn uniformly without replacement, (m, k).

    Small label spaces enumerate every subset and choose m of them; large ones draw random subsets
    and reject repeats (m is far below C(L, k) there, so rejections are rare).
    """
    rng = check_random_state(random_state)
    total = comb(n_labels, k)
    m = min(m, total)
    if total <= _ENUMERATE_MAX:
        every = np.array(list(itertools.combinations(range(n_labels), k)), dtype=int).reshape(-1, k)
        return every[np.sort(rng.choice(total, size=m, replace=False))]
    seen, out = set(), []
    while len(out) < m:
        subset = tuple(sorted(rng.choice(n_labels, size=k, replace=False).tolist()))
        if subset not in seen:
            seen.add(subset)
            out.append(subset)
    return np.array(out, dtype=int)


class LabelPowersetModel:
    """One LP classifier on a labelset: classes are the distinct label combinations seen."""

    def __init__(self, labels, estimator, combos):
        self.labels = labels
        self.estimator = estimator
        self.combos = combos  # (n_classes, k) 0/1, row c = the labelset of class c

    @classmethod
    def fit(cls, X, Y, labels, base, base_params, seed):
        sub = Y[:, labels]
        combos, classes = np.unique(sub, axis=0, return_inverse=True)
        classes = classes.ravel()
        if combos.shape[0] == 1:
            est = ConstantBinary(value=0).fit(X, classes)
        else:
            est = seeded_base(base, base_params, seed).fit(X, classes)
        return cls(labels, est, combos)

    def predict(self, X):
        """The predicted labelset of each row, (n, k) 0/1."""
        classes = np.asarray(self.estimator.predict(X), dtype=int)
        return self.combos[classes]

    def marginals(self, X):
        """P(label in Y | x) for each label of the labelset from the class probabilities, (n, k)."""
        if isinstance(self.estimator, ConstantBinary):
            only = self.combos[0].astype(np.float64)
            return np.broadcast_to(only, (X.shape[0], len(self.labels)))
        proba = self.estimator.predict_proba(X)
        return proba @ self.combos[np.asarray(self.estimator.classes_, dtype=int)]


class RAkELo(MultiLabelClassifier):
    """RAkEL-o: label powerset on ``n_labelsets`` random k-labelsets, votes averaged.

    Parameters
    ----------
    labelset_size : int, default 3
        k, the size of each labelset (capped at L).
    n_labelsets : int or None, default None
        m, the number of labelsets; None means 2L (capped at C(L, k)).
    base : str or estimator, default "lr"
        The multi-class learner of each LP model (MLDF's protocol: linear SVM).
    base_params : dict or None
        Parameters for a named base learner.
    aggregate : "vote" or "proba", default "vote"
        Score = mean of the models' 0/1 votes (the paper) or of their marginal probabilities.
    threshold : float, default 0.5
        Predict a label when its score is at least this.
    random_state : int, RandomState or None
        Draws the labelsets and seeds the base learners.
    """

    @property
    def _estimator_checks(self):
        if self.aggregate != "vote":
            return {}
        return {"xfail": {
            "check_classifiers_multilabel_output_format_predict_proba":
                "scores are mean votes, exactly 0 or 1 when all labelsets agree; the check wants "
                "the open interval (0, 1)"}}

    def __init__(self, *, labelset_size=3, n_labelsets=None, base="lr", base_params=None,
                 aggregate="vote", threshold=0.5, random_state=None):
        self.labelset_size = labelset_size
        self.n_labelsets = n_labelsets
        self.base = base
        self.base_params = base_params
        self.aggregate = aggregate
        self.threshold = threshold
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        L = Y.shape[1]
        if not isinstance(self.labelset_size, (int, np.integer)) or self.labelset_size < 1:
            raise ValueError("labelset_size must be a positive integer, "
                             f"got {self.labelset_size!r}")
        m = 2 * L if self.n_labelsets is None else self.n_labelsets
        if not isinstance(m, (int, np.integer)) or m < 1:
            raise ValueError(f"n_labelsets must be a positive integer, got {self.n_labelsets!r}")
        if self.aggregate not in ("vote", "proba"):
            raise ValueError(f"aggregate must be 'vote' or 'proba', got {self.aggregate!r}")
        if self.aggregate == "proba" and scores_kind(self.base, self.base_params) != "proba":
            raise ValueError("aggregate='proba' needs a base learner with predict_proba")
        rng = check_random_state(self.random_state)
        k = min(self.labelset_size, L)
        self.labelsets_ = draw_labelsets(L, k, m, rng)
        seeds = draw_seeds(rng, len(self.labelsets_))
        base, base_params = tree_base(self.base, self.base_params)  # same trees, faster
        self.base_learner_ = base
        X = tree_input(X, base)
        self.estimators_ = [LabelPowersetModel.fit(X, Y, labels, base, base_params, seed)
                            for labels, seed in zip(self.labelsets_, seeds)]
        self.n_votes_ = np.bincount(self.labelsets_.ravel(), minlength=L)
        self.threshold_ = self.threshold
        self.fit_info_ = {"n_labelsets": int(len(self.labelsets_)), "labelset_size": int(k),
                          "uncovered_labels": int(np.sum(self.n_votes_ == 0))}
        return self

    def predict_proba(self, X):
        """Mean vote (or marginal probability) per label over the labelsets holding it, (n, L)."""
        X = tree_input(self._validate_predict(X), self.base_learner_)
        total = np.zeros((X.shape[0], self.n_labels_))
        for model in self.estimators_:
            total[:, model.labels] += (model.predict(X) if self.aggregate == "vote"
                                       else model.marginals(X))
        return total / np.maximum(self.n_votes_, 1)


register("rakel", RAkELo, family="transformation", paper="platform",
         params={"labelset_size": 3, "n_labelsets": None, "base": "lr"},
         description="RAkEL-o (Tsoumakas et al. 2011): label powerset on 2L random 3-labelsets, "
                     "mean vote >= 0.5")
