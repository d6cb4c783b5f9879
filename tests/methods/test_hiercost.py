"""HierCost family: Algorithm 1 vs scikit-learn, costs on a hand-built tree, estimators, TD, HRLR."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

from mlbench.data.hierarchy import Hierarchy
from mlbench.methods import registry
from mlbench.methods.hierarchical._base import scut_thresholds
from mlbench.methods.hierarchical.costs import example_costs, hierarchical_costs, imbalance_costs
from mlbench.methods.hierarchical.hrlr import RecursiveRegularizedLR
from mlbench.methods.hierarchical.solver import fit_cost_lr

# a -> (a1, a2), b -> (b1, b2); terminal classes a1, a2, b1 (b2 has no example)
H = Hierarchy([("a", "a1"), ("a", "a2"), ("b", "b1"), ("b", "b2")])
LEAVES = ["a1", "a2", "b1"]
HL = H.with_labels(LEAVES)


def toy(n=240, seed=0, multi=False):
    """Three Gaussian classes in 4-D; multi=True adds b1 to some a2 rows."""
    rng = np.random.default_rng(seed)
    lab = rng.integers(0, 3, n)
    centres = np.array([[3, 0, 0, 0], [0, 3, 0, 0], [0, 0, 3, 0]], dtype=float)
    X = centres[lab] + rng.normal(size=(n, 4))
    Y = np.eye(3, dtype=np.int8)[lab]
    if multi:
        extra = (lab == 1) & (rng.random(n) < 0.5)
        Y[extra, 2] = 1
        X[extra] += centres[2]
    return X, Y


# -- solver ------------------------------------------------------------------------------------
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("intercept", [False, True])
def test_solver_matches_sklearn_weighted(sparse, intercept):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 6)) * (rng.random((200, 6)) < (0.5 if sparse else 1.0))
    y = np.where(X @ rng.normal(size=6) + 0.3 + rng.normal(size=200) > 0, 1, -1)
    c = rng.uniform(0.5, 4.0, 200)
    rho = 0.8
    Xs = sp.csr_matrix(X) if sparse else X
    W, b, _ = fit_cost_lr(Xs, y[:, None], c[:, None], rho, fit_intercept=intercept, tol=1e-12,
                          max_iter=5000)
    # sklearn: 1/2 |w|^2 + C sum s_i loss_i  ==  (1/C) * (rho |w|^2 + sum ...) with C = 1 / (2 rho)
    ref = LogisticRegression(C=1 / (2 * rho), fit_intercept=intercept, tol=1e-12, max_iter=10000)
    ref.fit(Xs, y, sample_weight=c)
    assert np.allclose(W[:, 0], ref.coef_.ravel(), atol=1e-4)
    assert np.allclose(b[0], ref.intercept_[0] if intercept else 0.0, atol=1e-4)


def test_batched_columns_equal_single_runs():
    X, Y = toy()
    Ypm = np.where(Y == 1, 1.0, -1.0)
    C = np.random.default_rng(3).uniform(1, 3, Y.shape)
    W, b, _ = fit_cost_lr(X, Ypm, C, 0.5, tol=1e-10)
    for j in range(3):
        w1, b1, _ = fit_cost_lr(X, Ypm[:, [j]], C[:, [j]], 0.5, tol=1e-10)
        assert np.allclose(W[:, j], w1[:, 0], atol=1e-5) and np.isclose(b[j], b1[0], atol=1e-5)


def test_plain_algorithm_1_converges_too():
    X, Y = toy()
    Ypm = np.where(Y[:, :1] == 1, 1.0, -1.0)
    ones = np.ones_like(Ypm)
    W1, b1, _ = fit_cost_lr(X, Ypm, ones, 1.0, restart=False, tol=1e-12, max_iter=5000)
    W2, b2, _ = fit_cost_lr(X, Ypm, ones, 1.0, restart=True, tol=1e-12, max_iter=5000)
    assert np.allclose(W1, W2, atol=1e-4) and np.allclose(b1, b2, atol=1e-4)


# -- costs ---------------------------------------------------------------------------------------
def test_costs_on_hand_built_tree():
    S = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 1]], dtype=bool)
    dist, common = HL.label_distance(), HL.label_common_ancestors()
    # gamma: a1-a2 = 2, a1-b1 = 4, a2-b1 = 4 ; gamma_max of a1 = 4
    trd = hierarchical_costs(S, dist, common, "trd")
    assert trd[:, 0].tolist() == [4, 2, 4, 2]          # row 3: min(gamma(a1,a2), gamma(a1,b1))
    assert trd[:, 2].tolist() == [4, 4, 4, 4]          # positives of b1 cost gamma_max = 4
    ex = hierarchical_costs(S, dist, common, "extrd", k=1.25)
    assert np.allclose(ex[:, 0], 1.25 ** np.array([4, 2, 4, 2]))
    # alpha (root counted): a1-a2 = 2 (a, root), a1-b1 = 1, a1-a1 = 2 -> alpha_max = 2
    nca = hierarchical_costs(S, dist, common, "nca")
    assert nca[:, 0].tolist() == [3, 1, 2, 2]          # row 3: alpha = min(2, 1) = 1
    assert (hierarchical_costs(S, dist, common, "lr") == 1).all()
    # IMB: class sizes 1, 2, 2 -> all below N0 = 10 -> 1 + L / 2 = 11
    assert np.allclose(imbalance_costs(S), 11.0)
    big = np.zeros((30, 3), dtype=bool)
    big[:, 0] = True
    assert np.allclose(imbalance_costs(big), 1 + 20 / (1 + np.exp(20)))
    both = example_costs(S, dist, common, "trd", imbalance=True)
    assert np.allclose(both, trd * 11.0)


def test_scut_thresholds():
    M = np.array([[3.0, 0.0], [2.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    S = np.array([[1, 0], [1, 0], [0, 0], [0, 0]], dtype=bool)
    t = scut_thresholds(M, S, n_train=np.array([5, 5]))
    assert t[0] == pytest.approx(1.5) and t[1] == 0.0          # no validation positive -> 0
    assert scut_thresholds(M, S, n_train=np.array([1, 5]))[0] == 0.0   # one training example


# -- estimators ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["lr", "trd", "nca", "extrd", "imb-lr", "imb-trd", "imb-nca",
                                  "hiercost", "td-lr", "hrlr"])
def test_every_method_learns_single_label(name):
    X, Y = toy()
    est = registry.make(name, random_state=0, max_iter=300)
    est.fit(X[:180], Y[:180], hierarchy=HL)
    P = est.predict(X[180:])
    assert P.shape == (60, 3) and (P.sum(axis=1) == 1).all()       # arg-max: one class each
    assert (P == Y[180:]).all(axis=1).mean() > 0.85
    assert est.decision_function(X[180:]).shape == (60, 3)


def test_same_seed_same_model_and_validation_part_used():
    X, Y = toy()
    a = registry.make("hiercost", random_state=5).fit(X, Y, hierarchy=HL)
    b = registry.make("hiercost", random_state=5).fit(X, Y, hierarchy=HL)
    assert np.array_equal(a.coef_, b.coef_)
    c = registry.make("hiercost", random_state=5).fit(X[:200], Y[:200], validation=(X[200:], Y[200:]),
                                                       hierarchy=HL)
    assert set(c.fit_info_["validation_micro_f1"]) == set(c.rhos)


def test_multilabel_scut_and_closed_layout():
    X, Y = toy(400, multi=True)
    # closed layout over every node of H, as the loaders give it
    Yc = np.zeros((400, len(H)), dtype=np.int8)
    Yc[:, HL.label_index] = Y
    Yc = H.close(Yc)
    est = registry.make("hiercost", random_state=0).fit(X[:300], Yc[:300], hierarchy=H)
    assert not est.single_label_ and est.closed_
    P = est.predict(X[300:])
    assert H.is_closed(P) and P[:, H.index["b2"]].sum() == 0
    tp = (P & Yc[300:]).sum()
    assert 2 * tp / (P.sum() + Yc[300:].sum()) > 0.8


def test_flat_without_hierarchy_and_sparse():
    X, Y = toy()
    est = registry.make("trd", random_state=0).fit(sp.csr_matrix(X), Y)
    assert est.hier_.max_depth == 0
    assert est.predict(sp.csr_matrix(X)).shape == Y.shape


def test_td_follows_the_tree():
    X, Y = toy()
    est = registry.make("td-lr", random_state=0).fit(X, Y, hierarchy=HL)
    roots = [c for c, _ in est._options[-1]]
    assert {H.nodes[c] for c in roots} == {"a", "b"}
    assert len(est._options[H.index["b"]]) == 1          # b has a single way down: nothing to learn
    P = est.predict(X)
    assert (P == Y).all(axis=1).mean() > 0.85


def test_hrlr_block_coordinate_descent_reaches_optimality():
    X, Y = toy(150)
    C = 2.0
    est = RecursiveRegularizedLR(cs=(C,), n_passes=200, tol_outer=1e-10, tol=1e-12, max_iter=3000)
    est.fit(X, Y, hierarchy=HL)
    Wn, b = est.model_
    # gradient of eq. (1) at the solution: zero for every node
    G = np.zeros_like(Wn)
    for r, nb in enumerate(est._nbrs):
        G[:, r] = Wn[:, r] * (1.0 if r == est._n_nodes - 1 else 0.0)
        G[:, r] += sum(Wn[:, r] - Wn[:, u] for u in nb)
    Ypm = np.where(Y == 1, 1.0, -1.0)
    Z = X @ Wn[:, est._row_of_t] + b
    R = -Ypm / (1 + np.exp(Ypm * Z))
    G[:, est._row_of_t] += C * (X.T @ R)
    assert np.abs(G).max() < 1e-3 and np.abs(R.sum(axis=0)).max() < 1e-3


def test_hrlr_records_the_chosen_c_of_its_grid():
    X, Y = toy()
    cs = (0.01, 1.0, 100.0)
    est = RecursiveRegularizedLR(cs=cs, max_iter=200, random_state=0).fit(X, Y, hierarchy=HL)
    assert est.fit_info_["C"] == pytest.approx(1.0 / est.rho_)
    assert min(abs(est.fit_info_["C"] - c) / c for c in cs) < 1e-12


def test_bad_parameters():
    X, Y = toy()
    with pytest.raises(ValueError, match="cost"):
        registry.make("lr", cost="nope").fit(X, Y)
    with pytest.raises(ValueError, match="k > 1"):
        registry.make("hiercost", k=1.0).fit(X, Y)


# -- issue 22: the authors'-code intercept and SCutFBR ---------------------------------------------
def test_penalised_intercept_is_a_penalised_constant_feature():
    """penalize_intercept: (w, b) minimise rho (|w|^2 + b^2) + sum c_i loss_i, which scikit-learn
    fits as a no-intercept model on [X, 1]."""
    from mlbench.methods.hierarchical.hiercost import HierCostLR

    X, Y = toy(n=200, seed=3)
    rho = 1.0
    est = HierCostLR(cost="lr", imbalance=False, rhos=(rho,), penalize_intercept=True,
                     tol=1e-12, max_iter=5000, random_state=0).fit(X, Y, hierarchy=HL)
    Xb = np.hstack([X, np.ones((200, 1))])
    for j in range(3):
        ref = LogisticRegression(C=1 / (2 * rho), fit_intercept=False, tol=1e-12, max_iter=10000)
        ref.fit(Xb, np.where(Y[:, j] == 1, 1, -1))
        assert np.allclose(est.coef_[j], ref.coef_.ravel()[:-1], atol=1e-4)
        assert est.intercept_[j] == pytest.approx(ref.coef_.ravel()[-1], abs=1e-4)
    free = HierCostLR(cost="lr", imbalance=False, rhos=(rho,), tol=1e-12, max_iter=5000,
                      random_state=0).fit(X, Y, hierarchy=HL)
    assert np.abs(est.intercept_).sum() < np.abs(free.intercept_).sum()   # pulled toward 0
    assert registry.make("hiercost-authors").penalize_intercept
    assert registry.make("lr-authors").cost == "lr" and not registry.make("lr").penalize_intercept


def test_scut_fbr_falls_back_to_the_rank_1_cut():
    # class 0: the best F1 is 0.5 (cut after 3 rows); class 1: F1 1.0
    M = np.array([[3.0, 5.0], [2.0, 4.0], [1.0, 0.0], [0.0, -1.0]])
    S = np.array([[0, 1], [0, 1], [1, 0], [0, 0]], dtype=bool)
    plain = scut_thresholds(M, S, n_train=np.array([5, 5]))
    fbr = scut_thresholds(M, S, n_train=np.array([5, 5]), fbr=0.6)
    assert plain[0] == pytest.approx(0.5) and fbr[0] == pytest.approx(2.5)   # passes row 0 only
    assert plain[1] == fbr[1] == pytest.approx(2.0)                          # F1 1.0 kept
    tied = scut_thresholds(np.zeros((3, 1)), np.array([[1], [0], [0]], bool), np.array([5]), fbr=0.9)
    assert not (np.zeros(1) > tied).any()                                   # all tied: none passes


def test_scut_fbr_predicts_fewer_labels_on_noisy_multilabel_data():
    X, Y = toy(n=300, seed=5, multi=True)
    rng = np.random.default_rng(0)
    X = X + rng.normal(scale=2.0, size=X.shape)
    kw = dict(rhos=(1.0,), random_state=0, max_iter=300)
    plain = registry.make("lr", **kw).fit(X[:240], Y[:240], hierarchy=HL)
    fbr = registry.make("lr", scut_fbr=0.9, **kw).fit(X[:240], Y[:240], hierarchy=HL)
    assert fbr.predict(X[240:]).sum() <= plain.predict(X[240:]).sum()
    with pytest.raises(ValueError, match="scut_fbr"):
        registry.make("lr", scut_fbr=1.5, **kw).fit(X[:240], Y[:240], hierarchy=HL)


def test_imbalance_by_class_weighs_a_class_examples_in_its_own_model_only():
    """Per (example, class): class n's size weighs class n's positives in class n's model; the
    per-example reading (eq. 8 as written) weighs a row by its rarest class everywhere."""
    from mlbench.methods.hierarchical.costs import class_imbalance_costs

    S = np.zeros((40, 2), dtype=bool)
    S[:30, 0] = True          # a frequent class (30 examples)
    S[:2, 1] = True           # a rare one (2 examples), on rows that also hold the frequent one
    row = imbalance_costs(S)
    cls = class_imbalance_costs(S)
    rare, frequent = 1 + 20 / 2, 1 + 20 / (1 + np.exp(20))
    assert np.allclose(row[:2], rare) and np.allclose(row[2:30], frequent)
    assert np.allclose(cls[:2, 1], rare) and np.allclose(cls[:30, 0], frequent)
    assert np.allclose(cls[30:], 1.0) and np.allclose(cls[2:, 1], 1.0)
    dist = np.array([[0, 2], [2, 0]], dtype=float)
    common = np.ones((2, 2))
    C = example_costs(S, dist, common, "lr", imbalance=True, imbalance_by="class")
    assert np.allclose(C, cls)
    with pytest.raises(ValueError):
        example_costs(S, dist, common, "lr", imbalance=True, imbalance_by="label")
