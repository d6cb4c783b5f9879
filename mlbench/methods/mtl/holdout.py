"""The hyperparameter procedure shared by every method of the I-MTSL comparison.

I-MTSL paper, Section 5.3: 20% of the training part is held out; every point of a grid of ten
equally spaced values in [0, 5] (per hyperparameter) is fitted on the other 80%; the point with the
best mean accuracy over the binary problems (the per-label accuracy averaged over labels, i.e.
1 - Hamming loss) on the held-out part wins; the model is then refitted on the whole training part.
Ties go to the first point in grid order.

When the runner passes the protocol's validation part (``fit(X, Y, validation=(Xv, Yv))``), that
part is the 20%; otherwise ``validation_fraction`` of the rows are drawn at random.
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

from mlbench.errors import ConfigError
from mlbench.methods.base import check_multilabel_Y

#: ten equally spaced values in [0, 5] (Section 5.3)
PAPER_GRID = tuple(float(v) for v in np.linspace(0.0, 5.0, 10))


def grid_values(value, name):
    """A hyperparameter's candidate values: None -> the paper's grid; a number -> just it."""
    if value is None:
        return PAPER_GRID
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        values = (float(value),)
    else:
        try:
            values = tuple(float(v) for v in value)
        except (TypeError, ValueError):
            raise ConfigError(f"{name} must be None, a number or a list of numbers, got {value!r}") from None
    if not values or any(not np.isfinite(v) or v < 0 for v in values):
        raise ConfigError(f"{name} must hold finite values >= 0, got {value!r}")
    return values


def mean_label_accuracy(Y, P):
    """Per-label accuracy averaged over the labels (= 1 - Hamming loss)."""
    return float(np.mean(np.asarray(Y) == np.asarray(P)))


def _rows(X, idx):
    return X[idx]


def _vstack(A, B):
    if sp.issparse(A) or sp.issparse(B):
        return sp.vstack([sp.csr_matrix(A), sp.csr_matrix(B)], format="csr")
    return np.vstack([A, B])


def holdout_parts(X, Y, validation, fraction, rng):
    """(X_fit, Y_fit, X_valid, Y_valid, X_all, Y_all) for the search and the final refit."""
    if validation is not None:
        Xv, Yv = validation
        Xv = check_array(Xv, accept_sparse=("csr", "csc"), dtype=np.float64)
        if Xv.shape[1] != X.shape[1]:
            raise ValueError(f"validation X has {Xv.shape[1]} features, training X has {X.shape[1]}")
        Yv = check_multilabel_Y(Yv, Xv.shape[0])
        if Yv.shape[1] != Y.shape[1]:
            raise ValueError(f"validation Y has {Yv.shape[1]} labels, training Y has {Y.shape[1]}")
        if Xv.shape[0] == 0:
            return X, Y, None, None, X, Y
        return X, Y, Xv, Yv, _vstack(X, Xv), np.vstack([Y, Yv])
    n = X.shape[0]
    n_valid = int(round(fraction * n))
    if n_valid < 1 or n - n_valid < 2:
        return X, Y, None, None, X, Y
    perm = rng.permutation(n)
    fit_rows, valid_rows = np.sort(perm[n_valid:]), np.sort(perm[:n_valid])
    return _rows(X, fit_rows), Y[fit_rows], _rows(X, valid_rows), Y[valid_rows], X, Y
