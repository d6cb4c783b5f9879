"""Tests of the pairwise multi-label CRF: gradient, exact inference, normalisation, coupling."""
import numpy as np
import pytest
from scipy.optimize import check_grad

from mlbench.errors import MlbenchError
from mlbench.methods import registry
from mlbench.methods.probabilistic import mlcrf
from mlbench.methods.components.logistic import DEFAULT_CS
from mlbench.methods.probabilistic._pairwise_search import potential
from mlbench.methods.probabilistic.mlcrf import (BLOCKS_MAX_FRACTION, PairwiseCRF, label_blocks, pair_index,
                                                 pseudo_loglik_and_grad, pseudo_loglik_hessian_diag)
from mlbench.methods.components.labelsets import all_label_vectors

rng = np.random.RandomState(4)
X = rng.randn(220, 3)
Y = (X @ rng.randn(3, 4) + rng.randn(220, 4) > 0).astype(int)
Y[:, 3] = Y[:, 1] ^ (rng.rand(220) < 0.1)       # label 3 follows label 1: a positive coupling
ALL4 = all_label_vectors(4)


def test_gradient_matches_finite_differences():
    I, J = pair_index(4)
    n_par = 4 * 3 + 4 + len(I) * 3 + len(I)
    theta = np.random.RandomState(0).randn(n_par) * 0.3
    args = (X[:40], Y[:40].astype(np.int8), I, J, np.full(4, 0.5), np.full(len(I), 2.0))
    f = lambda t: pseudo_loglik_and_grad(t, *args)[0]
    g = lambda t: pseudo_loglik_and_grad(t, *args)[1]
    assert check_grad(f, g, theta) < 1e-4 * max(1.0, np.abs(g(theta)).max())


def test_hessian_diagonal_matches_finite_differences_of_the_gradient():
    """Each diagonal entry against (g(theta + h e_k) - g(theta - h e_k))_k / 2h, dense and sparse."""
    import scipy.sparse as sp

    I, J = pair_index(4)
    n_par = 4 * 3 + 4 + len(I) * 3 + len(I)
    theta = np.random.RandomState(1).randn(n_par) * 0.3
    Xd = np.where(np.abs(X[:40]) > 0.4, X[:40], 0.0)
    args = (Xd, Y[:40].astype(np.int8), I, J, np.full(4, 0.5), np.full(len(I), 2.0), 0.7)
    h = 1e-5
    fd = np.empty(n_par)
    for k in range(n_par):
        e = np.zeros(n_par)
        e[k] = h
        up, down = pseudo_loglik_and_grad(theta + e, *args)[1], pseudo_loglik_and_grad(theta - e, *args)[1]
        fd[k] = (up[k] - down[k]) / (2 * h)
    dense = pseudo_loglik_hessian_diag(theta, *args, X2=Xd * Xd)
    np.testing.assert_allclose(dense, fd, rtol=1e-6, atol=1e-8)
    Xs = sp.csr_matrix(Xd)
    sparse = pseudo_loglik_hessian_diag(theta, Xs, *args[1:], X2=Xs.multiply(Xs).tocsr())
    np.testing.assert_allclose(sparse, dense, rtol=1e-12)


def test_label_blocks_give_the_dense_objective_gradient_and_hessian_diagonal(monkeypatch):
    """The edge terms per label over its positive rows equal the dense products over all pairs
    (dense and sparse X; a label without positives; one with every row positive)."""
    import scipy.sparse as sp

    L = 12
    I, J = pair_index(L)
    Ys = (np.random.RandomState(2).rand(60, L) < 0.05).astype(np.int8)
    Ys[:, 2], Ys[:, 4] = 0, 1          # 2 card / L = 0.24
    Xd = np.where(np.abs(X[:60]) > 0.4, X[:60], 0.0)
    theta = np.random.RandomState(3).randn(3 * (L + len(I)) + L + len(I))
    regs = (np.full(L, 0.5), np.full(len(I), 2.0), 0.7)
    for Xm, budget in ((Xd, mlcrf.GATHER_BUDGET), (Xd, 0), (sp.csr_matrix(Xd), 0)):
        monkeypatch.setattr(mlcrf, "GATHER_BUDGET", budget)   # 0: dense rows gathered at each use
        blocks = label_blocks(Xm, Ys, I, J)
        assert all((Xj is None) == (budget == 0 and not sp.issparse(Xm)) for *_, Xj in blocks.blocks)
        assert len(blocks.blocks) == L - 1                  # label 2 has no positive row
        args = (Xm, Ys, I, J, *regs)
        f0, g0 = pseudo_loglik_and_grad(theta, *args)
        f1, g1 = pseudo_loglik_and_grad(theta, *args, blocks)
        assert f1 == pytest.approx(f0, rel=1e-13)
        np.testing.assert_allclose(g1, g0, rtol=1e-12, atol=1e-12)
        X2 = Xm.multiply(Xm).tocsr() if sp.issparse(Xm) else Xm * Xm
        np.testing.assert_allclose(pseudo_loglik_hessian_diag(theta, *args, blocks, X2=X2),
                                   pseudo_loglik_hessian_diag(theta, *args, X2=X2), rtol=1e-12)
    # denser label sets save too little: the dense products are used
    card = BLOCKS_MAX_FRACTION * L / 2
    at = np.zeros((60, L), dtype=np.int8)
    at[:, : int(card)] = 1
    at[: int(round((card - int(card)) * 60)), int(card)] = 1
    assert 2 * at.sum(axis=1).mean() / L == pytest.approx(BLOCKS_MAX_FRACTION)
    assert label_blocks(Xd, at, I, J) is not None
    one_more = at.copy()
    one_more[np.flatnonzero(one_more[:, -1] == 0)[0], -1] = 1
    assert label_blocks(Xd, one_more, I, J) is None


def test_conditional_logits_follow_the_model_definition_in_both_layouts_of_the_edge_terms():
    """The conditional logit of label i is w_i.x + b_i + sum_{j != i} y_j (u_ij.x + c_ij), with
    theta unpacked as feature-major W (m, L) and pair-major U (P, m, row p the pair (I_p, J_p)):
    written out term by term, against the label blocks and the dense products."""
    L, m = 5, 3
    I, J = pair_index(L)
    Ys = (np.random.RandomState(5).rand(50, L) < 0.2).astype(np.int8)
    Xm = X[:50]
    theta = np.random.RandomState(6).randn(m * (L + len(I)) + L + len(I))
    Wt, b, U, c = mlcrf.unpack(theta, L, m)
    assert U.shape == (len(I), m) and np.shares_memory(U, theta)
    expected = Xm @ Wt + b
    for p, (i, j) in enumerate(zip(I, J)):
        edge = Xm @ U[p] + c[p]
        expected[:, i] += Ys[:, j] * edge
        expected[:, j] += Ys[:, i] * edge
    Yf = Ys.astype(float)
    np.testing.assert_allclose(mlcrf.conditional_logits(theta, Xm, Yf, I, J), expected, rtol=1e-12)
    blocks = mlcrf.LabelBlocks(Xm, Ys, I, J)
    np.testing.assert_allclose(mlcrf.conditional_logits(theta, Xm, Yf, I, J, blocks), expected,
                               rtol=1e-12)


def test_exact_inference_and_normalisation():
    m = PairwiseCRF(C=1.0).fit(X, Y)
    J = np.stack([m.joint_log_proba(X[:25], np.tile(y, (25, 1))) for y in ALL4], axis=1)
    np.testing.assert_allclose(np.exp(J).sum(axis=1), 1.0, atol=1e-10)
    np.testing.assert_array_equal(m.predict(X[:25]), ALL4[J.argmax(axis=1)])
    np.testing.assert_allclose(m.predict_proba(X[:25]), np.exp(J) @ ALL4, atol=1e-10)


def test_learns_the_coupling():
    m = PairwiseCRF(C=1.0).fit(X, Y)
    I, J = m.pairs_
    p13 = int(np.flatnonzero((I == 1) & (J == 3))[0])
    others = [p for p in range(len(I)) if p != p13]
    assert m.c_[p13] > 2.0 and m.c_[p13] > np.abs(m.c_[others]).max()


def _exact_model(seed=0, L=8):
    r = np.random.RandomState(seed)
    Xs = r.randn(300, 4)
    Ys = (Xs @ r.randn(4, L) + r.randn(300, L) > 0).astype(int)
    Ys[:, -1] = Ys[:, 0] ^ (r.rand(300) < 0.1)
    return Xs, Ys, PairwiseCRF(C=1.0, random_state=seed).fit(Xs, Ys)


def test_icm_map_matches_enumeration_on_small_label_sets():
    """max_labels=0 forces ICM: on 8 coupled labels its answer is the exact MAP on >= 97% of rows
    and never has a higher potential than the exact MAP."""
    Xs, Ys, m = _exact_model()
    exact = m.predict(Xs)
    m.max_labels = 0
    approx = m.predict(Xs)
    assert (approx == exact).all(axis=1).mean() >= 0.97
    for rows, A, B in m._potentials(Xs):
        assert np.all(potential(A, B, approx[rows].astype(float))
                      <= potential(A, B, exact[rows].astype(float)) + 1e-9)


def test_tempered_gibbs_marginals_match_the_exact_ones_within_sampling_error():
    Xs, Ys, m = _exact_model(seed=1, L=6)
    exact = m.predict_proba(Xs[:40])
    m.max_labels = 0
    got = m.predict_proba(Xs[:40])
    np.testing.assert_array_equal(got, m.predict_proba(Xs[:40]))          # seeded at fit
    assert np.abs(got - exact).max() < 0.1 and np.abs(got - exact).mean() < 0.01


def test_beyond_max_labels_fits_predicts_and_offers_no_joint():
    m = PairwiseCRF(C="cv", Cs=[0.1, 1.0], max_labels=3, random_state=0).fit(X, Y)
    assert m.fit_info_["inference"] == "approximate"
    assert m.predict(X[:10]).shape == (10, 4) and m.predict_proba(X[:10]).shape == (10, 4)
    assert not hasattr(m, "joint_log_proba")


def test_registered():
    assert registry.get("mlcrf").family == "probabilistic"


# Mutually exclusive labels (exactly one of three is on, the argmax of a linear score of x), with
# many noise features: the scene situation where the CRF collapsed.  Every pair never co-occurs, so
# an unpenalised edge bias has no finite optimum, and a penalty chosen for the independent per-label
# regressions crushes the feature weights of the pseudo-likelihood fit.
_ex = np.random.RandomState(7)
XE = _ex.randn(360, 40)
YE = np.eye(3, dtype=int)[np.argmax(XE[:, :3] @ np.diag([2.0, 2.0, 2.0]) + 0.5 * _ex.randn(360, 3), axis=1)]


def test_exclusive_labels_converge_with_finite_edge_biases():
    m = PairwiseCRF(C=1.0).fit(XE[:240], YE[:240])
    assert m.fit_info_["converged"]
    assert np.all(np.isfinite(m.c_)) and np.all(m.c_ < 0) and np.abs(m.c_).max() < 20


def test_exclusive_labels_cv_keeps_the_features():
    m = PairwiseCRF(random_state=0).fit(XE[:240], YE[:240])
    exact = (m.predict(XE[240:]) == YE[240:]).all(axis=1).mean()
    assert exact > 0.7                                 # the collapsed fit predicted by the biases: ~1/3
    loss = m.fit_info_["cv_loss"]                      # held-out loss of each C walked, ascending C
    walked = loss[:-1]
    assert 3 <= len(loss) <= len(DEFAULT_CS)             # here the walk passes several Cs (6 of 7)
    assert all(a > b for a, b in zip(walked, walked[1:]))        # the loss falls while the walk goes on
    assert loss[-1] > walked[-1] or len(loss) == len(DEFAULT_CS)   # and it stops at the first worse C
    assert m.fit_info_["C"] == sorted(DEFAULT_CS)[int(np.argmin(loss))]
    assert -m.joint_log_proba(XE[240:], YE[240:]).mean() < np.log(3)   # better than uniform over 3


def test_cv_is_seeded():
    a = PairwiseCRF(random_state=3).fit(X[:120], Y[:120])
    b = PairwiseCRF(random_state=3).fit(X[:120], Y[:120])
    assert a.fit_info_ == b.fit_info_
    np.testing.assert_array_equal(a.theta_, b.theta_)


def test_bad_edge_bias_penalty():
    with pytest.raises(MlbenchError, match="edge_bias_penalty"):
        PairwiseCRF(C=1.0, edge_bias_penalty=0.0).fit(X, Y)
    for bad in ("strong", None):
        with pytest.raises(MlbenchError, match="edge_bias_penalty must be positive"):
            PairwiseCRF(C=1.0, edge_bias_penalty=bad).fit(X, Y)


def test_sparse_input_and_unused_features_give_the_dense_model():
    """Sparse X equals dense X; an all-zero feature gets weight 0 and changes nothing else."""
    import scipy.sparse as sp

    Xs = np.where(np.abs(X) > 0.6, X, 0.0)
    Xz = np.insert(Xs, 1, 0.0, axis=1)                  # feature 1 is zero in every row
    dense = PairwiseCRF(C=1.0).fit(Xs, Y)
    sparse = PairwiseCRF(C=1.0).fit(sp.csr_matrix(Xz), Y)
    np.testing.assert_array_equal(sparse.W_[:, 1], 0.0)
    np.testing.assert_array_equal(sparse.U_[:, 1], 0.0)
    np.testing.assert_allclose(np.delete(sparse.W_, 1, axis=1), dense.W_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(np.delete(sparse.U_, 1, axis=1), dense.U_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(sparse.joint_log_proba(sp.csr_matrix(Xz[:30]), Y[:30]),
                               dense.joint_log_proba(Xs[:30], Y[:30]), rtol=1e-7)
