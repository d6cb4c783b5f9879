"""Instance-weighted L2 logistic regression nodes shared by the probabilistic methods.

Every conditional model of this family (a CTBN node P(y_i | x, y_parent), a chain link
P(y_i | x, y_<i), a CHF layer) is an L2-penalised logistic regression.  A node is stored as plain
arrays (``coef`` over the inputs, ``intercept``) so inference can be vectorised or handed to Cython.

The objective minimised is scikit-learn's ``C * sum_n s_n * logloss_n + ||w||^2 / 2``, so the
scale of the instance weights ``s_n`` matters: callers pass weights on the scale of instance counts
(e.g. EM responsibilities gamma_k(n), or structure weights omega(n) multiplied by N).

A target that is constant (or whose other class carries no weight) cannot be fitted by a logistic
regression; such a node gets a zero ``coef`` and the smoothed log-odds of the weighted counts
(add-one-half per class) as its intercept, so it still gives a proper probability.

Regularisation strength: :func:`choose_C` picks, for every label, the ``C`` of a grid with the best
k-fold cross-validated log-loss of P(y_i | x), the procedure the MC paper applies to every method
(section 6.1).
"""
from __future__ import annotations

import functools
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits

from mlbench.errors import ConfigError
from mlbench.methods.base import LR_CV_CS

#: default grid of inverse regularisation strengths searched by internal cross-validation (the
#: grid of the ``lr-cv`` base learner too)
DEFAULT_CS = LR_CV_CS


def single_blas_thread(method):
    """Run ``method`` with one BLAS thread.

    Why: these models make thousands of small L-BFGS fits; with a multi-threaded OpenBLAS each
    tiny BLAS call pays thread start-up and spinning, measured 20x slower (94 ms vs 4.4 ms for a
    400 x 5 fit) on the 2-core benchmark machine.
    """
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1, user_api="blas"):
            return method(*args, **kwargs)
    return wrapper


class TooFewRows(ConfigError, ValueError):
    """Training data with fewer rows than a method needs (a ConfigError that is also a ValueError,
    as scikit-learn's conventions expect)."""


def check_min_rows(method, n, minimum):
    """Raise :class:`TooFewRows` unless there are at least ``minimum`` training rows."""
    if n < minimum:
        raise TooFewRows(f"{method} needs at least {minimum} training rows, got {n} sample(s)")


#: scikit-learn estimator checks that cannot hold for joint-mode predictors
JOINT_MODE_XFAIL = {
    "check_classifier_multioutput":
        "predict is the joint mode argmax_y P(y | x), which need not equal the thresholded marginals",
}


def hstack(X, Z):
    """Columns of ``X`` followed by the dense columns ``Z`` (sparse stays sparse CSR)."""
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim == 1:
        Z = Z[:, None]
    if Z.shape[1] == 0:
        return X
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(Z)], format="csr")
    return np.hstack([X, Z])


def fit_logistic(X, y, sample_weight=None, C=1.0, init=None, max_iter=300):
    """Fit one weighted L2 logistic regression; return ``(coef (m,), intercept)``.

    ``init`` (a previous ``(coef, intercept)``) warm-starts L-BFGS, which EM uses to refit nodes
    whose weights changed a little.
    """
    y = np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    pos = float(w[y == 1].sum())
    neg = float(w[y == 0].sum())
    m = X.shape[1]
    if pos <= 0.0 or neg <= 0.0 or (y == 1).all() or (y == 0).all():
        return np.zeros(m), float(np.log((pos + 0.5) / (neg + 0.5)))
    lr = LogisticRegression(C=C, max_iter=max_iter, warm_start=init is not None)
    if init is not None:
        lr.coef_ = np.asarray(init[0], dtype=np.float64).reshape(1, -1).copy()
        lr.intercept_ = np.array([init[1]], dtype=np.float64)
        lr.classes_ = np.array([0, 1])
    with warnings.catch_warnings():
        # a capped number of L-BFGS steps is a deliberate speed/accuracy trade (EM refits often)
        warnings.simplefilter("ignore", ConvergenceWarning)
        lr.fit(X, y, sample_weight=w)
    return lr.coef_.ravel().copy(), float(lr.intercept_[0])


def log_sigmoid(z):
    """log(1 / (1 + exp(-z))), stable for large |z|."""
    return -np.logaddexp(0.0, -z)


def bernoulli_loglik(logit, y):
    """log P(y | logit) for y in {0, 1}: log sigmoid(logit) if y else log sigmoid(-logit)."""
    return log_sigmoid(np.where(y == 1, logit, -logit))


def check_Cs(C, Cs):
    """Validate the ``C`` / ``Cs`` parameters shared by this family."""
    if isinstance(C, str):
        if C != "cv":
            raise ConfigError(f"C must be a positive number or 'cv', got {C!r}")
        if len(Cs) == 0 or any(float(c) <= 0 for c in Cs):
            raise ConfigError(f"Cs must be a non-empty list of positive numbers, got {Cs!r}")
    elif not float(C) > 0:
        raise ConfigError(f"C must be a positive number or 'cv', got {C!r}")


def choose_C(X, Y, C="cv", Cs=DEFAULT_CS, cv=3, random_state=None):
    """One inverse regularisation strength per label, shape (L,).

    With ``C="cv"``, label i gets the value of ``Cs`` with the smallest ``cv``-fold (stratified,
    shuffled) held-out log-loss of the logistic regression P(y_i | x); a label too rare to stratify
    into ``cv`` folds keeps 1.0.  A number ``C`` is used for every label.
    """
    check_Cs(C, Cs)
    L = Y.shape[1]
    if not isinstance(C, str):
        return np.full(L, float(C))
    out = np.ones(L)
    for i in range(L):
        y = Y[:, i]
        if min(int(y.sum()), int(len(y) - y.sum())) < cv:
            continue
        folds = StratifiedKFold(cv, shuffle=True, random_state=random_state)
        loss = np.zeros(len(Cs))
        for tr, te in folds.split(np.zeros(len(y)), y):
            init = None
            for c_idx, c in enumerate(sorted(Cs)):
                coef, b = fit_logistic(X[tr], y[tr], C=float(c), init=init)
                init = (coef, b)
                logit = np.asarray(X[te] @ coef).ravel() + b
                loss[c_idx] -= bernoulli_loglik(logit, y[te]).sum()
        out[i] = float(sorted(Cs)[int(np.argmin(loss))])
    return out
