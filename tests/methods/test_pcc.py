"""Tests of PCC / EPCC: exact enumeration, normalisation, and the beam search / sampled marginals
used above max_labels, checked against enumeration."""
import numpy as np
import pytest
import scipy.sparse as sp

from mlbench.errors import MlbenchError
from mlbench.methods import registry
from mlbench.methods.transformation._chain_search import beam_search, mixture_mode, sampled_marginals
from mlbench.methods.transformation.pcc import (EnsembleProbabilisticClassifierChains,
                                                ProbabilisticClassifierChain)
from mlbench.methods.components.labelsets import all_label_vectors

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


def _copied_label_data(seed=4, n=300):
    """Label 1 copies label 0, which x predicts only weakly: P(y_0 | x) wants a small C, the chain's
    second regression (x, y_0) -> y_1 a large one."""
    r = np.random.RandomState(seed)
    Xc = r.randn(n, 20)
    y0 = (0.4 * Xc[:, 0] + r.randn(n) > 0).astype(int)
    return Xc, np.column_stack([y0, y0])


def test_each_chain_regression_chooses_its_C_on_its_own_inputs():
    from mlbench.methods.components.logistic import choose_C
    from mlbench.methods.transformation.pcc import chain_Cs

    Xc, Yc = _copied_label_data()
    own = ProbabilisticClassifierChain(random_state=0).fit(Xc, Yc)
    old = ProbabilisticClassifierChain(select_C_on="x", random_state=0).fit(Xc, Yc)
    # "x" is the earlier per-label choice on P(y_i | x); "own" differs only where labels are inputs
    np.testing.assert_array_equal(old.C_, choose_C(Xc, Yc, "cv", random_state=own_seed(0)))
    assert own.C_[0] == old.C_[0] and own.C_[1] > old.C_[1]
    # position 1's C is the one cross-validation picks for (x, y_0) -> y_1, independently computed
    assert own.C_[1] == choose_C(np.column_stack([Xc, Yc[:, 0]]), Yc[:, [1]], "cv",
                                 random_state=own_seed(0))[0]
    # the copy is learned only when its input is not penalised with P(y_1 | x)'s C
    pred_own, pred_old = own.predict(Xc[:100]), old.predict(Xc[:100])
    assert (pred_own[:, 0] == pred_own[:, 1]).all()
    assert abs(own.chains_[0].lcoef[1, 0]) > 3 * abs(old.chains_[0].lcoef[1, 0])
    with pytest.raises(MlbenchError, match="select_C_on"):
        chain_Cs(Xc, Yc, np.arange(2), "cv", (1.0,), 3, 0, "y")


def own_seed(random_state):
    return np.random.RandomState(random_state).randint(2**31 - 1)


def test_epcc_chooses_C_per_chain_on_its_own_order():
    Xc, Yc = _copied_label_data()
    m = EnsembleProbabilisticClassifierChains(n_estimators=3, random_state=1).fit(Xc, Yc)
    assert m.C_.shape == (3, 2)
    for chain, Cs in zip(m.chains_, m.C_):
        first, second = chain.order
        assert Cs[second] >= Cs[first]          # the label that sees its copy takes the larger C
    x = EnsembleProbabilisticClassifierChains(n_estimators=3, select_C_on="x", random_state=1).fit(Xc, Yc)
    assert (x.C_ == x.C_[0]).all()              # one per-label C shared by every chain
