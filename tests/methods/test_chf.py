"""Tests of CHF (two-layer stacking with heterogeneous features)."""
import numpy as np
import pytest

from mlbench.errors import MlbenchError
from mlbench.methods import registry
from mlbench.methods.components.logistic import DEFAULT_CS
from mlbench.methods.transformation.chf import HeterogeneousFeatures

rng = np.random.RandomState(5)
X = rng.randn(300, 4)
Y = (X @ rng.randn(4, 3) + 0.5 * rng.randn(300, 3) > 0).astype(int)
Y[:, 2] = Y[:, 0] & Y[:, 1]                  # label 2 is a function of the other two


def test_second_layer_uses_stacked_scores_and_joint_is_product():
    m = HeterogeneousFeatures(C=1.0, random_state=0).fit(X, Y)
    coef2, _ = m.second_
    assert coef2.shape == (3, 4 + 3)
    assert np.abs(coef2[2, 4:6]).max() > 0.1   # label 2 leans on the scores of labels 0 and 1
    P = m.predict_proba(X[:30])
    np.testing.assert_array_equal(m.predict(X[:30]), (P >= 0.5).astype(int))
    expected = np.log(np.where(Y[:30] == 1, P, 1 - P)).sum(axis=1)
    np.testing.assert_allclose(m.joint_log_proba(X[:30], Y[:30]), expected, atol=1e-10)


def test_same_seed_same_model():
    a = HeterogeneousFeatures(random_state=1).fit(X, Y)
    b = HeterogeneousFeatures(random_state=1).fit(X, Y)
    np.testing.assert_array_equal(a.second_[0], b.second_[0])


@pytest.mark.parametrize("kw", [{"stack_folds": 1}, {"C": "x"}])
def test_bad_parameters(kw):
    with pytest.raises(MlbenchError):
        HeterogeneousFeatures(**kw).fit(X, Y)


def test_registered():
    assert registry.get("chf").paper == "mc"


def test_second_layer_chooses_C_on_the_stacked_inputs():
    from mlbench.methods.components.logistic import choose_C

    own = HeterogeneousFeatures(random_state=2).fit(X, Y)
    old = HeterogeneousFeatures(select_C_on="x", random_state=2).fit(X, Y)
    np.testing.assert_array_equal(own.C_, old.C_)
    np.testing.assert_array_equal(old.C2_, old.C_)
    seed = np.random.RandomState(2).randint(2**31 - 1)
    Z = np.hstack([X, np.zeros_like(Y, dtype=float)])
    assert own.C2_.shape == (3,) and set(own.C2_) <= set(DEFAULT_CS)
    assert not np.array_equal(own.C2_, choose_C(Z, Y, "cv", random_state=seed))  # uses s(x), not zeros
    with pytest.raises(MlbenchError, match="select_C_on"):
        HeterogeneousFeatures(select_C_on="all").fit(X, Y)
