"""Weka's J48 (mlbench.methods.components.j48) against Weka itself.

``reference/j48_weka.npz`` holds the class probabilities Weka's J48 (compiled from Weka's source
by ``reference/j48_weka.py``, which says how to regenerate it) gives on four small data sets for
eight option strings: pruned at C = 0.1, 0.25, 0.5, M = 2 and 5, unpruned, without subtree
raising, without collapsing.
"""
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlbench.methods.components.c45_pruning import added_errors
from mlbench.methods.components.j48 import J48

REF = Path(__file__).parent / "reference"
DATASETS = ("emotions_label0", "emotions_lp", "ties", "sparse01")


def _configs():
    import sys
    sys.path.insert(0, str(REF))
    try:
        from j48_weka import CONFIGS
    finally:
        sys.path.remove(str(REF))
    return CONFIGS


CONFIGS = _configs()


@pytest.fixture(scope="module")
def weka():
    return np.load(REF / "j48_weka.npz")


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("options", list(CONFIGS))
def test_probabilities_equal_wekas(weka, name, options):
    Xtr, ytr, Xte = (weka[f"{name}/{k}"] for k in ("X_train", "y_train", "X_test"))
    ref = weka[f"{name}/{options}/proba"]
    est = J48(**CONFIGS[options]).fit(Xtr, ytr)
    proba = np.zeros_like(ref)
    proba[:, est.classes_] = est.predict_proba(Xte)
    np.testing.assert_allclose(proba, ref, rtol=0, atol=1e-12)
    assert int((est.left_ == -1).sum()) == int(weka[f"{name}/{options}/leaves"])


def test_sparse_input_gives_the_dense_tree(weka):
    Xtr, ytr, Xte = (weka[f"sparse01/{k}"] for k in ("X_train", "y_train", "X_test"))
    dense = J48().fit(Xtr, ytr)
    sparse = J48().fit(sp.csr_matrix(Xtr), ytr)
    np.testing.assert_array_equal(dense.predict_proba(Xte), sparse.predict_proba(sp.csc_matrix(Xte)))
    np.testing.assert_array_equal(dense.threshold_, sparse.threshold_)


def test_threshold_is_a_training_value_and_negative_values_split():
    # the cut between -2 and 3 has midpoint 0.5; Weka moves it down to the largest training value
    # at most 0.5, here 0 (rows with a zero): a test value of 0.4 goes right
    X = np.array([[-2.0]] * 5 + [[0.0]] * 5 + [[3.0]] * 10)
    y = np.array([0] * 10 + [1] * 10)
    est = J48(unpruned=True).fit(X, y)
    assert est.threshold_[0] == 0.0
    np.testing.assert_array_equal(est.predict(np.array([[0.0], [0.4], [-5.0]])), [0, 1, 0])


def test_pruning_confidence_changes_the_tree(weka):
    Xtr, ytr = weka["ties/X_train"], weka["ties/y_train"]
    sizes = [J48(C=c).fit(Xtr, ytr).feature_.size for c in (0.1, 0.5)]
    assert sizes[0] < sizes[1]
    assert J48(unpruned=True).fit(Xtr, ytr).feature_.size > sizes[1]


def test_added_errors_no_error_case_is_exact():
    # e = 0: the upper bound n (1 - CF^(1/n)) (C4.5's exact binomial case)
    assert added_errors(10, 0.0, 0.1) == pytest.approx(10 * (1 - 0.1 ** 0.1))
    assert added_errors(10, 2.0, 0.6) == 0.0             # CF above 0.5: nothing added


@pytest.mark.parametrize("params", [{"C": 0.0}, {"C": 1.0}, {"M": 0}, {"M": 1.5}])
def test_bad_parameters_are_rejected(params):
    with pytest.raises(ValueError):
        J48(**params).fit(np.zeros((4, 1)), [0, 1, 0, 1])


@parametrize_with_checks([J48()])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
