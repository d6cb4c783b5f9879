"""Input checks shared by every measure.

Measures receive arrays from methods (``predict``, ``predict_proba``, ``joint_log_proba``) or from
``mlbench evaluate``.  Anything malformed (wrong shape, a value that is not 0/1 in a label matrix, NaN
in scores) raises :class:`MetricInputError`, a :class:`~mlbench.errors.MlbenchError`: one line, exit
status 2 on the command line.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from mlbench.errors import MlbenchError


class MetricInputError(MlbenchError):
    """The arrays given to a measure are malformed or do not match each other."""


def _dense(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A)


def _first_bad_row(mask):
    """Index of the first row of a boolean (n, L) or (n,) mask that has a True."""
    rows = np.flatnonzero(mask.any(axis=1) if mask.ndim == 2 else mask)
    return int(rows[0])


def check_binary(A, what="Y_true", shape=None):
    """A 0/1 matrix (n, L) as a C-contiguous ``int8`` array.

    ``shape`` (when given) is the shape it must have, that of the truth matrix.
    """
    A = _dense(A)
    if A.ndim != 2:
        raise MetricInputError(f"{what} must be a 2-D 0/1 matrix (instances x labels), got shape {A.shape}")
    if shape is not None and A.shape != tuple(shape):
        raise MetricInputError(f"{what} has shape {A.shape} but Y_true has shape {tuple(shape)}")
    if A.shape[0] == 0 or A.shape[1] == 0:
        raise MetricInputError(f"{what} is empty (shape {A.shape})")
    if A.dtype != np.bool_:
        bad = ~((A == 0) | (A == 1))
        if bad.any():
            row = _first_bad_row(bad)
            value = A[row][bad[row]][0].item()
            raise MetricInputError(f"{what} row {row}: value {value!r} is not 0 or 1")
    return np.ascontiguousarray(A, dtype=np.int8)


def check_scores(S, shape):
    """A real-valued score matrix of the truth's shape as C-contiguous ``float64``; NaN is an error.

    Infinite scores are allowed (they order like any other value).
    """
    S = _dense(S)
    if S.ndim != 2 or S.shape != tuple(shape):
        raise MetricInputError(f"scores have shape {S.shape} but Y_true has shape {tuple(shape)}")
    try:
        S = np.ascontiguousarray(S, dtype=np.float64)
    except (TypeError, ValueError):
        raise MetricInputError("scores must be numbers") from None
    nan = np.isnan(S)
    if nan.any():
        raise MetricInputError(f"scores row {_first_bad_row(nan)}: NaN score")
    return S


def check_joint(J, n):
    """A vector of ``n`` joint log-probabilities log P(y_true | x) as ``float64``.

    Values must be <= 0 (a log-probability; 1e-9 of rounding slack is clipped to 0); ``-inf`` (the
    method gave the true label set probability 0) is allowed and makes the loss infinite.
    """
    J = np.asarray(J, dtype=np.float64)
    if J.ndim == 2 and 1 in J.shape:
        J = J.ravel()
    if J.ndim != 1 or J.shape[0] != n:
        raise MetricInputError(f"joint log-probabilities have shape {J.shape}, expected ({n},)")
    if np.isnan(J).any():
        raise MetricInputError(f"joint log-probabilities row {_first_bad_row(np.isnan(J))}: NaN")
    too_big = J > 1e-9
    if too_big.any():
        row = _first_bad_row(too_big)
        raise MetricInputError(
            f"joint log-probabilities row {row}: {J[row].item()!r} > 0 is not a log-probability"
        )
    return np.minimum(J, 0.0)
