"""Label-powerset family of the Bogatinovski et al. (2022) study: LP, PS(t), EPS and RAkEL with
pruned sets (the study's ``RAkEL2``).

Label powerset (LP): Tsoumakas & Katakis, "Multi-label classification: an overview" (IJDWM 2007):
each distinct labelset y of the training rows becomes one class of a multi-class problem; the
prediction is the labelset of the predicted class.

Pruned sets (PS): Read, Pfahringer & Holmes, "Multi-label classification using ensembles of pruned
sets", ICDM 2008, as MEKA implements it (``meka.classifiers.multilabel.PS``, the study's runs):

1. count each distinct labelset's rows, c(y);
2. keep the labelsets with c(y) > p (the pruning value); if at most one is kept and p > 0, retry
   with p - 1;
3. a row whose labelset is pruned is dropped if n = 0; otherwise it is re-introduced once for
   each of the n "best" kept labelsets s that are non-empty subsets of its labelset, best meaning
   larger |s| first, then larger c(s) (then first seen first);
4. an LP classifier is trained on the kept and re-introduced rows.

PSt (Read, "A pruned problem transformation method for multi-label classification", NZCSRSC 2008)
scores label j by the marginal of the class posterior, s_j(x) = sum_k P(class k | x) [j in y_k],
and predicts the labels whose score reaches a threshold (so it can predict labelsets never seen
in training); LP and PS predict the labelset of the arg-max class, which is also their 0/1
score (MEKA's output).

EPS (Read et al. 2008): m PS models, each trained on a random subset of the training rows drawn
without replacement (MEKA's ``EnsembleML``, 70 % of the rows); the score of label j is the mean
of the models' 0/1 votes, predicted when >= the threshold (0.5).

RAkEL with pruned sets (MEKA's ``meka.classifiers.multilabel.RAkEL``, which the study names
``RAkEL2``; Tsoumakas, Katakis & Vlahavas, "Random k-labelsets for multilabel classification",
IEEE TKDE 23(7) 2011, with the PS base of Read, Puurula & Bifet, ICDM 2014): M random k-subsets
of the labels, each drawn independently (two models may share a subset, as in MEKA); on each a
PS model on the restricted labels.  Label j's vote count v_j(x) is the number of models whose
predicted labelset holds j.  The score is v_j / M (MEKA's vote count over a constant: the study
divides it by its largest value, also a constant, so every ranking is the study's); the
prediction is the mean vote v_j / m_j >= 0.5 (m_j the number of subsets holding j), RAkEL's rule.

Classes are numbered in the order their labelset is first seen in the training rows, as
scikit-multilearn's LabelPowerset does (a multi-class SVM breaks vote ties by class order, so the
order is part of the method).
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils import check_random_state

from mlbench.methods.base import SVC_CS, SVC_GAMMAS, MultiLabelClassifier
from mlbench.methods.components import ovo
from mlbench.methods.components.binary import (ConstantBinary, draw_seeds, scores_kind, seeded_base,
                                               with_C_gamma)
from mlbench.methods.components.fast_tree import tree_base, tree_input
from mlbench.methods.components.gram import GramRBF
from mlbench.methods.registry import register


def first_seen_labelsets(Y):
    """Distinct rows of ``Y`` in order of first appearance: (labelsets (m, L), row -> index (n,),
    counts (m,))."""
    Y = np.asarray(Y)
    if Y.shape[0] == 0:
        return Y[:0], np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    uniq, first, inverse, counts = np.unique(Y, axis=0, return_index=True, return_inverse=True,
                                             return_counts=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return uniq[order], rank[np.ravel(inverse)], counts[order]


def pruned_sets_transform(Y, pruning=0, max_subsets=0):
    """MEKA's PS transformation of the 0/1 matrix ``Y`` (see the module docstring).

    Returns ``(rows, classes, labelsets, p)``: training row indices (a row may repeat), their class
    numbers, the kept labelsets (n_classes, L) and the pruning value used.  ``pruning=0``
    and ``max_subsets=0`` give the plain label powerset.
    """
    combos, inverse, counts = first_seen_labelsets(Y)
    p = int(pruning)
    keep = counts > p
    while p > 0 and keep.sum() <= 1:
        p -= 1
        keep = counts > p
    class_of = np.full(combos.shape[0], -1)
    class_of[keep] = np.arange(int(keep.sum()))
    kept = combos[keep]
    row_class = class_of[inverse]
    rows = [np.flatnonzero(row_class >= 0)]
    classes = [row_class[rows[0]]]
    if max_subsets > 0 and not keep.all() and kept.shape[0]:
        sizes = kept.sum(axis=1)
        # best first: larger labelsets, then more frequent ones, then first seen
        rank = np.lexsort((np.arange(kept.shape[0]), -counts[keep], -sizes))
        ranked = kept[rank].astype(np.float64)
        usable = sizes[rank] > 0
        pruned = np.flatnonzero(~keep)
        members = np.split(np.argsort(inverse, kind="stable"),
                           np.cumsum(np.bincount(inverse, minlength=combos.shape[0]))[:-1])
        step = max(1, 2_000_000 // ranked.shape[0])
        for start in range(0, pruned.size, step):
            block = pruned[start:start + step]
            # kept set c is a subset of y_j when it has no label outside y_j
            inside = (ranked @ (1.0 - combos[block]).T == 0) & usable[:, None]
            for col, j in enumerate(block):
                for c in rank[np.flatnonzero(inside[:, col])[:max_subsets]]:
                    rows.append(members[j])
                    classes.append(np.full(members[j].size, c))
    return np.concatenate(rows), np.concatenate(classes), kept, p


class PowersetModel:
    """One (pruned) label-powerset classifier on the labels ``labels``."""

    def __init__(self, labels, estimator, labelsets, pruning):
        self.labels = labels
        self.estimator = estimator
        self.labelsets = labelsets          # (n_classes, k) 0/1, row c = the labelset of class c
        self.pruning = pruning  # the value used (MEKA lowers it if it kept <= 1 set)

    @classmethod
    def fit(cls, X, Y, labels, pruning, max_subsets, base, base_params, seed, gram=None):
        """``gram``: the :class:`~mlbench.methods.components.gram.GramRBF` of the rows ``X``, or
        None."""
        rows, classes, labelsets, p = pruned_sets_transform(Y[:, labels], pruning,
                                                            max_subsets)
        if labelsets.shape[0] == 0:  # no training row: predict the empty labelset
            labelsets = np.zeros((1, len(labels)), dtype=Y.dtype)
        if labelsets.shape[0] <= 1:
            est = ConstantBinary(value=0).fit(X[rows], classes)
        else:
            with warnings.catch_warnings():  # a powerset has many classes for its rows: expected
                warnings.filterwarnings("ignore", message="The number of unique classes is greater",
                                        category=UserWarning)
                est = (gram.take(rows).fit(base_params, classes, seed) if gram is not None
                       else seeded_base(base, base_params, seed).fit(X[rows], classes))
        return cls(labels, est, labelsets, p)

    def predict(self, X):
        """The labelset of the predicted class, (n, k) 0/1.  A multi-class RBF SVC's votes are
        counted for blocks of rows (:mod:`~mlbench.methods.components.ovo`: the same classes as its
        ``predict``, which takes seconds per row with thousands of classes)."""
        est = self.estimator
        classes = ovo.predict(est, X) if ovo.applies(est) else est.predict(X)
        return self.labelsets[np.asarray(classes, dtype=int)]

    def marginals(self, X):
        """sum_k P(class k | x) [label in labelset k] for each label, (n, k)."""
        if isinstance(self.estimator, ConstantBinary):
            only = self.labelsets[0].astype(np.float64)
            return np.broadcast_to(only, (X.shape[0], only.size)).copy()
        proba = self.estimator.predict_proba(X)
        return proba @ self.labelsets[np.asarray(self.estimator.classes_, dtype=int)]


def predict_only(base, base_params):
    """``base_params`` for a base learner whose probabilities are never used: the ``svc`` base
    without Platt scaling (its 5-fold internal fits cost about five times the SVM itself, and its
    pairwise coupling is quadratic in the number of classes; ``predict`` does not depend on it)."""
    if isinstance(base, str) and base == "svc" and "probability" not in (base_params or {}):
        return {**(base_params or {}), "probability": False}
    return base_params


def _check_int(name, value, low):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")


class PrunedSets(MultiLabelClassifier):
    """Label powerset with MEKA's pruning (PS); LP when ``pruning=0``, ``max_subsets=0``.

    Parameters
    ----------
    pruning : int, default 0
        p: labelsets seen at most p times are pruned (0: none, plain LP).
    max_subsets : int, default 0
        n: a pruned row comes back once for each of its n best frequent subsets (0: dropped).
    predict_rule : "labelset" or "threshold", default "labelset"
        ``"labelset"`` (MEKA's LC and PS): predicts the labelset of the predicted class, and that
        0/1 labelset is also the score (MEKA's output).  ``"threshold"`` (MEKA's PSt): the score
        is the marginal of the class posterior and the labels whose score reaches ``threshold``
        are predicted; needs a base learner with ``predict_proba``.
    base : str or estimator, default "svc"
        The multi-class learner (the study: SMO with an RBF kernel, ``svc``).
    base_params : dict or None
        Parameters of a named base learner, e.g. ``{"kernel": "linear"}``.
    C, gamma : float or None
        The base learner's C and gamma on top of ``base_params`` (None: not given); the study
        protocol searches them.
    threshold : float, default 0.5
        Threshold of the marginal scores under ``predict_rule="threshold"``.
    random_state : int, RandomState or None
        Seeds the base learner.

    The attribute ``pruning_`` is the pruning value used.
    """

    @property
    def _estimator_checks(self):
        if self.predict_rule != "labelset":
            return {}
        return {"xfail": {"check_classifiers_multilabel_output_format_predict_proba":
                          "the scores are the predicted 0/1 labelset (MEKA's LC and PS); the "
                          "check wants the open interval (0, 1)"}}

    def __init__(self, *, pruning=0, max_subsets=0, predict_rule="labelset", base="svc",
                 base_params=None, C=None, gamma=None, threshold=0.5, random_state=None):
        self.pruning = pruning
        self.max_subsets = max_subsets
        self.predict_rule = predict_rule
        self.base = base
        self.base_params = base_params
        self.C = C
        self.gamma = gamma
        self.threshold = threshold
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        _check_int("pruning", self.pruning, 0)
        _check_int("max_subsets", self.max_subsets, 0)
        if not 0.0 < float(self.threshold) <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {self.threshold!r}")
        if self.predict_rule not in ("labelset", "threshold"):
            raise ValueError(f"predict_rule must be 'labelset' or 'threshold', "
                             f"got {self.predict_rule!r}")
        if self.predict_rule == "threshold" and scores_kind(self.base, self.base_params) != "proba":
            raise ValueError("predict_rule='threshold' needs a base learner with predict_proba")
        base_params = with_C_gamma(self.base_params, self.C, self.gamma)
        if self.predict_rule == "labelset":
            base_params = predict_only(self.base, base_params)
        base, base_params = tree_base(self.base, base_params)
        self.base_learner_ = base
        X = tree_input(X, base)
        seed = draw_seeds(self.random_state, 1)[0]
        self.model_ = PowersetModel.fit(X, Y, np.arange(Y.shape[1]), self.pruning,
                                        self.max_subsets, base, base_params, seed,
                                        GramRBF.for_base(base, base_params, X))
        self.pruning_ = self.model_.pruning
        self.threshold_ = self.threshold
        self.fit_info_ = {"n_classes": int(self.model_.labelsets.shape[0]),
                          "pruning": int(self.pruning_)}
        return self

    def predict_proba(self, X):
        """The predicted 0/1 labelset (``"labelset"``) or each label's marginal score,
        sum_k P(class k | x) [j in y_k] (``"threshold"``), shape (n, L)."""
        X = tree_input(self._validate_predict(X), self.base_learner_)
        if self.predict_rule == "threshold":
            return self.model_.marginals(X)
        return self.model_.predict(X).astype(np.float64)

    def predict(self, X):
        """The predicted labelset (``"labelset"``) or the marginals >= threshold, (n, L) 0/1."""
        return (self.predict_proba(X) >= self.threshold_).astype(int)


class EnsemblePrunedSets(MultiLabelClassifier):
    """EPS: ``n_estimators`` PS models on random subsets of the rows, votes averaged.

    Parameters
    ----------
    n_estimators : int, default 10
        m, the number of PS models (the study: 10).
    sample_fraction : float, default 0.7
        Each model's rows: the first floor(fraction * n) of a random permutation (MEKA's
        ``EnsembleML -P 70``).
    pruning, max_subsets : int
        PS's p and n for every model (the study's grid: p in {1, 2, 3}, n in {0, 3}).
    base, base_params
        Multi-class learner of each PS model (the study: J48 unpruned, ``-U -M 2``: ``j48`` with
        ``{"unpruned": True, "M": 2}``).
    threshold : float, default 0.5
        Predict a label when its mean vote reaches it.
    random_state : int, RandomState or None
        Draws the row subsets and seeds the base learners.
    """

    @property
    def _estimator_checks(self):
        return {"xfail": {
            "check_classifiers_multilabel_output_format_predict_proba":
                "scores are mean 0/1 votes, exactly 0 or 1 when all models agree; the check wants "
                "the open interval (0, 1)"}}

    def __init__(self, *, n_estimators=10, sample_fraction=0.7, pruning=1, max_subsets=0,
                 base="j48", base_params=None, threshold=0.5, random_state=None):
        self.n_estimators = n_estimators
        self.sample_fraction = sample_fraction
        self.pruning = pruning
        self.max_subsets = max_subsets
        self.base = base
        self.base_params = base_params
        self.threshold = threshold
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        _check_int("n_estimators", self.n_estimators, 1)
        _check_int("pruning", self.pruning, 0)
        _check_int("max_subsets", self.max_subsets, 0)
        if not 0.0 < float(self.sample_fraction) <= 1.0:
            raise ValueError(f"sample_fraction must be in (0, 1], got {self.sample_fraction!r}")
        rng = check_random_state(self.random_state)
        n = X.shape[0]
        size = max(1, int(n * float(self.sample_fraction)))
        base, base_params = tree_base(self.base, predict_only(self.base, self.base_params))
        self.base_learner_ = base
        X = tree_input(X, base)
        labels = np.arange(Y.shape[1])
        self.estimators_ = []
        for seed in draw_seeds(rng, self.n_estimators):
            rows = np.sort(check_random_state(seed).permutation(n)[:size])
            self.estimators_.append(PowersetModel.fit(X[rows], Y[rows], labels, self.pruning,
                                                      self.max_subsets, base, base_params, seed))
        self.threshold_ = self.threshold
        self.fit_info_ = {"pruning": [int(m.pruning) for m in self.estimators_]}
        return self

    def predict_proba(self, X):
        """Mean 0/1 vote of the models per label, shape (n, L)."""
        X = tree_input(self._validate_predict(X), self.base_learner_)
        total = np.zeros((X.shape[0], self.n_labels_))
        for model in self.estimators_:
            total += model.predict(X)
        return total / len(self.estimators_)


class RAkELPrunedSets(MultiLabelClassifier):
    """MEKA's RAkEL (the study's ``RAkEL2``): PS on ``n_labelsets`` random k-labelsets.

    Parameters
    ----------
    labelset_size : int or "half", default 3
        k (capped at L); ``"half"`` is max(1, floor(L / 2)) (the study's grid: k in {3, L/2}).
    n_labelsets : int or None, default 10
        M; None is min(100, 2L) (the study's grid: M in {10, min(100, 2L)}).
    pruning, max_subsets : int, default 1 and 0
        PS's p and n on every subset (the study: p = 1, n = 0).
    base, base_params
        Multi-class learner of each PS model (the study: ``svc``).
    C, gamma : float or None
        The base learner's C and gamma on top of ``base_params`` (None: not given).
    threshold : float, default 0.5
        Predict label j when its mean vote v_j / m_j reaches it.
    random_state : int, RandomState or None
        Draws the labelsets and seeds the base learners.

    ``predict_proba`` is v_j / M (see the module docstring); ``fit_info_["uncovered_labels"]``
    counts the labels that no subset holds (score 0, never predicted).
    """

    @property
    def _estimator_checks(self):
        return {"xfail": {
            "check_classifiers_multilabel_output_format_predict_proba":
                "scores are vote counts over M, exactly 0 for a label no model votes for; the "
                "check wants the open interval (0, 1)"}}

    def __init__(self, *, labelset_size=3, n_labelsets=10, pruning=1, max_subsets=0,
                 base="svc", base_params=None, C=None, gamma=None, threshold=0.5,
                 random_state=None):
        self.labelset_size = labelset_size
        self.n_labelsets = n_labelsets
        self.pruning = pruning
        self.max_subsets = max_subsets
        self.base = base
        self.base_params = base_params
        self.C = C
        self.gamma = gamma
        self.threshold = threshold
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        L = Y.shape[1]
        if self.labelset_size == "half":
            k = max(1, L // 2)
        else:
            _check_int("labelset_size", self.labelset_size, 1)
            k = min(int(self.labelset_size), L)
        if self.n_labelsets is None:
            m = min(100, 2 * L)
        else:
            _check_int("n_labelsets", self.n_labelsets, 1)
            m = int(self.n_labelsets)
        _check_int("pruning", self.pruning, 0)
        _check_int("max_subsets", self.max_subsets, 0)
        rng = check_random_state(self.random_state)
        self.labelsets_ = np.array([np.sort(rng.choice(L, size=k, replace=False))
                                    for _ in range(m)], dtype=int).reshape(m, k)
        base_params = predict_only(self.base, with_C_gamma(self.base_params, self.C, self.gamma))
        base, base_params = tree_base(self.base, base_params)
        self.base_learner_ = base
        X = tree_input(X, base)
        gram = GramRBF.for_base(base, base_params, X)   # one kernel matrix for every model
        self.estimators_ = [PowersetModel.fit(X, Y, labels, self.pruning, self.max_subsets,
                                              base, base_params, seed, gram)
                            for labels, seed in zip(self.labelsets_, draw_seeds(rng, m))]
        self.n_votes_ = np.bincount(self.labelsets_.ravel(), minlength=L)
        self.threshold_ = self.threshold
        self.fit_info_ = {"n_labelsets": m, "labelset_size": k,
                          "uncovered_labels": int(np.sum(self.n_votes_ == 0))}
        return self

    def _votes(self, X):
        X = tree_input(self._validate_predict(X), self.base_learner_)
        votes = np.zeros((X.shape[0], self.n_labels_))
        for model in self.estimators_:
            votes[:, model.labels] += model.predict(X)
        return votes

    def predict_proba(self, X):
        """Vote count of each label over the number of models M, shape (n, L)."""
        return self._votes(X) / len(self.estimators_)

    def predict(self, X):
        """Labels whose mean vote over the subsets holding them reaches ``threshold``."""
        mean = self._votes(X) / np.maximum(self.n_votes_, 1)
        return ((mean >= self.threshold_) & (self.n_votes_ > 0)).astype(int)


_STUDY = "Bogatinovski et al. 2022"
register("lp", PrunedSets, family="transformation", paper="bogatinovski2022",
         params={"pruning": 0, "max_subsets": 0, "predict_rule": "labelset", "base": "svc"},
         grid={"C": list(SVC_CS), "gamma": list(SVC_GAMMAS)},
         description=f"label powerset with an RBF SVC ({_STUDY}: MEKA LC with SMO, C x gamma grid)")
register("pst", PrunedSets, family="transformation", paper="bogatinovski2022",
         params={"pruning": 1, "max_subsets": 0, "predict_rule": "threshold", "base": "svc"},
         grid={"pruning": [1, 2, 3], "max_subsets": [0, 3], "C": list(SVC_CS),
               "gamma": list(SVC_GAMMAS)},
         description=f"pruned sets with marginal scores, RBF SVC ({_STUDY}: MEKA PSt with SMO)")
register("eps", EnsemblePrunedSets, family="transformation", paper="bogatinovski2022",
         params={"n_estimators": 10, "sample_fraction": 0.7, "pruning": 1, "max_subsets": 0,
                 "base": "j48", "base_params": {"unpruned": True, "M": 2}},
         grid={"pruning": [1, 2, 3], "max_subsets": [0, 3]},
         description=f"ensemble of 10 pruned-sets models on 70 % row subsets, unpruned J48 trees "
                     f"({_STUDY}: MEKA EnsembleML of PS with J48 -U -M 2)")
register("rakel2", RAkELPrunedSets, family="transformation", paper="bogatinovski2022",
         params={"labelset_size": 3, "n_labelsets": 10, "pruning": 1, "max_subsets": 0,
                 "base": "svc"},
         grid={"labelset_size": [3, "half"], "n_labelsets": [10, None], "C": list(SVC_CS),
               "gamma": list(SVC_GAMMAS)},
         description=f"RAkEL with pruned sets on M random k-labelsets, RBF SVC ({_STUDY}: MEKA "
                     "RAkEL -P 1 -N 0 with SMO)")
