"""Tests of the pairwise multi-label CRF: gradient, exact inference, normalisation, coupling."""
import numpy as np
import pytest
from scipy.optimize import check_grad

from mlbench.errors import MlbenchError
from mlbench.methods import registry
from mlbench.methods.probabilistic.mlcrf import PairwiseCRF, pair_index, pseudo_loglik_and_grad
from mlbench.methods.transformation.pcc import all_label_vectors

rng = np.random.RandomState(4)
X = rng.randn(220, 3)
Y = (X @ rng.randn(3, 4) + rng.randn(220, 4) > 0).astype(int)
Y[:, 3] = Y[:, 1] ^ (rng.rand(220) < 0.1)       # label 3 follows label 1: a positive coupling
ALL4 = all_label_vectors(4)


def test_gradient_matches_finite_differences():
    I, J = pair_index(4)
    n_par = 4 * 3 + 4 + len(I) * 3 + len(I)
    theta = np.random.RandomState(0).randn(n_par) * 0.3
    args = (X[:40], Y[:40].astype(np.int8), I, J, np.full(4, 0.5), np.full(len(I), 2.0))
    f = lambda t: pseudo_loglik_and_grad(t, *args)[0]
    g = lambda t: pseudo_loglik_and_grad(t, *args)[1]
    assert check_grad(f, g, theta) < 1e-4 * max(1.0, np.abs(g(theta)).max())


def test_exact_inference_and_normalisation():
    m = PairwiseCRF(C=1.0).fit(X, Y)
    J = np.stack([m.joint_log_proba(X[:25], np.tile(y, (25, 1))) for y in ALL4], axis=1)
    np.testing.assert_allclose(np.exp(J).sum(axis=1), 1.0, atol=1e-10)
    np.testing.assert_array_equal(m.predict(X[:25]), ALL4[J.argmax(axis=1)])
    np.testing.assert_allclose(m.predict_proba(X[:25]), np.exp(J) @ ALL4, atol=1e-10)


def test_learns_the_coupling():
    m = PairwiseCRF(C=1.0).fit(X, Y)
    I, J = m.pairs_
    p13 = int(np.flatnonzero((I == 1) & (J == 3))[0])
    others = [p for p in range(len(I)) if p != p13]
    assert m.c_[p13] > 2.0 and m.c_[p13] > np.abs(m.c_[others]).max()


def test_refuses_too_many_labels():
    with pytest.raises(MlbenchError, match="max_labels"):
        PairwiseCRF(C=1.0, max_labels=3).fit(X, Y)


def test_registered():
    assert registry.get("mlcrf").family == "probabilistic"
