"""Calibrated label ranking (CLR).

Source: Fürnkranz, Hüllermeier, Loza Mencía & Brinker, "Multilabel classification via calibrated
label ranking", Machine Learning 73(2), 2008, Sections 3-4.

Ranking by pairwise comparison plus a virtual "calibration" label 0 that separates relevant from
irrelevant labels:

* for each pair i < j, a binary model M_ij trained on the rows where exactly one of y_i, y_j is
  relevant, target 1 when it is y_i (i is preferred to j);
* for each label i, a binary model M_i0 trained on every row with target y_i (i preferred to the
  virtual label exactly when i is relevant) - the binary relevance classifiers.

Prediction by voting (the paper's standard voting): label i gets one vote from each M_ij that
prefers it and one from M_i0 if it predicts y_i = 1; the virtual label gets one vote from each M_i0
that predicts 0.  As in MULAN's ``CalibratedLabelRanking`` (standard voting, hard votes: the
implementation the SOSHF paper ran), label i is predicted relevant when ``votes_i >= votes_0`` (a
label level with the calibrated label counts as relevant) and its score is ``votes_i / L``, which
ranks the labels as CLR does and is what the per-label measures (macro-AUC) see.  (Before issue #40
the score was ``(votes_i - votes_0) / L`` and a tie with the calibrated label counted irrelevant:
the same label ranking per instance, but another ordering of the instances per label.)  A pair
with no training row that tells them apart casts no vote.  With ``base="tree"``
the entropy trees are grown by :class:`~mlbench.methods.components.fast_tree.EntropyTree`
(scikit-learn's tree, faster).

With the ``svc`` base (the bogatinovski2022 protocol's) and no Platt probabilities, the L + L(L-1)/2
models are fitted on one shared RBF Gram matrix and kept as one
:class:`~mlbench.methods.components.gram.SupportSet` (support rows, coefficients, intercepts), and
every model's prediction on new rows comes from one kernel matrix with the union of their support
rows: delicious has 983 labels, 482,653 pairs, for which a scikit-learn model each took gigabytes
and one kernel evaluation per model and row.  The votes are those of the models one by one (a
decision value equal to float rounding; ``tests/methods/test_gram.py``).
"""
from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp

from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.registry import register
from mlbench.methods.components.binary import draw_seeds, fit_binary, with_C_gamma
from mlbench.methods.components.gram import GramRBF, SupportSet
from mlbench.methods.components.fast_tree import tree_base, tree_input
from mlbench.methods.transformation.pruned_sets import predict_only


#: the models' predictions are computed for blocks of rows of at most this many bytes
BLOCK_BYTES = 2 ** 27


class CalibratedLabelRanking(MultiLabelClassifier):
    """CLR with binary base learner ``base`` (name or estimator) and ``base_params``.

    ``C`` and ``gamma`` (None: not given) go to the base learner on top of ``base_params``: the
    study protocol (bogatinovski2022: MULAN's CLR with SMO, RBF kernel) runs ``base="svc"`` and
    searches them.
    """

    #: 2: MULAN's standard-voting output (score = votes / L; a label tied with the calibration
    #: label counts as relevant), issue 40
    algorithm_version = 2

    #: parameters added for the bogatinovski2022 study, at the values earlier rows were computed with
    _unrecorded_defaults = {"C": None, "gamma": None}

    #: the ``svc`` base on a shared Gram matrix keeps its models as one SupportSet (False: one
    #: scikit-learn model each, the implementation before; benchmarks/bench_study_sets.py compares)
    _compact = True

    def __init__(self, *, base="tree", base_params=None, C=None, gamma=None, random_state=None):
        self.base = base
        self.base_params = base_params
        self.C = C
        self.gamma = gamma
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        L = Y.shape[1]
        pairs = list(itertools.combinations(range(L), 2))
        seeds = draw_seeds(self.random_state, L + len(pairs))
        # only the models' predict votes: the svc base without Platt's five internal fits
        base_params = predict_only(self.base, with_C_gamma(self.base_params, self.C, self.gamma))
        base, base_params = tree_base(self.base, base_params)  # same trees, faster
        self.base_learner_ = base
        X = tree_input(X, base)
        gram = GramRBF.for_base(base, base_params, X)   # one kernel matrix for every model
        if gram is not None and self._compact and not (base_params or {}).get("probability"):
            models = SupportSet(gram)

            def fit(rows, y, seed):
                return models.fit(rows, y, base_params, seed)
        else:
            models = []

            def fit(rows, y, seed):
                Xr, g = (X, gram) if rows is None else (X[rows], gram and gram.take(rows))
                models.append(fit_binary(base, base_params, Xr, y, seed, g))

        for i in range(L):                       # the calibration models M_i0 first
            fit(None, Y[:, i], seeds[i])
        kept = []
        for p, (i, j) in enumerate(pairs):
            rows = np.flatnonzero(Y[:, i] != Y[:, j])
            if rows.size == 0:
                continue
            fit(rows, Y[rows, i], seeds[L + p])
            kept.append((i, j))
        self.pairs_ = np.array(kept, dtype=np.intp).reshape(-1, 2)
        self.models_ = models.finish() if isinstance(models, SupportSet) else models
        self.fit_info_ = {"pairwise_models": len(self.pairs_)}
        return self

    def decision_function(self, X):
        """``votes_i / L`` per label, shape (n, L) (MULAN's confidences)."""
        return self._votes(X)[0] / max(self.n_labels_, 1)

    def predict(self, X):
        """Labels with at least as many votes as the calibrated label, shape (n, L), 0/1."""
        votes, virtual = self._votes(X)
        return (votes >= virtual[:, None]).astype(int)

    def _votes(self, X):
        """Votes of each label (n, L) and of the calibrated label (n,)."""
        X = tree_input(self._validate_predict(X), self.base_learner_)
        L, n_pairs = self.n_labels_, len(self.pairs_)
        i, j = self.pairs_[:, 0], self.pairs_[:, 1]
        # a pair model's prediction P (1: i preferred) gives i the vote P and j the vote 1 - P:
        # over the pairs, votes = P @ (E_i - E_j) + (pairs in which the label is j)
        swing = sp.csr_matrix((np.r_[np.ones(n_pairs), -np.ones(n_pairs)],
                               (np.r_[np.arange(n_pairs), np.arange(n_pairs)], np.r_[i, j])),
                              shape=(n_pairs, L))
        as_j = np.bincount(j, minlength=L).astype(np.float64)
        votes = np.zeros((X.shape[0], L))
        virtual = np.zeros(X.shape[0])
        for rows, P in self._predictions(X):
            rel = P[:, :L]
            votes[rows] = rel + np.asarray(swing.T @ P[:, L:].T).T + as_j
            virtual[rows] = L - rel.sum(axis=1)
        return votes, virtual

    def _predictions(self, X):
        """``(rows, P)`` over blocks of rows: P (rows, L + pairs), 0/1 float, the models' predictions
        (the calibration models, then the pairs')."""
        if isinstance(self.models_, SupportSet):
            for rows, D in self.models_.decisions(X, BLOCK_BYTES):
                yield rows, (D >= 0).astype(np.float64)
            return
        step = max(1, BLOCK_BYTES // (8 * len(self.models_)))
        for start in range(0, X.shape[0], step):
            rows = np.arange(start, min(start + step, X.shape[0]))
            yield rows, np.column_stack([est.predict(X[rows]) for est in self.models_]).astype(
                np.float64)


register("clr", CalibratedLabelRanking, family="transformation", paper="soshf",
         params={"base": "tree"},
         description="calibrated label ranking (Fürnkranz et al. 2008): pairwise models + virtual "
                     "label, standard voting")
