"""A multi-class RBF SVC's one-against-one votes counted for blocks of rows
(mlbench.methods.components.ovo) give scikit-learn's ``SVC.predict``."""
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import SVC

from mlbench._ext._ovo import ovo_votes
from mlbench.methods.base import make_base_learner
from mlbench.methods.components import ovo
from mlbench.methods.components.gram import GramRBF
from mlbench.methods.transformation.pruned_sets import PrunedSets


def _data(sparse, n=240, n_test=70, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 10) * (rng.rand(n, 10) < 0.5)
    Xt = rng.rand(n_test, 10) * (rng.rand(n_test, 10) < 0.5)
    return (sp.csr_matrix(X), sp.csr_matrix(Xt)) if sparse else (X, Xt)


def _fit(model, X, y):
    with warnings.catch_warnings():      # many classes for the rows: intended
        warnings.simplefilter("ignore", UserWarning)
        return model.fit(X, y)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_classes", [3, 7, 150])
@pytest.mark.parametrize("block_bytes", [1, ovo.BLOCK_BYTES])
def test_the_votes_give_svc_predict(sparse, n_classes, block_bytes):
    X, Xt = _data(sparse)
    rng = np.random.RandomState(n_classes)
    y = 5 * rng.randint(0, n_classes, X.shape[0]) + 2     # classes_ are not 0..k-1
    svc = _fit(SVC(C=20.0, gamma=2.0), X, y)
    assert ovo.applies(svc)
    np.testing.assert_array_equal(ovo.predict(svc, Xt, block_bytes), svc.predict(Xt))
    np.testing.assert_array_equal(ovo.predict(svc, X, block_bytes), svc.predict(X))


@pytest.mark.parametrize("sparse", [False, True])
def test_a_model_fitted_on_the_gram_matrix_predicts_as_its_svc(sparse):
    """The powerset's models come from GramRBF.fit (a precomputed-kernel fit turned into the RBF
    model); after pickling, as a worker returns them."""
    X, Xt = _data(sparse)
    y = np.random.RandomState(3).randint(0, 40, X.shape[0])
    params = {"C": 8.0, "gamma": 1.0, "probability": False}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = GramRBF.for_base("svc", params, X).fit(params, y, 11)
        want = make_base_learner("svc", random_state=11, **params).fit(X, y)
    model = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(ovo.predict(model, Xt), want.predict(Xt))


def _reference_votes(coef, start, intercept, K):
    """libsvm's svm_predict_values, one row at a time (svm.cpp, the c-SVC branch)."""
    k = start.size - 1
    votes = np.zeros((k, K.shape[1]), dtype=np.intp)
    for b in range(K.shape[1]):
        p = 0
        for i in range(k):
            for j in range(i + 1, k):
                s = 0.0
                for t in range(start[i], start[i + 1]):
                    s += coef[j - 1, t] * K[t, b]
                for t in range(start[j], start[j + 1]):
                    s += coef[i, t] * K[t, b]
                s -= -intercept[p]
                votes[i if s > 0 else j, b] += 1
                p += 1
    return votes


@pytest.mark.parametrize("counts", [[1, 1], [2, 0, 3], [0, 0, 0, 0], [3, 1, 4, 1, 5, 9, 2]])
@pytest.mark.parametrize("B", [0, 1, 5])
def test_the_kernel_counts_libsvm_s_votes(counts, B):
    """Any support-vector counts per class (none included), any block width; exact ties (every
    decision value 0 when there is no support vector) go to the second class, as in libsvm."""
    rng = np.random.RandomState(sum(counts) + B)
    k, l = len(counts), sum(counts)
    start = np.r_[0, np.cumsum(counts)].astype(np.intp)
    coef = rng.randn(k - 1, l)
    intercept = rng.randn(k * (k - 1) // 2) * (l > 0)
    K = rng.rand(l, B)
    got = ovo_votes(coef, np.ascontiguousarray(coef.T), start, intercept, K)
    np.testing.assert_array_equal(got, _reference_votes(coef, start, intercept, K))
    assert (got.sum(axis=0) == k * (k - 1) // 2).all()


def test_the_kernel_checks_its_shapes():
    coef, start, intercept, K = np.zeros((2, 4)), np.array([0, 1, 3, 4]), np.zeros(3), np.zeros((4, 2))
    ovo_votes(coef, np.ascontiguousarray(coef.T), start, intercept, K)
    bad = [
        (np.zeros((3, 4)), start, intercept, K, "coef has shape"),
        (coef, start, np.zeros(2), K, "intercept has 2"),
        (coef, np.array([0, 1, 3, 5]), intercept, K, "start must run from 0 to 4"),
        (coef, np.array([0, 3, 1, 4]), intercept, K, "must not decrease"),
        (coef, np.array([0, 4]), np.zeros(0), K, "coef has shape"),
    ]
    for c, s, i, k, match in bad:
        with pytest.raises(ValueError, match=match):
            ovo_votes(c, np.ascontiguousarray(c.T), s.astype(np.intp), i, k)
    with pytest.raises(ValueError, match="coef_t has shape"):
        ovo_votes(coef, np.zeros((4, 3)), start.astype(np.intp), intercept, K)


def test_it_applies_to_fitted_multi_class_rbf_svcs_only():
    X, Xt = _data(False)
    y3 = np.arange(X.shape[0]) % 3
    assert not ovo.applies(SVC())                                       # not fitted
    assert not ovo.applies(SVC().fit(X, y3 % 2))                        # binary
    assert not ovo.applies(SVC(kernel="linear").fit(X, y3))
    assert not ovo.applies(SVC(break_ties=True).fit(X, y3))             # ovr ties
    assert not ovo.applies(make_base_learner("lr").fit(X, y3))
    with pytest.raises(ValueError, match="call its own predict"):
        ovo.predict(SVC().fit(X, y3 % 2), Xt)


def test_label_powerset_predicts_the_labelsets_of_its_svc():
    """LP (the study's lp) through PowersetModel.predict: the labelsets of ``SVC.predict``."""
    X, Xt = _data(True, n=200)
    Y = (np.random.RandomState(5).rand(200, 9) < 0.35).astype(int)
    lp = _fit(PrunedSets(base="svc", C=32.0, gamma=1.0, random_state=0), X, Y)
    svc = lp.model_.estimator
    assert ovo.applies(svc) and len(svc.classes_) > 50
    want = lp.model_.labelsets[svc.predict(Xt)]
    np.testing.assert_array_equal(lp.predict(Xt), want)
