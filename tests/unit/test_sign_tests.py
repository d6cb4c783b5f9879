"""Yang & Liu (1999) micro sign test and macro t-test."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mlbench.errors import MlbenchError
from mlbench.stats.sign_tests import macro_t_test, marker, micro_sign_test, per_category_f1


def test_micro_sign_test_by_hand():
    Y = np.array([[1, 0], [1, 1], [0, 0], [1, 0]])
    A = np.array([[1, 0], [1, 1], [0, 0], [1, 0]])      # all right
    B = np.array([[0, 0], [1, 0], [0, 1], [1, 0]])      # 3 wrong where A is right
    r = micro_sign_test(Y, A, B)
    assert (r.n, r.statistic) == (3, 3.0)
    assert r.p == pytest.approx(0.125)                  # P(K >= 3), K ~ Bin(3, 1/2)
    assert micro_sign_test(Y, B, A).p == pytest.approx(1.0)
    assert micro_sign_test(Y, A, A).p == 1.0


def test_macro_t_test_matches_scipy():
    rng = np.random.default_rng(0)
    Y = rng.integers(0, 2, size=(60, 8))
    A = np.where(rng.random((60, 8)) < 0.85, Y, 1 - Y)
    B = np.where(rng.random((60, 8)) < 0.6, Y, 1 - Y)
    r = macro_t_test(Y, A, B)
    ref = stats.ttest_rel(per_category_f1(Y, A), per_category_f1(Y, B), alternative="greater")
    assert r.statistic == pytest.approx(ref.statistic) and r.p == pytest.approx(ref.pvalue)
    assert r.p < 0.05 and macro_t_test(Y, B, A).p > 0.95


def test_degenerate_and_errors():
    Y = np.array([[1, 0], [0, 1]])
    assert macro_t_test(Y, Y, Y).p == 1.0
    with pytest.raises(MlbenchError):
        micro_sign_test(Y, Y, np.array([[2, 0], [0, 1]]))
    assert (marker(0.0005), marker(0.01), marker(0.2)) == ("‡", "†", "")
