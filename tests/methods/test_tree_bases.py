"""ECC, CLR, RAkEL and HOMER with ``base="tree"`` grow their entropy trees with EntropyTree; the
results equal those of scikit-learn's ``DecisionTreeClassifier(criterion="entropy")`` bit for bit,
on dense continuous data and on sparse 0/1 data (densified and grown from bit sets)."""
import numpy as np
import pytest
from scipy import sparse
from sklearn.datasets import make_multilabel_classification
from sklearn.tree import DecisionTreeClassifier

from mlbench.methods import registry
from mlbench.methods.components.fast_tree import EntropyTree, tree_base

Xc, Yc = make_multilabel_classification(n_samples=140, n_features=7, n_classes=5, random_state=4)
Xc = (Xc - Xc.mean(0)) / Xc.std(0)
_rng = np.random.RandomState(9)
Xb = sparse.csr_matrix((_rng.rand(140, 25) < 0.12).astype(float))
Yb = (_rng.rand(140, 6) < 0.3).astype(int)
Yb[:, 1] |= Xb[:, 3].toarray().ravel().astype(int)

METHODS = {"ecc": dict(n_estimators=4), "clr": {}, "rakel": {}, "homer": dict(n_children=2)}


def _outputs(model, X):
    out = [model.predict(X)]
    for name in ("predict_proba", "decision_function"):
        if hasattr(model, name):
            out.append(getattr(model, name)(X))
    return out


def _trees(model):
    """Every fitted base learner reachable from the model (chains, pairs, LP models, nodes)."""
    found, stack = [], [model]
    while stack:
        obj = stack.pop()
        if isinstance(obj, (EntropyTree, DecisionTreeClassifier)):
            found.append(obj)
        elif isinstance(obj, (list, tuple)):
            stack.extend(obj)
        elif hasattr(obj, "__dict__") or hasattr(obj, "__slots__"):
            names = list(getattr(obj, "__dict__", {})) + list(getattr(obj, "__slots__", ()))
            stack.extend(getattr(obj, k) for k in names if k.endswith("_") or k in (
                "estimator", "models", "children", "root_"))
    return found


@pytest.mark.parametrize("name", sorted(METHODS))
@pytest.mark.parametrize("data", ["dense", "sparse01"])
def test_entropy_tree_base_equals_sklearn_trees(name, data):
    X, Y = (Xc, Yc) if data == "dense" else (Xb, Yb)
    kw = dict(METHODS[name], random_state=6)
    fast = registry.make(name, base="tree", **kw).fit(X[:100], Y[:100])
    ref = registry.make(name, base=DecisionTreeClassifier(criterion="entropy"), **kw)
    ref.fit(X[:100], Y[:100])
    trees = _trees(fast)
    assert trees and all(isinstance(t, EntropyTree) for t in trees)
    assert all(isinstance(t, DecisionTreeClassifier) for t in _trees(ref))
    for a, b in zip(_outputs(ref, X[100:]), _outputs(fast, X[100:])):
        np.testing.assert_array_equal(a, b)


def test_tree_base_replaces_only_the_default_entropy_tree():
    assert isinstance(tree_base("tree", None)[0], EntropyTree)
    assert isinstance(tree_base("c45", {})[0], EntropyTree)
    assert tree_base("tree", {"max_depth": 3}) == ("tree", {"max_depth": 3})
    assert tree_base("lr", None) == ("lr", None)


def test_a_chain_of_entropy_trees_sorts_x_once_and_grows_the_same_trees(monkeypatch):
    """ClassifierChain presorts x's columns once for all its trees (PresortedPrefixes); every
    tree array equals the one grown tree by tree (x sorted again each time)."""
    from mlbench.methods.transformation import cc

    X = np.hstack([Xc, (Xc[:, :3] > 0).astype(float)])
    Y = Yc.copy()
    Y[:, 4] = 0                                          # a constant label in the middle
    shared = cc.ClassifierChain(base=EntropyTree(), order="random", random_state=3).fit(X, Y)
    calls = []
    monkeypatch.setattr(cc, "_presorted_prefixes", lambda *a: calls.append(1))
    plain = cc.ClassifierChain(base=EntropyTree(), order="random", random_state=3).fit(X, Y)
    assert calls == [1]
    for a, b in zip(shared.estimators_, plain.estimators_):
        assert type(a) is type(b)
        if isinstance(a, EntropyTree):
            assert a.n_features_in_ == b.n_features_in_
            for f in ("feature_", "threshold_", "left_", "right_", "value_"):
                np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    np.testing.assert_array_equal(shared.predict_proba(X), plain.predict_proba(X))
