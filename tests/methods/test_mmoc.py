"""Tests of MMOC: metric learning reduces the max-margin objective, exact decoding."""
import numpy as np
import pytest

from mlbench.errors import MlbenchError
from mlbench.methods import registry
from mlbench.methods.transformation.mmoc import MaxMarginOutputCoding, code_distances, learn_metric
from mlbench.methods.transformation.pcc import all_label_vectors

rng = np.random.RandomState(6)
X = rng.randn(250, 5)
Y = (X @ rng.randn(5, 4) + rng.randn(250, 4) > 0).astype(int)
Y[:, 3] = Y[:, 0] | Y[:, 2]


def objective(Q, P, Y, C):
    allY = all_label_vectors(Y.shape[1]).astype(float)
    H = np.abs(Y[:, None, :] - allY[None]).sum(axis=2)
    d = code_distances(P, Q, allY)
    d_true = code_distances(P, Q, Y.astype(float)).diagonal()
    hinge = np.maximum(0, (H - d + d_true[:, None]).max(axis=1))
    return 0.5 * (Q * Q).sum() + C / len(Y) * hinge.sum()


def test_code_distances():
    Q = np.array([[2.0, 0.5], [0.5, 1.0]])
    P = np.array([[0.2, 0.9]])
    allY = all_label_vectors(2).astype(float)
    expected = [(P[0] - y) @ Q @ (P[0] - y) for y in allY]
    np.testing.assert_allclose(code_distances(P, Q, allY)[0], expected)


def test_metric_is_psd_and_lowers_the_objective():
    P = np.clip(Y + 0.4 * rng.randn(*Y.shape), -0.5, 1.5)
    Q = learn_metric(P, Y, 10.0, 60, np.random.RandomState(0))
    np.testing.assert_allclose(Q, Q.T, atol=1e-10)
    assert np.linalg.eigvalsh(Q).min() > -1e-8
    assert objective(Q, P, Y, 10.0) < objective(np.eye(4), P, Y, 10.0)
    assert objective(Q, P, Y, 10.0) < objective(np.zeros((4, 4)), P, Y, 10.0)


def test_decoding_is_exact_and_zero_lambda_is_binary_relevance():
    m = MaxMarginOutputCoding(C=1.0, n_iter=20, random_state=0).fit(X, Y)
    cost, allY = m._decoding_costs(X[:30])
    np.testing.assert_array_equal(m.predict(X[:30]), allY[cost.argmin(axis=1)])
    np.testing.assert_array_equal(m.predict(X[:30]), (m.decision_function(X[:30]) > 0).astype(int))
    m0 = MaxMarginOutputCoding(C=1.0, n_iter=20, decoding=0.0, random_state=0).fit(X, Y)
    logit = X[:30] @ m0.lr_coef_.T + m0.lr_intercept_
    np.testing.assert_array_equal(m0.predict(X[:30]), (logit > 0).astype(int))


def test_refuses_too_many_labels():
    with pytest.raises(MlbenchError, match="max_labels"):
        MaxMarginOutputCoding(C=1.0, max_labels=3).fit(X, Y)


def test_registered():
    assert registry.get("mmoc").make().decoding == 1.0
