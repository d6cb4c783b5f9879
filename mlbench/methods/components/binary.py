"""Binary base learners shared by the methods that train one binary model per label or label set.

A seeded copy of a named base learner, a constant classifier for a label that does not vary in the
training part, per-label scores of the kind the base gives (probabilities or decision values), and the
default C grid of the linear bases.  Binary relevance, chains, RAkEL, CLR, HOMER, COCOA, the imbalance
baselines and IBLR all build on them.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.utils import check_random_state

from mlbench.methods.base import make_base_learner

_SEED_MAX = np.iinfo(np.int32).max


class ConstantBinary(ClassifierMixin, BaseEstimator):
    """The classifier of a label that takes one value in the training part.

    ``predict`` returns that value; ``predict_proba`` gives probability 1 to it;
    ``decision_function`` is +1 for a constant 1 and -1 for a constant 0 (the margin of a linear
    SVM's support boundary, so thresholding it at 0 predicts the constant).
    """

    def __init__(self, value=0):
        self.value = value

    def fit(self, X, y):
        y = np.asarray(y)
        if y.size and np.any(y != self.value):
            raise ValueError("ConstantBinary fitted on a label that is not constant")
        self.classes_ = np.array([0, 1])
        self.n_seen_ = int(y.size)
        return self

    def predict(self, X):
        return np.full(X.shape[0], int(self.value), dtype=int)

    def predict_proba(self, X):
        proba = np.zeros((X.shape[0], 2))
        proba[:, int(self.value)] = 1.0
        return proba

    def decision_function(self, X):
        return np.full(X.shape[0], 1.0 if self.value else -1.0)


def seeded_base(base, base_params, seed):
    """A fresh base learner (name or estimator) whose ``random_state``, if it has one, is ``seed``.

    Every base learner of a method draws its seed from the method's own ``random_state``, so the
    same seed gives the same model even when the base is passed as an estimator.
    """
    est = make_base_learner(base, random_state=seed, **(base_params or {}))
    if not isinstance(base, str) and "random_state" in est.get_params(deep=False):
        est.set_params(random_state=seed)
    return est


def with_C_gamma(base_params, C=None, gamma=None):
    """``base_params`` with a method's flat ``C`` and ``gamma`` on top (``None``: not given).

    The study protocol (bogatinovski2022) searches the SVC's C and gamma as parameters of the
    method itself; a method that has them passes them to its base learner through this.
    """
    extra = {k: v for k, v in (("C", C), ("gamma", gamma)) if v is not None}
    return {**(base_params or {}), **extra} if extra else base_params


def draw_seeds(random_state, n):
    """``n`` integer seeds drawn from ``check_random_state(random_state)``."""
    return check_random_state(random_state).randint(_SEED_MAX, size=n)


def fit_binary(base, base_params, X, y, seed, gram=None):
    """Fit a binary classifier on the 0/1 vector ``y`` (constant ``y``: :class:`ConstantBinary`).

    ``gram``: the :class:`~mlbench.methods.components.gram.GramRBF` of the rows ``X`` (the
    ``svc`` base fitted on the shared kernel matrix), or None."""
    y = np.asarray(y)
    if y.size == 0 or np.all(y == y[0]):
        return ConstantBinary(value=int(y[0]) if y.size else 0).fit(X, y)
    if gram is not None:
        return gram.fit(base_params, y, seed)
    return seeded_base(base, base_params, seed).fit(X, y)


def cv_chosen_C(estimators):
    """The C that each fitted base learner chose by internal cross-validation (its ``C_``, as
    ``lr-cv`` has), in the estimators' order (``None`` for a label constant in training or a
    learner without a numeric ``C_``), or ``None`` if none chose one."""
    def chosen(e):
        try:
            return float(np.ravel(e.C_)[0])
        except (AttributeError, TypeError, ValueError, IndexError):
            return None

    values = [chosen(e) for e in estimators]
    return values if any(c is not None for c in values) else None


def scores_kind(base, base_params=None):
    """``"proba"`` if the base learner has ``predict_proba``, else ``"decision"``."""
    est = make_base_learner(base, **(base_params or {}))
    if hasattr(est, "predict_proba"):
        return "proba"
    if hasattr(est, "decision_function"):
        return "decision"
    raise ValueError(f"base learner {est!r} has neither predict_proba nor decision_function")


def binary_scores(est, X, kind):
    """The positive-class score of a fitted binary classifier: P(y = 1 | x) or its margin."""
    if kind == "proba":
        proba = est.predict_proba(X)
        return proba[:, list(est.classes_).index(1)]
    return est.decision_function(X)


def binary_log_proba(est, X):
    """(log P(y = 0 | x), log P(y = 1 | x)) of a fitted binary classifier with probabilities.

    Logistic regression goes through its margin z, log sigma(z) = -log(1 + e^-z), which stays
    finite where ``predict_proba`` rounds to 0.  A label that was constant in training (n rows) gets
    Laplace's rule of succession, P(other value) = 1 / (n + 2), in this likelihood only: its
    scores stay 0/1, but one unseen value in a test part must not make the whole conditional
    log-likelihood infinite.
    """
    n = X.shape[0]
    if isinstance(est, ConstantBinary):
        same, other = np.log((est.n_seen_ + 1) / (est.n_seen_ + 2)), -np.log(est.n_seen_ + 2)
        lp1 = np.full(n, same if est.value else other)
        lp0 = np.full(n, other if est.value else same)
        return lp0, lp1
    if isinstance(est, LogisticRegression):
        z = est.decision_function(X)  # the margin of class classes_[1] == 1
        return -np.logaddexp(0.0, z), -np.logaddexp(0.0, -z)
    with np.errstate(divide="ignore"):
        lp = np.log(est.predict_proba(X))
    one = list(est.classes_).index(1)
    return lp[:, 1 - one], lp[:, one]


def label_log_likelihood(est, X, y):
    """log P(y_l = y | x) per row for the 0/1 vector ``y``."""
    lp0, lp1 = binary_log_proba(est, X)
    return np.where(np.asarray(y) == 1, lp1, lp0)


def uses(kind):
    """``available_if`` condition: the base learner's scores are of ``kind``.

    An unusable base (unknown name, no scores) hides the method instead of raising here, inside
    ``hasattr``; ``fit`` then reports it.
    """
    def check(self):
        try:
            return scores_kind(self.base, self.base_params) == kind
        except (ValueError, TypeError):
            return False
    return check


#: the C grid over which the linear bases (LR, SVM) are tuned by default
C_GRID = [{"C": c} for c in (0.01, 0.1, 1.0, 10.0, 100.0)]
