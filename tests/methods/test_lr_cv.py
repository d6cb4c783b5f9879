"""The ``lr-cv`` base learner: L2 logistic regression with C chosen by internal 3-fold CV per label."""
import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from mlbench.methods.base import LR_CV_CS, make_base_learner
from mlbench.methods.knn.iblr import IBLR
from mlbench.methods.transformation.br import BinaryRelevance
from mlbench.methods.transformation.cc import ClassifierChain

rng = np.random.RandomState(0)
X = rng.randn(300, 30)
Y = np.column_stack([
    (X[:, 0] + X[:, 1] > 0).astype(int),         # separable by two features: weak penalty wins
    (0.3 * X[:, 2] + rng.randn(300) > 0).astype(int),   # weak signal among 30 features: strong penalty
])


@pytest.fixture(autouse=True)
def one_blas_thread():
    # as the runner does per cell: many small lbfgs fits were ~15x slower with threaded OpenBLAS
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def test_chosen_C_differs_by_label():
    br = BinaryRelevance(base="lr-cv", random_state=0).fit(X, Y)
    Cs = [float(est.C_) for est in br.estimators_]
    assert all(c in LR_CV_CS for c in Cs)
    assert Cs[0] > Cs[1]
    assert Cs[0] >= 10.0 and Cs[1] <= 0.1


def test_same_seed_same_model():
    a = ClassifierChain(base="lr-cv", random_state=5).fit(X, Y)
    b = ClassifierChain(base="lr-cv", random_state=5).fit(X, Y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert [e.C_ for e in a.estimators_] == [e.C_ for e in b.estimators_]


def test_learner_settings():
    est = make_base_learner("lr-cv", random_state=1)
    assert list(est.Cs) == list(LR_CV_CS) and est.scoring == "neg_log_loss" and est.solver == "lbfgs"
    assert est.cv.n_splits == 3 and est.cv.shuffle and est.cv.random_state == 1


def test_joint_log_proba_and_iblr():
    br = BinaryRelevance(base="lr-cv", random_state=0).fit(X, Y)
    P = br.predict_proba(X[:10])
    # independent labels: log P(y | x) is the sum of each label's log P(y_l | x)
    expected = np.log(np.where(Y[:10] == 1, P, 1.0 - P)).sum(axis=1)
    np.testing.assert_allclose(br.joint_log_proba(X[:10], Y[:10]), expected, rtol=1e-10)
    iblr = IBLR(base="lr-cv", random_state=0).fit(X, Y)
    assert all(float(est.C_) in LR_CV_CS for est in iblr.br_.estimators_)
    P = iblr.predict_proba(X[:5])
    assert P.shape == (5, 2) and np.all((P >= 0) & (P <= 1))
