"""Label-ranking measures and AUCs: the Cython kernel, the NumPy version, scikit-learn and by hand."""
import numpy as np
import pytest
from sklearn import metrics as skm

from mlbench.metrics import MetricInputError, get_measure
from mlbench.metrics.ranking import ranking_stats, ranking_stats_numpy

# toy: 4 instances x 4 labels.  Row 0 is untied, row 1 ties a relevant with an irrelevant label at
# the top, row 2 has no relevant label (skipped), row 3 has every label relevant (skipped).
Y = np.array([[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]])
S = np.array([[0.9, 0.8, 0.3, 0.1], [0.7, 0.7, 0.2, 0.1], [0.5, 0.4, 0.3, 0.2], [0.1, 0.2, 0.3, 0.4]])


def m(name, Yt=Y, Sc=S):
    return get_measure(name)(Yt, Sc)


def random_case(seed, n=80, L=9, levels=4):
    """Random truth and scores drawn from few levels, so ties are frequent."""
    rng = np.random.default_rng(seed)
    Yt = (rng.random((n, L)) < 0.3).astype(int)
    Yt[0] = 0
    Yt[1] = 1
    Sc = rng.integers(0, levels, (n, L)) / levels
    Sc[2] = 0.5  # a row of constant scores
    return Yt, Sc


def test_hand_worked_toy():
    # row 0: ranks 1..4, relevant at ranks 1 and 3; row 1: labels 0,1 tie at the top -> both rank 2
    assert m("one_error") == pytest.approx((0 + 1) / 2)  # the tie counts against the method
    assert m("coverage") == pytest.approx(((3 - 1) + (2 - 1)) / 2)
    assert m("coverage_normalized") == pytest.approx(1.5 / 4)
    # row 0: pairs (0,1)(0,3)(2,1)(2,3) -> (2,1) misordered: 1/4; row 1: pair (1,0) tied: 1/3
    assert m("ranking_loss") == pytest.approx((1 / 4 + 1 / 3) / 2)
    # row 0: (1/1 + 2/3) / 2; row 1: 1/2
    assert m("average_precision") == pytest.approx(((1 + 2 / 3) / 2 + 1 / 2) / 2)


def test_degenerate_instances_are_skipped():
    stats = ranking_stats(Y, S)
    assert stats.valid.tolist() == [True, True, False, False]
    assert np.isnan(stats.one_error[2:]).all()
    only = np.zeros((2, 3), dtype=int)
    for name in ("one_error", "coverage", "ranking_loss", "average_precision"):
        assert np.isnan(m(name, only, np.ones((2, 3)))), name
        assert np.isnan(m(name, 1 - only, np.ones((2, 3)))), name


@pytest.mark.parametrize("seed", range(10))
def test_kernel_equals_numpy(seed):
    Yt, Sc = random_case(seed)
    a = ranking_stats(Yt, Sc)
    b = ranking_stats_numpy(Yt.astype(np.int8), Sc)
    assert (a.valid == b.valid).all()
    for field in ("one_error", "coverage", "ranking_loss", "average_precision"):
        np.testing.assert_allclose(getattr(a, field), getattr(b, field), rtol=1e-12, equal_nan=True)


def test_kernels_are_built():
    from mlbench.metrics import auc, ranking

    hint = "build it: MLBENCH_ONLY=_ranking python setup.py build_ext --inplace"
    assert ranking._kernel is not None, hint
    assert auc._kernel is not None, hint


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("levels", [3, 1000])
def test_matches_sklearn_on_valid_instances(seed, levels):
    Yt, Sc = random_case(seed, levels=levels)
    keep = (Yt.sum(1) > 0) & (Yt.sum(1) < Yt.shape[1])
    Yk, Sk = Yt[keep], Sc[keep]
    # scikit-learn's coverage is MULAN's coverage + 1 (it counts the rank of the last relevant label)
    assert m("coverage", Yt, Sc) == pytest.approx(skm.coverage_error(Yk, Sk) - 1)
    assert m("ranking_loss", Yt, Sc) == pytest.approx(skm.label_ranking_loss(Yk, Sk))
    assert m("average_precision", Yt, Sc) == pytest.approx(skm.label_ranking_average_precision_score(Yk, Sk))


@pytest.mark.parametrize("seed", range(5))
def test_one_error_definition(seed):
    Yt, Sc = random_case(seed)
    keep = (Yt.sum(1) > 0) & (Yt.sum(1) < Yt.shape[1])
    top = Sc.max(axis=1, keepdims=True)
    # error unless every label tied at the top score is relevant
    expected = ((Sc == top) & (Yt == 0)).any(axis=1)[keep].mean()
    assert m("one_error", Yt, Sc) == pytest.approx(expected)


def test_untied_one_error_is_argmax():
    Yt, Sc = random_case(3, levels=10**9)
    keep = (Yt.sum(1) > 0) & (Yt.sum(1) < Yt.shape[1])
    top = Sc.argmax(axis=1)
    assert m("one_error", Yt, Sc) == pytest.approx((Yt[np.arange(len(Yt)), top] == 0)[keep].mean())


def test_infinite_scores_order_like_numbers():
    Yt = np.array([[1, 0, 0]])
    assert m("one_error", Yt, np.array([[np.inf, 1.0, -np.inf]])) == 0.0
    assert m("coverage", Yt, np.array([[-np.inf, 1.0, 0.0]])) == 2.0


def test_scores_with_nan_are_refused():
    Sc = S.copy()
    Sc[1, 2] = np.nan
    with pytest.raises(MetricInputError, match="row 1: NaN"):
        m("ranking_loss", Y, Sc)
    with pytest.raises(MetricInputError, match="shape"):
        m("ranking_loss", Y, S[:, :3])


# ---- AUC -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("levels", [3, 1000])
def test_auc_matches_sklearn(seed, levels):
    Yt, Sc = random_case(seed, levels=levels)
    Yt[:, 0] = 0  # a label with no positive test instance: left out of the macro mean
    both = (Yt.sum(0) > 0) & (Yt.sum(0) < Yt.shape[0])
    expected = skm.roc_auc_score(Yt[:, both], Sc[:, both], average="macro")
    assert m("macro_auc", Yt, Sc) == pytest.approx(expected)
    assert m("micro_auc", Yt, Sc) == pytest.approx(skm.roc_auc_score(Yt, Sc, average="micro"))


def test_auc_ties_count_half():
    Yt = np.array([[1], [0], [1], [0]])
    assert m("macro_auc", Yt, np.array([[0.5], [0.5], [0.5], [0.5]])) == 0.5
    assert m("macro_auc", Yt, np.array([[0.9], [0.5], [0.5], [0.1]])) == pytest.approx((1 + 1 + 0.5 + 1) / 4)


def test_auc_without_any_defined_label_is_nan():
    Yt = np.array([[1, 0], [1, 0]])
    assert np.isnan(m("macro_auc", Yt, np.ones((2, 2))))
    assert np.isnan(m("micro_auc", np.zeros((2, 2), dtype=int), np.ones((2, 2))))


@pytest.mark.parametrize("seed", range(6))
def test_auc_kernel_equals_numpy(seed):
    from mlbench.metrics.auc import _auc_columns, _auc_columns_numpy

    rng = np.random.default_rng(seed)
    n = 40 + 500 * (seed % 2)  # small and large per-label buckets (the kernel has two paths)
    Yt = (rng.random((n, 6)) < [0, 1, 0.02, 0.3, 0.8, 0.5]).astype(np.int8)
    Sc = rng.integers(0, 4 if seed < 3 else 10**6, (n, 6)) / 4
    np.testing.assert_allclose(_auc_columns(Yt, Sc), _auc_columns_numpy(Yt, Sc), rtol=1e-12, equal_nan=True)
