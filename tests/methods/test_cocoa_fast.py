"""The Cython entropy-tree builder grows scikit-learn's trees node for node, so COCOA and the rf-*
forests give identical results with either backend."""

import numpy as np
import pytest
from scipy import sparse
from sklearn.datasets import make_multilabel_classification
from sklearn.tree import DecisionTreeClassifier

from mlbench._ext._cocoa import apply_tree
from mlbench.errors import ConfigError
from mlbench.methods import registry
from mlbench.methods.transformation.cocoa import COCOA, _grow_fast
from mlbench.methods.components.fast_tree import EntropyTree

X, Y = make_multilabel_classification(n_samples=160, n_features=8, n_classes=5, random_state=2)
X = (X - X.mean(0)) / X.std(0)


def _cases():
    """Small problems of every kind the builder must handle: continuous values, heavy ties,
    mostly-zero columns (constant in many nodes), two and three classes, a few rows."""
    rng = np.random.RandomState(0)
    out = []
    for i in range(24):
        n, p, C = rng.randint(4, 160), rng.randint(1, 12), 2 + i % 2
        kind = i % 3
        if kind == 0:
            A = rng.randn(n, p)
        elif kind == 1:
            A = rng.randint(0, 3, size=(n, p)).astype(float)
        else:
            A = (rng.rand(n, p) < 0.15) * rng.randn(1, p)
        y = rng.randint(0, C, n)
        y[:C] = np.arange(C)
        out.append((A, y))
    return out


@pytest.mark.parametrize("case", range(24))
def test_grow_tree_equals_sklearn_node_for_node(case):
    A, y = _cases()[case]
    A32 = np.ascontiguousarray(A, dtype=np.float32)
    rows = np.arange(len(y))
    for seed in (0, 7, 123456):
        ref = DecisionTreeClassifier(criterion="entropy", random_state=seed).fit(A, y).tree_
        feature, threshold, left, right, proba = _grow_fast(A32, rows, y, seed, c=1)
        assert ref.node_count == len(feature)
        np.testing.assert_array_equal(ref.children_left, left)
        np.testing.assert_array_equal(ref.children_right, right)
        inner = left != -1
        np.testing.assert_array_equal(ref.feature[inner], feature[inner])
        np.testing.assert_array_equal(ref.threshold[inner], threshold[inner])
        np.testing.assert_array_equal(ref.value[:, 0, 1], proba)
        leaves = apply_tree(A32, feature, threshold, left, right)
        np.testing.assert_array_equal(ref.apply(A32), leaves)


def test_grow_tree_on_a_row_subset_sees_only_those_rows():
    rows = np.arange(0, 160, 3)
    y = Y[:, 0]
    ref = DecisionTreeClassifier(criterion="entropy", random_state=5).fit(X[rows], y[rows]).tree_
    feature, threshold, left, right, proba = _grow_fast(X.astype(np.float32), rows, y, 5, c=1)
    np.testing.assert_array_equal(ref.threshold, np.where(left == -1, -2.0, threshold))
    np.testing.assert_array_equal(ref.value[:, 0, 1], proba)


@pytest.mark.parametrize("as_sparse", [False, True])
def test_backends_give_identical_scores_thresholds_and_predictions(as_sparse):
    Xa = sparse.csr_matrix(X) if as_sparse else X
    kw = dict(n_estimators=4, n_couplings=3, random_state=11)
    ref = COCOA(backend="sklearn", **kw).fit(Xa[:110], Y[:110])
    fast = COCOA(backend="cython", **kw).fit(Xa[:110], Y[:110])
    np.testing.assert_array_equal(ref.threshold_, fast.threshold_)
    np.testing.assert_array_equal(ref.predict_proba(Xa[110:]), fast.predict_proba(Xa[110:]))
    np.testing.assert_array_equal(ref.predict(Xa[110:]), fast.predict(Xa[110:]))
    for a, b in zip(ref.couplings_, fast.couplings_):
        np.testing.assert_array_equal(a, b)


def test_base_params_fall_back_to_sklearn_trees_and_bad_backend_is_config_error():
    m = COCOA(n_estimators=2, n_couplings=1, base_params={"max_depth": 2}, random_state=0)
    assert m.fit(X, Y).backend_ == "sklearn"
    assert all(t.get_depth() <= 2 for t in m.learners_[0][0].trees_)
    with pytest.raises(ConfigError):
        COCOA(backend="java").fit(X, Y)


@pytest.mark.slow
@pytest.mark.mirror
def test_backends_agree_on_yeast_split():
    from mlbench.data.load import load_dataset
    from mlbench.data.preprocess import Pipeline, take_rows
    from mlbench.data.splits import make_splits
    from mlbench.protocols import load_protocol

    protocol = load_protocol("soshf")
    ds = load_dataset("yeast")
    split = make_splits(ds, protocol.split, protocol=protocol.name, seed=protocol.seed)[0]
    pipe = Pipeline(protocol.preprocess).fit(take_rows(ds, split.training_part))
    test = pipe.transform(take_rows(ds, split.test))
    kw = dict(n_estimators=2, n_couplings=2, random_state=3)
    ref = COCOA(backend="sklearn", **kw).fit(pipe.train_.X, pipe.train_.Y)
    fast = COCOA(backend="cython", **kw).fit(pipe.train_.X, pipe.train_.Y)
    np.testing.assert_array_equal(ref.predict_proba(test.X), fast.predict_proba(test.X))
    np.testing.assert_array_equal(ref.threshold_, fast.threshold_)


@pytest.mark.parametrize("case", range(0, 24, 3))
def test_entropy_tree_with_min_leaf_and_weights_equals_sklearn(case):
    A, y = _cases()[case]
    w = (np.random.RandomState(case).rand(len(y)) < 0.75).astype(float)
    for seed in (1, 99):
        ref = DecisionTreeClassifier(criterion="entropy", min_samples_leaf=3, random_state=seed)
        ref.fit(A, y, sample_weight=w)
        fast = EntropyTree(min_samples_leaf=3, random_state=seed).fit(A, y, sample_weight=w)
        np.testing.assert_array_equal(ref.apply(A.astype(np.float32)), fast.apply(A))
        np.testing.assert_array_equal(ref.predict_proba(A), fast.predict_proba(A))
    with pytest.raises(ConfigError):
        EntropyTree().fit(A, y, sample_weight=np.full(len(y), 0.5))


@pytest.mark.parametrize("name", ["rf-cost", "rf-down", "rf-adasyn"])
def test_forest_backends_give_identical_scores_and_predictions(name):
    kw = dict(n_estimators=6, random_state=4)
    ref = registry.make(name, backend="sklearn", **kw).fit(X[:110], Y[:110])
    fast = registry.make(name, backend="cython", **kw).fit(X[:110], Y[:110])
    np.testing.assert_array_equal(ref.threshold_, fast.threshold_)
    np.testing.assert_array_equal(ref.predict_proba(X[110:]), fast.predict_proba(X[110:]))
    np.testing.assert_array_equal(ref.predict(X[110:]), fast.predict(X[110:]))
    assert isinstance(fast.estimators_[0].estimators_[0], EntropyTree)


def test_forest_densifies_small_sparse_input_and_keeps_sklearn_trees_on_large(monkeypatch):
    from mlbench.methods.components import fast_tree

    m = registry.make("rf-down", backend="cython", n_estimators=2, random_state=0)
    m.fit(sparse.csr_matrix(X[:110]), Y[:110])
    assert isinstance(m.estimators_[0].estimators_[0], EntropyTree)
    monkeypatch.setattr(fast_tree, "DENSE_MAX_CELLS", 10)
    m.fit(sparse.csr_matrix(X[:110]), Y[:110])
    assert isinstance(m.estimators_[0].estimators_[0], DecisionTreeClassifier)


def test_bad_forest_backend_and_leaf_size_are_config_errors():
    with pytest.raises(ConfigError, match="backend must be one of cython, sklearn"):
        registry.make("rf-cost", backend="java", n_estimators=2).fit(X, Y)
    with pytest.raises(ConfigError, match="min_samples_leaf"):
        EntropyTree(min_samples_leaf=0).fit(X, Y[:, 0])


def test_presort_is_an_argsort_of_every_row():
    """presort: majority rows (the minority sorted around the majority value), NaN rows and
    continuous rows all come out as permutations that order the row's values."""
    from mlbench.methods.components.fast_tree import presort

    rng = np.random.RandomState(0)
    n = 300
    rows = [rng.randn(n),                                         # no majority: NumPy's sort
            np.where(rng.rand(n) < 0.9, -0.3, rng.randn(n)),     # standardised bag of words
            np.where(rng.rand(n) < 0.6, 0.0, 1.0),               # 0/1 with a majority
            np.full(n, 2.5),                                     # constant
            np.where(rng.rand(n) < 0.5, 0.0, 1.0),               # 0/1 without a clear majority
            np.r_[np.full(n - 5, 1.0), [np.nan, 0.5, 3.0, -1.0, 1.0]]]  # majority and a NaN
    Xl = np.ascontiguousarray(np.vstack(rows), dtype=np.float32)
    order = presort(Xl)
    for f in range(Xl.shape[0]):
        assert np.array_equal(np.sort(order[f]), np.arange(n))
        v = Xl[f, order[f]]
        v = v[~np.isnan(v)]
        assert np.all(np.diff(v) >= 0), f


@pytest.mark.parametrize("case", range(6))
def test_bagged_entropy_forest_equals_sklearn_bagging_member_for_member(case):
    """BaggedEntropyForest draws Bagging's seeds, features and rows and grows, from columns
    sorted once, every member scikit-learn grows (continuous, tied, two-valued columns)."""
    from sklearn.ensemble import BaggingClassifier

    from mlbench.methods.components.fast_tree import BaggedEntropyForest

    rng = np.random.RandomState(case)
    n, p = 60 + 37 * case, 3 + 2 * case
    kind = case % 3
    A = (rng.randn(n, p) if kind == 0 else rng.randint(0, 3, (n, p)).astype(float) if kind == 1
         else (rng.rand(n, p) < 0.3).astype(float))
    y = np.where(A[:, 0] + rng.randn(n) > 0.2, "yes", "no")
    kw = dict(n_estimators=7, max_samples=0.75 if case % 2 else 40, max_features=0.6,
              random_state=case)
    ref = BaggingClassifier(DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2),
                            bootstrap=False, bootstrap_features=False, **kw).fit(A, y)
    fast = BaggedEntropyForest(min_samples_leaf=2, **kw).fit(A, y)
    assert list(fast.classes_) == list(ref.classes_)
    for t_ref, t_fast, f_ref, f_fast, s_ref, s_fast in zip(
            ref.estimators_, fast.estimators_, ref.estimators_features_,
            fast.estimators_features_, ref.estimators_samples_, fast.estimators_samples_):
        np.testing.assert_array_equal(f_ref, f_fast)
        np.testing.assert_array_equal(s_ref, s_fast)
        tr = t_ref.tree_
        np.testing.assert_array_equal(tr.feature, t_fast.feature_)
        np.testing.assert_array_equal(tr.threshold, t_fast.threshold_)
        np.testing.assert_array_equal(tr.children_left, t_fast.left_)
        np.testing.assert_array_equal(tr.value[:, 0, :], t_fast.value_)
    np.testing.assert_array_equal(ref.predict_proba(A), fast.predict_proba(A))


def test_forest_sorts_x_once_for_every_label_it_does_not_resample(monkeypatch):
    """rf-cost presorts X once for all labels (the forests read it, not a copy); rf-adasyn once
    per label (each label has its own rows)."""
    from mlbench.methods.components import fast_tree

    made = []
    real = fast_tree.Presorted.__init__

    def counting(self, X32):
        made.append(X32.shape)
        real(self, X32)

    monkeypatch.setattr(fast_tree.Presorted, "__init__", counting)
    registry.make("rf-cost", n_estimators=3, random_state=0).fit(X[:110], Y[:110])
    assert made == [(110, X.shape[1])]
    made.clear()
    m = registry.make("rf-adasyn", n_estimators=3, random_state=0).fit(X[:110], Y[:110])
    resampled = Y.shape[1] - m.fit_info_["adasyn_skipped"]
    assert len(made) == Y.shape[1] and sum(s[0] > 110 for s in made) == resampled


def test_subset_presorted_checks_every_index():
    from mlbench._ext._cocoa import subset_presorted
    from mlbench.methods.components.fast_tree import presort

    XT = np.ascontiguousarray(np.random.RandomState(0).randn(3, 10), dtype=np.float32)
    S = presort(XT)
    feats, rows = np.array([2, 0], dtype=np.intp), np.array([1, 4, 5, 9], dtype=np.intp)
    Xl, St = subset_presorted(XT, S, feats, rows)
    np.testing.assert_array_equal(Xl, XT[feats][:, rows])
    for f in range(2):
        assert np.all(np.diff(Xl[f, St[f]]) >= 0) and sorted(St[f]) == list(range(4))
    np.testing.assert_array_equal(St[2], np.arange(4))
    with pytest.raises(IndexError, match="feature 3"):
        subset_presorted(XT, S, np.array([3], dtype=np.intp), rows)
    with pytest.raises(IndexError, match="increasing"):
        subset_presorted(XT, S, feats, np.array([4, 1], dtype=np.intp))
    with pytest.raises(IndexError, match="increasing"):
        subset_presorted(XT, S, feats, np.array([1, 10], dtype=np.intp))
    bad = S.copy()
    bad[0, 3] = 12
    with pytest.raises(ValueError, match="not a permutation"):
        subset_presorted(XT, bad, feats, rows)
    bad = S.copy()
    bad[0, 3] = bad[0, 4]
    with pytest.raises(ValueError, match="not a permutation"):
        subset_presorted(XT, bad, np.array([0], dtype=np.intp), np.arange(10, dtype=np.intp))
    with pytest.raises(ValueError, match="S is"):
        subset_presorted(XT, S[:2], feats, rows)
