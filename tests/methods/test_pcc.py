"""Tests of PCC / EPCC: exact enumeration, normalisation, and the beam search / sampled marginals
used above max_labels, checked against enumeration."""
import numpy as np
import pytest
import scipy.sparse as sp

from mlbench.errors import MlbenchError
from mlbench.methods import registry
from mlbench.methods.transformation._chain_search import beam_search, mixture_mode, sampled_marginals
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


r8 = np.random.RandomState(5)
X8 = r8.randn(300, 5)
Y8 = (X8 @ r8.randn(5, 8) + 1.2 * r8.randn(300, 8) > 0).astype(int)
ALL8 = all_label_vectors(8)


def test_full_width_beam_is_exact_and_sorted():
    m = ProbabilisticClassifierChain(C=1.0, order="random", random_state=1).fit(X8, Y8)
    J, _ = m._joint_all(X8[:25])
    cands, logp = beam_search(m.chains_[0], X8[:25], 256)
    np.testing.assert_array_equal(cands[:, 0], ALL8[J.argmax(axis=1)])
    np.testing.assert_allclose(logp[:, 0], J.max(axis=1), atol=1e-10)
    assert np.all(np.diff(logp, axis=1) <= 1e-12)
    np.testing.assert_allclose(logp[:, 3], m.chains_[0].loglik(X8[:25], cands[:, 3]), atol=1e-10)


def test_beyond_max_labels_pcc_and_epcc_find_the_exact_mode_on_small_label_sets():
    """max_labels=0 forces the search: with the default width the beam finds the exact mode on
    every row of this 8-label set, for PCC and for the pooled beams of EPCC."""
    for model in (ProbabilisticClassifierChain(C=1.0, random_state=0),
                  EnsembleProbabilisticClassifierChains(C=1.0, n_estimators=3, random_state=0)):
        model.fit(X8, Y8)
        exact = model.predict(X8)
        model.max_labels = 0
        np.testing.assert_array_equal(model.predict(X8), exact)


def test_sampled_marginals_match_the_exact_ones_within_sampling_error():
    m = EnsembleProbabilisticClassifierChains(C=1.0, n_estimators=2, random_state=4).fit(X8, Y8)
    exact = m.predict_proba(X8[:40])
    got = sampled_marginals(m.chains_, X8[:40], 20000, seed=0)
    assert np.abs(got - exact).max() < 4 * 0.5 / np.sqrt(20000)
    m.max_labels = 0
    a, b = m.predict_proba(X8[:40]), m.predict_proba(X8[:40])
    np.testing.assert_array_equal(a, b)                     # seeded at fit: same scores every call
    assert np.abs(a - exact).max() < 4 * 0.5 / np.sqrt(1000 // 2)


def test_mixture_mode_scores_its_answer_exactly():
    m = EnsembleProbabilisticClassifierChains(C=1.0, n_estimators=3, random_state=2).fit(X8, Y8)
    best, logp = mixture_mode(m.chains_, X8[:30], 2)
    np.testing.assert_allclose(logp, m.joint_log_proba(X8[:30], best), atol=1e-10)


def test_more_labels_than_max_labels_is_not_refused():
    Yw = np.tile(Y, (1, 2))
    m = ProbabilisticClassifierChain(C=1.0, max_labels=6).fit(X, Yw)
    assert m.predict(X[:20]).shape == (20, 8) and m.predict_proba(X[:20]).shape == (20, 8)


@pytest.mark.parametrize("kw", [{"order": "sideways"}, {"order": [0, 0, 1, 2]}, {"C": -2.0}])
def test_bad_parameters(kw):
    with pytest.raises(MlbenchError):
        ProbabilisticClassifierChain(**kw).fit(X, Y)


def test_registered():
    assert registry.get("pcc").paper == "mc"
    assert registry.get("epcc").make().n_estimators == 10
