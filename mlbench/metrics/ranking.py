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

**Ties.**  Labels with equal scores can be ordered three ways, chosen by ``ties=`` (a protocol's
``ties:`` key; see docs and ARCHITECTURE.md):

* ``"pessimistic"`` (default): tied labels all take the worst rank of their group,
  rank(j) = |{k : f_k >= f_j}|.  A tie never helps the method: one-error counts an error when any
  irrelevant label ties with the best relevant one, a tied relevant/irrelevant pair is misordered
  for ranking loss (MLDF's S_rank says ``f_u <= f_v``, as does Zhang & Zhou's 2014 review), and
  coverage and average precision use the worst rank.  These are scikit-learn's conventions for
  ``coverage_error``, ``label_ranking_loss`` and ``label_ranking_average_precision_score``.
* ``"half"``: the expected value of each measure when the tied labels are put in a uniformly random
  order.  A tied relevant/irrelevant pair counts one half for ranking loss; one-error is the share
  of irrelevant labels among the top-scored group; coverage and average precision take the
  expectation over the orders of each tie group (closed forms in :func:`ranking_stats_half`).
  On untied scores it equals the other two.
* ``"mulan"``: MULAN's evaluation (``mulan.classifier.MultiLabelOutput.ranksFromValues``): a strict
  ranking from Weka's ``Utils.stableSort`` of the scores in *ascending* order, the label at sorted
  position p getting rank L - p.  Weka's stable sort treats values within 1e-6 of the first value
  of a run as equal (``Utils.eq``) and orders such a run by label index, so among tied labels the
  one with the *higher* index is ranked first.  The four measures (``mulan.evaluation.loss.
  OneError``, ``RankingLoss``; ``measure.Coverage``, ``AveragePrecision``) are then the formulas
  above on that strict ranking.  Its values on tied scores depend on the column order.

:func:`tie_share` gives how much ties matter for a score matrix: the share of (relevant,
irrelevant) label pairs with equal scores, averaged over the instances (the run records it in each
cell's ``extra.tie_share``).  Pessimistic ranking loss minus half ranking loss is half of it.

**Degenerate instances are skipped** (under every tie convention).  An instance with no relevant
label, or with every label relevant, cannot rank anything wrongly or rightly (ranking loss and
average precision divide by |Y+| |Y-| or |Y+|), so all four measures average over the instances
that have at least one relevant and one irrelevant label; with no such instance they are NaN.
This differs from the libraries:

* scikit-learn's ``coverage_error`` is MULAN's coverage + 1 (it counts the rank, not the labels
  above it) and gives 0 to an instance with no relevant label; ``label_ranking_average_precision_
  score`` gives 1 and ``label_ranking_loss`` gives 0 to degenerate instances and keeps them in the
  mean;
* MULAN skips instances without relevant labels for average precision only (an instance with every
  label relevant counts 1), and counts one-error 1 (no relevant label) or 0 (all relevant),
  coverage 0 (no relevant label) or L - 1 (all relevant) and ranking loss 0 for degenerate
  instances.

The pessimistic per-instance work is done by the Cython kernel ``mlbench._ext._ranking`` (all four
statistics in one pass per row, O(L log |Y+|)); :func:`ranking_stats_numpy` is a vectorised NumPy
version of the same definitions, used when the extension is not built and as an independent check
in the tests.  The other two conventions are vectorised NumPy (:func:`ranking_stats_half`,
:func:`ranking_stats_mulan`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.stats import rankdata

from mlbench.errors import ConfigError, MlbenchError
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


#: the tie conventions ``ties=`` accepts (see the module docstring)
TIES = ("pessimistic", "half", "mulan")
#: Weka's ``Utils.SMALL``: ``Utils.eq`` (used by the stable sort MULAN ranks with) treats values
#: closer than this as equal
WEKA_SMALL = 1e-6


def check_ties(ties, where="ties"):
    """``ties`` if it is one of :data:`TIES`, else :class:`ConfigError` naming ``where``."""
    if ties not in TIES:
        raise ConfigError(f"{where}: unknown tie convention {ties!r}; choose one of {', '.join(TIES)}")
    return ties


def _relevant_ranks(rel, key, method):
    """The rank (``method`` of :func:`scipy.stats.rankdata`) of each relevant label by ``key``
    (smaller = better) among the relevant labels only; meaningless for irrelevant labels.  The
    keys are made finite integers first (dense ranks) so that the irrelevant labels can be put
    after every relevant one, even one whose key is infinite."""
    dense = rankdata(key, method="dense", axis=1)
    return rankdata(np.where(rel, dense, rel.shape[1] + 1), method=method, axis=1)


def _stats_from_ranks(rel, rank, rank_rel):
    """The four statistics from each label's rank and each relevant label's rank among the
    relevant ones, with the pessimistic reading of equal ranks (both ranks are 'max' ranks, or
    strict)."""
    n_rel = rel.sum(axis=1)
    n_irr = rel.shape[1] - n_rel
    valid = (n_rel > 0) & (n_irr > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        best_irr = np.where(rel, np.inf, rank).min(axis=1)
        best_rel = np.where(rel, rank, np.inf).min(axis=1)
        one_error = (best_irr <= best_rel).astype(np.float64)
        coverage = np.where(rel, rank, 0).max(axis=1) - 1.0
        # rank(u) - rank_rel(u) = irrelevant labels at or above relevant label u
        misordered = np.where(rel, rank - rank_rel, 0).sum(axis=1)
        ranking_loss = misordered / (n_rel * n_irr)
        average_precision = np.where(rel, rank_rel / rank, 0.0).sum(axis=1) / n_rel
    stats = [np.asarray(v, dtype=np.float64) for v in
             (one_error, coverage, ranking_loss, average_precision)]
    for values in stats:
        values[~valid] = np.nan
    return RankingStats(valid, *stats)


def ranking_stats_numpy(Y, S):
    """The pessimistic per-instance statistics computed with whole-matrix NumPy/SciPy operations."""
    rel = Y.astype(bool)
    rank = rankdata(-S, method="max", axis=1)  # |{k : f_k >= f_j}|
    # |{k in Y+ : f_k >= f_j}|: rank among the relevant scores only
    return _stats_from_ranks(rel, rank, _relevant_ranks(rel, rank, "max"))


def _tie_groups(Y, S):
    """Per label: labels strictly above it (a), its tie group's size (g); per relevant label:
    relevant labels strictly above it (b) and relevant labels in its tie group, itself included (r)."""
    rel = Y.astype(bool)
    lo = rankdata(-S, method="min", axis=1)
    hi = rankdata(-S, method="max", axis=1)
    rel_lo = _relevant_ranks(rel, -S, "min")
    rel_hi = _relevant_ranks(rel, -S, "max")
    return rel, lo - 1.0, hi - lo + 1.0, rel_lo - 1.0, rel_hi - rel_lo + 1.0


def ranking_stats_half(Y, S):
    """Per-instance statistics under ``ties="half"``: each measure's expectation when every group
    of tied labels is ordered uniformly at random.

    With a = labels strictly above label j, g = size of j's tie group and, for relevant j, b =
    relevant labels strictly above j and r = relevant labels in j's group (j included):

    * ranking loss counts, per relevant u, the irrelevant labels above it plus half those tied
      with it;
    * one-error is the share of irrelevant labels in the top group;
    * coverage: in the lowest group holding a relevant label, the last of its r relevant labels
      sits on average at position r (g + 1) / (r + 1) of the group, so coverage = a + that - 1;
    * average precision: relevant j sits at position k (uniform on 1..g) of its group, above it
      (k - 1)(r - 1)/(g - 1) of the group's other relevant labels on average, so its expected
      precision is (1/g) sum_k (b + 1 + (k - 1) d) / (a + k) with d = (r - 1)/(g - 1), which is
      d + (b + 1 - d - d a) (H(a + g) - H(a)) / g with H the harmonic numbers.
    """
    rel, a, g, b, r = _tie_groups(Y, S)
    L = Y.shape[1]
    n_rel = rel.sum(axis=1)
    n_irr = L - n_rel
    valid = (n_rel > 0) & (n_irr > 0)
    top = S.max(axis=1, keepdims=True)
    in_top = S == top
    H = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, L + 1))])
    with np.errstate(invalid="ignore", divide="ignore"):
        one_error = (in_top & ~rel).sum(axis=1) / in_top.sum(axis=1)
        misordered = np.where(rel, (a - b) + 0.5 * (g - r), 0.0).sum(axis=1)
        ranking_loss = misordered / (n_rel * n_irr)
        last = np.where(rel, -S, -np.inf).argmax(axis=1)[:, None]   # a lowest-scored relevant label
        a_l, g_l, r_l = (np.take_along_axis(x, last, axis=1)[:, 0] for x in (a, g, r))
        coverage = a_l + r_l * (g_l + 1) / (r_l + 1) - 1.0
        ai = np.where(rel, a, 0).astype(np.intp)
        gi = np.where(rel, g, 1).astype(np.intp)
        d = np.where(gi > 1, (r - 1) / np.maximum(gi - 1, 1), 0.0)
        precision = d + (b + 1 - d - d * ai) * (H[ai + gi] - H[ai]) / gi
        average_precision = np.where(rel, precision, 0.0).sum(axis=1) / n_rel
    stats = [np.asarray(v, dtype=np.float64) for v in
             (one_error, coverage, ranking_loss, average_precision)]
    for values in stats:
        values[~valid] = np.nan
    return RankingStats(valid, *stats)


def mulan_ranks(S):
    """MULAN's strict ranks of each row of ``S`` (1 = top), as ``MultiLabelOutput.ranksFromValues``
    computes them: Weka's stable ascending sort, runs of values within :data:`WEKA_SMALL` of the
    run's first (smallest) value ordered by label index, rank = L - sorted position."""
    n, L = S.shape
    order = np.argsort(S, axis=1, kind="stable")   # ascending; exact ties by index ascending
    vals = np.take_along_axis(S, order, axis=1)
    gaps = np.diff(vals, axis=1)
    # rows where two distinct values are closer than Weka's tolerance: build Weka's runs by hand
    for i in np.flatnonzero(((gaps > 0) & (gaps < WEKA_SMALL)).any(axis=1)):
        row, start = order[i], 0
        while start < L:
            end = start + 1
            while end < L and (vals[i, end] == vals[i, start]
                               or abs(vals[i, end] - vals[i, start]) < WEKA_SMALL):
                end += 1
            row[start:end] = np.sort(row[start:end])
            start = end
    ranks = np.empty((n, L), dtype=np.float64)
    np.put_along_axis(ranks, order, np.arange(L, 0, -1, dtype=np.float64)[None, :], axis=1)
    return ranks


def ranking_stats_mulan(Y, S):
    """Per-instance statistics under ``ties="mulan"``: the definitions on MULAN's strict ranking
    (:func:`mulan_ranks`)."""
    rel = Y.astype(bool)
    rank = mulan_ranks(S)
    return _stats_from_ranks(rel, rank, _relevant_ranks(rel, rank, "ordinal"))


def tie_share(Y_true, S):
    """Share of (relevant, irrelevant) label pairs whose scores are equal, averaged over the
    instances with both kinds of label (NaN if there is none): how far the tie convention can move
    ranking loss (pessimistic - half = tie_share / 2 per instance)."""
    Y = check_binary(Y_true, "Y_true")
    S = check_scores(S, Y.shape)
    rel, _, g, _, r = _tie_groups(Y, S)
    n_rel = rel.sum(axis=1)
    n_irr = Y.shape[1] - n_rel
    valid = (n_rel > 0) & (n_irr > 0)
    if not valid.any():
        return float("nan")
    tied = np.where(rel, g - r, 0.0).sum(axis=1)   # irrelevant labels tied with each relevant one
    return float((tied[valid] / (n_rel[valid] * n_irr[valid])).mean())


def ranking_extra(Y_true, measures, scores, own, ties):
    """What a cell records about ties in ``extra``: ``{"ties": convention, "tie_share": share}``
    for the scores the cell's ranking ``measures`` use (``own``: per-measure outputs of a method
    with ``measure_outputs``; the share is then a mapping measure -> share), or ``{}`` when no
    ranking measure or no scores."""
    used = {m.name: own.get(m.name, {}).get("scores", scores) for m in measures if m.kind == "ranking"}
    used = {name: S for name, S in used.items() if S is not None}
    if not used:
        return {}
    shares = {}
    for name, S in used.items():
        same = next((n for n in shares if used[n] is S), None)
        try:
            shares[name] = shares[same] if same else round(tie_share(Y_true, S), 6)
        except MlbenchError:   # malformed scores: the measure itself records why it has no value
            shares[name] = None
    values = set(shares.values())
    return {"ties": ties, "tie_share": values.pop() if len(values) == 1 else shares}


def ranking_stats(Y_true, S, ties="pessimistic"):
    """Validated per-instance ranking statistics of truth ``Y_true`` and scores ``S`` under the
    tie convention ``ties`` (:data:`TIES`)."""
    check_ties(ties)
    Y = check_binary(Y_true, "Y_true")
    S = check_scores(S, Y.shape)
    if ties == "half":
        return ranking_stats_half(Y, S)
    if ties == "mulan":
        return ranking_stats_mulan(Y, S)
    if _kernel is None:
        return ranking_stats_numpy(Y, S)
    return RankingStats(*_kernel(Y.view(np.uint8), S))


def _ranking_measure(field, name, doc, scale=None):
    def measure(Y_true, S, *, ranking=None, ties="pessimistic", **_):
        # ``ranking``: statistics already computed for these arrays (evaluate() computes them once)
        stats = ranking if ranking is not None else ranking_stats(Y_true, S, ties)
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
