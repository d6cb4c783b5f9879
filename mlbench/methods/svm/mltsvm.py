"""MLTSVM: multi-label twin support vector machine (Chen, Shao, Li & Deng, "MLTSVM: A novel twin
support vector machine to multi-label learning", Pattern Recognition 52, 2016), linear version, as
the comprehensive study (Bogatinovski et al., Expert Systems with Applications 2022) configured
scikit-multilearn's ``MLTSVM``: ``c_k`` in {2^-6, ..., 2^5}, ``lambda_param`` in {2^-4, ..., 2^3},
``sor_omega = 0.2`` and the SOR stopping tolerance ``threshold`` (scikit-multilearn's name, kept here;
the study's script calls it a smoothing parameter) in {1, 0.2}.

For each label k, with ``H_k`` the training rows that carry k and ``G_k`` those that do not (each
with a constant 1 appended, so ``z = (w_k, b_k)`` holds the bias), MLTSVM fits one hyperplane
close to the positives and at least 1 below the negatives:

    min_z  1/2 ||H_k z||^2 + lambda/2 ||z||^2 + c_k sum(xi)
    s.t.   -G_k z >= 1 - xi,  xi >= 0.

Its dual is the box-constrained quadratic programme

    min_a  1/2 a^T Q a - sum(a),  0 <= a <= c_k,   Q = G_k (H_k^T H_k + lambda I)^{-1} G_k^T,

and ``z = -(H_k^T H_k + lambda I)^{-1} G_k^T a``.  The dual is solved by projected successive
over-relaxation (the paper's solver): sweep j = 1..n, ``a_j <- clip(a_j - omega (Q_j a - 1) /
Q_jj, 0, c_k)``, until a sweep changes ``a`` by at most ``threshold`` (Euclidean norm) or after
``max_iter`` sweeps.  ``Q`` is never formed: with ``P = G_k (H_k^T H_k + lambda I)^{-1}`` (one
Cholesky solve) the kernel keeps ``u = P^T a`` and reads ``Q_j a = g_j . u`` (C kernel
``mlbench._ext._mltsvm``), so memory is O(n d) instead of O(n^2); P comes from a Cholesky solve of
the (d+1) x (d+1) system, or, when label k has fewer positives than that, through the Woodbury
identity and a |H_k| x |H_k| system (:func:`ridge_solve_rows`).

**Decision.**  The signed distance of x to label k's plane, scaled as scikit-multilearn does,
``s_k(x) = -(w_k . x + b_k) / ||z_k||``: positives lie near 0, negatives at 1/||z_k|| or more.
Label k is predicted when ``s_k(x) < delta = 1 / max_j ||z_j||``.  Like the study's MLTSVM, the
method gives predictions only, no scores (``distances`` returns s_k(x) for inspection), so a
protocol's score threshold (PCut) does not replace this rule.

Differences from scikit-multilearn 0.2.0 (the study's implementation), each a bug there:
it takes the negatives of *label 1* (``Y[:, 1] == 0``) for every label instead of label k's; its
SOR sweep overwrites the previous iterate (``oldAlpha`` aliases the new one), so its stopping test
measures only the clipping of one sweep, and it clips after the sweep instead of per coordinate;
and it reads ``.A`` of its products, which dense arrays and SciPy >= 1.14's sparse matrices lack.  mlbench solves the paper's problem; the reference
test (tests/methods/test_study_neural.py) compares with scikit-multilearn after fixing the first
bug and solving its dual exactly.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.registry import register

try:
    from mlbench._ext._mltsvm import sor_box as _sor_kernel
except ImportError:  # extension not built: the same sweeps in Python (slow; tests only)
    _sor_kernel = None


def sor_box(G, P, alpha, omega, c, tol, max_iter, use_kernel=True):
    """Projected SOR on min 1/2 a^T (G P^T) a - sum(a), 0 <= a <= c, from ``alpha`` (in place).

    Returns the number of sweeps.  ``G`` and ``P`` are C-contiguous (n, m) float arrays.
    """
    diag = np.einsum("ij,ij->i", G, P)
    u = P.T @ alpha
    if use_kernel and _sor_kernel is not None:
        return int(_sor_kernel(G, P, diag, alpha, u, float(omega), float(c), float(tol),
                               int(max_iter)))
    it = 0
    while it < max_iter:
        it += 1
        change = 0.0
        for j in range(G.shape[0]):
            if diag[j] <= 0.0:
                continue
            new = min(max(alpha[j] - omega * (G[j] @ u - 1.0) / diag[j], 0.0), c)
            delta = new - alpha[j]
            if delta != 0.0:
                alpha[j] = new
                change += delta * delta
                u += delta * P[j]
        if np.sqrt(change) <= tol:
            break
    return it


def ridge_solve_rows(H, G, lam):
    """``G (H^T H + lam I)^{-1}`` (rows of G through the ridge inverse), the cheaper way round.

    With m columns and p rows of H: a Cholesky solve of the m x m system (O(m^2 n + m^3)) when
    p >= m, else the Woodbury identity ``(H^T H + lam I)^{-1} = (I - H^T (lam I + H H^T)^{-1} H) /
    lam`` through a p x p system (O(n m p + p^3)); text data with few positives per label and
    thousands of features take the second.
    """
    p, m = H.shape
    if p >= m:
        A = H.T @ H
        A[np.diag_indices(m)] += lam
        factor = scipy.linalg.cho_factor(A, lower=True, check_finite=False)
        return scipy.linalg.cho_solve(factor, G.T, check_finite=False).T
    S = H @ H.T
    S[np.diag_indices(p)] += lam
    factor = scipy.linalg.cho_factor(S, lower=True, check_finite=False)
    GH = G @ H.T                                         # (n, p)
    return (G - scipy.linalg.cho_solve(factor, GH.T, check_finite=False).T @ H) / lam


class MLTSVM(MultiLabelClassifier):
    """Linear multi-label twin SVM (Chen et al. 2016), solved by projected SOR (module doc).

    Parameters
    ----------
    c_k : float > 0, default 1.0
        Penalty of the slacks (upper bound of the dual variables).
    lambda_param : float > 0, default 1.0
        Ridge regularisation of (w, b).
    sor_omega : float in (0, 2), default 1.0
        Relaxation factor of SOR.
    threshold : float > 0, default 1e-6
        SOR stops after a sweep that changes the dual by at most ``threshold`` (scikit-multilearn's
        name and default; not a decision threshold).
    max_iter : int, default 500
        Most SOR sweeps per label.
    """

    _accept_sparse = ("csr", "csc")

    def __init__(self, *, c_k=1.0, lambda_param=1.0, sor_omega=1.0, threshold=1e-6, max_iter=500):
        self.c_k = c_k
        self.lambda_param = lambda_param
        self.sor_omega = sor_omega
        self.threshold = threshold
        self.max_iter = max_iter

    def _check_params(self):
        if not float(self.c_k) > 0:
            raise ConfigError(f"MLTSVM: c_k must be positive, got {self.c_k!r}")
        if not float(self.lambda_param) > 0:
            raise ConfigError(f"MLTSVM: lambda_param must be positive, got {self.lambda_param!r}")
        if not 0 < float(self.sor_omega) < 2:
            raise ConfigError(f"MLTSVM: sor_omega must be in (0, 2), got {self.sor_omega!r}")
        if not float(self.threshold) > 0 or int(self.max_iter) < 1:
            raise ConfigError(f"MLTSVM: threshold (SOR tolerance) must be positive and max_iter "
                              f">= 1, got {self.threshold!r}, {self.max_iter!r}")

    @staticmethod
    def _with_bias(X):
        X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        return np.hstack([X, np.ones((X.shape[0], 1))])

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        self._check_params()
        Xb = self._with_bias(X)
        m = Xb.shape[1]
        lam = float(self.lambda_param)
        coef = np.zeros((Y.shape[1], m))
        self.n_iter_ = np.zeros(Y.shape[1], dtype=int)
        for k in range(Y.shape[1]):
            pos = Y[:, k] == 1
            H, G = Xb[pos], np.ascontiguousarray(Xb[~pos])
            if G.shape[0] == 0:        # every row carries k: nothing to push away, z = 0
                continue
            P = np.ascontiguousarray(ridge_solve_rows(H, G, lam))
            alpha = np.zeros(G.shape[0])
            self.n_iter_[k] = sor_box(G, P, alpha, float(self.sor_omega), float(self.c_k),
                                      float(self.threshold), int(self.max_iter))
            coef[k] = -(P.T @ alpha)
        self.coef_ = coef
        self.norms_ = np.linalg.norm(coef, axis=1)
        top = self.norms_.max()
        self.delta_ = 1.0 / top if top > 0 else np.inf
        return self

    def distances(self, X):
        """s_k(x) = -(w_k . x + b_k) / ||(w_k, b_k)|| per row and label (labels with z = 0: +inf)."""
        X = self._validate_predict(X)
        check_is_fitted(self, "coef_")
        raw = -(self._with_bias(X) @ self.coef_.T)
        with np.errstate(divide="ignore", invalid="ignore"):
            d = raw / self.norms_
        return np.where(self.norms_ > 0, d, np.inf)

    def predict(self, X):
        """Label k where ``s_k(x) < 1 / max_j ||z_j||`` (strict, as scikit-multilearn)."""
        return (self.distances(X) < self.delta_).astype(int)


register("mltsvm", MLTSVM, family="svm", paper="bogatinovski2022",
         params={"c_k": 1.0, "lambda_param": 1.0, "sor_omega": 0.2, "threshold": 0.2},
         grid={"c_k": [2.0 ** j for j in range(-6, 6)],
               "lambda_param": [2.0 ** j for j in range(-4, 4)],
               "threshold": [1.0, 0.2]},
         description="multi-label twin SVM (Chen et al. 2016), linear, dual solved by projected SOR "
                     "(omega 0.2 as in the comprehensive study)")
