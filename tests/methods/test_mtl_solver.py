"""The FISTA engine and the proximal operators against their definitions and reference solvers."""
import numpy as np
import pytest
import scipy.optimize
from sklearn.linear_model import LogisticRegression

from mlbench.methods.mtl.fista import fista
from mlbench.methods.mtl.logistic import LogisticLoss
from mlbench.methods.mtl.prox import (group_soft_threshold, project_capped_simplex, project_cmtl_set,
                                      singular_value_threshold, soft_threshold)


def toy(n=80, d=5, Q=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    W = rng.standard_normal((d, Q))
    Y = (X @ W + rng.standard_normal((n, Q)) > 0).astype(float)
    return X, Y


def l1_problem(X, Y, gamma):
    loss = LogisticLoss(X, Y)

    def prox(V, step):
        out = V.copy()
        out[:-1] = soft_threshold(V[:-1], step * gamma)
        return out

    return loss, prox


def test_logistic_gradient_matches_finite_differences():
    X, Y = toy()
    loss = LogisticLoss(X, Y)
    Wb = np.random.default_rng(1).standard_normal((X.shape[1] + 1, Y.shape[1]))
    _, G = loss(Wb, True)
    num = scipy.optimize.approx_fprime(Wb.ravel(), lambda w: loss(w.reshape(Wb.shape), False), 1e-7)
    np.testing.assert_allclose(G.ravel(), num, atol=1e-5)


def test_fista_reaches_sklearn_l1_logistic_objective():
    X, Y = toy(Q=1)
    gamma = 0.05
    loss, prox = l1_problem(X, Y, gamma)
    res = fista(loss, prox, np.zeros((X.shape[1] + 1, 1)), nonsmooth=lambda V: gamma * np.abs(V[:-1]).sum(),
                max_iter=5000, tol=1e-10)
    assert res.converged
    # scikit-learn: C sum(logloss) + ||w||_1  <=>  mean logloss + ||w||_1 / (C n); saga leaves b free
    ref = LogisticRegression(C=1.0 / (gamma * X.shape[0]), l1_ratio=1.0, solver="saga", tol=1e-12,
                             max_iter=100000).fit(X, Y[:, 0])
    ref_obj = loss(np.vstack([ref.coef_.T, ref.intercept_]), False) + gamma * np.abs(ref.coef_).sum()
    assert res.objective <= ref_obj + 1e-7
    np.testing.assert_allclose(res.x[:-1, 0], ref.coef_[0], atol=1e-4)


def test_fista_reaches_scipy_optimum_multitask_l1():
    X, Y = toy()
    gamma = 0.02
    loss, prox = l1_problem(X, Y, gamma)
    shape = (X.shape[1] + 1, Y.shape[1])
    res = fista(loss, prox, np.zeros(shape), nonsmooth=lambda V: gamma * np.abs(V[:-1]).sum(),
                max_iter=5000, tol=1e-10)
    # split W = P - N with P, N >= 0: a smooth bound-constrained problem for L-BFGS-B
    nw = (shape[0] - 1) * shape[1]

    def obj(z):
        P, N, b = z[:nw], z[nw:2 * nw], z[2 * nw:]
        Wb = np.vstack([(P - N).reshape(shape[0] - 1, shape[1]), b])
        f, G = loss(Wb, True)
        gW = G[:-1].ravel()
        return f + gamma * (P.sum() + N.sum()), np.concatenate([gW + gamma, -gW + gamma, G[-1]])

    z0 = np.zeros(2 * nw + shape[1])
    bounds = [(0, None)] * (2 * nw) + [(None, None)] * shape[1]
    ref = scipy.optimize.minimize(obj, z0, jac=True, bounds=bounds, method="L-BFGS-B",
                                  options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20000})
    assert res.objective == pytest.approx(ref.fun, abs=1e-8) or res.objective < ref.fun


def test_fista_objective_history_decreases_overall():
    X, Y = toy()
    loss, prox = l1_problem(X, Y, 0.01)
    res = fista(loss, prox, np.zeros((X.shape[1] + 1, Y.shape[1])),
                nonsmooth=lambda V: 0.01 * np.abs(V[:-1]).sum(), max_iter=200, tol=0, record=True)
    assert len(res.history) == 200 and not res.converged
    assert res.history[-1] < res.history[0]
    assert res.history[-1] == pytest.approx(min(res.history), abs=1e-9)


def _prox_by_minimisation(g, v, t):
    return scipy.optimize.minimize(lambda x: g(x.reshape(v.shape)) + ((x - v.ravel()) ** 2).sum() / (2 * t),
                                   v.ravel(), method="Powell",
                                   options={"xtol": 1e-10, "ftol": 1e-14, "maxiter": 200000}).x


@pytest.mark.parametrize("prox, g", [
    (soft_threshold, lambda X: np.abs(X).sum()),
    (singular_value_threshold, lambda X: np.linalg.svd(X, compute_uv=False).sum()),
    (group_soft_threshold, lambda X: np.sqrt((X ** 2).sum(axis=1)).sum()),
])
def test_prox_is_the_minimiser_of_its_definition(prox, g):
    rng = np.random.default_rng(3)
    V = rng.standard_normal((3, 2))
    t = 0.7
    P = prox(V, t)

    def F(X):
        return g(X) + ((X - V) ** 2).sum() / (2 * t)

    ref = _prox_by_minimisation(g, V, t).reshape(V.shape)
    assert F(P) <= F(ref) + 1e-8
    for _ in range(50):  # and no nearby point is better
        assert F(P) <= F(P + 1e-3 * rng.standard_normal(V.shape)) + 1e-12


def test_soft_threshold_values():
    np.testing.assert_allclose(soft_threshold(np.array([-3.0, -0.5, 0.0, 0.2, 2.0]), 1.0),
                               [-2.0, 0.0, 0.0, 0.0, 1.0])


def test_capped_simplex_projection_matches_qp():
    rng = np.random.default_rng(4)
    for k in (1, 2, 3.5):
        v = rng.standard_normal(6) * 2
        mu = project_capped_simplex(v, k)
        assert mu.sum() == pytest.approx(k) and mu.min() >= 0 and mu.max() <= 1 + 1e-12
        ref = scipy.optimize.minimize(lambda x: ((x - v) ** 2).sum(), np.full(6, k / 6), method="SLSQP",
                                      bounds=[(0, 1)] * 6,
                                      constraints=[{"type": "eq", "fun": lambda x: x.sum() - k}],
                                      options={"ftol": 1e-14, "maxiter": 1000}).x
        np.testing.assert_allclose(mu, ref, atol=1e-6)


def test_cmtl_projection_is_feasible_and_idempotent():
    rng = np.random.default_rng(5)
    A = rng.standard_normal((5, 5))
    M = project_cmtl_set(A + A.T, 2)
    ev = np.linalg.eigvalsh(M)
    assert np.trace(M) == pytest.approx(2) and ev.min() > -1e-10 and ev.max() < 1 + 1e-10
    np.testing.assert_allclose(project_cmtl_set(M, 2), M, atol=1e-10)


def test_fista_affine_reuse_gives_the_same_iterates():
    """Passing the logits map (A(y) from A(x_k), A(x_k-1)) changes only rounding, not the path."""
    from mlbench.methods.mtl.fista import fista
    from mlbench.methods.mtl.prox import soft_threshold
    rng = np.random.default_rng(3)
    X = rng.standard_normal((80, 5))
    Y = (X @ rng.standard_normal((5, 3)) + rng.standard_normal((80, 3)) > 0).astype(float)
    loss = LogisticLoss(X, Y, reduction="sum")
    calls = {"n": 0}

    def counted(Wb):
        calls["n"] += 1
        return loss.logits(Wb)

    def prox(V, step):
        return np.vstack([soft_threshold(V[:-1], 2.0 * step), V[-1:]])

    a = fista(loss, prox, np.zeros((6, 3)), max_iter=60, tol=0, record=True)
    b = fista(loss, prox, np.zeros((6, 3)), max_iter=60, tol=0, record=True, affine=counted)
    np.testing.assert_allclose(b.x, a.x, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(b.history, a.history, rtol=1e-10)
    assert a.n_iter == b.n_iter == 60
    # one product per trial point (plus the start), not two per iteration
    assert calls["n"] <= 60 + 1 + 20


@pytest.mark.parametrize("t", [0.0, 0.3, 2.5])
def test_soft_threshold_is_eq7(t):
    from mlbench.methods.mtl.prox import soft_threshold
    V = np.random.default_rng(1).standard_normal((30, 7)) * 2
    out = soft_threshold(V, t)
    np.testing.assert_array_equal(out, np.sign(V) * np.maximum(np.abs(V) - t, 0.0))
    assert np.all(out[np.abs(V) <= t] == 0)
