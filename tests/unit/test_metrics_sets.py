"""Example-based and label-based measures of 0/1 predictions, against scikit-learn and by hand."""
import numpy as np
import pytest
from sklearn import metrics as skm

from mlbench.metrics import MetricInputError, get_measure

# toy: 4 instances x 3 labels.  Row 1 has no true and no predicted label (both-empty rule), row 3 an
# empty prediction for a non-empty truth; label 2 is true for no instance and predicted for none.
Y = np.array([[1, 1, 0], [0, 0, 0], [1, 0, 0], [0, 1, 0]])
P = np.array([[1, 0, 0], [0, 0, 0], [1, 1, 0], [0, 0, 0]])


def m(name, Yt=Y, Pr=P):
    return get_measure(name)(Yt, Pr)


def random_pair(seed, n=60, L=7, density=0.3):
    rng = np.random.default_rng(seed)
    Yt = (rng.random((n, L)) < density).astype(int)
    Pr = (rng.random((n, L)) < density).astype(int)
    Yt[:3] = 0  # some instances with no true label
    Pr[2:5] = 0  # some empty predictions
    Yt[:, 0] = 0  # a label with no positive instance ...
    Pr[:, 0] = 0  # ... and never predicted
    Yt[:, 1] = 0  # a label with no positive instance but predicted sometimes
    Pr[5, 1] = 1
    return Yt, Pr


def test_hand_worked_toy():
    assert m("hamming_loss") == pytest.approx(3 / 12)
    assert m("one_minus_hamming") == pytest.approx(9 / 12)
    assert m("subset_accuracy") == pytest.approx(1 / 4)
    assert m("exact_match") == m("subset_accuracy")
    # per instance Jaccard: 1/2, 1 (both empty), 1/2, 0
    assert m("accuracy") == pytest.approx((0.5 + 1 + 0.5 + 0) / 4)
    # precision: 1, 1, 1/2, 0 (empty prediction, non-empty truth)
    assert m("example_precision") == pytest.approx((1 + 1 + 0.5 + 0) / 4)
    assert m("example_recall") == pytest.approx((0.5 + 1 + 1 + 0) / 4)
    assert m("example_f1") == pytest.approx((2 / 3 + 1 + 2 / 3 + 0) / 4)
    # pooled: tp 2, fp 1, fn 2
    assert m("micro_precision") == pytest.approx(2 / 3)
    assert m("micro_recall") == pytest.approx(2 / 4)
    assert m("micro_f1") == pytest.approx(4 / 7)
    # per label F1: label0 1, label1 (tp0 fp1 fn2) 0, label2 neither true nor predicted: 1
    assert m("macro_f1") == pytest.approx((1 + 0 + 1) / 3)
    assert m("macro_precision") == pytest.approx((1 + 0 + 1) / 3)
    assert m("macro_recall") == pytest.approx((1 + 0 + 1) / 3)


@pytest.mark.parametrize("seed", range(8))
def test_matches_sklearn(seed):
    Yt, Pr = random_pair(seed)
    assert m("hamming_loss", Yt, Pr) == pytest.approx(skm.hamming_loss(Yt, Pr))
    assert m("subset_accuracy", Yt, Pr) == pytest.approx(skm.accuracy_score(Yt, Pr))
    for avg in ("micro", "samples"):
        prefix = "micro" if avg == "micro" else "example"
        # zero_division=1 is MULAN's rule for F1 (0/0 only when both sets are empty)
        assert m(f"{prefix}_f1", Yt, Pr) == pytest.approx(skm.f1_score(Yt, Pr, average=avg, zero_division=1))
    jaccard = skm.jaccard_score(Yt, Pr, average="samples", zero_division=1)
    assert m("accuracy", Yt, Pr) == pytest.approx(jaccard)
    assert m("macro_f1", Yt, Pr) == pytest.approx(skm.f1_score(Yt, Pr, average="macro", zero_division=1))
    assert m("micro_precision", Yt, Pr) == pytest.approx(skm.precision_score(Yt, Pr, average="micro"))
    assert m("micro_recall", Yt, Pr) == pytest.approx(skm.recall_score(Yt, Pr, average="micro"))


def _mulan_from_sklearn(per_label_or_instance, both_empty):
    """scikit-learn's zero_division=0 values with the both-empty cases set to 1 (MULAN's rule)."""
    return np.where(both_empty, 1.0, per_label_or_instance).mean()


@pytest.mark.parametrize("seed", range(8))
def test_precision_recall_follow_mulan_rule(seed):
    Yt, Pr = random_pair(seed)
    for axis, avg, prefix in ((0, None, "macro"), (1, "samples", "example")):
        both_empty = ~(Yt.astype(bool) | Pr.astype(bool)).any(axis=axis)
        if avg is None:
            p = skm.precision_score(Yt, Pr, average=None, zero_division=0)
            r = skm.recall_score(Yt, Pr, average=None, zero_division=0)
        else:
            p = np.array([skm.precision_score(a, b, zero_division=0) for a, b in zip(Yt, Pr)])
            r = np.array([skm.recall_score(a, b, zero_division=0) for a, b in zip(Yt, Pr)])
        assert m(f"{prefix}_precision", Yt, Pr) == pytest.approx(_mulan_from_sklearn(p, both_empty))
        assert m(f"{prefix}_recall", Yt, Pr) == pytest.approx(_mulan_from_sklearn(r, both_empty))


def test_label_without_positives():
    Yt = np.array([[1, 0], [0, 0], [1, 0]])
    # label 1 never true: never predicted -> F1 1; predicted once -> F1 0
    assert m("macro_f1", Yt, np.array([[1, 0], [0, 0], [1, 0]])) == 1.0
    assert m("macro_f1", Yt, np.array([[1, 1], [0, 0], [1, 0]])) == 0.5
    assert m("macro_precision", Yt, np.array([[1, 1], [0, 0], [1, 0]])) == 0.5


def test_all_empty_is_perfect():
    Z = np.zeros((3, 4), dtype=int)
    for name in ("accuracy", "example_precision", "example_recall", "example_f1", "micro_f1",
                 "micro_precision", "macro_f1", "subset_accuracy", "one_minus_hamming"):
        assert m(name, Z, Z) == 1.0, name


def test_bool_and_sparse_inputs():
    import scipy.sparse as sp

    assert m("micro_f1", Y.astype(bool), sp.csr_matrix(P)) == pytest.approx(4 / 7)


@pytest.mark.parametrize(
    "Yt, Pr, message",
    [
        (Y, P[:3], "shape"),
        (Y, P * 2, "row 0: value 2 is not 0 or 1"),
        (Y[:, :0], P[:, :0], "empty"),
        (Y[0], P[0], "2-D"),
        (Y + 0.5, P, "not 0 or 1"),
    ],
)
def test_bad_input(Yt, Pr, message):
    with pytest.raises(MetricInputError, match=message):
        m("hamming_loss", Yt, Pr)


def test_directions():
    assert not get_measure("hamming_loss").greater_is_better
    assert get_measure("one_minus_hamming").greater_is_better
    assert get_measure("macro_f1").needs == "predictions"
    assert get_measure("macro_f1").kind == "label"
    assert get_measure("example_f1").kind == "example"
