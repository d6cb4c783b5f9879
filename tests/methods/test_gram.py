"""The shared RBF Gram matrix (mlbench.methods.components.gram) gives the models a direct fit gives."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from mlbench.methods import registry
from mlbench.methods.base import PlattSVC, make_base_learner
from mlbench.methods.components import gram
from mlbench.methods.components.gram import GramRBF


def _data(sparse, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.rand(120, 12) * (rng.rand(120, 12) < 0.4)
    Xt = rng.rand(40, 12) * (rng.rand(40, 12) < 0.4)
    return (sp.csr_matrix(X), sp.csr_matrix(Xt)) if sparse else (X, Xt)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("probability", [True, False])
def test_fit_on_the_gram_matrix_is_the_rbf_model(sparse, n_classes, probability):
    X, Xt = _data(sparse)
    y = np.random.RandomState(1).randint(0, n_classes, X.shape[0])
    params = {"C": 8.0, "gamma": 0.5, "probability": probability}
    got = GramRBF.for_base("svc", params, X).fit(params, y, 7)
    want = make_base_learner("svc", random_state=7, **params).fit(X, y)
    got = pickle.loads(pickle.dumps(got))
    assert isinstance(got, PlattSVC) and got.kernel == "rbf"
    np.testing.assert_array_equal(got.support_, want.support_)
    np.testing.assert_array_equal(got.predict(Xt), want.predict(Xt))
    np.testing.assert_allclose(got.decision_function(Xt), want.decision_function(Xt),
                               rtol=0, atol=1e-12)
    if probability:
        np.testing.assert_allclose(got.predict_proba(Xt), want.predict_proba(Xt), rtol=0,
                                   atol=1e-12)


def test_a_subset_of_rows_repeats_allowed():
    X, Xt = _data(True)
    rows = np.r_[np.arange(0, 80), np.arange(10, 30)]
    y = (np.arange(rows.size) % 3 == 0).astype(int)
    params = {"C": 2.0, "gamma": "auto"}
    got = GramRBF.for_base("svc", params, X).take(rows).fit(params, y, 3)
    want = make_base_learner("svc", random_state=3, **params).fit(X[rows], y)
    np.testing.assert_allclose(got.predict_proba(Xt), want.predict_proba(Xt), rtol=0, atol=1e-12)


def test_only_an_rbf_svc_within_the_size_limit_gets_one():
    X, _ = _data(False)
    assert GramRBF.for_base("svc", {"gamma": 0.5}, X) is not None
    assert GramRBF.for_base("lr", None, X) is None
    assert GramRBF.for_base("svc", {"kernel": "linear"}, X) is None
    assert GramRBF.for_base("svc", {"gamma": "scale"}, X) is None
    assert GramRBF.for_base("svc", {"gamma": 0.5}, X, max_bytes=8 * 119 ** 2) is None


@pytest.mark.parametrize("method", ["br", "cc", "clr", "homer", "lp", "pst", "rakel2", "mbr"])
def test_the_study_methods_give_the_same_outputs_without_it(method, monkeypatch):
    X, Xt = _data(True, seed=2)
    Y = (np.random.RandomState(3).rand(X.shape[0], 4) < 0.35).astype(int)
    kw = {"C": 8.0, "gamma": 0.5, **({"base": "svc"} if method in ("cc", "clr", "homer") else {})}

    def outputs():
        est = registry.make(method, random_state=0, **kw).fit(X, Y)
        scores = (est.predict_proba if hasattr(est, "predict_proba") else est.decision_function)(Xt)
        return est.predict(Xt), scores

    calls = []
    fit = GramRBF.fit
    monkeypatch.setattr(GramRBF, "fit", lambda self, *a: calls.append(1) or fit(self, *a))
    pred, scores = outputs()
    assert calls                       # the models were fitted on the shared matrix
    monkeypatch.setattr(gram, "MAX_BYTES", 0)
    calls.clear()
    pred0, scores0 = outputs()
    assert not calls
    np.testing.assert_array_equal(pred, pred0)
    np.testing.assert_allclose(scores, scores0, rtol=0, atol=1e-10)


def test_clr_fits_its_svcs_without_probabilities_and_votes_the_same():
    X, Xt = _data(True, seed=5)
    Y = (np.random.RandomState(6).rand(X.shape[0], 4) < 0.4).astype(int)
    kw = {"base": "svc", "C": 8.0, "gamma": 0.5, "random_state": 0}
    fast = registry.make("clr", **kw).fit(X, Y)
    platt = registry.make("clr", base_params={"probability": True}, **kw).fit(X, Y)
    assert not fast.calibration_[0].probability and platt.calibration_[0].probability
    np.testing.assert_array_equal(fast.predict(Xt), platt.predict(Xt))
    np.testing.assert_array_equal(fast.decision_function(Xt), platt.decision_function(Xt))
