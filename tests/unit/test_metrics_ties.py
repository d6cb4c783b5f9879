"""Tie conventions of the label-ranking measures, each against an independent reference:

* ``half`` against the average over every way of ordering the tied labels (enumerated), and its
  ranking loss against one minus scikit-learn's per-instance ROC AUC (which counts ties one half);
* ``mulan`` against a slow, literal transcription of MULAN's definitions (ranks from Weka's stable
  ascending sort with its 1e-6 equality, one-error / coverage / ranking loss / average precision as
  MULAN's loss and measure classes define them on that strict ranking);
* all three on a hand-computed case; the degenerate-instance convention under each.
"""
import itertools

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from mlbench.errors import ConfigError
from mlbench.metrics import evaluate, get_measure
from mlbench.metrics.ranking import TIES, mulan_ranks, ranking_stats, tie_share

FIELDS = ("one_error", "coverage", "ranking_loss", "average_precision")


def strict_measures(y, ranks):
    """The four measures of one instance for a strict ranking (1 = top), straight from the
    definitions: a loop over labels and pairs."""
    L = len(y)
    rel = [j for j in range(L) if y[j]]
    irr = [j for j in range(L) if not y[j]]
    top = [j for j in range(L) if ranks[j] == 1][0]
    one_error = 0.0 if y[top] else 1.0
    coverage = max(ranks[j] for j in rel) - 1.0
    bad = sum(1 for u in rel for v in irr if ranks[u] > ranks[v])
    ranking_loss = bad / (len(rel) * len(irr))
    ap = sum(sum(1 for k in rel if ranks[k] <= ranks[j]) / ranks[j] for j in rel) / len(rel)
    return one_error, coverage, ranking_loss, ap


def weka_stable_sort(values):
    """Weka's ``Utils.stableSort``: indices in ascending order of value; a run of values within
    1e-6 of its first value is put in index order."""
    order = sorted(range(len(values)), key=lambda j: values[j])
    out, i = [], 0
    while i < len(order):
        j = i + 1
        while j < len(order) and abs(values[order[j]] - values[order[i]]) < 1e-6:
            j += 1
        out.extend(sorted(order[i:j]))
        i = j
    return out


def mulan_reference(Y, S):
    """Mean of MULAN's four measures over the instances with relevant and irrelevant labels."""
    rows = []
    for y, s in zip(Y, S):
        if 0 < sum(y) < len(y):
            ranks = [0] * len(s)
            for position, j in enumerate(weka_stable_sort(list(s))):
                ranks[j] = len(s) - position       # MultiLabelOutput.ranksFromValues
            rows.append(strict_measures(list(y), ranks))
    return np.mean(rows, axis=0)


def random_order_reference(Y, S):
    """Mean over the instances of the average, over every order of each group of tied labels,
    of the four measures on the resulting strict ranking."""
    rows = []
    for y, s in zip(Y, S):
        if not 0 < sum(y) < len(y):
            continue
        groups = [[j for j in range(len(s)) if s[j] == v] for v in sorted(set(s), reverse=True)]
        values = []
        for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
            ranks = [0] * len(s)
            for position, j in enumerate(itertools.chain.from_iterable(perms), start=1):
                ranks[j] = position
            values.append(strict_measures(list(y), ranks))
        rows.append(np.mean(values, axis=0))
    return np.mean(rows, axis=0)


def case(seed, n=30, L=6, levels=3):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, L)) < 0.4).astype(int)
    S = rng.integers(0, levels, (n, L)) / levels
    S[0] = 0.5      # a row of constant scores
    return Y, S


def means(Y, S, ties):
    stats = ranking_stats(Y, S, ties)
    return np.array([stats.mean(f) for f in FIELDS])


# one instance, labels 0 and 1 tied at the top, only label 1 relevant; one untied instance
Y_HAND = np.array([[0, 1, 0, 0], [1, 0, 1, 0]])
S_HAND = np.array([[0.7, 0.7, 0.2, 0.1], [0.9, 0.8, 0.3, 0.1]])


@pytest.mark.parametrize("ties, tied_row", [
    # pessimistic: the tie is lost: label 1 at rank 2, above-it irrelevant label 0 counts
    ("pessimistic", (1.0, 1.0, 1 / 3, 1 / 2)),
    # half: either order with probability 1/2: one-error 1/2, coverage (0 + 1)/2, ranking loss
    # (0 + 1/3)/2, precision (1/1 + 1/2)/2
    ("half", (0.5, 0.5, 1 / 6, 3 / 4)),
    # MULAN: the higher label index wins the tie, so label 1 is on top
    ("mulan", (0.0, 0.0, 0.0, 1.0)),
])
def test_hand_computed(ties, tied_row):
    untied = (0.0, 2.0, 1 / 4, (1 + 2 / 3) / 2)     # ranks 1..4, relevant at ranks 1 and 3
    stats = ranking_stats(Y_HAND, S_HAND, ties)
    for k, field in enumerate(FIELDS):
        assert getattr(stats, field).tolist() == pytest.approx([tied_row[k], untied[k]]), field
        measure = get_measure(field)
        assert measure(Y_HAND, S_HAND, ties=ties) == pytest.approx((tied_row[k] + untied[k]) / 2)


@pytest.mark.parametrize("seed", range(6))
def test_half_is_the_average_over_tie_orders(seed):
    Y, S = case(seed, n=20, L=5)
    np.testing.assert_allclose(means(Y, S, "half"), random_order_reference(Y, S), rtol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_half_ranking_loss_is_one_minus_sklearn_auc_per_instance(seed):
    Y, S = case(seed, n=60, L=8, levels=4)
    stats = ranking_stats(Y, S, "half")
    for i in np.flatnonzero(stats.valid):
        assert stats.ranking_loss[i] == pytest.approx(1 - roc_auc_score(Y[i], S[i]))


@pytest.mark.parametrize("seed", range(6))
def test_mulan_matches_its_definition(seed):
    Y, S = case(seed, n=40, L=7, levels=3)
    np.testing.assert_allclose(means(Y, S, "mulan"), mulan_reference(Y, S), rtol=1e-12)


def test_mulan_treats_values_within_weka_tolerance_as_tied():
    # 0.5 and 0.5 + 4e-7 are one run for Weka: ordered by index, so label 1 (higher index) is on top
    S = np.array([[0.5 + 4e-7, 0.5, 0.1], [0.3, 0.3 + 2e-6, 0.1]])
    assert mulan_ranks(S).tolist() == [[2, 1, 3], [2, 1, 3]]
    Y = np.array([[1, 0, 0], [1, 0, 0]])
    np.testing.assert_allclose(means(Y, S, "mulan"), mulan_reference(Y, S))
    assert ranking_stats(Y, S, "mulan").one_error.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("seed", range(3))
def test_conventions_agree_without_ties(seed):
    rng = np.random.default_rng(seed)
    Y = (rng.random((50, 6)) < 0.4).astype(int)
    S = rng.random((50, 6))
    ref = means(Y, S, "pessimistic")
    for ties in ("half", "mulan"):
        np.testing.assert_allclose(means(Y, S, ties), ref, rtol=1e-12)
    assert tie_share(Y, S) == 0.0


@pytest.mark.parametrize("seed", range(4))
def test_tie_share_is_twice_the_pessimistic_minus_half_ranking_loss(seed):
    Y, S = case(seed, n=50, L=7, levels=3)
    gap = (ranking_stats(Y, S, "pessimistic").mean("ranking_loss")
           - ranking_stats(Y, S, "half").mean("ranking_loss"))
    assert tie_share(Y, S) == pytest.approx(2 * gap)
    assert tie_share(Y_HAND, S_HAND) == pytest.approx((1 / 3 + 0) / 2)   # 1 of 3 pairs tied in row 0


@pytest.mark.parametrize("ties", TIES)
def test_degenerate_instances_are_skipped_under_every_convention(ties):
    # row 0: no relevant label, row 1: all relevant, row 2: the hand case's tied row
    Y = np.array([[0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 0, 0]])
    S = np.array([[0.7, 0.7, 0.2, 0.1]] * 3)
    stats = ranking_stats(Y, S, ties)
    assert stats.valid.tolist() == [False, False, True]
    for field in FIELDS:
        assert np.isnan(getattr(stats, field)[:2]).all()
        assert stats.mean(field) == getattr(ranking_stats(Y[2:], S[2:], ties), field)[0]
        assert np.isnan(get_measure(field)(Y[:2], S[:2], ties=ties))
    assert np.isnan(tie_share(Y[:2], S[:2]))


def test_evaluate_passes_the_convention():
    a = evaluate(Y_HAND, scores=S_HAND, measures=["one_error"], ties="mulan")
    b = evaluate(Y_HAND, scores=S_HAND, measures=["one_error"])
    assert a["one_error"] == 0.0 and b["one_error"] == 0.5


def test_unknown_convention_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown tie convention 'optimistic'"):
        ranking_stats(Y_HAND, S_HAND, "optimistic")
