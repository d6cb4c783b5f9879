"""The bit-set tree builder for two-valued columns (bag-of-words data) grows scikit-learn's trees,
and the forests that use it on small sparse X give the reference backend's results bit for bit."""
import numpy as np
import pytest
from scipy import sparse
from sklearn.ensemble import BaggingClassifier
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_random_state

from mlbench._ext._cocoa import apply_tree, two_valued_columns
from mlbench.methods import registry
from mlbench.methods.components import fast_tree
from mlbench.methods.components.fast_tree import (EntropyTree, as_float32, bagging_proba, grow,
                                                      splitter_seed)


def _binary_cases():
    """0/1 and other two-valued columns (some constant, one pair closer than scikit-learn's
    FEATURE_THRESHOLD), two to four classes, repeated rows, a few tiny problems."""
    rng = np.random.RandomState(1)
    out = []
    for i in range(16):
        n, p, C = rng.randint(5, 300), rng.randint(1, 40), 2 + i % 3
        A = (rng.rand(n, p) < rng.uniform(0.02, 0.5)).astype(float)
        if i % 4 == 1:  # other pairs of values, per column
            A = np.where(A > 0, rng.randn(1, p), rng.randn(1, p))
        if i % 4 == 2:  # bootstrap-like repeats
            A = A[rng.randint(n, size=n)]
        if i % 4 == 3 and p > 1:  # a constant column and two values 5e-8 apart
            A[:, 0] = 0.25
            A[:, 1] = np.where(A[:, 1] > 0, 1.0 + 5e-8, 1.0)
        y = rng.randint(0, C, n)
        y[:C] = np.arange(C)
        out.append((A, y, C))
    return out


def _same_tree(ref, fast):
    feature, threshold, left, right, value = fast
    t = ref.tree_
    assert t.node_count == len(feature)
    np.testing.assert_array_equal(t.children_left, left)
    np.testing.assert_array_equal(t.children_right, right)
    inner = left != -1
    np.testing.assert_array_equal(t.feature[inner], feature[inner])
    np.testing.assert_array_equal(t.threshold[inner], threshold[inner])
    np.testing.assert_array_equal(t.value[:, 0, :], value)


@pytest.mark.parametrize("case", range(16))
def test_bit_set_builder_equals_sklearn_node_for_node(case):
    A, y, C = _binary_cases()[case]
    A32 = as_float32(A)
    two = two_valued_columns(A32)
    assert two is not None
    rows = np.arange(len(y))
    for seed in (0, 3, 2024):
        for msl in (1, 3):
            ref = DecisionTreeClassifier(criterion="entropy", min_samples_leaf=msl,
                                         random_state=seed).fit(A, y)
            fast = grow(A32, rows, y, C, seed, msl, two_valued=two)
            _same_tree(ref, fast)
            presorted = grow(A32, rows, y, C, seed, msl, two_valued=False)
            for a, b in zip(fast, presorted):
                np.testing.assert_array_equal(a, b)
            leaves = apply_tree(A32, *fast[:4])
            np.testing.assert_array_equal(ref.apply(A32), leaves)


def test_bit_set_builder_on_row_subsets_and_sparse_input():
    A, y, C = _binary_cases()[0]
    rows = np.sort(np.random.RandomState(0).choice(len(y), len(y) // 2, replace=False))
    ref = DecisionTreeClassifier(criterion="entropy", random_state=8)
    ref.fit(sparse.csr_matrix(A[rows]), y[rows])  # scikit-learn's sparse splitter
    yy = np.searchsorted(np.unique(y[rows]), y)
    _same_tree(ref, grow(as_float32(A), rows, yy, np.unique(y[rows]).size, 8))


def test_two_valued_columns_rejects_a_third_value_and_flags_high_values():
    A = np.array([[0.0, 2.0], [1.0, 2.0], [0.0, 2.0]], dtype=np.float32)
    lo, hi, H = two_valued_columns(A)
    np.testing.assert_array_equal(lo, [0, 2])
    np.testing.assert_array_equal(hi, [1, 2])
    np.testing.assert_array_equal(H, [[0, 0], [1, 0], [0, 0]])
    A[2, 0] = 0.5
    assert two_valued_columns(A) is None


def test_splitter_seed_is_sklearns_draw():
    for seed in (0, 1, 2**31 - 2, np.int64(77)):
        assert splitter_seed(seed) == check_random_state(seed).randint(0, fast_tree.RAND_R_MAX)
    rs = np.random.RandomState(5)
    assert splitter_seed(rs) == np.random.RandomState(5).randint(0, fast_tree.RAND_R_MAX)


def test_bagging_proba_is_predict_proba_bit_for_bit():
    A, y, _ = _binary_cases()[4]
    y = (y == 0).astype(int)
    y[:3] = [0, 1, 1]
    forest = BaggingClassifier(EntropyTree(min_samples_leaf=3), n_estimators=7, max_samples=0.2,
                               max_features=0.75, bootstrap=False, random_state=0)
    forest.fit(A, y)
    A32 = as_float32(A)
    np.testing.assert_array_equal(forest.predict_proba(A), bagging_proba(forest, A32))


@pytest.mark.parametrize("name", ["rf-cost", "rf-down", "rf-adasyn"])
def test_forests_on_small_sparse_binary_input_equal_the_reference(name):
    rng = np.random.RandomState(3)
    A = sparse.csr_matrix((rng.rand(150, 30) < 0.15).astype(float))
    Yb = (rng.rand(150, 3) < [0.3, 0.1, 0.5]).astype(int)
    Yb[:, 0] |= A[:, 0].toarray().ravel().astype(int)
    kw = dict(n_estimators=5, random_state=2)
    ref = registry.make(name, backend="sklearn", **kw).fit(A[:100], Yb[:100])
    fast = registry.make(name, backend="cython", **kw).fit(A[:100], Yb[:100])
    assert isinstance(fast.estimators_[0].estimators_[0], EntropyTree)
    np.testing.assert_array_equal(ref.threshold_, fast.threshold_)
    np.testing.assert_array_equal(ref.predict_proba(A[100:]), fast.predict_proba(A[100:]))
    np.testing.assert_array_equal(ref.predict(A[100:]), fast.predict(A[100:]))


def test_entropy_tree_reads_float64_slices_without_copy_and_refuses_nan_it_would_read():
    A, y, C = _binary_cases()[5]
    wide = np.hstack([A, np.random.RandomState(0).rand(len(y), 3)])
    tree = EntropyTree(random_state=0).fit(A, y)
    view = wide[:, :A.shape[1]]  # a non-contiguous float64 slice, as a classifier chain passes
    ref = DecisionTreeClassifier(criterion="entropy", random_state=0).fit(A, y)
    np.testing.assert_array_equal(ref.apply(A), tree.apply(view))
    used = tree.feature_[tree.left_ != -1]
    bad = A.copy()
    bad[0, used[0]] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        tree.apply(bad)


@pytest.mark.parametrize("case", range(0, 16, 3))
@pytest.mark.parametrize("max_depth", [1, 2])
def test_max_depth_equals_sklearn_in_both_builders(case, max_depth):
    A, y, C = _binary_cases()[case]
    cont = A + np.random.RandomState(case).randn(*A.shape)  # continuous: presorted builder
    for data in (A, cont):
        ref = DecisionTreeClassifier(criterion="entropy", max_depth=max_depth, min_samples_leaf=3,
                                     random_state=case).fit(data, y)
        _same_tree(ref, grow(as_float32(data), np.arange(len(y)), y, C, case, 3,
                             max_depth=max_depth))
