"""The output contract: what a method's ``predict`` and scores must be before anything scores them.

The runner (``cell.py``) and :func:`mlbench.testing.check_method` both go through this module, for
built-in and user methods alike:

* **predictions** (``predict``): a 0/1 (or boolean) matrix of shape (n, L).  A scipy.sparse matrix
  (scikit-multilearn) is made dense; a 1-D vector of n values is accepted when L == 1.  Any other
  value (a probability, NaN, 2) or shape is a violation.
* **scores** (``predict_proba``, else ``decision_function``): one finite (n, L) real matrix; from
  ``predict_proba`` (the method *declares* probabilities) every value also lies in [0, 1].
  Understood conventions: a scipy.sparse matrix (scikit-multilearn); scikit-learn's per-label list
  of (n, 2) arrays (``MultiOutputClassifier``, multi-output forests and k-NN), of which the column
  of class 1 is kept (found in the estimator's per-label ``classes_`` when it has them, else the
  last column; a label seen with one class only gives (n, 1), read through ``classes_``); a single
  (n, 2) array or a 1-D vector when L == 1.

A violation raises :class:`OutputContractError`, whose one-line message names the method, the
output and the violation (shape, dtype, a value outside {0, 1} or [0, 1], a non-finite value, with
its row and column); the cell records it as status ``error``.

Outputs that keep the contract can still show that a model learnt nothing from the features:
:func:`degenerate` names them (no label predicted anywhere, every label everywhere, one label set
for every row, one score for every row and label).  The cell records its reason in
``extra.degenerate`` and reports list such cells, so that a constant model is never read as a
method's level without a word (a search stopped at a grid corner gave such rows: CHANGELOG).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from mlbench.errors import MlbenchError

#: rounding slack allowed outside [0, 1] for declared probabilities
PROBA_SLACK = 1e-9


class OutputContractError(MlbenchError):
    """A method's predictions or scores break the output contract (see the module docstring)."""


def _dense(a):
    return a.toarray() if sp.issparse(a) else a


def _numeric(a, method, what):
    """``a`` as a NumPy array of bool, integer or real numbers, or the contract's error."""
    try:
        arr = np.asarray(_dense(a))
    except (TypeError, ValueError) as exc:
        raise OutputContractError(f"{method}: {what} is not an array of numbers ({exc})") from None
    if arr.dtype.kind not in "biuf":
        raise OutputContractError(f"{method}: {what} has dtype {arr.dtype}, not numbers")
    return arr


def _first(mask):
    """(row, column) of the first True of a 2-D mask."""
    i, j = np.argwhere(mask)[0]
    return int(i), int(j)


def _check_shape(arr, n, L, method, what):
    if arr.ndim == 1 and L == 1 and arr.shape[0] == n:
        arr = arr.reshape(n, 1)
    if arr.shape != (n, L):
        raise OutputContractError(f"{method}: {what} has shape {arr.shape}, expected ({n}, {L}) "
                                  "(instances x labels)")
    return arr


def normalise_predictions(pred, n, L, method, *, what="predict"):
    """``pred`` as a C-contiguous int8 (n, L) 0/1 matrix, or :class:`OutputContractError`."""
    arr = _check_shape(_numeric(pred, method, what), n, L, method, what)
    if arr.dtype.kind != "b":
        bad = ~((arr == 0) | (arr == 1))
        if bad.any():
            i, j = _first(bad)
            raise OutputContractError(
                f"{method}: {what} gave {arr[i, j].item()!r} at row {i}, label {j}: predictions "
                "must be 0/1 (a probability or score belongs in predict_proba/decision_function)")
    return np.ascontiguousarray(arr, dtype=np.int8)


def _positive_column(a, classes, method, what, j):
    """The column of class 1 of one label's (n, k) probability array."""
    if classes is not None:
        cls = list(np.asarray(classes).ravel())
        if len(cls) == a.shape[1]:
            hits = [k for k, c in enumerate(cls) if _is_one(c)]
            if hits:
                return a[:, hits[0]]
            if len(cls) == 1:       # only class 0 was seen in training: P(label = 1) = 0
                return np.zeros(a.shape[0])
    if a.shape[1] == 2:
        return a[:, 1]
    raise OutputContractError(
        f"{method}: {what} gave label {j} an array of shape {a.shape}, and its classes_ do not say "
        "which column is class 1 (expected (n, 2) per label)")


def _is_one(c):
    try:
        return c == 1 and not isinstance(c, str)
    except (TypeError, ValueError):
        return False


def _label_classes(classes, L):
    """The per-label ``classes_`` of a multi-output scikit-learn estimator, or None."""
    if isinstance(classes, (list, tuple)) and len(classes) == L:
        return list(classes)
    if L == 1 and classes is not None and np.ndim(classes) == 1:
        return [classes]
    return None


def normalise_scores(scores, n, L, method, declared_proba, *, what=None, classes=None):
    """``scores`` as a C-contiguous float64 (n, L) matrix, or :class:`OutputContractError`.

    ``declared_proba``: the scores come from ``predict_proba``, so they must lie in [0, 1];
    ``classes``: the estimator's ``classes_`` (per label), used to find the column of class 1 in
    scikit-learn's per-label arrays.
    """
    what = what or ("predict_proba" if declared_proba else "decision_function")
    per_label = _label_classes(classes, L)
    if isinstance(scores, (list, tuple)):      # scikit-learn: one array per label
        if len(scores) != L:
            raise OutputContractError(f"{method}: {what} gave a list of {len(scores)} arrays for "
                                      f"{L} labels")
        columns = []
        for j, a in enumerate(scores):
            a = _numeric(a, method, f"{what} (label {j})")
            if a.ndim == 2:
                a = _positive_column(a, per_label[j] if per_label else None, method, what, j)
            if a.ndim != 1 or a.shape[0] != n:
                raise OutputContractError(f"{method}: {what} gave label {j} shape {a.shape}, "
                                          f"expected ({n}, 2) or ({n},)")
            columns.append(a)
        arr = np.column_stack(columns)
    else:
        arr = _numeric(scores, method, what)
        if L == 1 and arr.ndim == 2 and arr.shape == (n, 2):   # one binary label: P(0), P(1)
            arr = _positive_column(arr, per_label[0] if per_label else None, method, what, 0)
        arr = _check_shape(arr, n, L, method, what)
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = _first(bad)
        raise OutputContractError(f"{method}: {what} gave {arr[i, j].item()!r} at row {i}, "
                                  f"label {j}: scores must be finite")
    if declared_proba:
        bad = (arr < -PROBA_SLACK) | (arr > 1 + PROBA_SLACK)
        if bad.any():
            i, j = _first(bad)
            raise OutputContractError(
                f"{method}: {what} gave {arr[i, j].item()!r} at row {i}, label {j}: probabilities "
                "must lie in [0, 1] (margins belong in decision_function)")
    return arr


def score_source(est):
    """The method that gives ``est``'s scores: ``predict_proba``, else ``decision_function``, else
    None."""
    for name in ("predict_proba", "decision_function"):
        if callable(getattr(est, name, None)):
            return name
    return None


def method_predictions(est, X, n, L, method):
    """``est.predict(X)`` checked and normalised (:func:`normalise_predictions`)."""
    return normalise_predictions(est.predict(X), n, L, method)


def method_scores(est, X, n, L, method):
    """The scores of ``est`` on ``X`` (:func:`score_source`) checked and normalised, or None."""
    source = score_source(est)
    if source is None:
        return None
    return normalise_scores(getattr(est, source)(X), n, L, method, source == "predict_proba",
                            classes=getattr(est, "classes_", None))


def degenerate(pred, scores=None):
    """Why the checked outputs of one cell are those of a model that ignores its input, or None.

    ``pred``: the (n, L) 0/1 predictions; ``scores``: the (n, L) scores or None.  In order: no
    label predicted for any row; every label predicted for every row; one label set predicted for
    every row; one score for every row and label.  Fewer than two test rows are never called
    degenerate: there is nothing to compare."""
    P = np.asarray(pred)
    if P.ndim != 2 or P.shape[0] < 2 or P.size == 0:
        return None
    if not P.any():
        return "no label predicted for any test row"
    if P.all():
        return "every label predicted for every test row"
    if (P == P[:1]).all():
        return "the same label set predicted for every test row"
    if scores is not None:
        S = np.asarray(scores)
        if S.size and np.ptp(S) == 0:
            return "the same score for every test row and label"
    return None
