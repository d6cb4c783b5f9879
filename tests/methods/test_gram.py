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
    for cls in (GramRBF, gram.SupportSet):    # CLR's models fit through the SupportSet
        monkeypatch.setattr(cls, "fit", lambda self, *a, _fit=cls.fit: calls.append(1) or
                            _fit(self, *a))
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
    # without probabilities the models are one SupportSet (no Platt fits); with them, SVCs
    assert isinstance(fast.models_, gram.SupportSet) and platt.models_[0].probability
    np.testing.assert_array_equal(fast.predict(Xt), platt.predict(Xt))
    np.testing.assert_array_equal(fast.decision_function(Xt), platt.decision_function(Xt))


@pytest.mark.parametrize("sparse", [False, True])
def test_a_support_set_holds_the_models_the_gram_fit_gives(sparse):
    """Each model of a SupportSet: the decision values and predictions of the SVC fitted on the
    same rows, in blocks of any size, after pickling; a constant target gives +-1."""
    X, Xt = _data(sparse, seed=4)
    rng = np.random.RandomState(5)
    params = {"C": 4.0, "gamma": 0.7, "probability": False}
    shared = GramRBF.for_base("svc", params, X)
    subsets = [None, np.arange(0, 90), np.flatnonzero(rng.rand(120) < 0.3), np.arange(5, 25)]
    targets = [rng.randint(0, 2, 120), rng.randint(0, 2, 90), None, np.ones(20, dtype=int)]
    models, want = gram.SupportSet(shared), []
    for k, (rows, y) in enumerate(zip(subsets, targets)):
        y = (rng.rand(rows.size) < 0.4).astype(int) if y is None else y
        assert models.fit(rows, y, params, k) == k
        Xr = X if rows is None else X[rows]
        want.append(make_base_learner("svc", random_state=k, **params).fit(Xr, y)
                    if len(set(y)) > 1 else None)
    models = pickle.loads(pickle.dumps(models.finish()))
    assert models.n_models == 4 and not hasattr(models, "gram")
    for block in (2 ** 27, 8):                # every row at once; one row per block
        got = np.vstack([D for _, D in models.decisions(Xt, block_bytes=block)])
        for k, est in enumerate(want):
            if est is None:
                np.testing.assert_array_equal(got[:, k], 1.0)
                continue
            np.testing.assert_allclose(got[:, k], est.decision_function(Xt), rtol=0, atol=1e-12)
            np.testing.assert_array_equal((got[:, k] >= 0).astype(int), est.predict(Xt))


def test_a_support_set_of_constant_models_only():
    X, Xt = _data(True)
    models = gram.SupportSet(GramRBF.for_base("svc", {"gamma": 0.5}, X))
    models.fit(None, np.zeros(120, dtype=int), {"gamma": 0.5}, 0)
    models.fit(np.arange(3), np.ones(3, dtype=int), {"gamma": 0.5}, 1)
    (rows, D), = models.finish().decisions(Xt)
    np.testing.assert_array_equal(rows, np.arange(40))
    np.testing.assert_array_equal(D, np.tile([-1.0, 1.0], (40, 1)))


def test_clr_with_one_support_set_votes_as_with_a_model_per_pair(monkeypatch):
    """CLR on the SupportSet against CLR with one scikit-learn SVC per model (the implementation
    before it): the same votes, on labels with a constant one and a pair no row tells apart."""
    X, Xt = _data(True, seed=7)
    rng = np.random.RandomState(8)
    Y = (rng.rand(X.shape[0], 7) < 0.3).astype(int)
    Y[:, 5] = 0                               # constant: its calibration model is constant
    Y[:, 6] = Y[:, 4]                         # the pair (4, 6) has no row that tells them apart
    kw = {"base": "svc", "C": 8.0, "gamma": 0.5, "random_state": 0}
    compact = registry.make("clr", **kw).fit(X, Y)
    monkeypatch.setattr(type(compact), "_compact", False)
    per_model = registry.make("clr", **kw).fit(X, Y)
    assert isinstance(compact.models_, gram.SupportSet) and isinstance(per_model.models_, list)
    np.testing.assert_array_equal(compact.pairs_, per_model.pairs_)
    assert [4, 6] not in compact.pairs_.tolist() and len(compact.pairs_) == 20
    np.testing.assert_array_equal(compact.predict(Xt), per_model.predict(Xt))
    scores = compact.decision_function(Xt)
    np.testing.assert_array_equal(scores, per_model.decision_function(Xt))
    from mlbench.methods.transformation import clr

    monkeypatch.setattr(clr, "BLOCK_BYTES", 8)          # one row per block, both ways
    np.testing.assert_array_equal(compact.decision_function(Xt), scores)
    np.testing.assert_array_equal(per_model.decision_function(Xt), scores)
