"""Tests of PCC / EPCC: exact enumeration, normalisation, refusal above max_labels."""
import numpy as np
import pytest
import scipy.sparse as sp

from mlbench.errors import MlbenchError
from mlbench.methods import registry
from mlbench.methods.transformation.pcc import (EnsembleProbabilisticClassifierChains,
                                                ProbabilisticClassifierChain, all_label_vectors)

rng = np.random.RandomState(2)
X = rng.randn(200, 4)
Y = (X @ rng.randn(4, 4) + rng.randn(200, 4) > 0).astype(int)
Y[:, 2] = Y[:, 0] & Y[:, 1]
ALL4 = all_label_vectors(4)


def enumerate_joint(model, Xs):
    return np.stack([model.joint_log_proba(Xs, np.tile(y, (len(Xs), 1))) for y in ALL4], axis=1)


def test_all_label_vectors():
    V = all_label_vectors(3)
    assert V.shape == (8, 3) and len({tuple(v) for v in V}) == 8


@pytest.mark.parametrize("order", ["label", [2, 0, 3, 1]])
def test_pcc_exact_mode_marginals_and_normalisation(order):
    m = ProbabilisticClassifierChain(C=1.0, order=order, random_state=0).fit(X, Y)
    J = enumerate_joint(m, X[:30])
    np.testing.assert_allclose(np.exp(J).sum(axis=1), 1.0, atol=1e-10)
    np.testing.assert_array_equal(m.predict(X[:30]), ALL4[J.argmax(axis=1)])
    np.testing.assert_allclose(m.predict_proba(X[:30]), np.exp(J) @ ALL4, atol=1e-10)


def test_epcc_is_normalised_mixture_and_deterministic():
    a = EnsembleProbabilisticClassifierChains(C=1.0, n_estimators=4, random_state=3).fit(X, Y)
    b = EnsembleProbabilisticClassifierChains(C=1.0, n_estimators=4, random_state=3).fit(X, Y)
    J = enumerate_joint(a, X[:20])
    np.testing.assert_allclose(np.exp(J).sum(axis=1), 1.0, atol=1e-10)
    np.testing.assert_array_equal(a.predict(X[:20]), ALL4[J.argmax(axis=1)])
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert len({tuple(o) for o in a.fit_info_["orders"]}) > 1
    # the mixture's joint is the mean of its chains' joints
    members = np.stack([c.loglik(X[:20], Y[:20]) for c in a.chains_])
    np.testing.assert_allclose(np.exp(a.joint_log_proba(X[:20], Y[:20])), np.exp(members).mean(axis=0))


def test_pcc_accepts_sparse_input():
    m = ProbabilisticClassifierChain(C=1.0).fit(sp.csr_matrix(X), Y)
    d = ProbabilisticClassifierChain(C=1.0).fit(X, Y)
    np.testing.assert_allclose(m.predict_proba(sp.csr_matrix(X[:10])), d.predict_proba(X[:10]), atol=1e-6)


def test_refuses_too_many_labels_clearly():
    Yw = np.tile(Y, (1, 2))
    with pytest.raises(MlbenchError, match="max_labels"):
        ProbabilisticClassifierChain(C=1.0, max_labels=6).fit(X, Yw)
    ProbabilisticClassifierChain(C=1.0, max_labels=8).fit(X[:50], Yw[:50])


@pytest.mark.parametrize("kw", [{"order": "sideways"}, {"order": [0, 0, 1, 2]}, {"C": -2.0}])
def test_bad_parameters(kw):
    with pytest.raises(MlbenchError):
        ProbabilisticClassifierChain(**kw).fit(X, Y)


def test_registered():
    assert registry.get("pcc").paper == "mc"
    assert registry.get("epcc").make().n_estimators == 10
