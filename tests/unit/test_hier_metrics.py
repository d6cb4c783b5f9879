"""hP, hR, hF1 and tree-induced error (HierCost eq. 15-18) on hand-worked examples."""
from __future__ import annotations

import numpy as np
import pytest

from mlbench.data.hierarchy import Hierarchy
from mlbench.metrics import evaluate, get_measure
from mlbench.metrics._validate import MetricInputError
from mlbench.metrics.hierarchical import h_f1, h_precision, h_recall, tree_induced_error

# a -> a1 -> (a11, a12), a -> a2 ; b -> b1
H = Hierarchy([("a", "a1"), ("a1", "a11"), ("a1", "a12"), ("a", "a2"), ("b", "b1")])
LEAVES = ["a11", "a12", "a2", "b1"]
HL = H.with_labels(LEAVES)


def onehot(labels):
    M = np.zeros((len(labels), len(LEAVES)), dtype=np.int8)
    for i, ls in enumerate(labels):
        for lab in ls.split(","):
            M[i, LEAVES.index(lab)] = 1
    return M


def test_single_label_by_hand():
    Y = onehot(["a11", "a11", "b1"])
    P = onehot(["a11", "a12", "a2"])
    # |A(l) & A(l^)|: 3, 2 (a, a1), 0 ; |A(l^)|: 3, 3, 2 ; |A(l)|: 3, 3, 2
    assert h_precision(Y, P, hierarchy=HL) == pytest.approx(5 / 8)
    assert h_recall(Y, P, hierarchy=HL) == pytest.approx(5 / 8)
    assert h_f1(Y, P, hierarchy=HL) == pytest.approx(5 / 8)
    # gamma: 0, 2, 4 (a2 -> a -> root -> b -> b1)
    assert tree_induced_error(Y, P, hierarchy=HL) == pytest.approx(2.0)


def test_multi_label_union_and_gamma_ml():
    Y = onehot(["a11,b1"])
    P = onehot(["a12,a2"])
    # A_ml(l) = {a11, a1, a, b1, b}; A_ml(l^) = {a12, a1, a, a2}; overlap {a1, a}
    assert h_precision(Y, P, hierarchy=HL) == pytest.approx(2 / 4)
    assert h_recall(Y, P, hierarchy=HL) == pytest.approx(2 / 5)
    assert h_f1(Y, P, hierarchy=HL) == pytest.approx(2 * 0.5 * 0.4 / 0.9)
    # gamma_ml = (min(g(a12,a11)=2, g(a12,b1)=5) + min(g(a2,a11)=3, g(a2,b1)=4)) / 2
    assert tree_induced_error(Y, P, hierarchy=HL) == pytest.approx(2.5)


def test_closed_layout_gives_the_same_values():
    Y, P = onehot(["a11", "a11,b1"]), onehot(["a12", "a2"])
    Yc = np.zeros((2, len(H)), dtype=np.int8)
    Pc = np.zeros_like(Yc)
    li = HL.label_index
    Yc[:, li], Pc[:, li] = Y, P
    Yc, Pc = H.close(Yc), H.close(Pc)
    for f in (h_precision, h_recall, h_f1, tree_induced_error):
        assert f(Yc, Pc, hierarchy=H) == pytest.approx(f(Y, P, hierarchy=HL))


def test_empty_prediction_is_the_root():
    Y, P = onehot(["a11"]), np.zeros((1, 4), dtype=np.int8)
    assert tree_induced_error(Y, P, hierarchy=HL) == 3.0     # root -> a -> a1 -> a11
    assert h_precision(Y, P, hierarchy=HL) == 0.0 and h_recall(Y, P, hierarchy=HL) == 0.0


def test_registered_and_evaluated_with_hierarchy():
    assert get_measure("tree_error").greater_is_better is False
    assert get_measure("h_f1").needs == "hierarchy"
    Y, P = onehot(["a11", "b1"]), onehot(["a11", "b1"])
    out = evaluate(Y, predictions=P, measures=["h_f1", "tree_error"], hierarchy=HL)
    assert out == {"h_f1": 1.0, "tree_error": 0.0}


def test_errors():
    Y = onehot(["a11"])
    with pytest.raises(MetricInputError, match="hierarchy"):
        h_f1(Y, Y, hierarchy=None)
    with pytest.raises(MetricInputError, match="maps 7 labels"):
        h_f1(Y, Y, hierarchy=H)


def test_example_based_hf1_by_hand_and_against_the_pooled_convention():
    from mlbench.metrics.hierarchical import h_f1_example

    Y = onehot(["a11", "b1"])
    P = onehot(["a12", "a11,b1"])
    # example 1: A(l) = {a, a1, a11}, A(l^) = {a, a1, a12}: overlap 2, hP = hR = 2/3, hF1 = 2/3
    # example 2: A(l) = {b, b1}, A(l^) = {a, a1, a11, b, b1}: overlap 2, hP = 2/5, hR = 1, hF1 = 4/7
    assert h_f1_example(Y, P, hierarchy=HL) == pytest.approx((2 / 3 + 4 / 7) / 2)
    # pooled: overlaps 4 of 8 predicted and 5 true: hP = 1/2, hR = 4/5
    assert h_f1(Y, P, hierarchy=HL) == pytest.approx(2 * 0.5 * 0.8 / 1.3)
    assert get_measure("h_f1_example").greater_is_better


def test_same_depth_single_label_identity_holds_for_both_conventions():
    from mlbench.metrics.hierarchical import h_f1_example

    rng = np.random.RandomState(0)
    leaves = ["a11", "a12"]                      # both at depth 3
    Y = onehot([leaves[i] for i in rng.randint(2, size=40)])
    P = onehot([leaves[i] for i in rng.randint(2, size=40)])
    te = tree_induced_error(Y, P, hierarchy=HL)
    assert h_f1(Y, P, hierarchy=HL) == pytest.approx(1 - te / 6)
    assert h_f1_example(Y, P, hierarchy=HL) == pytest.approx(1 - te / 6)


def test_rowwise_statistics_reproduce_each_measure():
    from mlbench.metrics import hierarchical

    rng = np.random.RandomState(1)
    Y = onehot([",".join(sorted(set(rng.choice(LEAVES, 2)))) for _ in range(30)])
    P = onehot([",".join(sorted(set(rng.choice(LEAVES, 1 + i % 2)))) for i in range(30)])
    rows = rng.randint(30, size=30)
    for name, (per_row, combine) in hierarchical.ROWWISE.items():
        measure = get_measure(name)
        assert combine(per_row(Y, P, HL)[rows]) == pytest.approx(measure(Y[rows], P[rows], hierarchy=HL))
