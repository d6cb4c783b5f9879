"""MLDF Table 2 confidences: the O(n) log-space version against the direct formulas."""
import numpy as np
import pytest

from mlbench.errors import ConfigError
from mlbench.methods.trees.mldf_confidence import (MEASURE_AXIS, confidence_reference,
                                                   log_confidence, log_mean)

RNG = np.random.default_rng(0)
P = RNG.random((9, 7))
P[0, :3] = 0.0          # exact zeros and ones: log-space products must still be right
P[1, 2:5] = 1.0
P[2] = 0.5              # ties


@pytest.mark.parametrize("measure", sorted(MEASURE_AXIS))
def test_fast_confidence_equals_direct_formula(measure):
    fast = np.exp(log_confidence(P, measure))
    ref = confidence_reference(P, measure)
    expected_len = P.shape[1] if MEASURE_AXIS[measure] == "label" else P.shape[0]
    assert fast.shape == (expected_len,)
    np.testing.assert_allclose(fast, ref, rtol=1e-10, atol=1e-14)


def test_paper_examples():
    p = np.array([[0.9, 0.6, 0.4, 0.3]])
    # hamming loss on the column [0.9, 0.6, 0.4, 0.3]: (0.9 + 0.6 + 0.6 + 0.7) / 4 = 0.7
    assert np.exp(log_confidence(p.T, "hamming_loss"))[0] == pytest.approx(0.7)
    # ranking loss: the five zero-loss truths 0000, 1000, 1100, 1110, 1111
    q = 1 - p[0]
    five = (np.prod(q) + p[0, 0] * np.prod(q[1:]) + np.prod(p[0, :2]) * np.prod(q[2:])
            + np.prod(p[0, :3]) * q[3] + np.prod(p[0]))
    assert np.exp(log_confidence(p, "ranking_loss"))[0] == pytest.approx(five)
    assert np.exp(log_confidence(p, "one_error"))[0] == pytest.approx(0.9)
    # coverage: 1 - E[position of the last positive] / l
    e = sum(j * p[0, j - 1] * np.prod(q[j:]) for j in range(1, 5))
    assert np.exp(log_confidence(p, "coverage"))[0] == pytest.approx(1 - e / 4)


def test_row_order_does_not_matter():
    perm = RNG.permutation(P.shape[1])
    np.testing.assert_allclose(log_confidence(P[:, perm], "average_precision"),
                               log_confidence(P, "average_precision"))


def test_log_space_survives_underflow():
    col = np.full((5000, 1), 0.5)  # every product is 0.5 ** 5000 = 0.0 in float64
    assert confidence_reference(col, "macro_auc")[0] == 0.0
    got = log_confidence(col, "macro_auc")[0]
    assert got == pytest.approx(np.log(5001) - 5000 * np.log(2))


def test_log_mean_and_empty_set():
    vals = np.log([0.2, 0.4, 0.9])
    assert np.exp(log_mean(vals)) == pytest.approx(0.5)
    assert log_mean([]) == -np.inf


def test_unknown_measure_is_a_config_error():
    with pytest.raises(ConfigError):
        log_confidence(P, "f1")
    # the metric column name is accepted as the same measure
    np.testing.assert_array_equal(log_confidence(P, "coverage_normalized"),
                                  log_confidence(P, "coverage"))
