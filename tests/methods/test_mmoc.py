"""Tests of MMOC: metric learning reduces the max-margin objective; exact decoding, and the box
relaxation used beyond ``max_labels`` against enumeration and an independent bounded solver."""
import numpy as np
from scipy.optimize import minimize

from mlbench.methods import registry
from mlbench.methods.transformation._box_qp import flip_descent, relaxed_minimise
from mlbench.methods.transformation.mmoc import MaxMarginOutputCoding, code_distances, learn_metric
from mlbench.methods.components.labelsets import all_label_vectors

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


def _psd(L, seed):
    A = np.random.RandomState(seed).randn(L, L)
    return A @ A.T / L


def _f(C, P, Q, lam, Yv):
    D = Yv - P
    return (C * Yv).sum(axis=1) + lam * np.einsum("ni,ij,nj->n", D, Q, D)


def test_relaxed_minimise_matches_an_independent_bounded_solver():
    r = np.random.RandomState(1)
    L, n = 7, 12
    Q, P, C = _psd(L, 2), r.rand(n, L) * 1.6 - 0.3, r.randn(n, L)
    got = relaxed_minimise(C, P, Q, 0.7, n_iter=5000, tol=1e-12)
    for i in range(n):
        ref = minimize(lambda y: _f(C[i:i + 1], P[i:i + 1], Q, 0.7, y[None])[0],
                       np.full(L, 0.5), bounds=[(0, 1)] * L, method="L-BFGS-B",
                       options={"ftol": 1e-14, "gtol": 1e-10})
        assert _f(C[i:i + 1], P[i:i + 1], Q, 0.7, got[i:i + 1])[0] <= ref.fun + 1e-7


def test_flip_descent_ends_in_a_one_flip_local_optimum_no_worse_than_its_start():
    r = np.random.RandomState(3)
    L, n = 9, 40
    Q, P, C = _psd(L, 4), r.rand(n, L), r.randn(n, L)
    Y0 = (r.rand(n, L) < 0.5).astype(float)
    Yl, k = flip_descent(C, P, Q, 1.3, Y0)
    f = _f(C, P, Q, 1.3, Yl)
    assert np.all(f <= _f(C, P, Q, 1.3, Y0) + 1e-12)
    for i in range(L):                                   # no single flip lowers f, by brute force
        Yf = Yl.copy()
        Yf[:, i] = 1 - Yf[:, i]
        assert np.all(_f(C, P, Q, 1.3, Yf) >= f - 1e-9)
        on, off = Yl.copy(), Yl.copy()
        on[:, i], off[:, i] = 1, 0
        np.testing.assert_allclose(k[:, i], _f(C, P, Q, 1.3, on) - _f(C, P, Q, 1.3, off))


def test_relaxed_decoding_agrees_with_enumeration_on_small_label_sets():
    """The same fitted metric decoded both ways (max_labels=0 forces the relaxation): on this toy
    set and on 8 correlated labels the 1-flip local optimum is the exact argmin on >= 97% of rows
    and never costs more than the exact argmin by more than the cost of one label's flip."""
    r = np.random.RandomState(8)
    X8 = r.randn(300, 6)
    Y8 = (X8 @ r.randn(6, 8) + 0.8 * r.randn(300, 8) > 0).astype(int)
    for Xs, Ys in ((X, Y), (X8, Y8)):
        m = MaxMarginOutputCoding(C=1.0, n_iter=20, random_state=0).fit(Xs, Ys)
        exact = m.predict(Xs)
        m.max_labels = 0
        relaxed = m.predict(Xs)
        assert (relaxed == exact).all(axis=1).mean() >= 0.97
        np.testing.assert_array_equal(relaxed, (m.decision_function(Xs) > 0).astype(int))
        cost, allY = m._decoding_costs(Xs)
        index = {tuple(v): j for j, v in enumerate(allY.astype(int))}
        got = cost[np.arange(len(Xs)), [index[tuple(v)] for v in relaxed]]
        assert np.all(got >= cost.min(axis=1) - 1e-9)


def test_more_labels_than_max_labels_use_the_relaxation_in_fit_and_predict():
    m = MaxMarginOutputCoding(C=1.0, n_iter=10, max_labels=3, random_state=0).fit(X, Y)
    assert m.fit_info_["inference"] == "relaxed"
    P = m.predict(X[:50])
    assert P.shape == (50, 4) and set(np.unique(P)) <= {0, 1}
    np.testing.assert_array_equal(P, (m.decision_function(X[:50]) > 0).astype(int))


def test_relaxed_metric_learning_lowers_the_objective():
    P = np.clip(Y + 0.4 * rng.randn(*Y.shape), -0.5, 1.5)
    Q = learn_metric(P, Y, 10.0, 60, np.random.RandomState(0), exact=False)
    assert np.linalg.eigvalsh(Q).min() > -1e-8
    assert objective(Q, P, Y, 10.0) < objective(np.eye(4), P, Y, 10.0)


def test_registered():
    assert registry.get("mmoc").make().decoding == 1.0
