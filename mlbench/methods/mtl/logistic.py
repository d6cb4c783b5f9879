"""The multi-task logistic loss in matrix form.

For tasks that share the inputs X (n x d), with parameters W (d x Q) and intercepts b (Q),
Z = X W + 1 b^T and

    f(W, b) = s * sum_q sum_i [log(1 + exp(Z_iq)) - Y_iq Z_iq],      Y in {0, 1},

which is the first term of the I-MTSL objective (Eq. 5; Eq. 4 with n_q = n) for s = 1/n, and the
summed loss of the structure regressions (Eq. 2) for s = 1.  Its gradient is
X^T (sigmoid(Z) - Y) s and s 1^T (sigmoid(Z) - Y): the matrix form of Eq. 8's first term, with
no block-diagonal X-bar because every task sees the same rows.

Parameters travel as one array ``Wb`` of shape (..., d + 1, Q): rows 0..d-1 hold W, the last row
holds b (never penalised).  A leading batch axis (a 3-D ``X`` of shape (B, n, d)) solves B independent
problems at once (the stability-selection subsamples).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import expit


def _xt(X, R):
    """X^T R for a 2-D (dense or sparse) or batched 3-D X."""
    if sp.issparse(X) or X.ndim == 2:
        return np.asarray(X.T @ R)
    return np.matmul(np.swapaxes(X, -1, -2), R)


def logits(X, Wb):
    """Z = X W + b for parameters stacked as ``Wb`` (last row: intercepts)."""
    return np.asarray(X @ Wb[..., :-1, :]) + Wb[..., -1:, :]


def predict_proba(X, coef, intercept):
    """sigmoid(X coef + intercept), shape (n, Q)."""
    return expit(np.asarray(X @ coef) + intercept)


class LogisticLoss:
    """f and grad f of the multi-task logistic loss (``reduction`` "mean": s = 1/n; "sum": s = 1)."""

    def __init__(self, X, Y, reduction="mean"):
        self.X = X
        self.Y = np.asarray(Y, dtype=np.float64)
        n = self.Y.shape[-2]
        self.scale = 1.0 / n if reduction == "mean" else 1.0

    def __call__(self, Wb, grad):
        Z = logits(self.X, Wb)
        value = self.scale * float(np.sum(np.logaddexp(0.0, Z) - self.Y * Z))
        if not grad:
            return value
        R = self.scale * (expit(Z) - self.Y)
        G = np.empty_like(Wb)
        G[..., :-1, :] = _xt(self.X, R)
        G[..., -1, :] = R.sum(axis=-2)
        return value, G

    def n_params(self, n_tasks):
        return self.X.shape[-1] + 1, n_tasks


def with_intercept(W, b):
    """Stack ``W`` (d x Q) and ``b`` (Q) into the ``Wb`` layout."""
    return np.vstack([W, np.asarray(b, dtype=np.float64)[None, :]])
