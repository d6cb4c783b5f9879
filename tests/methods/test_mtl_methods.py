"""The comparison methods of the I-MTSL paper: trace (Ji & Ye), cmtl (Zhou et al.), mtl-feat
(Argyriou et al.) and the hold-out-tuned br/cc wrappers."""
import numpy as np
import pytest
import scipy.optimize

from mlbench.errors import ConfigError
from mlbench.methods import registry
from mlbench.methods.mtl.baselines import HoldoutLogistic, lambda_to_C
from mlbench.methods.mtl.cmtl import ClusteredMTL, fit_cmtl
from mlbench.methods.mtl.logistic import LogisticLoss
from mlbench.methods.mtl.mtl_feat import MultiTaskFeatureLearning, fit_mtl_feat
from mlbench.methods.mtl.trace import TraceNormMTL, fit_trace


def toy(n=120, d=6, Q=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    Z = np.column_stack([X @ w, 0.8 * (X @ w), -(X @ w), X @ rng.standard_normal(d)])[:, :Q]
    return X, (Z + 0.5 * rng.standard_normal(Z.shape) > 0).astype(int)


def nuclear(W):
    return np.linalg.svd(W, compute_uv=False).sum()


def test_trace_solver_satisfies_optimality():
    """0 in grad f + lam d||W||_*: the gradient's spectral norm is <= lam on the solution's null space
    and grad f = -lam U V^T on its range."""
    X, Y = toy()
    lam = 0.08
    res = fit_trace(X, Y, lam, max_iter=20000, tol=1e-12)
    W = res.x[:-1]
    _, G = LogisticLoss(X, Y)(res.x, True)
    np.testing.assert_allclose(G[-1], 0, atol=1e-7)          # free intercepts
    U, s, Vt = np.linalg.svd(W, full_matrices=False)
    r = int((s > 1e-8).sum())
    assert 0 < r < Y.shape[1]                                   # the penalty is active
    np.testing.assert_allclose(G[:-1] @ Vt[:r].T, -lam * U[:, :r], atol=1e-5)
    rest = G[:-1] + lam * U[:, :r] @ Vt[:r]
    assert np.linalg.norm(rest, 2) <= lam + 1e-6


def test_cmtl_objective_below_any_feasible_point():
    X, Y = toy()
    rho1, rho2, k = 0.5, 0.2, 2
    res, W, b, M = fit_cmtl(X, Y, rho1, rho2, k, max_iter=20000, tol=1e-11)
    eta = rho2 / rho1
    ev = np.linalg.eigvalsh(M)
    assert np.trace(M) == pytest.approx(k) and ev.min() > -1e-9 and ev.max() < 1 + 1e-9
    loss = LogisticLoss(X, Y)

    def F(W, b, M):
        A = np.linalg.inv(eta * np.eye(Y.shape[1]) + M)
        return loss(np.vstack([W, b]), False) + rho1 * eta * (1 + eta) * np.trace(W @ A @ W.T)

    best = F(W, b, M)
    # for the solution's W, the optimal M has no better value; nor does the W optimum for M fixed
    rng = np.random.default_rng(0)
    from mlbench.methods.mtl.prox import project_cmtl_set
    for _ in range(20):
        M2 = project_cmtl_set(M + 0.1 * rng.standard_normal(M.shape), k)
        assert best <= F(W, b, M2) + 1e-8
    A = np.linalg.inv(eta * np.eye(Y.shape[1]) + M)
    shape = (X.shape[1] + 1, Y.shape[1])

    def FW(z):
        Wb = z.reshape(shape)
        f, G = loss(Wb, True)
        G[:-1] += 2 * rho1 * eta * (1 + eta) * Wb[:-1] @ A
        return f + rho1 * eta * (1 + eta) * np.trace(Wb[:-1] @ A @ Wb[:-1].T), G.ravel()

    ref = scipy.optimize.minimize(FW, np.zeros(np.prod(shape)), jac=True, method="L-BFGS-B",
                                  options={"ftol": 1e-15, "gtol": 1e-12})
    assert best <= ref.fun + 1e-8


def test_cmtl_limits_are_ridge_and_plain_logistic():
    X, Y = toy()
    _, W_ridge, _, _ = fit_cmtl(X, Y, 0.0, 0.3, 2, max_iter=3000, tol=1e-9)
    _, W_plain, _, _ = fit_cmtl(X, Y, 0.3, 0.0, 2, max_iter=300, tol=1e-9)
    _, W_near, _, _ = fit_cmtl(X, Y, 1e-6, 0.3, 2, max_iter=3000, tol=1e-9)
    np.testing.assert_allclose(W_near, W_ridge, atol=1e-3)
    assert np.linalg.norm(W_plain) > np.linalg.norm(W_ridge)


@pytest.mark.slow
def test_mtl_feat_matches_squared_trace_norm_problem():
    """As epsilon -> 0, Argyriou's alternation minimises loss + gamma ||W||_*^2."""
    X, Y = toy(n=80, d=4, Q=3)
    gamma = 0.02
    W, b, hist, _ = fit_mtl_feat(X, Y, gamma, epsilon=1e-10, outer_iter=300, outer_tol=1e-12,
                                 max_iter=5000, tol=1e-10)
    assert all(h2 <= h1 + 1e-8 for h1, h2 in zip(hist, hist[1:]))  # alternating minimisation descends
    loss = LogisticLoss(X, Y)

    def F(z):
        Wb = z.reshape(X.shape[1] + 1, Y.shape[1])
        return loss(Wb, False) + gamma * nuclear(Wb[:-1]) ** 2

    z = np.vstack([W, b]).ravel()
    ref = scipy.optimize.minimize(F, z, method="Powell", options={"xtol": 1e-9, "ftol": 1e-13,
                                                                  "maxiter": 200000})
    assert F(z) <= ref.fun + 1e-5


def test_l21_variant_selects_shared_features():
    """Group soft-thresholding zeroes whole rows: the rows kept satisfy ||grad_j|| = gamma, the
    others ||grad_j|| <= gamma (optimality of the l2,1 problem)."""
    from mlbench.methods.mtl.mtl_feat import fit_l21

    X, Y = toy()
    X = np.hstack([X, np.random.default_rng(9).standard_normal((X.shape[0], 4))])  # noise features
    gamma = 0.08
    res = fit_l21(X, Y, gamma, max_iter=20000, tol=1e-12)
    _, G = LogisticLoss(X, Y)(res.x, True)
    W, Gw = res.x[:-1], G[:-1]
    norms = np.linalg.norm(W, axis=1)
    active = norms > 1e-10
    assert 0 < active.sum() < X.shape[1]
    np.testing.assert_allclose(Gw[active], -gamma * W[active] / norms[active, None], atol=1e-6)
    assert np.all(np.linalg.norm(Gw[~active], axis=1) <= gamma + 1e-8)


@pytest.mark.parametrize("cls, params", [
    (MultiTaskFeatureLearning, {"gammas": [0.0, 0.05], "variant": "l21"}),
    (TraceNormMTL, {"lambdas": [0.0, 0.05, 0.5]}),
    (ClusteredMTL, {"rho1s": [0.0, 0.5], "rho2s": [0.0, 0.5], "n_clusters": 2}),
    (MultiTaskFeatureLearning, {"gammas": [0.0, 0.05], "outer_iter": 5}),
])
def test_estimators_choose_on_holdout_and_are_deterministic(cls, params):
    X, Y = toy()
    a = cls(random_state=1, max_iter=200, **params).fit(X[:90], Y[:90])
    b = cls(random_state=1, max_iter=200, **params).fit(X[:90], Y[:90])
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.predict(X[90:]).shape == (30, 4)
    assert (a.predict(X[90:]) == Y[90:]).mean() > 0.7
    assert len(a.validation_scores_) == len(a._grid_points())
    assert a.best_params_ == a._grid_points()[int(np.argmax(a.validation_scores_))]


def test_holdout_logistic_wraps_platform_methods():
    X, Y = toy()
    for name in ("br-lr-holdout", "cc-holdout"):
        m = registry.make(name, random_state=0, lambdas=[0.01, 1.0]).fit(X, Y)
        assert m.fit_info_["lambda"] in (0.01, 1.0)
        assert m.predict_proba(X[:5]).shape == (5, 4)
    assert lambda_to_C(0.0, 10) == np.inf and lambda_to_C(0.5, 10) == pytest.approx(0.1)
    assert lambda_to_C(0.5, 10, "sum") == pytest.approx(1.0) and lambda_to_C(0.0, 10, "sum") == np.inf


@pytest.mark.parametrize("scale, n_factor", [("sum", False), ("mean", True)])
def test_holdout_logistic_single_lambda_equals_br_with_that_C(scale, n_factor):
    X, Y = toy()
    m = HoldoutLogistic(method="br-lr", lambdas=0.1, scale=scale, random_state=0).fit(X, Y)
    C = 1 / (2 * 0.1 * (len(X) if n_factor else 1))
    ref = registry.make("br-lr", base_params={"C": C, "max_iter": 1000}).fit(X, Y)
    np.testing.assert_allclose(m.predict_proba(X), ref.predict_proba(X), atol=1e-6)


def test_holdout_logistic_defaults_to_the_summed_scale_of_imtsl():
    assert HoldoutLogistic().scale == "sum"


@pytest.mark.parametrize("est", [TraceNormMTL(lambdas=[-1.0]), ClusteredMTL(n_clusters=0),
                                 MultiTaskFeatureLearning(epsilon=0.0), MultiTaskFeatureLearning(variant="l1"),
                                 HoldoutLogistic(method="rakel"), HoldoutLogistic(scale="median"),
                                 TraceNormMTL(validation_fraction=0)])
def test_bad_parameters_raise_config_error(est):
    X, Y = toy(30)
    with pytest.raises(ConfigError):
        est.fit(X, Y)


def test_registered_in_the_imtsl_paper():
    for name in ("cmtl", "trace", "mtl-feat", "br-lr-holdout", "cc-holdout"):
        assert registry.get(name).paper == "imtsl"
