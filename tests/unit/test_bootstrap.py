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
