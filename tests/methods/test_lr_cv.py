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


def test_fit_info_records_each_labels_chosen_C():
    from mlbench.methods.transformation.ecc import EnsembleClassifierChains

    br = BinaryRelevance(base="lr-cv", random_state=0).fit(X, Y)
    assert br.fit_info_["C"] == [float(e.C_) for e in br.estimators_]
    # a chain fits its labels in its own order; fit_info_ gives them in label order
    Y3 = np.column_stack([Y, Y[:, 0]])
    cc = ClassifierChain(base="lr-cv", order=[2, 0, 1], random_state=0).fit(X, Y3)
    assert cc.fit_info_["C"] == [float(cc.estimators_[j].C_) for j in (1, 2, 0)]
    ecc = EnsembleClassifierChains(base="lr-cv", n_estimators=3, random_state=0).fit(X, Y)
    assert ecc.fit_info_["C"] == [chain.fit_info_["C"] for chain in ecc.estimators_]
    assert IBLR(base="lr-cv", random_state=0).fit(X, Y).fit_info_["C"] == \
        [float(e.C_) for e in IBLR(base="lr-cv", random_state=0).fit(X, Y).br_.estimators_]
    # a label constant in training chose nothing; a base without a CV records no C at all
    const = np.column_stack([Y[:, 0], np.zeros(len(Y), dtype=int)])
    assert BinaryRelevance(base="lr-cv", random_state=0).fit(X, const).fit_info_["C"][1] is None
    assert "C" not in BinaryRelevance(base="lr", random_state=0).fit(X, Y).fit_info_


def test_results_rows_record_the_grid_so_an_older_grid_reruns():
    import json

    from mlbench.experiment.cell import params_json
    from mlbench.experiment.runner import same_params

    now = params_json(BinaryRelevance(base="lr-cv", random_state=1))
    assert json.loads(now)["base_params"] == {"Cs": list(LR_CV_CS)}
    older = json.dumps({**json.loads(now), "base_params": None})   # rows written before the record
    assert not same_params(older, now, {})
    # a grid given in base_params is recorded as given; other bases record base_params unchanged
    given = json.loads(params_json(BinaryRelevance(base="lr-cv", base_params={"Cs": [1.0]})))
    assert given["base_params"] == {"Cs": [1.0]}
    assert json.loads(params_json(BinaryRelevance(base="svm")))["base_params"] is None
