"""The test-row bootstrap (mlbench.stats.bootstrap): the percentile interval agrees with
scipy.stats.bootstrap, replicates pair up across methods, and the stored encoding round-trips."""
import numpy as np
import pytest
from scipy import stats

from mlbench.stats.bootstrap import (decode, encode, percentile_interval, replicates,
                                     resample_seed, row_replicates)


def test_percentile_interval_of_a_mean_matches_scipy():
    x = np.random.RandomState(0).exponential(size=200)
    ours = percentile_interval(replicates(lambda rows: x[rows].mean(), x.size, 20000, 1))
    ref = stats.bootstrap((x,), np.mean, n_resamples=20000, method="percentile",
                          random_state=2).confidence_interval
    assert ours == pytest.approx((ref.low, ref.high), abs=0.01)


def test_the_resamples_depend_on_the_split_only():
    seed = resample_seed(0, "ImCLEF07A", "given-r00")
    assert seed == resample_seed(0, "ImCLEF07A", "given-r00") != resample_seed(0, "ImCLEF07A", "x")
    a = np.random.RandomState(3).rand(50)
    b = a + 0.1
    ra = replicates(lambda rows: a[rows].mean(), 50, 200, seed)
    rb = replicates(lambda rows: b[rows].mean(), 50, 200, seed)
    np.testing.assert_allclose(rb - ra, 0.1)       # paired: the same rows in every replicate


def test_encoding_round_trips_at_float16_precision_and_rejects_junk():
    v = np.linspace(0, 1, 1000)
    np.testing.assert_allclose(decode(encode(v)), v, atol=5e-4)
    assert decode("not base64!").size == 0 and decode("QQ==").size == 0
    extra = {"bootstrap": {"replicates": {"micro_f1": encode([0.5, 0.6])}}}
    np.testing.assert_allclose(row_replicates(extra, "micro_f1"), [0.5, 0.6], atol=1e-3)
    assert row_replicates(extra, "macro_f1") is None and row_replicates({}, "micro_f1") is None


@pytest.mark.parametrize("value", [{"replicates": 10}, {"replicates": "many"}, {"B": 1000}, "yes"])
def test_protocol_bootstrap_key_is_validated(value):
    from mlbench.errors import ConfigError
    from mlbench.protocols import parse_protocol

    base = {"name": "p", "split": {"scheme": "holdout"}, "metrics": ["micro_f1"]}
    assert parse_protocol({**base, "bootstrap": {"replicates": 500}}).bootstrap == 500
    assert parse_protocol(base).bootstrap == 0
    with pytest.raises(ConfigError, match="bootstrap"):
        parse_protocol({**base, "bootstrap": value})


def _jackknife_acceleration(x, stat):
    jack = np.array([stat(np.delete(x, i)) for i in range(x.size)])
    u = jack.mean() - jack
    return float((u ** 3).sum() / (6.0 * (u ** 2).sum() ** 1.5))


def test_bca_interval_matches_scipy():
    from mlbench.stats.bootstrap import bc_interval

    x = np.random.RandomState(0).exponential(size=120)
    reps = replicates(lambda rows: x[rows].mean(), x.size, 20000, 1)
    acc = _jackknife_acceleration(x, np.mean)
    ours = bc_interval(reps, x.mean(), acceleration=acc)
    ref = stats.bootstrap((x,), np.mean, n_resamples=20000, method="BCa",
                          random_state=2).confidence_interval
    assert ours == pytest.approx((ref.low, ref.high), abs=0.01)


def test_bc_interval_by_hand():
    from mlbench.stats.bootstrap import bc_interval

    v = (np.arange(1000) + 0.5) / 1000
    # the point at the replicates' median: no correction, the percentile interval
    assert bc_interval(v, 0.5) == pytest.approx(percentile_interval(v), abs=1e-9)
    # 84.13% of the replicates below the point: z0 = 1, ends at Phi(2 - 1.96) and Phi(2 + 1.96)
    lo, hi = bc_interval(v, stats.norm.cdf(1.0))
    assert lo == pytest.approx(stats.norm.cdf(2 - 1.959964), abs=2e-3)
    assert hi == pytest.approx(stats.norm.cdf(2 + 1.959964), abs=2e-3)
    # every replicate on one side of the point: undefined
    assert bc_interval(v, 1.5) is None and bc_interval(v, -0.1) is None
    assert bc_interval([np.nan, np.nan], 0.5) is None


def test_paired_interval_is_centred_on_the_point_difference_under_the_empty_label_rule():
    """Two predictors on data with rare labels: macro-F1's empty-label rule lifts the replicates
    (a resample missing a rare label's rows scores it 1), so the replicates' mean difference is not
    the difference on the whole test set; the interval reported goes with the point difference."""
    from mlbench.metrics.label import macro_f1
    from mlbench.stats.bootstrap import paired_interval, row_interval

    rng = np.random.RandomState(4)
    n, L = 300, 12
    Y = (rng.rand(n, L) < np.r_[[0.3] * 4, [0.01] * 8]).astype(int)
    # each predictor finds a share of the positives and claims nothing else on the rare labels
    A = Y * (rng.rand(n, L) < 0.6) | (rng.rand(n, L) < np.r_[[0.1] * 4, [0.0] * 8])
    B = Y * (rng.rand(n, L) < 0.4) | (rng.rand(n, L) < np.r_[[0.1] * 4, [0.0] * 8])
    seed = resample_seed(0, "toy", "r0")
    rows = []
    for P in (A, B):
        reps = replicates(lambda r: macro_f1(Y[r], P[r]), n, 1000, seed)
        rows.append({"macro_f1": macro_f1(Y, P),
                     "extra": {"bootstrap": {"replicates": {"macro_f1": encode(reps)}}}})
        assert reps.mean() > rows[-1]["macro_f1"]          # the rule's upward bias
        lo, hi = row_interval(rows[-1], "macro_f1")
        assert lo <= rows[-1]["macro_f1"] <= hi
    diff, lo, hi = paired_interval(rows[0], rows[1], "macro_f1")
    assert diff == rows[0]["macro_f1"] - rows[1]["macro_f1"]
    assert lo <= diff <= hi
