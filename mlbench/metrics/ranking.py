"""Label-ranking measures of scores: one-error, coverage, ranking loss, average precision.

Each instance i ranks its L labels by score f_j (higher = more relevant); Y+ / Y- are its relevant /
irrelevant labels and rank(j) its label's position (1 = top).  Definitions follow the MLDF paper
(mldf.md, Table 1, rows 2-5, and the sets S_rank and S_precision below it), which cites Wu & Zhou
(2017) and agrees with MULAN:

* one-error:        share of instances whose top-ranked label is irrelevant;
* coverage:         mean over instances of max_{j in Y+} rank(j) - 1 (MULAN's raw value: how far
                    down the ranking one must go to cover every relevant label);
* coverage_normalized: coverage / L, the version MLDF reports (Section 4.1: "normalized by the
                    number of labels", so that it lies in [0, 1]);
* ranking loss:     mean of |{(u, v) in Y+ x Y- : f_u <= f_v}| / (|Y+| |Y-|);
* average precision: mean over instances of (1 / |Y+|) sum_{j in Y+} |{k in Y+ : rank(k) <=
                    rank(j)}| / rank(j).

**Ties (pessimistic rule).**  Labels with equal scores (equal as float64) all take the worst rank of
their group: rank(j) = |{k : f_k >= f_j}|.  So a tie never helps the method: one-error counts an
error when any irrelevant label ties with the best relevant one, a tied relevant/irrelevant pair is
misordered for ranking loss (as ``f_u <= f_v`` in MLDF's S_rank says), and coverage and average
precision use the worst rank.  This equals scikit-learn's conventions for ``coverage_error``,
``label_ranking_loss`` and ``label_ranking_average_precision_score``.  MULAN instead breaks ties
by label order (a stable sort of the scores), so its values on tied scores depend on the column
order; a constant scorer gets one-error 1 here, not "whichever label comes first".

**Degenerate instances are skipped.**  An instance with no relevant label, or with every label
relevant, cannot rank anything wrongly or rightly (ranking loss and average precision divide by
|Y+| |Y-| or |Y+|), so all four measures average over the instances that have at least one relevant
and one irrelevant label; with no such instance they are NaN.  This differs from the libraries:

* scikit-learn's ``coverage_error`` is MULAN's coverage + 1 (it counts the rank, not the labels
  above it) and gives 0 to an instance with no relevant label; ``label_ranking_average_precision_
  score`` gives 1 and ``label_ranking_loss`` gives 0 to degenerate instances and keeps them in the
  mean;
* MULAN skips instances without relevant labels for average precision only, and counts one-error 1,
  coverage 0 and ranking loss 0 for degenerate instances.

The per-instance work is done by the Cython kernel ``mlbench._ext._ranking`` (all four statistics in
one pass per row, O(L log |Y+|)); :func:`ranking_stats_numpy` is a vectorised NumPy version of the
same definitions, used when the extension is not built and as an independent check in the tests.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.stats import rankdata

from mlbench.metrics._validate import check_binary, check_scores
from mlbench.metrics.base import register_measure

try:
    from mlbench._ext._ranking import ranking_stats as _kernel
except ImportError:  # extension not built: the NumPy version gives the same numbers, slower
    _kernel = None


class RankingStats(NamedTuple):
    """Per-instance values; ``valid`` marks instances with both relevant and irrelevant labels."""

    valid: np.ndarray
    one_error: np.ndarray
    coverage: np.ndarray
    ranking_loss: np.ndarray
    average_precision: np.ndarray

    def mean(self, field):
        """Mean of one statistic over the valid instances (NaN if there is none)."""
        values = getattr(self, field)[self.valid]
        return float(values.mean()) if values.size else float("nan")


def ranking_stats_numpy(Y, S):
    """The per-instance statistics computed with whole-matrix NumPy/SciPy operations."""
    rel = Y.astype(bool)
    n_rel = rel.sum(axis=1)
    n_irr = Y.shape[1] - n_rel
    valid = (n_rel > 0) & (n_irr > 0)
    rank = rankdata(-S, method="max", axis=1)  # |{k : f_k >= f_j}|
    # |{k in Y+ : f_k >= f_j}|: rank among the relevant scores only (irrelevant ones masked as NaN)
    rank_rel = rankdata(np.where(rel, -S, np.nan), method="max", axis=1, nan_policy="omit")
    with np.errstate(invalid="ignore", divide="ignore"):
        top_irr = np.where(rel, -np.inf, S).max(axis=1)
        top_rel = np.where(rel, S, -np.inf).max(axis=1)
        one_error = (top_irr >= top_rel).astype(np.float64)
        coverage = np.where(rel, rank, 0).max(axis=1) - 1.0
        misordered = np.where(rel, rank - rank_rel, 0).sum(axis=1)
        ranking_loss = misordered / (n_rel * n_irr)
        average_precision = np.where(rel, rank_rel / rank, 0.0).sum(axis=1) / n_rel
    stats = [one_error, coverage, ranking_loss, average_precision]
    for values in stats:
        values[~valid] = np.nan
    return RankingStats(valid, *stats)


def ranking_stats(Y_true, S):
    """Validated per-instance ranking statistics of truth ``Y_true`` and scores ``S``."""
    Y = check_binary(Y_true, "Y_true")
    S = check_scores(S, Y.shape)
    if _kernel is None:
        return ranking_stats_numpy(Y, S)
    return RankingStats(*_kernel(Y.view(np.uint8), S))


def _ranking_measure(field, name, doc, scale=None):
    def measure(Y_true, S, *, ranking=None, **_):
        # ``ranking``: statistics already computed for these arrays (evaluate() computes them once)
        stats = ranking if ranking is not None else ranking_stats(Y_true, S)
        value = stats.mean(field)
        return value / np.shape(Y_true)[1] if scale == "labels" else value

    measure.__name__ = measure.__qualname__ = name
    measure.__doc__ = doc
    return measure


one_error = _ranking_measure("one_error", "one_error", "Share of instances whose top label is irrelevant.")
coverage = _ranking_measure("coverage", "coverage", "Mean of max rank of a relevant label - 1 (MULAN).")
coverage_normalized = _ranking_measure("coverage", "coverage_normalized",
                                       "Coverage divided by the number of labels (MLDF).", scale="labels")
ranking_loss = _ranking_measure("ranking_loss", "ranking_loss", "Mean share of misordered (Y+, Y-) pairs.")
average_precision = _ranking_measure("average_precision", "average_precision",
                                     "Mean precision at the rank of each relevant label.")

def _no_rankable_instance(Y_true, **_):
    Y = np.asarray(Y_true).astype(bool)
    if (Y.any(axis=1) & ~Y.all(axis=1)).any():
        return None
    return "no test instance has both a relevant and an irrelevant label"


_RANK = dict(needs="scores", kind="ranking", undefined=_no_rankable_instance)
register_measure("one_error", one_error, greater_is_better=False, display="One-error",
                 description="share of instances whose top-scored label is irrelevant (MLDF Table 1)",
                 **_RANK)
register_measure("coverage", coverage, greater_is_better=False, display="Coverage",
                 description="labels to go down the ranking to cover all relevant ones (MULAN, raw)", **_RANK)
register_measure("coverage_normalized", coverage_normalized, greater_is_better=False, display="Coverage/L",
                 description="coverage divided by the number of labels (MLDF Table 1)", **_RANK)
register_measure("ranking_loss", ranking_loss, greater_is_better=False, display="Ranking loss",
                 description="share of relevant/irrelevant label pairs misordered (MLDF Table 1)", **_RANK)
register_measure("average_precision", average_precision, greater_is_better=True, display="Avg. precision",
                 description="precision at each relevant label's rank, averaged (MLDF Table 1)", **_RANK)

#: measure functions that accept precomputed ``ranking=`` statistics (used by ``evaluate``)
SHARED_STATS = frozenset({one_error, coverage, coverage_normalized, ranking_loss, average_precision})
