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
  set is exponential, as in the paper; here the most violated y' of every row is found exactly by
  enumerating the 2^L label vectors, hence ``max_labels``, instead of the paper's cutting-plane
  solver with an overgenerating relaxation); Q is projected onto the PSD cone after every step
  (eigenvalues clipped at 0) and the averaged iterate is kept.
* Decoding (the original labels are part of the code, predicted by per-label L2 logistic
  regressions): y* = argmin_y  -sum_i log P(y_i | x) + lambda d_Q(p(x), y), with the decoding
  parameter lambda = ``decoding`` (1), by exact enumeration of the 2^L label vectors.

MMOC gives a single best label vector, not a probability (the MC paper reports no CLL-loss for it):
``decision_function`` returns, per label, the decoding score gap between the best vector with the
label off and the best with it on (positive means predicted on).
"""
from __future__ import annotations

import numpy as np
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold, cross_val_predict
from sklearn.utils import check_random_state

from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.probabilistic._logistic import (DEFAULT_CS, JOINT_MODE_XFAIL, check_Cs,
                                                     check_min_rows, choose_C, fit_logistic,
                                                     log_sigmoid, single_blas_thread)
from mlbench.methods.registry import register
from mlbench.methods.transformation.pcc import all_label_vectors, check_max_labels

_ROWS_TIMES_VECTORS = 2_000_000


def code_distances(P, Q, allY):
    """d_Q(p_n, y) for every row of P (n, L) and every vector of allY (V, L): (n, V)."""
    PQ = P @ Q
    return ((PQ * P).sum(axis=1)[:, None] - 2.0 * PQ @ allY.T
            + ((allY @ Q) * allY).sum(axis=1)[None, :])


def learn_metric(P, Y, C, n_iter, rng):
    """Projected subgradient descent for the max-margin metric Q (see module docstring)."""
    n, L = Y.shape
    allY = all_label_vectors(L).astype(np.float64)
    Yf = Y.astype(np.float64)
    Q = np.eye(L)
    Q_avg = np.zeros((L, L))
    D_true = P - Yf
    for t in range(1, n_iter + 1):
        viol_outer = np.zeros((L, L))
        step = max(1, _ROWS_TIMES_VECTORS // len(allY))
        for s in range(0, n, step):
            sl = slice(s, s + step)
            H = Yf[sl] @ (1.0 - allY).T + (1.0 - Yf[sl]) @ allY.T      # Hamming loss to every y'
            d_true = np.einsum("ni,ij,nj->n", D_true[sl], Q, D_true[sl])
            # margin violation of every y': Delta - (d(p, y') - d(p, y))
            viol = H - code_distances(P[sl], Q, allY) + d_true[:, None]
            worst = viol.argmax(axis=1)
            active = viol[np.arange(len(worst)), worst] > 0
            Dw = P[sl][active] - allY[worst[active]]
            Dt = D_true[sl][active]
            viol_outer += Dt.T @ Dt - Dw.T @ Dw
        grad = Q + (C / n) * viol_outer
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
        Refuse more labels than this (decoding enumerates 2^L vectors).
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
        check_max_labels("mmoc", L, self.max_labels)
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
        self.Q_ = learn_metric(P, Y, float(self.margin_C), int(self.n_iter), rng)
        self.fit_info_ = {"code_rank": int(np.sum(np.linalg.eigvalsh(self.Q_) > 1e-8)),
                          "C": self.C_.tolist()}
        return self

    def _decoding_costs(self, X):
        """(n, 2^L) decoding objective of every label vector, and the vectors."""
        X = self._validate_predict(X)
        allY = all_label_vectors(self.n_labels_).astype(np.float64)
        logit = np.asarray(X @ self.lr_coef_.T) + self.lr_intercept_
        P = np.asarray(self.ridge_.predict(X)).reshape(X.shape[0], -1)
        lp1, lp0 = log_sigmoid(logit), log_sigmoid(-logit)
        out = np.empty((X.shape[0], len(allY)))
        step = max(1, _ROWS_TIMES_VECTORS // len(allY))
        for s in range(0, X.shape[0], step):
            sl = slice(s, s + step)
            nll = -(lp1[sl] @ allY.T + lp0[sl] @ (1.0 - allY).T)
            out[sl] = nll + float(self.decoding) * code_distances(P[sl], self.Q_, allY)
        return out, allY

    def predict(self, X):
        """argmin_y of the decoding objective (exact enumeration)."""
        cost, allY = self._decoding_costs(X)
        return allY[cost.argmin(axis=1)].astype(int)

    def decision_function(self, X):
        """Per label: best cost with the label off minus best cost with it on (> 0: predicted on)."""
        cost, allY = self._decoding_costs(X)
        on = allY.astype(bool)
        off_best = np.stack([cost[:, ~on[:, i]].min(axis=1) for i in range(allY.shape[1])], axis=1)
        on_best = np.stack([cost[:, on[:, i]].min(axis=1) for i in range(allY.shape[1])], axis=1)
        return off_best - on_best


register("mmoc", MaxMarginOutputCoding, family="transformation", paper="mc",
         params={"decoding": 1.0},
         description="maximum margin output coding: max-margin label metric, LR labels, decoding lambda=1")
