"""The comprehensive study's algorithm-adaptation methods: mlaram, mltsvm, bpnn (and clems).

References: scikit-multilearn 0.2.0's MLARAM and MLTSVM (tests/methods/skml_adapt_ref.py, patched
there for current NumPy/SciPy and, for MLTSVM, for two bugs), MEKA's BPNN update rule written out
in NumPy, and SciPy's bounded L-BFGS-B for MLTSVM's dual.
"""
import numpy as np
import pytest
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from mlbench.data import load_dataset
from mlbench.errors import ConfigError
from mlbench.methods import registry
from mlbench.methods.embedding.clems import (CLEMS, bipartite_smacof, hamming_cost, weighted_smacof,
                                            weighted_stress)
from mlbench.methods.neural.bpnn import BPNN
from mlbench.methods.neural.mlaram import MLARAM, largest_gap_cut
from mlbench.methods.svm import mltsvm as mltsvm_mod
from mlbench.methods.svm.mltsvm import MLTSVM
from mlbench.testing import check_method

from skml_adapt_ref import _solve_box_dual, patched_mlaram, reference_mltsvm

# scikit-multilearn 0.2.0 builds numpy.matrix objects and uses deprecated NumPy names
pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning",
                                        "ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def emotions_split():
    ds = load_dataset("emotions")
    idx = np.random.default_rng(0).permutation(ds.n_instances)
    return ds, idx[:400], idx[400:]


@pytest.mark.parametrize("name, small", [("mlaram", {}), ("mltsvm", {}), ("bpnn", {}),
                                         ("clems", {"n_estimators": 5, "n_init": 1})])
def test_contract(name, small):
    found = check_method(registry.make(name, random_state=0, **small))
    assert found["sparse"]


# -- mlaram --------------------------------------------------------------------------------------
@pytest.mark.parametrize("vigilance, threshold", [(0.9, 0.02), (0.8, 0.5), (0.95, 0.0001),
                                                  (0.85, 0.95)])
def test_mlaram_equals_scikit_multilearn(emotions_split, vigilance, threshold):
    """Same prototypes, bit-identical scores and identical largest-gap predictions on emotions."""
    ds, tr, te = emotions_split
    scaler = MinMaxScaler().fit(ds.X[tr])
    # inputs already in [0, 1]: neither implementation rescales (the reference would rescale the
    # test batch by its own extremes, mlbench by the training ones)
    Xtr = np.clip(scaler.transform(ds.X[tr]), 0, 1)
    Xte = np.clip(scaler.transform(ds.X[te]), 0, 1)
    ours = MLARAM(vigilance=vigilance, threshold=threshold).fit(Xtr, ds.Y[tr])
    pred, proba, n_prototypes = patched_mlaram(Xtr, ds.Y[tr], Xte, vigilance, threshold)
    assert ours.weights_.shape[0] == n_prototypes
    np.testing.assert_array_equal(ours.decision_function(Xte), proba)
    np.testing.assert_array_equal(ours.predict(Xte), pred)


def test_mlaram_scales_test_rows_with_the_training_range_and_leaves_Y_alone():
    rng = np.random.default_rng(1)
    X = rng.normal(scale=5.0, size=(50, 4))
    Y = (X[:, :3] > 0).astype(int)
    Y_before = Y.copy()
    est = MLARAM(vigilance=0.8).fit(X, Y)
    np.testing.assert_array_equal(Y, Y_before)
    # a row's scores do not depend on the rows predicted with it
    np.testing.assert_array_equal(est.decision_function(X[:5]), est.decision_function(X)[:5])
    assert est.label_counts_.sum() == Y.sum()       # every row's labels are counted once
    constant = MLARAM().fit(np.full((6, 2), 5.0), Y[:6])
    np.testing.assert_array_equal(constant._inputs(np.full((1, 2), 5.0)), [[0.0, 0.0, 1.0, 1.0]])


def test_largest_gap_cut():
    S = np.array([[0.9, 0.1, 0.8, 0.0], [0.2, 0.2, 0.2, 0.2], [0.0, 1.0, 0.4, 0.5]])
    np.testing.assert_array_equal(largest_gap_cut(S), [[1, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 0]])


def test_mlaram_bad_vigilance_is_a_config_error():
    with pytest.raises(ConfigError):
        MLARAM(vigilance=1.5).fit(np.eye(3), np.eye(3, dtype=int))


# -- mltsvm --------------------------------------------------------------------------------------
@pytest.mark.parametrize("c_k, lam", [(1.0, 1.0), (0.125, 4.0), (8.0, 0.25)])
def test_mltsvm_equals_fixed_scikit_multilearn(emotions_split, c_k, lam):
    """Converged SOR: the planes of the reference (its dual solved exactly) and the same labels."""
    ds, tr, te = emotions_split
    tr = tr[:300]
    scaler = StandardScaler().fit(ds.X[tr])
    Xtr, Xte = scaler.transform(ds.X[tr]), scaler.transform(ds.X[te])
    ours = MLTSVM(c_k=c_k, lambda_param=lam, sor_omega=1.0, threshold=1e-10,
                  max_iter=100000).fit(Xtr, ds.Y[tr])
    pred, coef, delta = reference_mltsvm(Xtr, ds.Y[tr], Xte, c_k, lam)
    np.testing.assert_allclose(ours.coef_, coef, atol=1e-6)
    assert ours.delta_ == pytest.approx(delta, rel=1e-7)
    np.testing.assert_array_equal(ours.predict(Xte), pred)


def test_sor_kernel_equals_python_and_solves_the_box_qp():
    rng = np.random.default_rng(3)
    G = rng.normal(size=(40, 6))
    A = G[:15].T @ G[:15] + 0.5 * np.eye(6)
    P = np.ascontiguousarray(np.linalg.solve(A, G.T).T)
    a1, a2 = np.zeros(40), np.zeros(40)
    n1 = mltsvm_mod.sor_box(G, P, a1, 0.7, 2.0, 1e-12, 5000, use_kernel=True)
    n2 = mltsvm_mod.sor_box(G, P, a2, 0.7, 2.0, 1e-12, 5000, use_kernel=False)
    assert mltsvm_mod._sor_kernel is not None and n1 == n2 < 5000
    np.testing.assert_allclose(a1, a2, rtol=1e-12, atol=1e-14)
    Q = G @ P.T
    exact = _solve_box_dual(Q, 2.0).ravel()
    objective = lambda a: 0.5 * a @ Q @ a - a.sum()      # noqa: E731
    assert objective(a1) == pytest.approx(objective(exact), rel=1e-9, abs=1e-9)
    np.testing.assert_allclose(a1, exact, atol=1e-5)


@pytest.mark.parametrize("n_pos", [3, 12])
def test_ridge_solve_rows_both_ways(n_pos):
    rng = np.random.default_rng(n_pos)
    H, G = rng.normal(size=(n_pos, 8)), rng.normal(size=(20, 8))
    exact = G @ np.linalg.inv(H.T @ H + 0.3 * np.eye(8))
    np.testing.assert_allclose(mltsvm_mod.ridge_solve_rows(H, G, 0.3), exact, rtol=1e-9, atol=1e-11)


def test_mltsvm_gives_predictions_only_and_checks_its_parameters():
    X = np.random.default_rng(0).normal(size=(30, 3))
    Y = (X > 0).astype(int)
    est = MLTSVM().fit(X, Y)
    assert not hasattr(est, "predict_proba") and not hasattr(est, "decision_function")
    assert est.distances(X).shape == Y.shape
    with pytest.raises(ConfigError):
        MLTSVM(sor_omega=2.5).fit(X, Y)


# -- bpnn ----------------------------------------------------------------------------------------
def _meka_bpnn(V, Y, hidden, epochs, lr, momentum, seed):
    """MEKA BPNN's arithmetic, written out row by row in NumPy (same initial draws as mlbench)."""
    rng = np.random.RandomState(seed)
    d, L = V.shape[1], Y.shape[1]
    W1 = rng.uniform(-0.05, 0.05, size=(d + 1, hidden))
    W2 = rng.uniform(-0.05, 0.05, size=(hidden + 1, L))
    dW1, dW2 = np.zeros_like(W1), np.zeros_like(W2)
    sig = lambda a: 1.0 / (1.0 + np.exp(-a))       # noqa: E731
    for _ in range(epochs):
        for x, y in zip(V, Y):
            z0 = np.append(x, 1.0)
            z1 = np.append(sig(z0 @ W1), 1.0)
            out = sig(z1 @ W2)
            d2 = out * (1 - out) * (y - out)
            d1 = (z1 * (1 - z1) * (d2 @ W2.T))[:-1]
            dW1 = lr * np.outer(z0, d1) + momentum * dW1
            dW2 = lr * np.outer(z1, d2) + momentum * dW2
            W1 += dW1
            W2 += dW2
    return W1, W2


def test_bpnn_follows_meka_update_rule():
    rng = np.random.default_rng(4)
    X = rng.random((30, 5))
    Y = (X[:, :3] > 0.5).astype(int)
    X[0], X[1] = 0.0, 1.0                           # min-max scaling leaves X unchanged
    est = BPNN(hidden=4, epochs=7, learning_rate=0.3, momentum=0.2, random_state=5).fit(X, Y)
    W1, W2 = _meka_bpnn(X, Y.astype(float), 4, 7, 0.3, 0.2, 5)
    np.testing.assert_allclose(est.weights_[0], W1, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(est.weights_[1], W2, rtol=1e-10, atol=1e-12)


def test_bpnn_learns():
    from mlbench.metrics import get_measure

    rng = np.random.default_rng(0)
    X = rng.random((80, 5))
    Y = np.column_stack([X[:, 0] > 0.5, X[:, 1] + X[:, 2] > 1.0]).astype(int)
    est = registry.make("bpnn", random_state=0, hidden=6, learning_rate=0.5).fit(X, Y)
    assert get_measure("macro_auc")(Y, est.predict_proba(X)) > 0.9
    with pytest.raises(ConfigError):
        BPNN(hidden=0).fit(X, Y)


# -- clems ---------------------------------------------------------------------------------------
def test_weighted_smacof_with_uniform_weights_is_scikit_learns_smacof():
    from sklearn.manifold import smacof

    rng = np.random.default_rng(1)
    P = rng.random((12, 3))
    D = np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1))
    init = rng.random((12, 3))
    ours, _, n_iter = weighted_smacof(D, 1.0 - np.eye(12), init, max_iter=5, eps=-1.0)
    ref = smacof(D, init=init.copy(), n_init=1, max_iter=5, eps=0.0, metric=True,
                 normalized_stress=False)[0]
    assert n_iter == 5
    np.testing.assert_allclose(ours, ref, atol=1e-12)


def test_bipartite_smacof_takes_weighted_smacofs_steps():
    rng = np.random.RandomState(4)
    U = np.unique((rng.rand(60, 7) < 0.4).astype(int), axis=0)
    K, L = U.shape
    counts = rng.randint(1, 6, K)
    cost = np.sqrt(hamming_cost(U, U))
    delta, W = np.zeros((2 * K, 2 * K)), np.zeros((2 * K, 2 * K))
    delta[:K, K:], delta[K:, :K] = cost, cost.T
    W[:K, K:], W[K:, :K] = counts[:, None], counts[None, :]
    init = rng.random_sample((2 * K, L))
    for max_iter, eps in ((1, -1.0), (40, -1.0), (300, 1e-3)):
        want = weighted_smacof(delta, W, init, max_iter, eps)
        got = bipartite_smacof(cost, counts, init, max_iter, eps)
        assert got[2] == want[2]
        np.testing.assert_allclose(got[0], want[0], rtol=0, atol=1e-9)
        assert got[1] == pytest.approx(want[1], rel=1e-9)


def _study_smacof(cost, counts, init, max_iter, eps):
    """The weighted SMACOF loop of the study's scikit-multilearn (``embedding/_mdsw.py``,
    ``_smacof_single_w``), written out densely: weights n_i between truth point i and prediction
    point j, V's pseudo-inverse as (V + J/n)^-1 - J/n; each step takes the stress of the current
    points, transforms them, and stops when that stress over the new points' summed norms fell by
    less than ``eps`` from the previous step's; returns (points, that stress, steps)."""
    K = len(counts)
    n = 2 * K
    W = np.zeros((n, n))
    W[:K, K:], W[K:, :K] = counts[:, None], counts[None, :]
    delta = np.zeros((n, n))
    delta[:K, K:], delta[K:, :K] = cost, cost.T
    V = -W
    V[np.diag_indices(n)] = W.sum(axis=1)
    J = np.full((n, n), 1.0 / n)
    Vp = np.linalg.inv(V + J) - J
    X, old = init.copy(), None
    for it in range(max_iter):
        dis = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
        stress = (W * (dis - delta) ** 2).sum() / 2
        ratio = np.where(dis == 0, 0.0, delta / np.where(dis == 0, 1.0, dis))
        B = -W * ratio
        B[np.diag_indices(n)] += (W * ratio).sum(axis=1)
        X = Vp @ (B @ X)
        norms = np.sqrt((X ** 2).sum(axis=1)).sum()
        if old is not None and old - stress / norms < eps:
            break
        old = stress / norms
    return X, stress, it + 1


@pytest.mark.parametrize("eps", [1e-1, 1e-3])
def test_the_normalized_stop_is_the_studys_weighted_mds(eps):
    """bipartite_smacof and weighted_smacof with ``stop="normalized"`` take the steps and stop
    where the study's loop does (distances are never 0 here, where that loop divides by 1e-5)."""
    rng = np.random.RandomState(7)
    U = np.unique((rng.rand(40, 6) < 0.4).astype(int), axis=0)
    K, L = U.shape
    counts = rng.randint(1, 5, K)
    cost = np.sqrt(hamming_cost(U, U))
    init = rng.random_sample((2 * K, L))
    want = _study_smacof(cost, counts, init, 300, eps)
    assert 2 < want[2] < 300
    got = bipartite_smacof(cost, counts, init, 300, eps, stop="normalized")
    assert got[2] == want[2]
    np.testing.assert_allclose(got[0], want[0], rtol=0, atol=1e-9)
    assert got[1] == pytest.approx(want[1], rel=1e-9)
    delta, W = np.zeros((2 * K, 2 * K)), np.zeros((2 * K, 2 * K))
    delta[:K, K:], delta[K:, :K] = cost, cost.T
    W[:K, K:], W[K:, :K] = counts[:, None], counts[None, :]
    dense = weighted_smacof(delta, W, init, 300, eps, stop="normalized")
    assert dense[2] == want[2] and dense[1] == pytest.approx(want[1], rel=1e-9)


def test_clems_takes_the_stopping_test_by_name():
    """CLEMS passes ``stop`` to SMACOF: its steps are bipartite_smacof's from the same start (the
    first draw of its random state), 300 (the limit) with the relative test and 10 with the
    normalized one on these labels."""
    Y = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1], [1, 0, 0], [0, 0, 1]])
    X = np.arange(10.0).reshape(5, 2)
    U, counts = np.unique(Y, axis=0, return_counts=True)
    init = np.random.RandomState(0).random_sample((2 * len(U), Y.shape[1]))
    steps = {}
    for stop in ("relative", "normalized"):
        est = CLEMS(n_init=1, n_estimators=2, k=2, stop=stop, random_state=0).fit(X, Y)
        want = bipartite_smacof(np.sqrt(hamming_cost(U, U)), counts, init, 300, 1e-3, stop=stop)
        assert est.n_iter_ == want[2]
        assert est.stress_ == pytest.approx(want[1], rel=1e-12)
        steps[stop] = est.n_iter_
    assert steps == {"relative": 300, "normalized": 10}
    with pytest.raises(ConfigError, match="stop must be one of relative, normalized"):
        CLEMS(n_estimators=2, k=2, stop="sklearn").fit(X, Y)


def test_clems_refit_last_is_a_fit_with_that_k(emotions_split):
    """refit_last(k=...) gives the model fit(k=...) gives (same seed): the embedding and the
    forests do not depend on k; only ML-kNN is fitted again, on the same augmented rows.  The
    copy shares the first model's forests and leaves the first model as it was."""
    ds, tr, te = emotions_split
    tr = tr[:150]
    small = {"n_estimators": 3, "n_init": 1, "max_iter": 30, "random_state": 4}
    first = CLEMS(k=6, **small).fit(ds.X[tr], ds.Y[tr])
    before = first.predict_proba(ds.X[te])
    for k in (6, 10, 20):
        again = first.refit_last(k=k)
        fresh = CLEMS(k=k, **small).fit(ds.X[tr], ds.Y[tr])
        assert again.k == k and again.regressors_ is first.regressors_
        assert np.array_equal(again.predict_proba(ds.X[te]), fresh.predict_proba(ds.X[te]))
        assert np.array_equal(again.predict(ds.X[te]), fresh.predict(ds.X[te]))
    assert first.k == 6 and np.array_equal(first.predict_proba(ds.X[te]), before)
    with pytest.raises(ConfigError, match="'n_init' is not a parameter of the last stage"):
        first.refit_last(n_init=2)
    with pytest.raises(ConfigError, match="k must be >= 1"):
        first.refit_last(k=0)


def test_clems_search_over_k_fits_each_fold_once(emotions_split, monkeypatch):
    """RandomSearch over the study's k grid fits CLEMS's embedding once per fold (3) and once
    for the refit, not once per candidate and fold (24 + 1), with the same scores and choice as
    fitting every candidate."""
    from mlbench.methods.tuning import RandomSearch

    ds, tr, _ = emotions_split
    grid = {"k": [6, 8, 10, 12, 14, 16, 18, 20]}
    small = {"n_estimators": 3, "n_init": 1, "max_iter": 30}
    calls = []
    embed = CLEMS.embed_labels
    monkeypatch.setattr(CLEMS, "embed_labels",
                        lambda self, Y, rng: calls.append(len(Y)) or embed(self, Y, rng))

    def search(cls):
        calls.clear()
        info = RandomSearch(cls(**small, random_state=1), grid=grid, cv=3, threshold="none",
                            budget=1e6, random_state=2).fit(ds.X[tr], ds.Y[tr]).fit_info_["search"]
        return info, len(calls)

    class EveryFit(CLEMS):
        _last_stage_params = ()

    grouped, fits = search(CLEMS)
    plain, plain_fits = search(EveryFit)
    assert (fits, plain_fits) == (3 + 1, 24 + 1)
    assert grouped["scores"] == plain["scores"] and grouped["chosen"] == plain["chosen"]
    assert grouped["scored"] == 8 and not grouped["exhausted"]


def test_weighted_smacof_never_raises_the_weighted_stress():
    rng = np.random.default_rng(2)
    n = 10
    D = rng.random((n, n))
    D = (D + D.T) / 2
    np.fill_diagonal(D, 0.0)
    W = rng.integers(0, 4, size=(n, n)).astype(float)
    W = W + W.T + 0.1
    np.fill_diagonal(W, 0.0)
    Z = rng.random((n, 2))
    last = weighted_stress(Z, D, W)
    for _ in range(15):
        Z, stress, _ = weighted_smacof(D, W, Z, max_iter=1, eps=-1.0)
        assert stress <= last + 1e-12
        last = stress


def test_clems_embedding_follows_the_hamming_cost():
    """Truth point t_i and prediction point p_j lie sqrt(Hamming loss) apart (near-zero stress)."""
    Y = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1], [1, 0, 0], [0, 0, 1]])
    est = CLEMS(n_init=1, max_iter=2000, eps=1e-10)
    truth, pred, rows, stress = est.embed_labels(Y, np.random.RandomState(0))
    U = np.unique(Y, axis=0)
    np.testing.assert_array_equal(U[rows], Y)
    D = np.sqrt(((truth[:, None] - pred[None]) ** 2).sum(-1))
    np.testing.assert_allclose(D, np.sqrt(hamming_cost(U, U)), atol=1e-3)
    assert stress < 1e-5


def test_clems_is_reproducible_and_beats_chance(emotions_split):
    from mlbench.metrics import get_measure

    ds, tr, te = emotions_split
    a = registry.make("clems", random_state=0, n_estimators=5, n_init=1).fit(ds.X[tr], ds.Y[tr])
    b = registry.make("clems", random_state=0, n_estimators=5, n_init=1).fit(ds.X[tr], ds.Y[tr])
    np.testing.assert_array_equal(a.predict_proba(ds.X[te]), b.predict_proba(ds.X[te]))
    assert get_measure("macro_auc")(ds.Y[te], a.predict_proba(ds.X[te])) > 0.7
