"""MLFE: each step checked against its own optimality conditions or an independent solver."""
import numpy as np
import pytest
from scipy.optimize import lsq_linear, minimize
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf

from mlbench.errors import ConfigError
from mlbench.methods import registry
from mlbench.methods.embedding import mlfe
from mlbench.methods.embedding.mlfe import (MLFE, enrich, msvr, msvr_objective, rbf_kernel,
                                            sparse_reconstruction)
from mlbench.metrics import get_measure

RNG = np.random.default_rng(0)
X = RNG.standard_normal((50, 4))
Y = np.column_stack([X[:, 0] > 0, X[:, 1] + X[:, 2] > 0, X[:, 3] > 0.5]).astype(int)


def assert_lasso_kkt(X, W, ratio=mlfe.LAMBDA_RATIO, atol=1e-6):
    """Row i of W solves 1/2 ||x_i - X_{-i}^T w||^2 + lam_i ||w||_1 (subgradient conditions)."""
    for i in range(len(X)):
        others = np.delete(np.arange(len(X)), i)
        corr = X[others] @ X[i]
        lam = ratio * np.abs(corr).max()
        w = W[i, others]
        grad = X[others] @ (X[i] - X[others].T @ w)  # = lam * sign(w) on the support
        assert W[i, i] == 0
        assert np.all(np.abs(grad) <= lam + atol * max(lam, 1))
        on = w != 0
        np.testing.assert_allclose(grad[on], lam * np.sign(w[on]), atol=atol * max(lam, 1))


def test_reconstruction_is_the_lasso_over_all_other_rows():
    Z = RNG.standard_normal((30, 6))
    assert_lasso_kkt(Z, sparse_reconstruction(Z))


def test_reconstruction_survives_duplicated_rows_and_zero_rows():
    # duplicated binary rows make LARS's active sets degenerate (scikit-learn #9603); a zero row
    # has lam_max = 0 and gets w = 0
    base = (RNG.random((12, 8)) < 0.3).astype(float)
    Z = np.vstack([base, base[:6], np.zeros((1, 8))])
    W = sparse_reconstruction(Z)
    assert np.all(W[-1] == 0)
    assert_lasso_kkt(Z[:-1], W[:-1, :-1], atol=1e-5)


def test_coordinate_descent_gives_the_same_lasso():
    Z = RNG.standard_normal((20, 5))
    lars = sparse_reconstruction(Z)
    cd = sparse_reconstruction(Z, solver="cd")
    np.testing.assert_allclose(cd, lars, atol=1e-6)
    with pytest.raises(ConfigError, match="lasso_solver"):
        sparse_reconstruction(Z, solver="admm")


def _lars_kernel(X, batch, max_steps=100000, ratio=mlfe.LAMBDA_RATIO, dense=False):
    import scipy.sparse as sp

    from mlbench._ext._lars import lasso_rows

    Xs = sp.csr_matrix(X)
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd[sd == 0] = 1.0
    Z = (X - mu) / sd
    G = Z @ Z.T
    A = np.abs(G)
    np.fill_diagonal(A, 0)
    lams = ratio * A.max(axis=1)
    W = np.zeros_like(G)
    status = lasso_rows(Xs.indptr.astype(np.intp), Xs.indices.astype(np.intp), Xs.data, mu,
                        1 / sd, G, lams, W, max_steps, batch, Zd=Z if dense else None)
    return Z, lams, W, status


def test_lars_step_argmax_is_the_first_largest():
    """The kernel's step update and argmax (four interleaved running maxima) return what one
    running maximum over j returns: the first free j of largest |cov_j - gam a_j|, -1 if all are 0.
    Small integers make ties common; lengths cover every remainder modulo 4."""
    from mlbench._ext._lars import _step_argmax

    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(2000):
        m = int(rng.integers(1, 24))
        cov = rng.integers(-3, 4, m).astype(float)
        a = rng.integers(-2, 3, m).astype(float)
        state = (rng.random(m) < 0.3).astype(np.int8)
        gam = float(rng.choice([0.0, 0.5, 1.0]))
        want = cov.copy()
        want[state == 0] -= gam * a[state == 0]
        best, k = 0.0, -1
        for j in np.flatnonzero(state == 0):
            if abs(want[j]) > best:
                best, k = abs(want[j]), j
        got = cov.copy()
        assert _step_argmax(got, a, state, gam) == k
        np.testing.assert_array_equal(got, want)
        seen.add((k % 4 if k >= 0 else -1, m % 4))
    assert len(seen) == 20           # a winner in every lane (or none), every length mod 4


@pytest.mark.parametrize("shape, density", [((60, 20), 1.0), ((40, 80), 1.0), ((150, 30), 0.3),
                                            ((120, 40), 0.1)])
def test_lars_kernel_is_scikit_learns_lasso_path_to_rounding(shape, density):
    """Every row the kernel solves equals scikit-learn's LassoLars run to lam (no step cap) to
    1e-9 relative, whatever the batch; rows it hands back are degenerate ones."""
    from sklearn.linear_model import LassoLars

    rng = np.random.default_rng(7)
    X = rng.standard_normal(shape) * (rng.random(shape) < density)
    Z, lams, W, status = _lars_kernel(X, batch=3)
    for batch in (1, 8, 64):
        _, _, W2, status2 = _lars_kernel(X, batch=batch)
        np.testing.assert_array_equal(status2, status)
        np.testing.assert_array_equal(W2, W)
    _, _, W3, status3 = _lars_kernel(X, batch=8, dense=True)     # BLAS instead of CSR passes
    np.testing.assert_array_equal(status3, status)
    np.testing.assert_allclose(W3, W, rtol=0, atol=1e-9 * np.abs(W).max())
    assert (status == 0).mean() > 0.9
    d = Z.shape[1]
    for i in np.flatnonzero(status == 0)[:25]:
        others = np.delete(np.arange(len(Z)), i)
        ref = LassoLars(alpha=lams[i] / d, fit_intercept=False, max_iter=100000).fit(
            Z[others].T, Z[i]).coef_
        np.testing.assert_allclose(W[i, others], ref, rtol=0, atol=1e-9 * np.abs(ref).max())
        assert W[i, i] == 0


def test_lars_kernel_follows_the_path_past_scikit_learns_default_500_steps():
    """A row whose path is longer than LassoLars's default max_iter: scikit-learn stops short of
    lam without a warning; the kernel reaches it (the lasso's optimality conditions hold)."""
    from sklearn.linear_model import LassoLars

    rng = np.random.default_rng(3)
    X = (rng.random((900, 480)) < 0.05).astype(float)
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd[sd == 0] = 1.0
    Z = (X - mu) / sd
    i, others = 0, np.arange(1, 900)
    lam = mlfe.LAMBDA_RATIO * np.abs(Z[others] @ Z[i]).max()
    capped = LassoLars(alpha=lam / 480, fit_intercept=False).fit(Z[others].T, Z[i])
    assert capped.n_iter_ == 500 and capped.alphas_[-1] * 480 > 1.01 * lam
    import scipy.sparse as sp

    from mlbench._ext._lars import lasso_rows

    Xs = sp.csr_matrix(X)
    lams = np.zeros(900)
    lams[i] = lam
    W = np.zeros((900, 900))
    status = lasso_rows(Xs.indptr.astype(np.intp), Xs.indices.astype(np.intp), Xs.data, mu,
                        1 / sd, Z @ Z.T, lams, W, 100000)
    assert status[0] == 0 and np.all(status[1:] == 2)
    assert not mlfe.lasso_kkt_violations(Z, W, lams)[0]
    assert mlfe.lasso_kkt_violations(Z, np.vstack([np.r_[0.0, capped.coef_], W[1:]]), lams)[0]


def test_lars_kernel_checks_its_indices():
    from mlbench._ext._lars import lasso_rows

    G, lams, W = np.eye(2), np.ones(2), np.zeros((2, 2))
    ok = dict(indptr=np.array([0, 1, 2], dtype=np.intp), indices=np.array([0, 1], dtype=np.intp),
              data=np.ones(2), mu=np.zeros(2), inv_scale=np.ones(2), G=G, lams=lams, W=W,
              max_steps=10)
    lasso_rows(**ok)
    for change, match in [(dict(indices=np.array([0, 2], dtype=np.intp)), "feature index"),
                          (dict(indices=np.array([0, -1], dtype=np.intp)), "feature index"),
                          (dict(indptr=np.array([0, 2, 1], dtype=np.intp)), "decreases|malformed"),
                          (dict(indptr=np.array([0, 1, 3], dtype=np.intp)), "malformed"),
                          (dict(G=np.eye(3)), "shapes"), (dict(batch=0), "batch")]:
        with pytest.raises(ValueError, match=match):
            lasso_rows(**{**ok, **change})


def test_sparse_and_dense_inputs_give_the_same_reconstruction():
    import scipy.sparse as sp

    X = RNG.standard_normal((40, 12)) * (RNG.random((40, 12)) < 0.4)   # no duplicated rows
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd[sd == 0] = 1.0
    dense = sparse_reconstruction((X - mu) / sd)
    np.testing.assert_allclose(sparse_reconstruction(sp.csr_matrix(X), mean=mu, scale=sd), dense,
                               atol=1e-10)


def test_enrichment_is_the_bounded_qp_of_each_label():
    Z = RNG.standard_normal((25, 4))
    W = sparse_reconstruction(Z)
    Ypm = 2.0 * Y[:25] - 1
    U = enrich(W, Ypm, c1=1.0, c2=2.0)
    prod = Ypm * U
    assert np.all(prod >= 1.0 - 1e-9) and np.all(prod <= 2.0 + 1e-9)
    A = np.eye(25) - W
    for k in range(Ypm.shape[1]):  # bounded least squares, solved independently by BVLS
        lo = np.where(Ypm[:, k] > 0, 1.0, -2.0)
        hi = np.where(Ypm[:, k] > 0, 2.0, -1.0)
        ref = lsq_linear(A, np.zeros(25), bounds=(lo, hi), method="bvls", tol=1e-12).x
        assert np.sum((A @ U[:, k]) ** 2) <= np.sum((A @ ref) ** 2) + 1e-8


def test_kernel_width_is_the_mean_pairwise_distance():
    part = mlfe._Part(X, 2.0 * Y - 1, 1.0, 2.0)
    d = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    assert part.sigma == pytest.approx(d[np.triu_indices(len(X), 1)].mean())
    np.testing.assert_allclose(rbf_kernel(X, X[:5], 1.7), sk_rbf(X, X[:5], gamma=1 / (2 * 1.7 ** 2)))


def test_rank_weights_reward_relevant_over_irrelevant():
    S = np.array([[1, -1, -1, 1], [1, 1, 1, 1], [-1, 1, -1, -1]], float)
    Z = mlfe._rank_weights(S)
    np.testing.assert_allclose(Z[0], [0.5, -0.5, -0.5, 0.5])
    np.testing.assert_allclose(Z[1], 0.0)
    np.testing.assert_allclose(Z[2], [-1 / 3, 1, -1 / 3, -1 / 3])


def _generic_minimum(K, U, betas, eps):
    """(*) minimised by L-BFGS over (B, b) from scratch: an independent reference value."""
    m, q = U.shape

    def f(v):
        return msvr_objective(K, U, v[:m * q].reshape(m, q), v[m * q:], *betas, eps)[0]

    v0 = np.concatenate([np.zeros(m * q), U.mean(axis=0)])
    res = minimize(f, v0, method="L-BFGS-B", options={"maxiter": 20000, "maxfun": 10 ** 6,
                                                      "ftol": 1e-15, "gtol": 1e-10})
    return res.fun


@pytest.mark.parametrize("betas", [(3.0, 0.0, 0.0), (3.0, 0.0, 2.0), (5.0, 1.0, 1.0)])
def test_msvr_reaches_the_minimum_of_its_objective(betas):
    Z = X[:20]
    K = rbf_kernel(Z, Z, 1.5)
    U = enrich(sparse_reconstruction(Z), 2.0 * Y[:20] - 1)
    B, b, n_iter = msvr(K, U, *betas, tol=1e-12, max_iter=2000)
    value = msvr_objective(K, U, B, b, *betas, 1e-3)[0]
    assert np.isclose(B.sum(axis=0), 0.0, atol=1e-8).all()  # stationarity in b (1^T B = 0)
    assert value <= _generic_minimum(K, U, betas, 1e-3) + 1e-6 * abs(value)


def test_warm_start_reaches_the_same_model():
    K = rbf_kernel(X, X, 2.0)
    U = enrich(sparse_reconstruction(X), 2.0 * Y - 1)
    cold = msvr(K, U, 4.0, 10.0, 1.0, tol=1e-12, max_iter=2000)
    warm = msvr(K, U, 4.0, 10.0, 1.0, tol=1e-12, max_iter=2000,
                start=msvr(K, U, 3.0, 10.0, 1.0)[:2])
    np.testing.assert_allclose(K @ warm[0] + warm[1], K @ cold[0] + cold[1], atol=1e-4)


def test_cholesky_and_eigenbasis_take_the_same_steps(monkeypatch):
    # two triangular solves with the Cholesky factor of K + I/beta1 per step (K B from
    # K H = I - H/beta1) or two products through the eigendecomposition: the same
    # majorise-minimise path, to rounding, over a warm-started grid
    part = mlfe._Part(X, 2.0 * Y - 1, 1.0, 2.0)
    c = part.cholesky(3.0, distinct=2)
    lower = np.tril(c)
    np.testing.assert_allclose(lower @ lower.T, part.K + np.eye(len(X)) / 3.0, atol=1e-12)
    assert part.cholesky(3.0) is c  # kept for the next triple with this beta1
    start_c = start_e = None
    for betas in [(1.0, 1.0, 1.0), (3.0, 1.0, 1.0), (1.0, 10.0, 10.0), (3.0, 10.0, 10.0)]:
        chol = msvr(part.K, part.U, *betas, start=start_c, eig=part.eig,
                    cholesky=part.cholesky(betas[0], distinct=2))
        eigen = msvr(part.K, part.U, *betas, start=start_e, eig=part.eig)
        assert chol[2] == eigen[2]
        np.testing.assert_allclose(chol[0], eigen[0], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(chol[1], eigen[1], rtol=1e-9, atol=1e-9)
        start_c, start_e = chol[:2], eigen[:2]
    # past the memory budget the part hands back None and msvr uses the eigendecomposition
    monkeypatch.setattr(mlfe, "FACTOR_CACHE_BYTES", 8 * len(X) ** 2 * 2)
    fresh = mlfe._Part(X, 2.0 * Y - 1, 1.0, 2.0)
    assert fresh.cholesky(5.0, distinct=3) is None
    assert fresh.cholesky(5.0, distinct=2) is not None
    # K + I/beta1 not positive definite to rounding (a huge beta1 on a K with a negative rounding
    # eigenvalue): no factor, and msvr solves through the eigendecomposition with K's negative
    # rounding clipped, as with a clean K
    fresh.K = np.diag([1.0, 0.0, -1e-12])
    assert fresh.cholesky(1e15) is None
    U = np.array([[1.0, -1.0], [-1.5, 1.0], [1.0, 1.2]])
    clipped = msvr(np.diag([1.0, 0.0, 0.0]), U, 1e15, 1.0, 1.0)
    fresh.U = U
    np.testing.assert_allclose(fresh.msvr((1e15, 1.0, 1.0))[0], clipped[0], rtol=1e-12)


def test_mlfe_learns_tunes_and_is_reproducible():
    est = registry.make("mlfe", random_state=0, beta1=[1, 5], beta2=[1, 10], beta3=[1])
    S = est.fit(X, Y).decision_function(X)
    assert S.shape == Y.shape
    assert get_measure("macro_auc")(Y, S) > 0.85
    assert est.betas_[0] in (1, 5) and est.betas_[1] in (1, 10) and est.betas_[2] == 1
    np.testing.assert_array_equal(est.predict(X), (S >= 0).astype(int))  # the authors' f >= 0
    again = registry.make("mlfe", random_state=0, beta1=[1, 5], beta2=[1, 10], beta3=[1])
    np.testing.assert_array_equal(S, again.fit(X, Y).decision_function(X))


def test_bad_parameters_are_config_errors():
    for bad in ({"rho": 0}, {"validation_fraction": 1.5}, {"tune_measure": "nope"},
                {"c1": 2, "c2": 1}, {"beta1": [0, 1]}, {"beta2": [-1]}):
        with pytest.raises(ConfigError):
            MLFE(**bad).fit(X, Y)
