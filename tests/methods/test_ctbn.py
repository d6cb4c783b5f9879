"""Tests of the single CTBN (``sc``): exact MAP, normalisation, structure learning, weights."""
import itertools

import numpy as np
import pytest

from mlbench.errors import MlbenchError
from mlbench.methods import registry
from mlbench.methods.components.logistic import DEFAULT_CS
from mlbench.methods.probabilistic._tree import (
    CTBN, best_structure, fit_tree_params, topological_order, tree_loglik, tree_map, tree_marginals)
from mlbench.methods.probabilistic.ctbn import CTBNClassifier, learn_ctbn

# toy data: 4 labels, label 3 copies label 0 most of the time (a strong dependence to find)
rng = np.random.RandomState(0)
X = rng.randn(240, 5)
Y = (X @ rng.randn(5, 4) + rng.randn(240, 4) > 0).astype(int)
Y[:, 3] = Y[:, 0] ^ (rng.rand(240) < 0.05)
ALL4 = np.array(list(itertools.product([0, 1], repeat=4)))


def random_tree(L, n, seed):
    r = np.random.RandomState(seed)
    parent = np.full(L, -1)
    order = r.permutation(L)
    for pos in range(1, L):
        if r.rand() < 0.8:
            parent[order[pos]] = order[r.randint(pos)]
    return r.randn(n, L) * 2, r.randn(n, L) * 3, parent     # A, D (per row: per-parent nodes)


def brute(A, D, parent):
    L = A.shape[1]
    allY = np.array(list(itertools.product([0, 1], repeat=L)))
    J = np.stack([tree_loglik(A, D, parent, np.tile(y, (len(A), 1))) for y in allY], axis=1)
    return allY, J


@pytest.mark.parametrize("seed", range(5))
def test_max_sum_map_equals_brute_force(seed):
    A, D, parent = random_tree(5, 30, seed)
    Ymap, logp = tree_map(A, D, parent)
    allY, J = brute(A, D, parent)
    np.testing.assert_array_equal(Ymap, allY[J.argmax(axis=1)])
    np.testing.assert_allclose(logp, J.max(axis=1), atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_joint_sums_to_one_and_marginals_exact(seed):
    A, D, parent = random_tree(5, 20, seed)
    allY, J = brute(A, D, parent)
    P = np.exp(J)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(tree_marginals(A, D, parent), P @ allY, atol=1e-12)


def test_topological_order_and_cycle():
    order = topological_order(np.array([2, -1, 1, 0]))
    pos = {v: k for k, v in enumerate(order)}
    assert pos[1] < pos[2] < pos[0] < pos[3]
    with pytest.raises(ValueError):
        topological_order(np.array([1, 0]))


def test_best_structure_is_maximum_branching():
    r = np.random.RandomState(3)
    L = 4
    W = -r.rand(L + 1, L) * 10
    parent = best_structure(W)

    def score(par):
        return sum(W[p if p >= 0 else L, i] for i, p in enumerate(par))

    best = -np.inf
    for par in itertools.product(range(-1, L), repeat=L):
        if any(p == i for i, p in enumerate(par)):
            continue
        try:
            topological_order(np.array(par))
        except ValueError:
            continue
        best = max(best, score(par))
    assert score(parent) == pytest.approx(best)


def test_fitted_sc_map_and_normalisation():
    m = CTBNClassifier(C=1.0, random_state=0).fit(X, Y)
    J = np.stack([m.joint_log_proba(X[:20], np.tile(y, (20, 1))) for y in ALL4], axis=1)
    np.testing.assert_allclose(np.exp(J).sum(axis=1), 1.0, atol=1e-10)
    np.testing.assert_array_equal(m.predict(X[:20]), ALL4[J.argmax(axis=1)])
    np.testing.assert_allclose(m.predict_proba(X[:20]), np.exp(J) @ ALL4, atol=1e-10)
    # the copied label must be linked to its source
    par = m.tree_.parent
    assert par[3] == 0 or par[0] == 3


def test_same_seed_same_model_and_cv_choice():
    a = CTBNClassifier(random_state=5).fit(X, Y)
    b = CTBNClassifier(random_state=5).fit(X, Y)
    np.testing.assert_array_equal(a.tree_.parent, b.tree_.parent)
    np.testing.assert_array_equal(a.tree_.coef, b.tree_.coef)
    assert set(a.C_) <= set(DEFAULT_CS)


def test_zero_instance_weight_equals_dropping_rows():
    parent = np.array([-1, 0, 0, 0])
    w = np.ones(len(X))
    w[::3] = 0.0
    keep = w > 0
    Cs = np.ones(4)
    a = fit_tree_params(X, Y, parent, w, Cs)
    b = fit_tree_params(X[keep], Y[keep], parent, np.ones(keep.sum()), Cs)
    np.testing.assert_allclose(a.coef, b.coef, atol=1e-4)
    np.testing.assert_allclose(a.coef1, b.coef1, atol=1e-4)
    np.testing.assert_allclose(a.intercept1, b.intercept1, atol=1e-4)


def test_per_parent_nodes_are_separate_regressions_on_each_parent_value():
    """Node 3 (parent 0) holds scikit-learn's L2 logistic regression of y_3 on x fitted on the rows
    with y_0 = 0 and, separately, on the rows with y_0 = 1 (Batal et al. 2013)."""
    from sklearn.linear_model import LogisticRegression

    tree = fit_tree_params(X, Y, np.array([-1, -1, -1, 0]), np.ones(len(X)), np.ones(4))
    for v, (coef, b) in enumerate([(tree.coef[3], tree.intercept[3]),
                                   (tree.coef1[3], tree.intercept1[3])]):
        rows = Y[:, 0] == v
        ref = LogisticRegression(C=1.0, max_iter=1000, tol=1e-10).fit(X[rows], Y[rows, 3])
        # same model up to L-BFGS's default tolerance: coefficients within 2e-3, probabilities 1e-3
        np.testing.assert_allclose(coef, ref.coef_[0], atol=2e-3)
        np.testing.assert_allclose(1 / (1 + np.exp(-(X @ coef + b))), ref.predict_proba(X)[:, 1],
                                   atol=1e-3)
    A, D = tree.inputs(X)
    np.testing.assert_allclose(A[:, 3] + D[:, 3], X @ tree.coef1[3] + tree.intercept1[3])
    assert np.all(D[:, :3] == 0)


def test_shared_nodes_only_shift_the_intercept():
    tree = fit_tree_params(X, Y, np.array([-1, -1, -1, 0]), np.ones(len(X)), np.ones(4),
                           node_model="shared")
    np.testing.assert_array_equal(tree.coef1, tree.coef)
    A, D = tree.inputs(X)
    assert np.ptp(D[:, 3]) < 1e-10 and abs(D[0, 3]) > 0.1


def test_unknown_node_model_is_refused():
    with pytest.raises(MlbenchError, match="node_model"):
        CTBNClassifier(C=1.0, node_model="both").fit(X, Y)


def test_instance_weights_steer_the_structure():
    # all weight on rows where label 3 copies label 0, none where it copies label 1
    Yw = Y.copy()
    half = np.arange(len(X)) % 2 == 0
    Yw[~half, 3] = Yw[~half, 1]
    w = half / half.sum()
    tree = learn_ctbn(X, Yw, w, np.ones(4), 1 / 3, np.random.RandomState(0))
    assert tree.parent[3] == 0 or tree.parent[0] == 3
    w = (~half) / (~half).sum()
    tree = learn_ctbn(X, Yw, w, np.ones(4), 1 / 3, np.random.RandomState(0))
    assert tree.parent[3] == 1 or tree.parent[1] == 3


def test_constant_label_is_handled():
    Yc = Y.copy()
    Yc[:, 2] = 1
    m = CTBNClassifier(C=1.0, random_state=0).fit(X, Yc)
    assert (m.predict(X)[:, 2] == 1).all()
    assert np.isfinite(m.joint_log_proba(X, Yc)).all()
    assert isinstance(m.tree_, CTBN)


@pytest.mark.parametrize("kw", [{"C": -1}, {"C": "auto"}, {"holdout_fraction": 1.5}, {"Cs": []}])
def test_bad_parameters_raise_mlbench_error(kw):
    with pytest.raises(MlbenchError):
        CTBNClassifier(**kw).fit(X, Y)


def test_registered():
    spec = registry.get("sc")
    assert spec.family == "probabilistic" and spec.paper == "mc"
