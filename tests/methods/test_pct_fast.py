"""The variance trees of :mod:`mlbench._ext._pct` against scikit-learn's own: every node array and
value equal, bit for bit, on many seeds and shapes; out-of-scope inputs left to scikit-learn."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.ensemble import ExtraTreesRegressor, RandomForestRegressor

from mlbench.methods.trees.fast_pct import (ExtraVarianceForest, VarianceForest, VarianceTree,
                                            positive_entries)
from mlbench.methods.trees.pct import make_forest

FIELDS = ("left_child", "right_child", "feature", "threshold", "impurity", "n_node_samples",
          "weighted_n_node_samples")


def assert_same_forest(fast, ref):
    assert len(fast.estimators_) == len(ref.estimators_)
    for a, b in zip(fast.estimators_, ref.estimators_):
        sa, sb = a.tree_.__getstate__(), b.tree_.__getstate__()
        assert sa["node_count"] == sb["node_count"]
        assert sa["max_depth"] == sb["max_depth"]
        for field in FIELDS:
            np.testing.assert_array_equal(sa["nodes"][field], sb["nodes"][field], err_msg=field)
        inner = sa["nodes"]["left_child"] != -1
        np.testing.assert_array_equal(sa["nodes"]["missing_go_to_left"][inner],
                                      sb["nodes"]["missing_go_to_left"][inner])
        np.testing.assert_array_equal(sa["values"], sb["values"])


def data(seed, kind):
    rng = np.random.RandomState(seed)
    n, p, L = rng.randint(15, 250), rng.randint(1, 25), rng.randint(1, 12)
    X = rng.randn(n, p).astype(np.float32)
    if kind == "binary":        # bag-of-words like: few ones, ties everywhere
        X = (rng.rand(n, p) < 0.1).astype(np.float32)
    elif kind == "rounded":     # many ties and runs within FEATURE_THRESHOLD
        X = np.round(X, 1)
    Y = (rng.rand(n, L) < rng.uniform(0.02, 0.6)).astype(float)
    return X, Y


@pytest.mark.parametrize("randomization", ["rf", "erf"])
@pytest.mark.parametrize("kind", ["continuous", "binary", "rounded"])
@pytest.mark.parametrize("seed", range(6))
def test_same_trees_as_scikit_learn(randomization, kind, seed):
    X, Y = data(seed, kind)
    kw = dict(n_estimators=4, random_state=seed, max_depth=(None, 3, 7)[seed % 3],
              min_samples_leaf=1 + seed % 3,
              max_features=("sqrt", None, 0.5, 2, "log2", "sqrt")[seed])
    fast = make_forest("variance", randomization, **kw).fit(X, Y)
    ref = make_forest("variance", randomization, fast=False, **kw).fit(X, Y)
    assert isinstance(fast, (VarianceForest, ExtraVarianceForest))
    assert type(ref) in (RandomForestRegressor, ExtraTreesRegressor)
    assert_same_forest(fast, ref)
    np.testing.assert_array_equal(fast.predict(X), ref.predict(X))


@pytest.mark.parametrize("kind", ["continuous", "rounded", "binary", "signed-zeros", "odd-passes"])
@pytest.mark.parametrize("seed", range(2))
def test_same_trees_on_nodes_large_enough_for_the_radix_sort(kind, seed):
    """Nodes of 192 rows or more are sorted by radix (keys of every sign, -0.0 and 0.0, long
    runs of ties, keys whose low byte is shared so that an odd number of passes runs): still
    scikit-learn's trees."""
    rng = np.random.RandomState(10 + seed)
    n, p, L = 700 + 300 * seed, 6, 5
    X = (rng.randn(n, p) * rng.choice([1e-3, 1.0, 1e4], p)).astype(np.float32)
    if kind == "rounded":
        X = np.round(X, 0)
    elif kind == "binary":
        X = (rng.rand(n, p) < 0.3).astype(np.float32)
    elif kind == "signed-zeros":
        X[rng.rand(n, p) < 0.4] = 0.0
        X[rng.rand(n, p) < 0.2] = -0.0
    elif kind == "odd-passes":  # at most 15 significant bits: the lowest key byte is always 0
        X = (rng.randint(1, 2**15, (n, p)) * rng.choice([-1, 1], (n, p)) / 8.0).astype(np.float32)
    Y = (rng.rand(n, L) < 0.3).astype(float)
    Y[:, 0] = X[:, 0] > 0
    kw = dict(n_estimators=3, random_state=seed, max_features=None)
    fast = make_forest("variance", "rf", **kw).fit(X, Y)
    ref = make_forest("variance", "rf", fast=False, **kw).fit(X, Y)
    assert_same_forest(fast, ref)
    np.testing.assert_array_equal(fast.predict(X), ref.predict(X))


def test_min_impurity_decrease_and_threads():
    X, Y = data(11, "continuous")
    for cls, ref_cls in ((VarianceForest, RandomForestRegressor),
                         (ExtraVarianceForest, ExtraTreesRegressor)):
        kw = dict(n_estimators=6, random_state=3, min_impurity_decrease=0.002, max_features="sqrt")
        assert_same_forest(cls(n_jobs=2, **kw).fit(X, Y), ref_cls(**kw).fit(X, Y))


def test_single_label_and_sparse_input():
    X, Y = data(5, "binary")
    kw = dict(n_estimators=3, random_state=0)
    # one output given 1-D, as fit_forest gives it
    assert_same_forest(VarianceForest(**kw).fit(X, Y[:, 0]), RandomForestRegressor(**kw).fit(X, Y[:, 0]))
    # a small sparse X is densified: the trees scikit-learn grows from the sparse matrix
    Xs = sp.csr_matrix(X)
    assert_same_forest(VarianceForest(**kw).fit(Xs, Y), RandomForestRegressor(**kw).fit(Xs, Y))
    assert_same_forest(ExtraVarianceForest(**kw).fit(Xs, Y), ExtraTreesRegressor(**kw).fit(Xs, Y))


def test_out_of_scope_inputs_go_to_scikit_learn():
    X, Y = data(2, "continuous")
    kw = dict(n_estimators=3, random_state=1)
    # a target that is not 0/1
    Yr = Y * np.arange(1, Y.shape[1] + 1)
    assert positive_entries(Yr) is None
    assert_same_forest(VarianceForest(**kw).fit(X, Yr), RandomForestRegressor(**kw).fit(X, Yr))
    # missing values
    Xn = X.copy()
    Xn[::7, 0] = np.nan
    assert_same_forest(VarianceForest(**kw).fit(Xn, Y), RandomForestRegressor(**kw).fit(Xn, Y))
    # a criterion the kernel does not compute, and the best-first builder
    for extra in ({"criterion": "absolute_error"}, {"max_leaf_nodes": 5}):
        assert_same_forest(VarianceForest(**kw, **extra).fit(X, Y),
                           RandomForestRegressor(**kw, **extra).fit(X, Y))


def test_positive_entries():
    y = np.array([[0, 1, 1], [0, 0, 0], [1, 0, 0]], dtype=float)
    indptr, indices = positive_entries(y)
    assert indptr.tolist() == [0, 2, 2, 3]
    assert indices.tolist() == [1, 2, 0]


def test_a_lone_tree_validates_as_scikit_learn_does():
    """Fitted directly (check_input=True) the tree is scikit-learn's, with its input checks."""
    X, Y = data(4, "continuous")
    tree = VarianceTree(random_state=0).fit(X, Y)
    assert tree.tree_.node_count > 1
    with pytest.raises(ValueError):
        VarianceTree().fit(X[:, :, None], Y)


def test_kernel_checks_its_indices_and_a_target_without_positives():
    from mlbench._ext._pct import grow_variance_tree

    Xt = np.zeros((2, 3), dtype=np.float32)
    ok = dict(n_outputs=2, rand_state=1, max_features=2, max_depth=5, min_samples_leaf=1,
              min_samples_split=2, min_impurity_decrease=0.0, random_split=False, radix_min=192)
    w = np.ones(3, dtype=np.int64)
    for yp, yi, weights in ((np.array([0, 1, 1, 1]), np.array([2]), w),      # label outside [0, 2)
                            (np.array([0, 1, 1]), np.array([0]), w),         # rows disagree
                            (np.array([0, 1, 0, 1]), np.array([0]), w),      # yp decreases
                            (np.array([0, 0, 0, 0]), np.array([], dtype=np.intp), 0 * w)):
        with pytest.raises(ValueError):
            grow_variance_tree(Xt, yp.astype(np.intp), yi.astype(np.intp), w=weights, **ok)
    # all-zero labels: one leaf of value 0, as scikit-learn grows it
    X, _ = data(3, "continuous")
    Y = np.zeros((X.shape[0], 3))
    assert_same_forest(VarianceForest(n_estimators=2, random_state=0).fit(X, Y),
                       RandomForestRegressor(n_estimators=2, random_state=0).fit(X, Y))
