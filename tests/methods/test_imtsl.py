"""I-MTSL: structure learning, stability selection, signed Laplacian, Eq. 5 and the estimator."""
import itertools

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize

from mlbench.errors import ConfigError
from mlbench.methods import registry
from mlbench.methods.mtl.imtsl import IMTSL, fit_laplacian_l1, smooth_part
from mlbench.methods.mtl.ising import (combine_directions, neighbourhood_coefficients, signed_laplacian,
                                      stability_path, stable_edges)
from mlbench.methods.mtl.fista import fista
from mlbench.methods.mtl.logistic import LogisticLoss
from mlbench.methods.mtl.prox import soft_threshold

#: planted Ising couplings on 5 labels: 0-1 positive, 2-3 negative, 3-4 positive
PLANTED = {(0, 1): 1.5, (2, 3): -1.5, (3, 4): 1.2}


def sample_ising(n, seed, Q=5, couplings=PLANTED):
    """Exact samples of the zero-field Ising model (Eq. 1) by enumerating its 2^Q states."""
    states = np.array(list(itertools.product([-1, 1], repeat=Q)), dtype=float)
    energy = sum(w * states[:, r] * states[:, s] for (r, s), w in couplings.items())
    p = np.exp(energy - energy.max())
    rows = np.random.default_rng(seed).choice(len(states), size=n, p=p / p.sum())
    return ((states[rows] + 1) // 2).astype(int)


def planted_matrix(Q=5):
    E = np.zeros((Q, Q))
    for (r, s), w in PLANTED.items():
        E[r, s] = E[s, r] = np.sign(w)
    return E


def test_stability_selection_recovers_planted_signed_graph():
    Y = sample_ising(800, seed=0)
    path = stability_path(Y, [8.0], 20, np.random.RandomState(0), rule="and")
    np.testing.assert_array_equal(path.edges(0, 0.8), planted_matrix())


def test_or_rule_keeps_at_least_the_and_edges():
    Y = sample_ising(400, seed=1)
    theta, _, _ = neighbourhood_coefficients(Y, [1.0, 4.0])
    E_and, E_or = combine_directions(theta, "and"), combine_directions(theta, "or")
    assert np.all(np.abs(E_or) >= np.abs(E_and))
    assert np.all((E_and == 0) | (E_and == E_or))


def test_combine_directions_rules_on_a_hand_example():
    theta = np.zeros((3, 3))
    theta[0, 1], theta[1, 0] = 0.5, 0.2     # both positive: edge + under both rules
    theta[0, 2], theta[2, 0] = -0.3, 0.0    # one direction only: OR keeps it (negative)
    theta[1, 2], theta[2, 1] = 0.4, -0.1    # disagreeing signs: AND drops, OR takes the sum's sign
    E_and, E_or = combine_directions(theta, "and"), combine_directions(theta, "or")
    np.testing.assert_array_equal(E_and, [[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(E_or, [[0, 1, -1], [1, 0, 1], [-1, 1, 0]])


def test_structure_regressions_solve_eq2():
    """Each column of Theta minimises the summed log-loss + lambda ||theta||_1 of its label."""
    Y = sample_ising(300, seed=2)
    lam = 2.0
    theta, _, conv = neighbourhood_coefficients(Y, [lam], max_iter=5000, tol=1e-10)
    assert conv
    spins = 2.0 * Y - 1.0
    for r in range(Y.shape[1]):
        others = np.delete(np.arange(Y.shape[1]), r)
        loss = LogisticLoss(spins[:, others], Y[:, [r]], reduction="sum")
        assert theta[0, 0, r, r] == 0

        def F(z):
            return loss(z.reshape(-1, 1), False) + lam * np.abs(z[:-1]).sum()

        z = np.append(theta[0, 0, others, r], 0.0)
        z[-1] = scipy.optimize.minimize_scalar(lambda b: F(np.append(z[:-1], b))).x
        ref = scipy.optimize.minimize(F, np.zeros(len(others) + 1), method="Powell",
                                      options={"xtol": 1e-10, "ftol": 1e-14, "maxiter": 100000})
        assert F(z) <= ref.fun + 1e-6


def test_stable_edges_threshold_and_sign():
    fp = np.array([[0, 0.9, 0.5], [0.9, 0, 0.1], [0.5, 0.1, 0]])
    fn = np.array([[0, 0.1, 0.5], [0.1, 0, 0.85], [0.5, 0.85, 0]])
    np.testing.assert_array_equal(stable_edges(fp, fn, 0.8), [[0, 1, 0], [1, 0, -1], [0, -1, 0]])


def test_signed_laplacian_definition_and_psd():
    E = planted_matrix()
    L = signed_laplacian(E)
    np.testing.assert_array_equal(np.diag(L), np.abs(E).sum(axis=1))
    np.testing.assert_array_equal(L - np.diag(np.diag(L)), -E)
    assert np.linalg.eigvalsh(L).min() > -1e-12
    # tr(W L W^T) = sum over edges of ||w_r - sign(e_rs) w_s||^2
    W = np.random.default_rng(0).standard_normal((4, 5))
    direct = sum(np.sum((W[:, r] - np.sign(w) * W[:, s]) ** 2) for (r, s), w in PLANTED.items())
    assert np.trace(W @ L @ W.T) == pytest.approx(direct)


@pytest.mark.parametrize("objective, reduction, weight", [("eq8", "sum", 0.5), ("eq5", "mean", 1.0)])
def test_eq5_solver_reaches_scipy_optimum(objective, reduction, weight):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    Y = (X @ rng.standard_normal((4, 3)) + rng.standard_normal((60, 3)) > 0).astype(float)
    E = np.array([[0, 1, 0], [1, 0, -1], [0, -1, 0]], dtype=float)
    lap, gamma = signed_laplacian(E), 0.0
    res = fit_laplacian_l1(X, Y, lap, gamma, objective=objective, max_iter=20000, tol=1e-12)
    loss = LogisticLoss(X, Y, reduction=reduction)

    def F(z):
        Wb = z.reshape(5, 3)
        f, G = loss(Wb, True)
        W = Wb[:-1]
        G[:-1] += 2 * weight * W @ lap
        return f + weight * np.trace(W @ lap @ W.T), G.ravel()

    ref = scipy.optimize.minimize(F, np.zeros(15), jac=True, method="L-BFGS-B",
                                  options={"ftol": 1e-15, "gtol": 1e-12})
    assert res.objective == pytest.approx(ref.fun, rel=1e-9, abs=1e-8)


def test_eq8_gradient_is_the_papers_eq8():
    """Eq. 8 (sign of the loss part flipped to the loss gradient): X^T (sigmoid(XW) - Y) + W Lbar,
    written with the block-diagonal X-bar, the permutation P and the Kronecker product."""
    rng = np.random.default_rng(1)
    n, d, Q = 7, 3, 4
    X = rng.standard_normal((n, d))
    Y = (rng.random((n, Q)) > 0.5).astype(float)
    W = rng.standard_normal((d, Q))
    E = np.array([[0, 1, 0, -1], [1, 0, 0, 0], [0, 0, 0, 1], [-1, 0, 1, 0]], dtype=float)
    lap = signed_laplacian(E)
    Xbar = scipy.linalg.block_diag(*[X] * Q)
    vecW = W.ravel(order="F")                    # column-stacked
    # P maps the column-stacked vec(W) to the row-stacked one: (P^T v)[q*d + j] = v[j*Q + q]
    P = np.zeros((d * Q, d * Q))
    for j in range(d):
        for q in range(Q):
            P[j * Q + q, q * d + j] = 1.0
    row = P @ vecW
    np.testing.assert_array_equal(row, W.ravel(order="C"))
    eq8 = -(Xbar.T @ (Y.ravel(order="F") - 1 / (1 + np.exp(-Xbar @ vecW)))) + \
        P.T @ np.kron(np.eye(d), lap) @ P @ vecW
    # note (Lbar (x) I_d) on the column-stacked vec W equals P^T (I_d (x) Lbar) P on it
    np.testing.assert_allclose(np.kron(lap, np.eye(d)) @ vecW, P.T @ np.kron(np.eye(d), lap) @ P @ vecW)
    _, G = smooth_part(X, Y, lap, "eq8")(np.vstack([W, np.zeros(Q)]), True)
    np.testing.assert_allclose(G[:-1].ravel(order="F"), eq8)
    # the literal Eq. 5 scale is a different function: its gradient is not Eq. 8
    _, G5 = smooth_part(X, Y, lap, "eq5")(np.vstack([W, np.zeros(Q)]), True)
    assert not np.allclose(G5[:-1].ravel(order="F"), eq8)


def toy_multilabel(n=160, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 6))
    w = rng.standard_normal(6)
    Z = np.column_stack([X @ w, X @ w, -(X @ w), X @ rng.standard_normal(6)])
    return X, (Z + 0.5 * rng.standard_normal(Z.shape) > 0).astype(int)


SMALL = dict(lambdas=[1.0, 4.0], gammas=[0.0, 0.05], n_subsamples=6, max_iter=200)


def test_imtsl_fit_predict_and_fit_info():
    X, Y = toy_multilabel()
    m = IMTSL(random_state=0, **SMALL).fit(X[:120], Y[:120])
    P = m.predict(X[120:])
    assert P.shape == (40, 4) and set(np.unique(P)) <= {0, 1}
    assert (P == Y[120:]).mean() > 0.7
    assert m.fit_info_["lambda"] in SMALL["lambdas"] and m.fit_info_["gamma"] in SMALL["gammas"]
    assert m.signed_edges_[0, 1] == 1 and m.signed_edges_[0, 2] == -1
    np.testing.assert_allclose(m.predict_proba(X[:3]), 1 / (1 + np.exp(-(X[:3] @ m.coef_ + m.intercept_))))


def test_imtsl_chooses_on_the_given_validation_part():
    X, Y = toy_multilabel()
    m = IMTSL(random_state=0, **SMALL).fit(X[:100], Y[:100], validation=(X[100:130], Y[100:130]))
    assert len(m.validation_scores_) == 4
    assert m.fit_info_["validation_accuracy"] == pytest.approx(m.validation_scores_.max(), abs=1e-6)
    points = m._grid_points()
    assert m.best_params_ == points[int(np.argmax(m.validation_scores_))]


def test_single_point_refits_on_training_plus_validation():
    X, Y = toy_multilabel()
    one = dict(lambdas=2.0, gammas=0.01, n_subsamples=6, max_iter=200, random_state=0)
    a = IMTSL(**one).fit(X[:100], Y[:100], validation=(X[100:130], Y[100:130]))
    b = IMTSL(**one).fit(X[:130], Y[:130])
    np.testing.assert_allclose(a.coef_, b.coef_)
    assert not hasattr(a, "validation_scores_")


def test_imtsl_is_deterministic_with_random_state():
    X, Y = toy_multilabel()
    a = IMTSL(random_state=3, **SMALL).fit(X, Y)
    b = IMTSL(random_state=3, **SMALL).fit(X, Y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.edge_freq_pos_, b.edge_freq_pos_)


@pytest.mark.parametrize("params", [{"rule": "xor"}, {"pi_thr": 1.5}, {"gammas": [-1]},
                                    {"lambdas": "many"}, {"validation_fraction": 1.0}])
def test_imtsl_bad_parameters_raise_config_error(params):
    X, Y = toy_multilabel(40)
    with pytest.raises(ConfigError):
        IMTSL(**params).fit(X, Y)


def test_registered_with_paper_and_family():
    spec = registry.get("imtsl")
    assert spec.family == "mtl" and spec.paper == "imtsl" and len(spec.grid["lambdas"]) == 10


def test_weighted_loss_equals_repeated_rows():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((6, 3))
    Y = (rng.random((6, 2)) > 0.5).astype(float)
    c = np.array([1.0, 0.0, 3.0, 2.0, 1.0, 0.0])
    Wb = rng.standard_normal((4, 2))
    rep = np.repeat(np.arange(6), c.astype(int))
    for reduction in ("sum", "mean"):
        v, G = LogisticLoss(X, Y, reduction=reduction, weights=c[:, None])(Wb, True)
        v_ref, G_ref = LogisticLoss(X[rep], Y[rep], reduction=reduction)(Wb, True)
        assert v == pytest.approx(v_ref, rel=1e-12)
        np.testing.assert_allclose(G, G_ref, rtol=1e-12, atol=1e-12)


def test_structure_with_repeated_label_vectors_solves_each_subsample():
    """The distinct-row shortcut (fewer distinct label vectors than subsample rows) gives each
    subsample's own Eq. 2 solution."""
    Y = sample_ising(400, seed=5)                 # 5 labels: at most 32 distinct rows << 200
    subs = np.stack([np.sort(np.random.default_rng(b).choice(400, 200, replace=False)) for b in range(3)])
    theta, _, conv = neighbourhood_coefficients(Y, [3.0], subs, max_iter=20000, tol=1e-12)
    assert conv
    off = ~np.eye(5, dtype=bool)
    for b in range(3):   # reference: the plain (row by row) summed loss of the subsample, same prox
        Yb = Y[subs[b]].astype(float)
        loss = LogisticLoss(2 * Yb - 1, Yb, reduction="sum")
        ref = fista(loss, lambda V, step: np.vstack([soft_threshold(V[:-1], 3.0 * step) * off, V[-1:]]),
                    np.zeros((6, 5)), max_iter=20000, tol=1e-12)
        np.testing.assert_allclose(theta[0, b], ref.x[:-1], atol=1e-6)


def test_protocol_runs_the_malsar_forms_and_the_eq8_scale():
    from mlbench.protocols import load_protocol
    methods = {m.id if getattr(m, "id", None) else m.name: m for m in load_protocol("imtsl").methods}
    assert methods["mtl-feat"].params.get("variant") == "l21"       # MALSAR Logistic_L21
    assert methods["imtsl"].params.get("objective", "eq8") == "eq8"
    assert IMTSL().objective == "eq8"


def test_eq8_scale_keeps_l1_and_graph_active_where_eq5_empties_w():
    """On the paper's grid, gamma = 5/9 already zeroes W at the literal Eq. 5 scale; at Eq. 8's, even
    gamma = 5 keeps the informative inputs, and the graph term moves the solution."""
    X, Y = toy_multilabel(200)
    X = np.hstack([X, np.random.default_rng(9).standard_normal((200, 6))])   # 6 irrelevant inputs
    X = (X - X.mean(0)) / X.std(0)
    lap = signed_laplacian(np.array([[0, 1, -1, 0], [1, 0, -1, 0], [-1, -1, 0, 0], [0, 0, 0, 0]], float))
    g = 5.0 / 9.0          # the grid's smallest positive value
    W5 = fit_laplacian_l1(X, Y, lap, g, objective="eq5", max_iter=3000, tol=1e-9).x[:-1]
    g = 5.0                # the grid's largest value
    W8 = fit_laplacian_l1(X, Y, lap, g, objective="eq8", max_iter=3000, tol=1e-9).x[:-1]
    W8_free = fit_laplacian_l1(X, Y, np.zeros((4, 4)), g, objective="eq8", max_iter=3000, tol=1e-9).x[:-1]
    assert np.all(W5 == 0)
    assert 0 < np.mean(W8 == 0) < 1                      # l1 active: some, not all, entries zero
    assert np.abs(W8 - W8_free).max() > 1e-3             # the graph term changes the solution
