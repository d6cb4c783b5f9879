"""``chf``: classification with heterogeneous features (two-layer stacking).

Godbole & Sarawagi, "Discriminative methods for multi-labeled classification" (PAKDD 2004), the
"SVM-HF" scheme, with L2 logistic regression in both layers as the MC paper runs it (section 6.1):

1. First layer: one classifier per label on x; its score s_i(x) is the log-odds of P(y_i = 1 | x).
2. Second layer: one classifier per label on the heterogeneous feature vector (x, s_1(x), ..., s_L(x)),
   so each label's final model sees the other labels' evidence.

The second layer is trained on first-layer scores the training rows did not see: out-of-fold scores
from ``stack_folds``-fold cross-validation (the first layer used at prediction is refitted on all
training rows).  The labels are conditionally independent given the stacked features, so
P(y | x) = prod_i P(y_i | x, s(x)) gives ``joint_log_proba``.

Regularisation: ``C="cv"`` picks the C of every regression by internal cross-validation of its
held-out log-loss on the inputs it is fitted on (see
:func:`mlbench.methods.components.logistic.choose_C`): x for the first layer, (x, s(x)) for the
second, as the MC paper's section 6.1 asks of every L2 logistic regression.  ``select_C_on="x"``
reuses the first layer's C in the second (mlbench before issue 22, kept for the ablation), which
penalises the stacked scores with a C chosen without them.
"""
from __future__ import annotations

import numpy as np
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier, check_multilabel_Y
from mlbench.methods.components.logistic import (DEFAULT_CS, bernoulli_loglik, check_Cs, choose_C,
                                                     check_min_rows, fit_logistic, hstack, log_sigmoid,
                                                     single_blas_thread)
from mlbench.methods.registry import register


def _layer(X, Y, Cs):
    fits = [fit_logistic(X, Y[:, i], None, Cs[i]) for i in range(Y.shape[1])]
    return np.array([c for c, _ in fits]), np.array([b for _, b in fits])


class HeterogeneousFeatures(MultiLabelClassifier):
    """Two-layer CHF (see module docstring).

    Parameters
    ----------
    C, Cs, cv : inverse L2 strength (or "cv": per-regression internal CV over ``Cs`` with ``cv`` folds).
    select_C_on : "own" (the second layer's C chosen on (x, s(x))) or "x" (the first layer's reused).
    stack_folds : int
        Folds producing the out-of-fold first-layer scores the second layer is trained on.
    random_state : int, RandomState or None
    """

    _estimator_checks = {"params": {"C": 1.0}}

    def __init__(self, *, C="cv", Cs=DEFAULT_CS, cv=3, select_C_on="own", stack_folds=5,
                 random_state=None):
        self.C = C
        self.Cs = Cs
        self.cv = cv
        self.select_C_on = select_C_on
        self.stack_folds = stack_folds
        self.random_state = random_state

    @single_blas_thread
    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        check_Cs(self.C, self.Cs)
        if int(self.stack_folds) < 2:
            raise ConfigError(f"stack_folds must be at least 2, got {self.stack_folds!r}")
        if self.select_C_on not in ("own", "x"):
            raise ConfigError(f"select_C_on must be 'own' or 'x', got {self.select_C_on!r}")
        check_min_rows("chf", X.shape[0], int(self.stack_folds))
        rng = check_random_state(self.random_state)
        seed = rng.randint(2**31 - 1)
        self.C_ = choose_C(X, Y, self.C, self.Cs, self.cv, random_state=seed)
        S = np.zeros(Y.shape, dtype=np.float64)
        folds = KFold(int(self.stack_folds), shuffle=True, random_state=rng.randint(2**31 - 1))
        for tr, te in folds.split(X):
            coef, b = _layer(X[tr], Y[tr], self.C_)
            S[te] = np.asarray(X[te] @ coef.T) + b
        self.first_ = _layer(X, Y, self.C_)
        Z = hstack(X, S)
        self.C2_ = (self.C_ if self.select_C_on == "x"
                    else choose_C(Z, Y, self.C, self.Cs, self.cv, random_state=seed))
        self.second_ = _layer(Z, Y, self.C2_)
        return self

    def _logits(self, X):
        X = self._validate_predict(X)
        coef, b = self.first_
        Z = hstack(X, np.asarray(X @ coef.T) + b)
        coef2, b2 = self.second_
        return np.asarray(Z @ coef2.T) + b2

    def predict_proba(self, X):
        """Second-layer P(y_i = 1 | x, s(x)), shape (n, L)."""
        return np.exp(log_sigmoid(self._logits(X)))

    def joint_log_proba(self, X, Y):
        """log prod_i P(y_i | x, s(x)) per row."""
        check_is_fitted(self)
        logit = self._logits(X)
        Y = check_multilabel_Y(Y, logit.shape[0])
        return bernoulli_loglik(logit, Y).sum(axis=1)


register("chf", HeterogeneousFeatures, family="transformation", paper="mc",
         description="classification with heterogeneous features: two stacked layers of L2 LR")
