"""RF-PCT / ERF-PCT / RFML-C4.5 blocks: the split heuristics and leaves claimed in pct.py."""
import numpy as np
import pytest
from sklearn.datasets import make_multilabel_classification

from mlbench.errors import ConfigError
from mlbench.methods import registry
from mlbench.methods.trees.pct import MultiLabelForest, fit_forest, forest_proba, make_forest

X, Y = make_multilabel_classification(n_samples=80, n_features=6, n_classes=4, random_state=0)


def _best_split(X, Y, impurity):
    """Brute force: the (feature, threshold) minimising the size-weighted summed impurity."""
    best = (np.inf, None, None)
    for f in range(X.shape[1]):
        values = np.unique(X[:, f])
        for lo, hi in zip(values[:-1], values[1:]):
            left = X[:, f] <= (lo + hi) / 2
            cost = sum(mask.sum() * impurity(Y[mask]) for mask in (left, ~left))
            if cost < best[0] - 1e-12:
                best = (cost, f, (lo + hi) / 2)
    return best[1], best[2]


def _summed_variance(Y):
    return Y.var(axis=0).sum()


def _summed_entropy(Y):
    p = Y.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(p * np.log2(p) + (1 - p) * np.log2(1 - p))
    return np.nan_to_num(h).sum()


def _first_tree(forest):
    """The first tree's structure (a variance forest keeps only its compact form after the fit)."""
    return forest.compact_.skeletons[0] if hasattr(forest, "compact_") else forest.estimators_[0].tree_


@pytest.mark.parametrize("split,impurity", [("variance", _summed_variance),
                                            ("entropy", _summed_entropy)])
def test_root_split_minimises_summed_label_heuristic(split, impurity):
    forest = make_forest(split, "rf", n_estimators=1, max_depth=1, max_features=None,
                         random_state=0)
    forest.set_params(bootstrap=False)  # the whole sample, so the brute force sees the same data
    fit_forest(forest, X, Y)
    tree = _first_tree(forest)
    f, t = _best_split(X, Y.astype(float), impurity)
    assert tree.feature[0] == f
    assert tree.threshold[0] == pytest.approx(t)


def test_leaf_keeps_fraction_of_positives_per_label():
    forest = make_forest("variance", "rf", n_estimators=1, max_depth=1, max_features=None,
                         random_state=0)
    forest.set_params(bootstrap=False)
    fit_forest(forest, X, Y)
    tree = _first_tree(forest)
    left = X[:, tree.feature[0]] <= tree.threshold[0]
    P = forest_proba(forest, X)
    np.testing.assert_allclose(P[left][0], Y[left].mean(axis=0))
    np.testing.assert_allclose(P[~left][0], Y[~left].mean(axis=0))


@pytest.mark.parametrize("name", ["rf-pct", "erf-pct", "rfml-c45", "erfml-c45"])
def test_registered_forests_give_probabilities_and_are_reproducible(name):
    est = registry.make(name, random_state=3, n_estimators=10)
    P = est.fit(X, Y).predict_proba(X)
    assert P.shape == Y.shape and P.min() >= 0 and P.max() <= 1
    P2 = registry.make(name, random_state=3, n_estimators=10).fit(X, Y).predict_proba(X)
    np.testing.assert_array_equal(P, P2)
    assert set(np.unique(est.predict(X))) <= {0, 1}


def test_erf_uses_no_bootstrap_and_rf_does():
    assert make_forest("variance", "erf", n_estimators=2).bootstrap is False
    assert make_forest("variance", "rf", n_estimators=2).bootstrap is True


def test_constant_label_and_single_label():
    Yc = Y.copy()
    Yc[:, 1] = 0
    for split in ("variance", "entropy"):
        P = MultiLabelForest(n_estimators=5, split=split, random_state=0).fit(X, Yc).predict_proba(X)
        assert np.all(P[:, 1] == 0)
        P1 = MultiLabelForest(n_estimators=5, split=split, random_state=0).fit(X, Y[:, :1])
        assert P1.predict_proba(X).shape == (len(X), 1)


def test_bad_split_name_is_a_config_error():
    with pytest.raises(ConfigError):
        MultiLabelForest(split="gini").fit(X, Y)


@pytest.mark.parametrize("randomization", ["rf", "erf"])
@pytest.mark.parametrize("sparse", [False, True])
def test_compact_forest_predicts_scikit_learns_numbers_bit_for_bit(randomization, sparse):
    import scipy.sparse as sps
    from mlbench.methods.trees.pct import CompactForest, make_forest

    r = np.random.RandomState(7)
    X = r.rand(300, 12)
    X[X < 0.5] = 0.0
    Y = (r.rand(300, 9) < 0.2).astype(np.float64)
    Xin = sps.csr_matrix(X) if sparse else X
    forest = make_forest("variance", randomization, n_estimators=8, random_state=1).fit(Xin, Y)
    compact = CompactForest(forest)
    np.testing.assert_array_equal(compact.predict(Xin[:150]), forest.predict(Xin[:150]))
    full = sum(e.tree_.value.nbytes + e.tree_.__getstate__()["nodes"].nbytes
               for e in forest.estimators_)
    assert compact.nbytes() < full


def test_fitted_variance_forest_keeps_only_the_compact_form():
    from mlbench.methods.trees.pct import MultiLabelForest

    r = np.random.RandomState(3)
    X, Y = r.rand(120, 5), (r.rand(120, 4) < 0.3).astype(int)
    m = MultiLabelForest(n_estimators=5, random_state=0).fit(X, Y)
    assert not hasattr(m.forest_, "estimators_") and hasattr(m.forest_, "compact_")
    assert m.predict_proba(X).shape == (120, 4)


def test_leaf_csr_is_scipys_csr_of_the_leaf_rows():
    """The kernel's CSR equals scipy's conversion of the dense values with internal rows zeroed:
    same indptr, sorted indices, data (NaN kept, zeros dropped) and index dtype; bad shapes are
    refused."""
    import scipy.sparse as sps
    from mlbench._ext._pct import leaf_csr

    r = np.random.RandomState(5)
    values = np.where(r.rand(40, 7, 1) < 0.6, 0.0, r.rand(40, 7, 1))
    values[3, 2, 0] = np.nan
    values[5] = 0.0                                   # a leaf with no positive label
    left_child = np.where(r.rand(40) < 0.5, -1, 1).astype(np.intp)
    left_child[[3, 5]] = -1
    dense = values[:, :, 0].copy()
    dense[left_child != -1] = 0.0
    ref = sps.csr_matrix(dense)
    got = sps.csr_matrix(leaf_csr(values, left_child), shape=dense.shape)
    for field in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(got, field), getattr(ref, field))
        assert getattr(got, field).dtype == getattr(ref, field).dtype
    structured = np.zeros(40, dtype=[("left_child", np.intp), ("right_child", np.intp)])
    structured["left_child"] = left_child              # a strided field, as Tree.__getstate__ gives
    np.testing.assert_array_equal(leaf_csr(values, structured["left_child"])[2], ref.indptr)
    with pytest.raises(ValueError, match="leaf_csr"):
        leaf_csr(values, left_child[:-1])
    with pytest.raises(ValueError, match="leaf_csr"):
        leaf_csr(values[:, :, :0], left_child)
