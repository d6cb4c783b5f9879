"""``mlcrf``: a pairwise conditional random field over the labels, conditioned on x.

In the spirit of Pakdaman, Batal, Liu, Hong & Hauskrecht, "An optimization-based framework to learn
conditional random fields for multi-label classification" (SDM 2014), the MLCRF of the MC paper's
comparison: node and edge potentials linear in x over every pair of labels,

    P(y | x) = exp(phi(y, x)) / Z(x),
    phi(y, x) = sum_i y_i (w_i . x + b_i) + sum_{i<j} y_i y_j (u_ij . x + c_ij).

(With binary labels, any pairwise table linear in x reduces to these unary and product terms.)

Learning maximises the L2-penalised pseudo-likelihood, a convex surrogate of the likelihood:

    sum_n sum_i log P(y_i | y_-i, x),  P(y_i = 1 | y_-i, x) = sigmoid(w_i.x + b_i + sum_j y_j (u_ij.x + c_ij)),

with L-BFGS (scipy) on the analytic gradient; the penalty is ||w_i||^2 / (2 C_i) per label and
||u_ij||^2 / (2 min(C_i, C_j)) per pair (biases unpenalised), the C_i chosen by internal
cross-validation of P(y_i | x) (``C="cv"``).  Pakdaman et al. also select a sparse edge set; here
every pair is kept and the penalty shrinks the weak ones.

Inference is exact by enumerating the 2^L label vectors (``max_labels``, default 15): the MAP vector,
log Z(x) for ``joint_log_proba`` and the marginals for ``predict_proba``.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlbench.methods.base import MultiLabelClassifier, check_multilabel_Y
from mlbench.methods.probabilistic._logistic import (DEFAULT_CS, JOINT_MODE_XFAIL, bernoulli_loglik, check_Cs, choose_C,
                                                     single_blas_thread)
from mlbench.methods.registry import register
from mlbench.methods.transformation.pcc import all_label_vectors, check_max_labels

_CHUNK = 4_000_000


def pair_index(L):
    """Index arrays (I, J) of the label pairs i < j, in row-major order."""
    I, J = np.triu_indices(L, k=1)
    return I.astype(np.intp), J.astype(np.intp)


def pseudo_loglik_and_grad(theta, X, Y, I, J, reg_node, reg_pair):
    """Negative penalised pseudo-log-likelihood and its gradient w.r.t. theta = (W, b, U, c)."""
    n, L = Y.shape
    m, P = X.shape[1], len(I)
    W = theta[: L * m].reshape(L, m)
    b = theta[L * m: L * m + L]
    U = theta[L * m + L: L * m + L + P * m].reshape(P, m)
    c = theta[L * m + L + P * m:]
    Yf = Y.astype(np.float64)
    E = np.asarray(X @ U.T) + c                                   # (n, P) edge inputs
    logit = np.asarray(X @ W.T) + b
    # pair (i, j) adds y_j * E_ij to label i's logit and y_i * E_ij to label j's
    MI = np.zeros((P, L))
    MI[np.arange(P), I] = 1.0
    MJ = np.zeros((P, L))
    MJ[np.arange(P), J] = 1.0
    logit += (E * Yf[:, J]) @ MI + (E * Yf[:, I]) @ MJ
    f = -bernoulli_loglik(logit, Y).sum()
    R = Yf - 1.0 / (1.0 + np.exp(-logit))                          # d loglik / d logit
    dE = R[:, I] * Yf[:, J] + R[:, J] * Yf[:, I]
    gW = -np.asarray(X.T @ R).T + W * reg_node[:, None]
    gU = -np.asarray(X.T @ dE).T + U * reg_pair[:, None]
    f += 0.5 * (reg_node @ (W * W).sum(axis=1) + reg_pair @ (U * U).sum(axis=1))
    grad = np.concatenate([gW.ravel(), -R.sum(axis=0), gU.ravel(), -dE.sum(axis=0)])
    return f, grad


class PairwiseCRF(MultiLabelClassifier):
    """Pairwise multi-label CRF (see module docstring).

    Parameters
    ----------
    C, Cs, cv : inverse L2 strengths (or "cv": per-label internal CV over ``Cs`` with ``cv`` folds).
    max_iter : int
        L-BFGS iterations.
    max_labels : int
        Refuse more labels than this (exact inference enumerates 2^L vectors).
    random_state : int, RandomState or None
        Only the internal cross-validation's folds are random.
    """

    _estimator_checks = {"params": {"C": 1.0, "max_iter": 50}, "xfail": JOINT_MODE_XFAIL}

    def __init__(self, *, C="cv", Cs=DEFAULT_CS, cv=3, max_iter=500, max_labels=15, random_state=None):
        self.C = C
        self.Cs = Cs
        self.cv = cv
        self.max_iter = max_iter
        self.max_labels = max_labels
        self.random_state = random_state

    @single_blas_thread
    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        check_Cs(self.C, self.Cs)
        n, L = Y.shape
        check_max_labels("mlcrf", L, self.max_labels)
        rng = check_random_state(self.random_state)
        self.C_ = choose_C(X, Y, self.C, self.Cs, self.cv, random_state=rng.randint(2**31 - 1))
        I, J = pair_index(L)
        m, P = X.shape[1], len(I)
        # the penalty is on the sum of per-row losses, as in scikit-learn's C * sum(loss) + |w|^2/2
        reg_node = 1.0 / self.C_
        reg_pair = 1.0 / np.minimum(self.C_[I], self.C_[J])
        theta0 = np.zeros(L * m + L + P * m + P)
        res = minimize(pseudo_loglik_and_grad, theta0, args=(X, Y, I, J, reg_node, reg_pair),
                       jac=True, method="L-BFGS-B", options={"maxiter": int(self.max_iter)})
        theta = res.x
        self.W_ = theta[: L * m].reshape(L, m)
        self.b_ = theta[L * m: L * m + L]
        self.U_ = theta[L * m + L: L * m + L + P * m].reshape(P, m)
        self.c_ = theta[L * m + L + P * m:]
        self.pairs_ = (I, J)
        self.n_iter_ = max(1, int(res.nit))
        self.fit_info_ = {"C": self.C_.tolist(), "lbfgs_iterations": int(res.nit),
                          "converged": bool(res.success)}
        return self

    def _potentials(self, X):
        X = self._validate_predict(X)
        return np.asarray(X @ self.W_.T) + self.b_, np.asarray(X @ self.U_.T) + self.c_

    def _phi(self, A, E, Yv):
        """phi(y, x) for every row of (A, E) and every vector of ``Yv``: (n, V)."""
        I, J = self.pairs_
        Yv = Yv.astype(np.float64)
        return A @ Yv.T + E @ (Yv[:, I] * Yv[:, J]).T

    def _log_joint_all(self, X):
        A, E = self._potentials(X)
        allY = all_label_vectors(self.n_labels_)
        out = np.empty((A.shape[0], len(allY)))
        step = max(1, _CHUNK // len(allY))
        for s in range(0, A.shape[0], step):
            phi = self._phi(A[s:s + step], E[s:s + step], allY)
            out[s:s + step] = phi - logsumexp(phi, axis=1, keepdims=True)
        return out, allY

    def predict(self, X):
        """The exact MAP label vector argmax_y phi(y, x)."""
        J, allY = self._log_joint_all(X)
        return allY[J.argmax(axis=1)].astype(int)

    def predict_proba(self, X):
        """Exact marginals P(y_i = 1 | x), shape (n, L)."""
        J, allY = self._log_joint_all(X)
        return np.exp(J) @ allY

    def joint_log_proba(self, X, Y):
        """log P(Y = y | x) = phi(y, x) - log Z(x) per row."""
        check_is_fitted(self)
        A, E = self._potentials(X)
        Y = check_multilabel_Y(Y, A.shape[0]).astype(np.float64)
        I, J = self.pairs_
        allY = all_label_vectors(self.n_labels_)
        logZ = np.empty(A.shape[0])
        step = max(1, _CHUNK // len(allY))
        for s in range(0, A.shape[0], step):
            logZ[s:s + step] = logsumexp(self._phi(A[s:s + step], E[s:s + step], allY), axis=1)
        return (A * Y).sum(axis=1) + (E * Y[:, I] * Y[:, J]).sum(axis=1) - logZ


register("mlcrf", PairwiseCRF, family="probabilistic", paper="mc",
         description="pairwise CRF, node/edge potentials linear in x, pseudo-likelihood, exact MAP")
