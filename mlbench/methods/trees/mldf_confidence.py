"""Measure-aware confidences of MLDF (Yang, Wu, Jiang & Zhou 2019, Table 2), in log space.

``P`` is a layer's representation: ``P[i, j]`` estimates Pr[y_ij = 1].  Each measure gets one
confidence per *column* (label-based measures: hamming loss, macro-AUC) or per *row* (instance-based:
one-error, coverage, ranking loss, average precision); Algorithm 1 compares them with a threshold.
With the vector ``p`` (a row or a column) sorted in descending order, ``p_1 >= ... >= p_n``:

* hamming loss (column): ``(1/m) sum_i [p_i if p_i > 0.5 else 1 - p_i]``;
* one-error (row): ``max_j p_j``;
* ranking loss, average precision (row) and macro-AUC (column): the probability that every positive is
  ranked above every negative, ``sum_{j=0..n} prod_{k<=j} p_k prod_{k>j} (1 - p_k)`` (the ground truth is
  one of the n+1 "top-j positive" vectors 0...0, 10...0, ..., 1...1);
* coverage (row): ``1 - (1/l) sum_{j=1..l} j p_j prod_{k>j} (1 - p_k)``, one minus the expected
  normalised position of the last positive.

The three product sums are O(n^2) when written directly.  :func:`log_confidence` computes them in
O(n) per vector after the sort, fully vectorised over all rows (columns): the prefix sums of log p and
the suffix sums of log(1 - p) give every term's logarithm at once, and a log-sum-exp adds them.
Working in log space keeps the products from underflowing (a macro-AUC column of m = 7000 training
rows multiplies 7000 factors; the linear product is 0.0 in float64), and the threshold of Algorithm 2
is compared in log space as well.  :func:`confidence_reference` is the direct O(n^2) NumPy version,
kept for tests and the benchmark.
"""
from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from mlbench.errors import ConfigError

#: MLDF's six measures -> "label" (confidence per column) or "instance" (per row)
MEASURE_AXIS = {
    "hamming_loss": "label",
    "macro_auc": "label",
    "one_error": "instance",
    "coverage": "instance",
    "ranking_loss": "instance",
    "average_precision": "instance",
}


#: names of the mlbench.metrics columns that are the same measure
ALIASES = {"coverage_normalized": "coverage"}


def check_measure(measure):
    """The canonical MLDF measure name (an alias such as ``coverage_normalized`` is accepted)."""
    measure = ALIASES.get(measure, measure)
    if measure not in MEASURE_AXIS:
        raise ConfigError(f"unknown MLDF measure {measure!r}; choose one of "
                          f"{', '.join(MEASURE_AXIS)}")
    return measure


def _rows(P, measure):
    """The vectors the confidence is computed on, as rows of a 2-D array."""
    P = np.asarray(P, dtype=np.float64)
    return P.T if MEASURE_AXIS[measure] == "label" else P


def _log_prefix_suffix(S):
    """For rows sorted descending, A[:, j] = sum_{k<=j} log p_k and B[:, j] = sum_{k>j} log(1-p_k),
    j = 0..n (so A[:, 0] = 0 and B[:, n] = 0)."""
    with np.errstate(divide="ignore"):
        logp = np.log(S)
        logq = np.log1p(-S)
    r = S.shape[0]
    A = np.concatenate([np.zeros((r, 1)), np.cumsum(logp, axis=1)], axis=1)
    # suffix sums as a reversed cumulative sum; B[:, n] = 0
    B = np.concatenate([np.cumsum(logq[:, ::-1], axis=1)[:, ::-1], np.zeros((r, 1))], axis=1)
    return logp, A, B


def log_confidence(P, measure):
    """log alpha for each column (label-based measure) or row (instance-based) of ``P``; O(n) each."""
    measure = check_measure(measure)
    V = np.clip(_rows(P, measure), 0.0, 1.0)
    with np.errstate(divide="ignore"):
        if measure == "hamming_loss":
            return np.log(np.where(V > 0.5, V, 1.0 - V).mean(axis=1))
        if measure == "one_error":
            return np.log(V.max(axis=1))
    S = -np.sort(-V, axis=1)  # descending
    n = S.shape[1]
    logp, A, B = _log_prefix_suffix(S)
    if measure == "coverage":
        # term j (1-based) = j * p_j * prod_{k>j} (1 - p_k): log j + log p_j + B[:, j]
        with np.errstate(divide="ignore"):
            terms = np.log(np.arange(1, n + 1)) + logp + B[:, 1:]
        expected = np.exp(logsumexp(terms, axis=1)) / n
        with np.errstate(divide="ignore"):
            return np.log1p(-np.minimum(expected, 1.0))
    # ranking loss, average precision, macro-AUC: sum_j exp(A_j + B_j)
    return logsumexp(A + B, axis=1)


def confidence_reference(P, measure):
    """alpha (not its log) straight from Table 2's formulas: O(n^2) per vector, linear space."""
    measure = check_measure(measure)
    V = np.clip(_rows(P, measure), 0.0, 1.0)
    if measure == "hamming_loss":
        return np.array([np.mean([p if p > 0.5 else 1 - p for p in v]) for v in V])
    if measure == "one_error":
        return V.max(axis=1)
    out = np.empty(V.shape[0])
    for r, v in enumerate(V):
        s = np.sort(v)[::-1]
        n = len(s)
        if measure == "coverage":
            e = sum(j * s[j - 1] * np.prod(1 - s[j:]) for j in range(1, n + 1))
            out[r] = 1 - e / n
        else:
            out[r] = sum(np.prod(s[:j]) * np.prod(1 - s[j:]) for j in range(n + 1))
    return out


def log_mean(log_values):
    """log of the mean of exp(log_values) (Algorithm 2's threshold, the mean of the confidences);
    -inf for an empty set, so that no confidence falls below it."""
    log_values = np.asarray(log_values, dtype=np.float64)
    if log_values.size == 0:
        return -np.inf
    return float(logsumexp(log_values) - np.log(log_values.size))
