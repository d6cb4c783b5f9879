"""``mmoc``: maximum margin output coding.

Zhang & Schneider, "Maximum Margin Output Coding" (ICML 2012), as the MC paper runs it (decoding
parameter 1, L2 logistic regression for the label classifiers).  Output coding compresses a label
vector y into a codeword, predicts the codeword from x and decodes the closest label vector.  MMOC
learns the code so that it is both *predictable* and *discriminative*, by a max-margin criterion
that becomes a metric-learning problem in label space:

* Codewords are linear projections z = V^T y of the labels; with Q = V V^T (positive semi-definite)
  the squared code distance between a predicted label-score vector p(x) and a label vector y is
  d_Q(p, y) = (p - y)^T Q (p - y).  p(x) is a ridge regression of y on x, so the predicted codeword
  V^T p(x) is the ridge prediction of z.
* Margin: the true vector must be closer to the prediction than any other y' by the Hamming loss
  Delta(y, y'), with slack:  min_Q  ||Q||_F^2 / 2 + C / N sum_n xi_n  subject to
  d_Q(p_n, y') - d_Q(p_n, y_n) >= Delta(y_n, y') - xi_n for all y',  Q PSD.
  The training p_n are out-of-fold ridge predictions, so the margin is measured on the noise the
  regression really makes.
* Optimisation: projected subgradient descent on the equivalent hinge objective (the constraint
  set is exponential, as in the paper).  Up to ``max_labels`` labels the most violated y' of every
  row is found exactly by enumerating the 2^L label vectors; beyond, by the paper's overgenerating
  relaxation (Finley & Joachims 2008): the loss-augmented problem is concave in y' (Q is PSD, the
  Hamming loss linear), so its maximiser over the box [0, 1]^L is found by a convex solver and the
  fractional y' gives the subgradient (:mod:`._box_qp`).  Q is projected onto the PSD cone after
  every step (eigenvalues clipped at 0) and the averaged iterate is kept.
* Decoding (the original labels are part of the code, predicted by per-label L2 logistic
  regressions): y* = argmin_y  -sum_i log P(y_i | x) + lambda d_Q(p(x), y), with the decoding
  parameter lambda = ``decoding`` (1): exactly by enumeration up to ``max_labels`` labels; beyond,
  the convex box relaxation rounded and improved by single flips to a 1-flip local optimum (exact
  whenever the relaxed minimiser is already 0/1; ``tests/methods/test_mmoc.py`` measures the
  agreement with enumeration on small label sets).

MMOC gives a single best label vector, not a probability (the MC paper reports no CLL-loss for it):
``decision_function`` returns, per label, the decoding score gap between the best vector with the
label off and the best with it on (positive means predicted on); beyond ``max_labels`` labels, the
gap between flipping that label off and on with the other labels held at the decoded vector.
"""
from __future__ import annotations

import numpy as np
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold, cross_val_predict
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.components.logistic import (DEFAULT_CS, JOINT_MODE_XFAIL, check_Cs,
                                                     check_min_rows, choose_C, fit_logistic,
                                                     log_sigmoid, single_blas_thread)
from mlbench.methods.registry import register
from mlbench.methods.transformation._box_qp import flip_descent, relaxed_minimise
from mlbench.methods.components.labelsets import all_label_vectors

_ROWS_TIMES_VECTORS = 2_000_000


def code_distances(P, Q, allY):
    """d_Q(p_n, y) for every row of P (n, L) and every vector of allY (V, L): (n, V)."""
    PQ = P @ Q
    return ((PQ * P).sum(axis=1)[:, None] - 2.0 * PQ @ allY.T
            + ((allY @ Q) * allY).sum(axis=1)[None, :])


def _worst_exact(P, Yf, Q, d_true):
    """The most violated y' of every row by enumeration: (violation, y') of shapes (n,), (n, L)."""
    allY = all_label_vectors(Yf.shape[1]).astype(np.float64)
    step = max(1, _ROWS_TIMES_VECTORS // len(allY))
    viol, worst = np.empty(len(Yf)), np.empty_like(Yf)
    for s in range(0, len(Yf), step):
        sl = slice(s, s + step)
        H = Yf[sl] @ (1.0 - allY).T + (1.0 - Yf[sl]) @ allY.T      # Hamming loss to every y'
        v = H - code_distances(P[sl], Q, allY) + d_true[sl, None]  # Delta - (d(p, y') - d(p, y))
        w = v.argmax(axis=1)
        viol[sl], worst[sl] = v[np.arange(len(w)), w], allY[w]
    return viol, worst


def _worst_relaxed(P, Yf, Q, d_true, start):
    """The most violated y' over the box [0, 1]^L (overgenerating relaxation; see module doc).

    max_y' Delta(y, y') - d_Q(p, y') with Delta(y, y') = sum_i y_i + sum_i y'_i (1 - 2 y_i) is
    min_y' (2 y - 1) . y' + (y' - p)^T Q (y' - p): :func:`relaxed_minimise` with lam = 1.
    """
    W = relaxed_minimise(2.0 * Yf - 1.0, P, Q, 1.0, start=start)
    D = P - W
    H = Yf.sum(axis=1) + (W * (1.0 - 2.0 * Yf)).sum(axis=1)
    return H - np.einsum("ni,ij,nj->n", D, Q, D) + d_true, W


def learn_metric(P, Y, C, n_iter, rng, exact=True):
    """Projected subgradient descent for the max-margin metric Q (see module docstring).

    ``exact``: most violated label vectors by enumeration; otherwise by the box relaxation,
    warm-started from the previous iteration's solution.
    """
    n, L = Y.shape
    Yf = Y.astype(np.float64)
    Q = np.eye(L)
    Q_avg = np.zeros((L, L))
    D_true = P - Yf
    W = None
    for t in range(1, n_iter + 1):
        d_true = np.einsum("ni,ij,nj->n", D_true, Q, D_true)
        if exact:
            viol, W = _worst_exact(P, Yf, Q, d_true)
        else:
            viol, W = _worst_relaxed(P, Yf, Q, d_true, W)
        active = viol > 0
        Dw, Dt = P[active] - W[active], D_true[active]
        grad = Q + (C / n) * (Dt.T @ Dt - Dw.T @ Dw)
        Q = Q - grad / t                                   # step 1/t: the objective is 1-strongly convex
        w, U = np.linalg.eigh((Q + Q.T) / 2)
        Q = (U * np.maximum(w, 0.0)) @ U.T                 # projection onto the PSD cone
        Q_avg += (Q - Q_avg) / t
    return Q_avg


class MaxMarginOutputCoding(MultiLabelClassifier):
    """MMOC (see module docstring).

    Parameters
    ----------
    decoding : float
        Weight lambda of the code-distance term in decoding (1 in the MC paper).
    margin_C : float
        Slack penalty of the max-margin metric learning.
    n_iter : int
        Projected-subgradient iterations.
    ridge_alpha : float
        L2 penalty of the ridge regressions that predict the label scores p(x).
    cv_folds : int
        Folds of the out-of-fold ridge predictions used to learn the metric.
    C, Cs, cv : the label classifiers' inverse L2 strength (or "cv": per-label internal CV).
    max_labels : int
        Largest label count solved exactly by enumerating the 2^L label vectors; more labels use
        the box relaxation (0 forces the relaxation).
    random_state : int, RandomState or None
    """

    _estimator_checks = {"params": {"C": 1.0, "n_iter": 5}, "xfail": JOINT_MODE_XFAIL}

    def __init__(self, *, decoding=1.0, margin_C=10.0, n_iter=50, ridge_alpha=1.0, cv_folds=5,
                 C="cv", Cs=DEFAULT_CS, cv=3, max_labels=15, random_state=None):
        self.decoding = decoding
        self.margin_C = margin_C
        self.n_iter = n_iter
        self.ridge_alpha = ridge_alpha
        self.cv_folds = cv_folds
        self.C = C
        self.Cs = Cs
        self.cv = cv
        self.max_labels = max_labels
        self.random_state = random_state

    @single_blas_thread
    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        check_Cs(self.C, self.Cs)
        n, L = Y.shape
        if float(self.decoding) < 0 or float(self.margin_C) <= 0 or int(self.n_iter) < 1:
            raise ConfigError("mmoc needs decoding >= 0, margin_C > 0 and n_iter >= 1")
        if int(self.cv_folds) < 2:
            raise ConfigError(f"cv_folds must be at least 2, got {self.cv_folds!r}")
        check_min_rows("mmoc", n, int(self.cv_folds))
        rng = check_random_state(self.random_state)
        self.C_ = choose_C(X, Y, self.C, self.Cs, self.cv, random_state=rng.randint(2**31 - 1))
        fits = [fit_logistic(X, Y[:, i], None, self.C_[i]) for i in range(L)]
        self.lr_coef_ = np.array([c for c, _ in fits])
        self.lr_intercept_ = np.array([b for _, b in fits])
        ridge = Ridge(alpha=float(self.ridge_alpha))
        folds = KFold(int(self.cv_folds), shuffle=True, random_state=rng.randint(2**31 - 1))
        P = np.asarray(cross_val_predict(ridge, X, Y.astype(np.float64), cv=folds)).reshape(n, L)
        self.ridge_ = ridge.fit(X, Y.astype(np.float64))
        exact = L <= int(self.max_labels)
        self.Q_ = learn_metric(P, Y, float(self.margin_C), int(self.n_iter), rng, exact=exact)
        self.fit_info_ = {"code_rank": int(np.sum(np.linalg.eigvalsh(self.Q_) > 1e-8)),
                          "C": self.C_.tolist(), "inference": "exact" if exact else "relaxed"}
        return self

    def _decoding_terms(self, X):
        """The decoding objective's linear term lp0 - lp1 (n, L) and ridge predictions p(x) (n, L):
        cost(y) = (lp0 - lp1) . y + lambda d_Q(p(x), y) + const."""
        X = self._validate_predict(X)
        logit = np.asarray(X @ self.lr_coef_.T) + self.lr_intercept_
        P = np.asarray(self.ridge_.predict(X)).reshape(X.shape[0], -1)
        return log_sigmoid(-logit) - log_sigmoid(logit), P

    def _decoding_costs(self, X):
        """(n, 2^L) decoding objective of every label vector (up to a per-row constant), and the
        vectors."""
        lin, P = self._decoding_terms(X)
        allY = all_label_vectors(self.n_labels_).astype(np.float64)
        out = np.empty((len(P), len(allY)))
        step = max(1, _ROWS_TIMES_VECTORS // len(allY))
        for s in range(0, len(P), step):
            sl = slice(s, s + step)
            out[sl] = lin[sl] @ allY.T + float(self.decoding) * code_distances(P[sl], self.Q_, allY)
        return out, allY

    def _relaxed_decode(self, X):
        """Box relaxation, rounding and single flips: (0/1 vectors, flip gains at them)."""
        lin, P = self._decoding_terms(X)
        lam = float(self.decoding)
        Y0 = np.rint(relaxed_minimise(lin, P, self.Q_, lam))
        return flip_descent(lin, P, self.Q_, lam, Y0)

    def _exact(self):
        check_is_fitted(self)
        return self.n_labels_ <= int(self.max_labels)

    def predict(self, X):
        """argmin_y of the decoding objective (exact enumeration, or the relaxation beyond
        ``max_labels``)."""
        if not self._exact():
            return self._relaxed_decode(X)[0].astype(int)
        cost, allY = self._decoding_costs(X)
        return allY[cost.argmin(axis=1)].astype(int)

    def decision_function(self, X):
        """Per label: best cost with the label off minus best cost with it on (> 0: predicted on)."""
        if not self._exact():
            return -self._relaxed_decode(X)[1]
        cost, allY = self._decoding_costs(X)
        on = allY.astype(bool)
        off_best = np.stack([cost[:, ~on[:, i]].min(axis=1) for i in range(allY.shape[1])], axis=1)
        on_best = np.stack([cost[:, on[:, i]].min(axis=1) for i in range(allY.shape[1])], axis=1)
        return off_best - on_best


register("mmoc", MaxMarginOutputCoding, family="transformation", paper="mc",
         params={"decoding": 1.0},
         description="maximum margin output coding: max-margin label metric, LR labels, decoding lambda=1")
