"""Reading the CSV matrices of ``mlbench evaluate`` and scoring them.

A matrix file is a CSV with one row per instance and one column per label (no index column).  The
first row is a header when some cell of it is not a number (so a header of purely numeric label
names is read as data).  When the truth and the scores/predictions files both have headers, columns
are matched by name (their order may differ); otherwise by position.  The joint log-probability
file has one column (log P(y_true | x) per instance, natural log).

Every problem is reported as :class:`~mlbench.metrics.MetricInputError` naming the file and, where
there is one, the line (1-based, counting the header) and column: a missing or empty file, a ragged
line, a cell that is not a number, an empty cell or NaN, a truth or prediction value other than 0/1,
and a row or column count that differs from the truth file.
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from mlbench.metrics._validate import MetricInputError
from mlbench.metrics.evaluate import evaluate


class Matrix(NamedTuple):
    values: np.ndarray
    columns: list | None  # header names, or None when the file has no header
    path: Path
    header: bool

    def line(self, row):
        """1-based file line of data row ``row``."""
        return row + 1 + int(self.header)


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _bad_cell(matrix, mask, problem):
    row, col = np.argwhere(mask)[0]
    name = matrix.columns[col] if matrix.columns else str(col + 1)
    return MetricInputError(f"{matrix.path}: line {matrix.line(row)}, column {name}: {problem}")


def read_matrix(path, *, binary=False):
    """The numeric matrix in CSV file ``path``; ``binary`` requires every value to be 0 or 1."""
    path = Path(path)
    if not path.is_file():
        raise MetricInputError(f"{path}: no such file")
    with open(path, newline="") as fh:
        first = next(csv.reader(fh), None)
    if not first or all(not cell.strip() for cell in first):
        raise MetricInputError(f"{path}: empty file (expected one row per instance)")
    header = any(not _is_number(cell) for cell in first)
    try:
        frame = pd.read_csv(path, header=0 if header else None, skipinitialspace=True,
                            skip_blank_lines=False)
    except pd.errors.ParserError as exc:
        raise MetricInputError(f"{path}: {str(exc).strip().splitlines()[-1]}") from None
    except (UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise MetricInputError(f"{path}: not a CSV file ({exc.__class__.__name__})") from None
    # trailing blank lines are harmless; blank lines inside the data are reported below
    last = len(frame)
    while last > 0 and frame.iloc[last - 1].isna().all():
        last -= 1
    frame = frame.iloc[:last]
    if frame.shape[0] == 0:
        raise MetricInputError(f"{path}: no data rows")
    columns = [str(c).strip() for c in frame.columns] if header else None
    matrix = Matrix(None, columns, path, header)
    numeric = frame.apply(pd.to_numeric, errors="coerce")
    not_number = (numeric.isna() & frame.notna()).to_numpy()
    if not_number.any():
        row, col = np.argwhere(not_number)[0]
        raise _bad_cell(matrix, not_number, f"{frame.iat[row, col]!r} is not a number")
    values = numeric.to_numpy(dtype=np.float64)
    missing = np.isnan(values)
    if missing.any():
        raise _bad_cell(matrix, missing, "missing value (empty cell, short line or NaN)")
    if binary:
        bad = (values != 0) & (values != 1)
        if bad.any():
            row, col = np.argwhere(bad)[0]
            raise _bad_cell(matrix, bad, f"{values[row, col]:g} is not 0 or 1")
    return matrix._replace(values=values)


def _align(truth, other):
    """``other``'s values with rows and columns checked against (and, by header, matched to) truth."""
    n, L = truth.values.shape
    if other.values.shape[0] != n:
        raise MetricInputError(
            f"{other.path}: {other.values.shape[0]} rows, but {truth.path} has {n} (one per instance)"
        )
    if truth.columns and other.columns:
        missing = [c for c in truth.columns if c not in other.columns]
        if missing:
            raise MetricInputError(f"{other.path}: no column {missing[0]!r} of {truth.path}")
        extra = [c for c in other.columns if c not in truth.columns]
        if extra:
            raise MetricInputError(f"{other.path}: column {extra[0]!r} is not a label of {truth.path}")
        return other.values[:, [other.columns.index(c) for c in truth.columns]]
    if other.values.shape[1] != L:
        raise MetricInputError(
            f"{other.path}: {other.values.shape[1]} columns, but {truth.path} has {L} (one per label)"
        )
    return other.values


def evaluate_files(truth, scores=None, predictions=None, joint=None, metrics=None, threshold=0.5,
                   ties="pessimistic"):
    """Measures of the CSV files given; returns ``(results, Y)`` with ``Y`` the truth matrix.
    ``ties``: the tie convention of the label-ranking measures."""
    if scores is None and predictions is None and joint is None:
        raise MetricInputError("nothing to evaluate: give scores, predictions or joint log-probabilities")
    Y = read_matrix(truth, binary=True)
    S = None if scores is None else _align(Y, read_matrix(scores))
    P = None if predictions is None else _align(Y, read_matrix(predictions, binary=True))
    J = None
    if joint is not None:
        jm = read_matrix(joint)
        if jm.values.shape[1] != 1:
            raise MetricInputError(f"{jm.path}: {jm.values.shape[1]} columns, expected 1 (log P(y|x))")
        if jm.values.shape[0] != Y.values.shape[0]:
            raise MetricInputError(f"{jm.path}: {jm.values.shape[0]} rows, but {Y.path} has "
                                   f"{Y.values.shape[0]} (one per instance)")
        positive = jm.values > 1e-9
        if positive.any():
            raise _bad_cell(jm, positive, "a log-probability must be <= 0")
        J = jm.values[:, 0]
    truth_values = Y.values.astype(np.int8)
    results = evaluate(truth_values, predictions=P, scores=S, joint_log_proba=J, measures=metrics,
                       threshold=threshold, ties=ties)
    return results, truth_values


def evaluate_saved(path, metrics=None, threshold=0.5, ties="pessimistic"):
    """Measures of a cell's saved predictions (``mlbench run --save-predictions``: an ``.npz``
    with ``Y_true``, ``predictions`` and, when the method gave them, ``scores`` and
    ``joint_log_proba``); returns ``(results, Y)``.  Rescoring needs no refit, so a measure added
    later can be computed on old runs.  Hierarchical measures need the dataset's hierarchy, which
    the file does not hold: ask for them through a report of the results CSV instead."""
    import zipfile

    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise MetricInputError(f"{path}: not a saved-predictions file ({type(exc).__name__}: "
                               f"{str(exc).splitlines()[0] if str(exc) else ''})") from None
    if "Y_true" not in arrays or "predictions" not in arrays:
        raise MetricInputError(f"{path}: not a saved-predictions file (no Y_true / predictions arrays)")
    Y = np.asarray(arrays["Y_true"])
    P = np.asarray(arrays["predictions"])
    if Y.ndim != 2 or P.shape != Y.shape:
        raise MetricInputError(f"{path}: predictions {P.shape} do not match Y_true {Y.shape}")
    S = arrays.get("scores")
    if S is not None and S.shape != Y.shape:
        raise MetricInputError(f"{path}: scores {S.shape} do not match Y_true {Y.shape}")
    J = arrays.get("joint_log_proba")
    Y = Y.astype(np.int8)
    results = evaluate(Y, predictions=P.astype(np.int8), scores=S, joint_log_proba=J,
                       measures=metrics, threshold=threshold, ties=ties)
    return results, Y
