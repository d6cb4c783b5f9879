"""Tests of the mixture of CTBNs (``mc``): kernels vs NumPy, EM, annealing, end-to-end fit."""
import itertools

import numpy as np
import pytest

from mlbench.errors import MlbenchError
from mlbench.methods import registry
from mlbench.methods.probabilistic import _mixture
from mlbench.methods.probabilistic._tree import CTBN, fit_tree_params
from mlbench.methods.probabilistic.mc import MixtureCTBNClassifier, em, mixture_loglik

# toy data drawn from two regimes with different label dependences (a mixture helps here)
rng = np.random.RandomState(1)
N = 360
X = rng.randn(N, 4)
regime = rng.rand(N) < 0.5
Y = (X @ rng.randn(4, 5) + rng.randn(N, 5) > 0).astype(int)
Y[:, 3] = np.where(regime, Y[:, 0], 1 - Y[:, 1])
Y[:, 4] = np.where(regime, Y[:, 2], Y[:, 0])
ALL5 = np.array(list(itertools.product([0, 1], repeat=5)))


def random_mixture(K, n, L, seed):
    r = np.random.RandomState(seed)
    A = r.randn(K, n, L) * 2
    D = r.randn(K, n, L) * 3           # per row: each parent value has its own regression
    parent = np.full((K, L), -1, dtype=np.intp)
    for k in range(K):
        order = r.permutation(L)
        for pos in range(1, L):
            if r.rand() < 0.8:          # some labels stay roots: forests, not only trees
                parent[k, order[pos]] = order[r.randint(pos)]
    log_lam = np.log(r.dirichlet(np.ones(K)))
    return A, D, parent, log_lam


needs_kernel = pytest.mark.skipif(_mixture._kernel is None, reason="mlbench._ext._mc is not built")


@needs_kernel
def test_kernel_component_loglik_equals_numpy():
    A, D, parent, _ = random_mixture(3, 50, 6, 0)
    Y = np.random.RandomState(1).randint(2, size=(50, 6)).astype(np.int8)
    np.testing.assert_allclose(_mixture.component_loglik(A, D, parent, Y),
                               _mixture.component_loglik_numpy(A, D, parent, Y), atol=1e-10)


@needs_kernel
@pytest.mark.parametrize("seed", range(3))
def test_kernel_anneal_equals_numpy(seed):
    A, D, parent, log_lam = random_mixture(3, 40, 6, seed)
    r = np.random.RandomState(seed + 10)
    Y0 = r.randint(2, size=(40, 6)).astype(np.int8)
    flips = r.randint(6, size=(40, 150))
    u = r.random_sample((40, 150))
    temps = _mixture.temperatures(150)
    Yk, sk = _mixture.anneal(A, D, parent, log_lam, Y0, flips, u, temps)
    Yn, sn = _mixture.anneal_numpy(A, D, parent, log_lam, Y0, flips, u, temps)
    np.testing.assert_array_equal(Yk, Yn)
    np.testing.assert_allclose(sk, sn, atol=1e-10)
    # the returned score is the returned vector's score, and never below the start
    np.testing.assert_allclose(sk, _mixture.mixture_loglik_numpy(A, D, parent, log_lam, Yk), atol=1e-10)
    assert (sk >= _mixture.mixture_loglik_numpy(A, D, parent, log_lam, Y0) - 1e-12).all()


def test_annealing_finds_exact_map_of_small_mixtures_mostly():
    A, D, parent, log_lam = random_mixture(3, 60, 5, 4)
    J = np.stack([_mixture.mixture_loglik(A, D, parent, log_lam, np.tile(y, (60, 1)).astype(np.int8))
                  for y in ALL5], axis=1)
    r = np.random.RandomState(0)
    Y0 = np.zeros((60, 5), dtype=np.int8)
    _, s = _mixture.anneal(A, D, parent, log_lam, Y0, r.randint(5, size=(60, 150)),
                           r.random_sample((60, 150)), _mixture.temperatures(150, 5.0))
    assert (s <= J.max(axis=1) + 1e-10).all()
    assert np.mean(np.isclose(s, J.max(axis=1))) > 0.9


def test_em_does_not_lower_the_likelihood():
    Cs = np.full(5, 100.0)   # weak penalty: EM's monotonicity is for the likelihood itself
    trees = [fit_tree_params(X, Y, np.array([-1, 0, 1, 2, 3]), np.ones(N), Cs),
             fit_tree_params(X, Y, np.array([3, -1, 1, 1, 0]), np.ones(N), Cs)]
    lam = np.array([0.5, 0.5])
    before = mixture_loglik(trees, np.log(lam), X, Y)[0].mean()
    trees2, lam2, rounds = em(X, Y, trees, lam, Cs, max_iter=8, tol=0.0)
    after = mixture_loglik(trees2, np.log(lam2), X, Y)[0].mean()
    assert after > before
    assert lam2.sum() == pytest.approx(1.0) and rounds >= 2
    assert all(isinstance(t, CTBN) for t in trees2)


@pytest.fixture(scope="module")
def fitted():
    return MixtureCTBNClassifier(C=1.0, max_components=3, em_max_iter=5, random_state=0).fit(X, Y)


def test_mixture_is_normalised_and_marginals_exact(fitted):
    J = np.stack([fitted.joint_log_proba(X[:15], np.tile(y, (15, 1))) for y in ALL5], axis=1)
    np.testing.assert_allclose(np.exp(J).sum(axis=1), 1.0, atol=1e-10)
    np.testing.assert_allclose(fitted.predict_proba(X[:15]), np.exp(J) @ ALL5, atol=1e-10)
    assert fitted.lambda_.sum() == pytest.approx(1.0)
    assert 1 <= fitted.n_components_ <= 3
    assert fitted.fit_info_["n_components"] == fitted.n_components_


def test_prediction_at_least_as_good_as_best_candidate(fitted):
    cands, start, _ = fitted.map_candidates(X[:40])
    Y0 = cands[start, np.arange(40)]
    P = fitted.predict(X[:40])
    assert P.shape == (40, 5) and set(np.unique(P)) <= {0, 1}
    assert (fitted.joint_log_proba(X[:40], P) >= fitted.joint_log_proba(X[:40], Y0) - 1e-12).all()


def test_mixture_grows_on_two_regime_data():
    m = MixtureCTBNClassifier(C=10.0, max_components=4, em_max_iter=10, random_state=0).fit(X, Y)
    hist = m.fit_info_["validation_loglik"]
    # every kept tree improved the internal validation log-likelihood
    assert all(b >= a for a, b in zip(hist[: m.n_components_ - 1], hist[1: m.n_components_]))
    assert m.n_components_ >= 2


def test_same_seed_same_predictions():
    kw = dict(C=1.0, max_components=2, em_max_iter=3, random_state=7)
    a = MixtureCTBNClassifier(**kw).fit(X, Y)
    b = MixtureCTBNClassifier(**kw).fit(X, Y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_allclose(a.joint_log_proba(X, Y), b.joint_log_proba(X, Y))


@pytest.mark.parametrize("kw", [{"max_components": 0}, {"validation_fraction": 0.0},
                                {"anneal_t_end": 50.0}, {"C": 0}])
def test_bad_parameters_raise_mlbench_error(kw):
    with pytest.raises(MlbenchError):
        MixtureCTBNClassifier(**kw).fit(X, Y)


def test_registered():
    spec = registry.get("mc")
    assert spec.family == "probabilistic" and spec.paper == "mc"
