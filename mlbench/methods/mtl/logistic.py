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
    """X^T R for a 2-D (dense or sparse) or batched 3-D X; a 2-D X with a batch of R is one GEMM."""
    if sp.issparse(X) or (X.ndim == 2 and R.ndim == 2):
        return np.asarray(X.T @ R)
    if X.ndim == 2:   # shared rows, batched R (B, n, Q): X^T [R_1 ... R_B] in one product
        B, n, Q = R.shape
        out = X.T @ np.moveaxis(R, 0, 1).reshape(n, B * Q)
        return np.moveaxis(out.reshape(X.shape[1], B, Q), 1, 0)
    return np.matmul(np.swapaxes(X, -1, -2), R)


def logits(X, Wb):
    """Z = X W + b for parameters stacked as ``Wb`` (last row: intercepts)."""
    W = Wb[..., :-1, :]
    if W.ndim == 3 and not sp.issparse(X) and X.ndim == 2:   # shared rows: one GEMM for the batch
        B, d, Q = W.shape
        XW = (X @ np.moveaxis(W, 0, 1).reshape(d, B * Q)).reshape(X.shape[0], B, Q)
        return np.moveaxis(XW, 1, 0) + Wb[..., -1:, :]
    return np.asarray(X @ W) + Wb[..., -1:, :]


def predict_proba(X, coef, intercept):
    """sigmoid(X coef + intercept), shape (n, Q)."""
    return expit(np.asarray(X @ coef) + intercept)


class LogisticLoss:
    """f and grad f of the multi-task logistic loss (``reduction`` "mean": s = 1/n; "sum": s = 1).

    ``weights`` (shape (..., n, 1) or (..., n, Q), optional) multiply each row's loss: a row of
    weight c counts as c copies of it (the structure regressions use it to merge repeated label
    vectors; the objective is unchanged).  With weights, "mean" divides by their sum.
    """

    def __init__(self, X, Y, reduction="mean", weights=None):
        self.X = X
        self.Y = np.asarray(Y, dtype=np.float64)
        self.weights = None if weights is None else np.asarray(weights, dtype=np.float64)
        if reduction == "mean":
            n = self.Y.shape[-2] if weights is None else self.weights.sum(axis=-2, keepdims=True)
            self.scale = 1.0 / n
        else:
            self.scale = 1.0
        # the per-element factor of the loss and of the residual: s (times the row weight)
        self.factor = self.scale if self.weights is None else self.scale * self.weights

    def logits(self, Wb):
        """Z = X W + b: the affine map through which the loss sees its parameters."""
        return logits(self.X, Wb)

    def __call__(self, Wb, grad, Z=None):
        """f (and grad f); ``Z``, when given, must be ``self.logits(Wb)``."""
        if Z is None:
            Z = logits(self.X, Wb)
        # log(1 + e^z) = max(z, 0) + log1p(e^-|z|) and sigmoid(z) share e^-|z|: one exp per entry
        e = np.exp(-np.abs(Z))
        elem = np.maximum(Z, 0.0) + np.log1p(e) - self.Y * Z
        value = float(np.sum(self.factor * elem)) if self.weights is not None else \
            self.scale * float(np.sum(elem))
        if not grad:
            return value
        sig = np.where(Z >= 0, 1.0, e) / (1.0 + e)
        R = self.factor * (sig - self.Y)
        G = np.empty_like(Wb)
        G[..., :-1, :] = _xt(self.X, R)
        G[..., -1, :] = R.sum(axis=-2)
        return value, G

    def n_params(self, n_tasks):
        return self.X.shape[-1] + 1, n_tasks


def with_intercept(W, b):
    """Stack ``W`` (d x Q) and ``b`` (Q) into the ``Wb`` layout."""
    return np.vstack([W, np.asarray(b, dtype=np.float64)[None, :]])
