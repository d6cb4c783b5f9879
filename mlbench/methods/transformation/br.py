"""Binary relevance (BR): one independent binary classifier per label.

Source: Tsoumakas & Katakis, "Multi-label classification: an overview" (2007), the transformation
that learns h_l : X -> {0, 1} for each label l separately from the pairs (x_i, y_il); the prediction
is the vector (h_1(x), ..., h_L(x)).  The SOSHF, MC and I-MTSL papers use it as a baseline with a
linear SVM, a random forest and L2 logistic regression as ``h_l``.  ``br`` is the configuration of
Bogatinovski et al. (2022): MEKA's BR with Weka's SMO, an RBF kernel and C x gamma tuned over
``SVC_CS`` x ``SVC_GAMMAS`` (base ``svc``: scikit-learn's SVC with Platt probabilities).
"""
from __future__ import annotations

import numpy as np
from sklearn.utils._available_if import available_if

from mlbench.methods.base import SVC_CS, SVC_GAMMAS, MultiLabelClassifier, check_multilabel_Y
from mlbench.methods.components.binary import (C_GRID, binary_scores, cv_chosen_C, draw_seeds, fit_binary,
                                               label_log_likelihood, scores_kind, uses,
                                               with_C_gamma)
from mlbench.methods.components.gram import GramRBF
from mlbench.methods.registry import register


class BinaryRelevance(MultiLabelClassifier):
    """Binary relevance: an independent copy of ``base`` per label.

    Parameters
    ----------
    base : str or estimator, default "lr"
        Base learner name (see :func:`make_base_learner`) or a scikit-learn binary classifier.
    base_params : dict or None
        Parameters for a named base learner (e.g. ``{"C": 0.1}``).
    C, gamma : float or None
        The base learner's C and gamma on top of ``base_params`` (None: not given); the study
        protocol searches them.
    random_state : int, RandomState or None
        Seeds every per-label learner.

    ``predict`` is each label's ``base.predict``; scores are ``predict_proba`` when the base has it
    (then ``predict_proba`` is defined), else the margins of ``decision_function`` (``threshold_``
    is then 0).  A label constant in the training data is predicted as that constant.
    ``fit_info_["C"]`` lists each label's C when the base chose one by cross-validation (``lr-cv``).
    """

    #: parameters added for the bogatinovski2022 study, at the values earlier rows were computed with
    _unrecorded_defaults = {"C": None, "gamma": None}

    def __init__(self, *, base="lr", base_params=None, C=None, gamma=None, random_state=None):
        self.base = base
        self.base_params = base_params
        self.C = C
        self.gamma = gamma
        self.random_state = random_state

    @property
    def _estimator_checks(self):
        if self.base in ("tree", "c45", "j48", "rf"):
            return {"xfail": {"check_classifiers_multilabel_output_format_predict_proba":
                              "tree and forest probabilities reach exactly 0 and 1; the check "
                              "wants the open interval (0, 1)"}}
        return {}

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        self.scores_kind_ = scores_kind(self.base, self.base_params)
        self.threshold_ = 0.5 if self.scores_kind_ == "proba" else 0.0
        seeds = draw_seeds(self.random_state, Y.shape[1])
        base_params = with_C_gamma(self.base_params, self.C, self.gamma)
        gram = GramRBF.for_base(self.base, base_params, X)   # one kernel matrix for every label
        self.estimators_ = [fit_binary(self.base, base_params, X, Y[:, l], seeds[l], gram)
                            for l in range(Y.shape[1])]
        chosen = cv_chosen_C(self.estimators_)
        self.fit_info_ = {"C": chosen} if chosen else {}
        return self

    def _label_scores(self, X):
        X = self._validate_predict(X)
        if not self.estimators_:
            return np.zeros((X.shape[0], 0))
        return np.column_stack([binary_scores(e, X, self.scores_kind_) for e in self.estimators_])

    @available_if(uses("proba"))
    def predict_proba(self, X):
        """P(y_l = 1 | x) per label, shape (n, L)."""
        return self._label_scores(X)

    @available_if(uses("decision"))
    def decision_function(self, X):
        """Signed margin per label, shape (n, L)."""
        return self._label_scores(X)

    @available_if(uses("proba"))
    def joint_log_proba(self, X, Y):
        """log P(Y = y | x) = sum_l log P(y_l | x): the labels are independent given x."""
        X = self._validate_predict(X)
        Y = check_multilabel_Y(Y, X.shape[0])
        out = np.zeros(X.shape[0])
        for l, est in enumerate(self.estimators_):
            out += label_log_likelihood(est, X, Y[:, l])
        return out

    def predict(self, X):
        """Each label's base-learner prediction, shape (n, L), 0/1."""
        X = self._validate_predict(X)
        out = np.zeros((X.shape[0], len(self.estimators_)), dtype=int)
        for l, est in enumerate(self.estimators_):
            out[:, l] = est.predict(X)
        return out



register("br-lr", BinaryRelevance, family="transformation", paper="platform",
         params={"base": "lr"}, grid={"base_params": C_GRID},
         description="binary relevance, L2 logistic regression per label")
register("br-svm", BinaryRelevance, family="transformation", paper="platform",
         params={"base": "svm"}, grid={"base_params": C_GRID},
         description="binary relevance, linear SVM per label (scores: decision_function)")
register("br-rf", BinaryRelevance, family="transformation", paper="platform",
         params={"base": "rf"},
         description="binary relevance, a random forest (100 trees) per label")
register("br", BinaryRelevance, family="transformation", paper="bogatinovski2022",
         params={"base": "svc"}, grid={"C": list(SVC_CS), "gamma": list(SVC_GAMMAS)},
         description="binary relevance, an RBF SVC per label (Bogatinovski et al. 2022: MEKA BR "
                     "with SMO, C x gamma grid)")
