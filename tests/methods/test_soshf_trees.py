"""Structured forests (sf ... sf-h-cs): clustering, thresholds, tree growth, forest contract."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.datasets import make_multilabel_classification

from mlbench.errors import ConfigError
from mlbench.methods import registry
from mlbench.methods.trees.clustering import idf_weights, two_means
from mlbench.methods.trees.structured import StructuredForest, grow_tree
from mlbench.methods.components.thresholds import best_f1_threshold

pytest.importorskip("mlbench._ext._soshf", reason="Cython kernel _soshf not built")

X, Y = make_multilabel_classification(n_samples=160, n_features=8, n_classes=4, random_state=0)
X = (X - X.mean(0)) / X.std(0)
VARIANTS = ["sf", "sf-lr", "sf-lr-cs", "sf-h", "sf-h-cs"]


def test_idf_weights_eq1_by_hand():
    w = idf_weights(100, np.array([50, 10, 0]), 20, np.array([10, 1, 0]), beta=0.5)
    g = np.log1p(100 / np.array([50, 10]))
    loc = np.log1p(20 / np.array([10, 1]))
    expect = 0.5 * g / g.max() + 0.5 * loc / loc.max()
    np.testing.assert_allclose(w[:2], expect)
    assert w[2] == 0.0  # no positives: constant column, no weight
    assert w[1] == pytest.approx(1.0)  # rarest label everywhere gets the top weight
    assert idf_weights(100, np.array([50, 10]), 20, np.array([10, 1]), beta=1.0)[0] == \
        pytest.approx(g[0] / g[1])


def test_two_means_reaches_sklearn_inertia():
    rng = np.random.default_rng(0)
    Z = np.r_[rng.normal(0, 1, (40, 3)), rng.normal(4, 1, (25, 3))]
    member = two_means(Z, np.random.default_rng(1))
    inertia = sum(((Z[m] - Z[m].mean(0)) ** 2).sum() for m in (member, ~member))
    km = KMeans(2, n_init=10, random_state=0).fit(Z)
    assert inertia == pytest.approx(km.inertia_, rel=1e-9)
    assert two_means(np.ones((5, 3)), np.random.default_rng(0)) is None


@pytest.mark.parametrize("seed", range(5))
def test_best_f1_threshold_is_optimal(seed):
    rng = np.random.default_rng(seed)
    s = np.round(rng.random(60), 1)
    y = (s + rng.normal(0, 0.3, 60) > 0.6).astype(int)
    t = best_f1_threshold(s, y)

    def f1(th):
        p = s >= th
        return 2 * (p & (y == 1)).sum() / (p.sum() + y.sum())

    assert f1(t) == pytest.approx(max(f1(c) for c in np.unique(s)))
    assert best_f1_threshold(s, np.zeros(60)) == 0.5


def test_tree_leaves_hold_at_least_three_rows_and_mean_labels():
    rng = np.random.default_rng(0)
    rows = np.arange(120)
    tree = grow_tree(X, Y, rows, np.arange(8), np.arange(4), rng, split="hellinger",
                     cost_sensitive=True, global_counts=(160, Y.sum(0)),
                     hellinger={"n_iter": 40})
    leaf = tree.apply(np.ascontiguousarray(X[rows]))
    assert (tree.split_row[leaf] < 0).all()
    counts = np.bincount(leaf, minlength=len(tree.split_row))
    assert counts[tree.split_row < 0].min() >= 3
    assert (tree.split_row >= 0).sum() >= 3
    for node in np.unique(leaf):
        np.testing.assert_allclose(tree.value[node], Y[rows][leaf == node].mean(0))


def test_apply_tree_matches_python_traversal():
    rng = np.random.default_rng(1)
    tree = grow_tree(X, Y, np.arange(160), np.array([0, 2, 5]), np.arange(4), rng, split="gain",
                     cost_sensitive=False, global_counts=(160, Y.sum(0)))
    Xq = np.ascontiguousarray(np.random.default_rng(2).normal(size=(50, 8)))
    for i, node in enumerate(tree.apply(Xq)):
        n = 0
        while tree.split_row[n] >= 0:
            w = tree.W[tree.split_row[n]]
            n = tree.right[n] if Xq[i, [0, 2, 5]] @ w[:-1] + w[-1] >= 0 else tree.left[n]
        assert n == node


@pytest.mark.parametrize("name", VARIANTS)
def test_variants_fit_predict_and_are_reproducible(name):
    kw = dict(n_estimators=6, n_iter=30)
    a = registry.make(name, random_state=3, **kw).fit(X[:100], Y[:100])
    b = registry.make(name, random_state=3, **kw).fit(X[:100], Y[:100])
    S = a.predict_proba(X[100:])
    assert S.shape == (60, 4) and np.all((S >= 0) & (S <= 1))
    np.testing.assert_array_equal(S, b.predict_proba(X[100:]))
    P = a.predict(X[100:])
    assert set(np.unique(P)) <= {0, 1}
    assert a.threshold_.shape == (4,)
    assert registry.get(name).family == "trees" and registry.get(name).paper == "soshf"


def test_forest_beats_label_prior():
    from sklearn.metrics import roc_auc_score

    m = registry.make("sf-h-cs", random_state=0, n_estimators=10, n_iter=40).fit(X[:100], Y[:100])
    assert roc_auc_score(Y[100:], m.predict_proba(X[100:]), average="macro") > 0.7


def test_numpy_backend_gives_the_same_forest():
    kw = dict(split="hellinger", n_estimators=3, n_iter=30, random_state=0)
    a = StructuredForest(backend="cython", **kw).fit(X[:80], Y[:80]).predict_proba(X[80:])
    b = StructuredForest(backend="numpy", **kw).fit(X[:80], Y[:80]).predict_proba(X[80:])
    np.testing.assert_allclose(a, b, atol=1e-8)


def test_used_label_weight_changes_votes_and_sparse_input_is_accepted():
    kw = dict(split="gain", n_estimators=4, random_state=0)
    a = StructuredForest(used_label_weight=5.0, **kw).fit(X[:100], Y[:100])
    b = StructuredForest(used_label_weight=1.0, **kw).fit(X[:100], Y[:100])
    assert not np.allclose(a.predict_proba(X[100:]), b.predict_proba(X[100:]))
    c = StructuredForest(used_label_weight=5.0, **kw).fit(sp.csr_matrix(X[:100]), Y[:100])
    np.testing.assert_array_equal(c.predict_proba(sp.csr_matrix(X[100:])), a.predict_proba(X[100:]))


@pytest.mark.parametrize("bad", [{"split": "gini"}, {"backend": "gpu"}, {"sample_fraction": 0},
                                 {"beta": 2.0}])
def test_bad_parameters_raise_config_error(bad):
    with pytest.raises(ConfigError):
        StructuredForest(**bad).fit(X, Y)


@pytest.mark.parametrize("data", ["continuous", "binary"])
def test_gain_split_cython_stump_gives_sklearns_forest_bit_for_bit(data):
    from mlbench.methods.trees import structured

    Xd = X if data == "continuous" else (X > 1.0).astype(float)
    kw = dict(split="gain", n_estimators=4, random_state=3)
    a = StructuredForest(backend="cython", **kw).fit(Xd[:80], Y[:80])
    b = StructuredForest(backend="numpy", **kw).fit(Xd[:80], Y[:80])
    np.testing.assert_array_equal(a.predict_proba(Xd[80:]), b.predict_proba(Xd[80:]))
    np.testing.assert_array_equal(a.threshold_, b.threshold_)
    for ta, tb in zip(a.trees_, b.trees_):
        np.testing.assert_array_equal(ta.W, tb.W)
    assert sum(len(t.W) for t in a.trees_) > 8
    rng = np.random.default_rng(0)
    member = Y[:80, 0].astype(bool)
    assert structured._split_gain(Xd[:80], member, rng, 3, backend="cython") is not None


def test_sparse_backend_forest_agrees_with_cython_on_binary_data():
    # not bit for bit (other rounding, see hellinger.fit_hellinger_split): most scores agree
    Xb = (X > 0.8).astype(float)
    kw = dict(split="hellinger", n_estimators=4, n_iter=40, random_state=1)
    a = StructuredForest(backend="cython", **kw).fit(Xb[:100], Y[:100]).predict_proba(Xb[100:])
    b = StructuredForest(backend="sparse", **kw).fit(Xb[:100], Y[:100]).predict_proba(Xb[100:])
    assert np.mean(np.isclose(a, b, atol=1e-6)) > 0.9
    assert np.abs(a - b).mean() < 0.02


def test_logistic_split_direct_liblinear_equals_logistic_regression():
    from mlbench.methods.trees import structured

    rng = np.random.default_rng(0)
    for n in (12, 40, 160):
        rows = rng.choice(len(X), n, replace=False)
        member = Y[rows, 1].astype(bool)
        member[:2] = [True, False]
        a = structured._split_logistic(X[rows], member, rng, backend="cython")
        b = structured._split_logistic(X[rows], member, rng, backend="numpy")
        np.testing.assert_array_equal(a, b)
    kw = dict(split="logistic", n_estimators=3, random_state=2)
    fa = StructuredForest(backend="cython", **kw).fit(X[:90], Y[:90])
    fb = StructuredForest(backend="numpy", **kw).fit(X[:90], Y[:90])
    np.testing.assert_array_equal(fa.predict_proba(X[90:]), fb.predict_proba(X[90:]))
