"""The shared baselines against independent results (scikit-learn, scikit-multilearn, by hand)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from threadpoolctl import threadpool_limits
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import NearestNeighbors
from skmultilearn_ref import POSTERIOR, reference_br_lr, reference_cc, reference_mlknn

from mlbench.methods import registry
from mlbench.methods.knn.iblr import IBLR, neighbour_label_fractions
from mlbench.methods.knn.mlknn import MLkNN
from mlbench.methods.transformation.br import BinaryRelevance
from mlbench.methods.transformation.cc import ClassifierChain
from mlbench.methods.transformation.ecc import EnsembleClassifierChains
from mlbench.methods.transformation.rakel import RAkELo, draw_labelsets

@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Tiny problems: one BLAS thread is fastest, and spare threads spin on a shared machine."""
    with threadpool_limits(1):
        yield


BASELINES = ["br-lr", "br-svm", "br-rf", "cc", "ecc", "rakel", "mlknn", "iblr"]


def toy(n=240, d=8, L=5, seed=0):
    """Continuous features (no distance ties), labels correlated with the first features."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    W = rng.randn(d, L)
    Y = (X @ W + rng.randn(n, L) > 0.5).astype(np.int8)
    Y[:, -1] = Y[:, 0] & Y[:, 1]  # a dependent label for the chains
    return X, Y


X, Y = toy()
XTR, YTR, XTE, YTE = X[:160], Y[:160], X[160:], Y[160:]


#: smaller ensembles where the size does not matter to a test
SMALL = {"ecc": {"n_estimators": 4}, "br-rf": {"base_params": {"n_estimators": 20}}}


def fit(name, X=XTR, Y=YTR, seed=0, **params):
    params = {**SMALL.get(name, {}), **params}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return registry.make(name, random_state=seed, **params).fit(X, Y)


def scores(est, X):
    return est.predict_proba(X) if hasattr(est, "predict_proba") else est.decision_function(X)


def test_every_baseline_is_registered():
    for name in BASELINES:
        spec = registry.get(name)
        assert spec.paper == "platform" and spec.family in ("transformation", "knn")


# -- binary relevance ----------------------------------------------------------------------
def test_br_lr_equals_one_logistic_regression_per_label():
    est = fit("br-lr")
    pred, prob = reference_br_lr(XTR, YTR, XTE)
    np.testing.assert_array_equal(est.predict(XTE), pred)
    np.testing.assert_allclose(est.predict_proba(XTE), prob, rtol=1e-10, atol=1e-12)


def test_br_svm_scores_are_margins_and_predictions_their_sign():
    est = fit("br-svm")
    assert not hasattr(est, "predict_proba") and est.threshold_ == 0.0
    margins = est.decision_function(XTE)
    np.testing.assert_array_equal(est.predict(XTE), (margins > 0).astype(int))


def test_base_learner_as_estimator_and_params():
    est = BinaryRelevance(base=LogisticRegression(C=0.05, max_iter=500)).fit(XTR, YTR)
    pred, prob = reference_br_lr(XTR, YTR, XTE, C=0.05, max_iter=500)
    np.testing.assert_allclose(est.predict_proba(XTE), prob, rtol=1e-10, atol=1e-12)
    named = BinaryRelevance(base="lr", base_params={"C": 0.05, "max_iter": 500}).fit(XTR, YTR)
    np.testing.assert_allclose(named.predict_proba(XTE), prob, rtol=1e-10, atol=1e-12)


# -- classifier chains -----------------------------------------------------------------------
@pytest.mark.parametrize("order", ["label", [4, 2, 0, 3, 1]])
def test_cc_equals_sklearn_classifier_chain(order):
    est = ClassifierChain(base="lr", order=order).fit(XTR, YTR)
    ref_order = list(range(5)) if order == "label" else order
    pred, prob = reference_cc(XTR, YTR, XTE, ref_order)
    np.testing.assert_array_equal(est.order_, ref_order)
    np.testing.assert_array_equal(est.predict(XTE), pred)
    np.testing.assert_allclose(est.predict_proba(XTE), prob, rtol=1e-10, atol=1e-12)


def test_cc_random_order_follows_the_seed():
    a = ClassifierChain(order="random", random_state=3).fit(XTR, YTR)
    b = ClassifierChain(order="random", random_state=3).fit(XTR, YTR)
    np.testing.assert_array_equal(a.order_, b.order_)
    assert sorted(a.order_) == list(range(5))
    pred, _ = reference_cc(XTR, YTR, XTE, a.order_)
    np.testing.assert_array_equal(a.predict(XTE), pred)


def test_cc_bad_order():
    with pytest.raises(ValueError, match="permutation"):
        ClassifierChain(order=[0, 0, 1, 2, 3]).fit(XTR, YTR)
    with pytest.raises(ValueError, match="order"):
        ClassifierChain(order="sideways").fit(XTR, YTR)


# -- ensembles of classifier chains --------------------------------------------------------------
def test_ecc_votes_are_the_mean_of_its_chains():
    est = fit("ecc", n_estimators=4, seed=1)
    assert len(est.estimators_) == 4
    votes = np.mean([c.predict(XTE) for c in est.estimators_], axis=0)
    np.testing.assert_allclose(est.predict_proba(XTE), votes)
    np.testing.assert_array_equal(est.predict(XTE), (votes >= 0.5).astype(int))
    orders = {tuple(c.order_) for c in est.estimators_}
    assert len(orders) > 1  # random orders


def test_ecc_chains_see_bootstrap_samples():
    est = fit("ecc", n_estimators=3, seed=2)
    # a bootstrap sample repeats rows, so a chain's first model differs from one on all rows
    full = ClassifierChain(order=est.estimators_[0].order_).fit(XTR, YTR)
    assert not np.allclose(est.estimators_[0].estimators_[0].coef_, full.estimators_[0].coef_)
    no_boot = fit("ecc", n_estimators=3, seed=2, bootstrap=False)
    chain = no_boot.estimators_[0]
    same = ClassifierChain(order=chain.order_).fit(XTR, YTR)
    np.testing.assert_allclose(chain.predict_proba(XTE), same.predict_proba(XTE))


def test_ecc_proba_aggregate():
    est = fit("ecc", n_estimators=3, aggregate="proba")
    mean = np.mean([c.predict_proba(XTE) for c in est.estimators_], axis=0)
    np.testing.assert_allclose(est.predict_proba(XTE), mean)
    with pytest.raises(ValueError, match="n_estimators"):
        fit("ecc", n_estimators=0)


# -- RAkEL-o -------------------------------------------------------------------------------------
def test_rakel_draws_2L_distinct_3_labelsets():
    est = fit("rakel")
    sets = est.labelsets_
    assert sets.shape == (10, 3)
    assert len({tuple(s) for s in sets}) == 10
    assert all(len(set(s)) == 3 for s in sets)
    # C(4, 3) = 4 subsets exist: m is capped
    assert draw_labelsets(4, 3, 8, 0).shape == (4, 3)
    big = draw_labelsets(200, 3, 400, 0)  # the rejection path
    assert len({tuple(s) for s in big}) == 400 and (np.diff(big, axis=1) > 0).all()


def test_rakel_scores_are_mean_votes():
    est = fit("rakel", seed=4)
    votes = np.zeros((XTE.shape[0], 5))
    count = np.zeros(5)
    for model in est.estimators_:
        cls = model.estimator.predict(XTE)
        # decode the LP class into its labelset by hand
        for j, l in enumerate(model.labels):
            votes[:, l] += model.combos[cls, j]
            count[l] += 1
    np.testing.assert_allclose(est.predict_proba(XTE), votes / count)
    np.testing.assert_array_equal(est.predict(XTE), (votes / count >= 0.5).astype(int))


def test_rakel_proba_aggregate_is_the_mean_marginal():
    est = fit("rakel", seed=4, aggregate="proba")
    total, count = np.zeros((XTE.shape[0], 5)), np.zeros(5)
    for model in est.estimators_:
        P = model.estimator.predict_proba(XTE)  # over the LP classes = seen labelsets
        for j, l in enumerate(model.labels):
            total[:, l] += P @ model.combos[:, j]
            count[l] += 1
    np.testing.assert_allclose(est.predict_proba(XTE), total / count)
    np.testing.assert_array_equal(est.predict(XTE), (total / count >= 0.5).astype(int))
    with pytest.raises(ValueError, match="predict_proba"):
        fit("rakel", base="svm", aggregate="proba")


def test_rakel_lp_classes_are_the_seen_labelsets():
    est = fit("rakel", seed=5)
    model = est.estimators_[0]
    seen = {tuple(r) for r in YTR[:, model.labels]}
    assert {tuple(r) for r in model.combos} == seen


def test_rakel_uncovered_label_scores_zero():
    est = RAkELo(n_labelsets=1, labelset_size=2, random_state=0).fit(XTR, YTR)
    uncovered = np.setdiff1d(np.arange(5), est.labelsets_[0])
    assert est.fit_info_["uncovered_labels"] == len(uncovered) == 3
    assert (est.predict_proba(XTE)[:, uncovered] == 0).all()


def _skml_proba(est, X):
    """What scikit-multilearn's predict_proba gives for mlbench's fitted ML-kNN ``est``: the
    posterior (scikit-multilearn-ng) or the joint P(H_1) P(E | H_1) (0.2.0)."""
    return est.predict_proba(X) if POSTERIOR else est._joint(X)[0]


# -- ML-kNN ---------------------------------------------------------------------------------------
def test_mlknn_equals_scikit_multilearn():
    ref = reference_mlknn(XTR, YTR, XTE, k=10, s=1.0)
    est = MLkNN(k=10, s=1.0).fit(XTR, YTR)
    np.testing.assert_allclose(est.prior_, ref["prior"], rtol=1e-12)
    np.testing.assert_allclose(est.cond_true_, ref["cond_true"], rtol=1e-12)
    np.testing.assert_allclose(est.cond_false_, ref["cond_false"], rtol=1e-12)
    np.testing.assert_array_equal(est.predict(XTE), ref["predict"])
    np.testing.assert_allclose(_skml_proba(est, XTE), ref["proba"], rtol=1e-12)


def test_mlknn_by_hand():
    """k = 2, s = 1 on six points of a line; the numbers below are worked out by hand.

    Label 0 = [1, 1, 0, 0, 0, 1]; leave-one-out neighbour counts C = [1, 1, 2, 1, 1, 0].
    Prior (1 + 3) / (2 + 6) = 1/2.  Points with the label have C in {1, 1, 0}: c = [1, 2, 0],
    P(E_j | H1) = (1 + c) / (3 + 3) = [2, 3, 1] / 6; without: c' = [0, 2, 1] -> [1, 3, 2] / 6.
    Label 1 is always 1: prior 7/8, P(E_j | H1) = [1, 1, 7] / 9, P(E_j | H0) = 1/3 each.
    """
    Xh = np.array([[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]])
    Yh = np.array([[1, 1], [1, 1], [0, 1], [0, 1], [0, 1], [1, 1]])
    est = MLkNN(k=2, s=1.0).fit(Xh, Yh)
    np.testing.assert_allclose(est.prior_, [1 / 2, 7 / 8])
    np.testing.assert_allclose(est.cond_true_, [[2 / 6, 3 / 6, 1 / 6], [1 / 9, 1 / 9, 7 / 9]])
    np.testing.assert_allclose(est.cond_false_, [[1 / 6, 3 / 6, 2 / 6], [1 / 3, 1 / 3, 1 / 3]])
    # x = 0.4: neighbours 0 and 1, C = 2 for both labels; x = 11.6: neighbours 12 and 11, C = 1
    Xt = np.array([[0.4], [11.6]])
    proba = est.predict_proba(Xt)
    np.testing.assert_allclose(proba[:, 0], [(1 / 6) / (1 / 6 + 2 / 6), 0.5])
    p1, p0 = 7 / 8 * 7 / 9, 1 / 8 * 1 / 3
    np.testing.assert_allclose(proba[0, 1], p1 / (p1 + p0))
    np.testing.assert_array_equal(est.predict(Xt), [[0, 1], [1, 1]])  # a tie goes to 1


def test_mlknn_small_training_set_caps_k():
    est = MLkNN(k=10).fit(XTR[:4], YTR[:4])
    assert est.k_ == 3 and est.cond_true_.shape == (5, 4)
    with pytest.raises(ValueError, match="n_samples=1"):
        MLkNN().fit(XTR[:1], YTR[:1])
    with pytest.raises(ValueError, match="smoothing"):
        MLkNN(s=0).fit(XTR, YTR)


@pytest.mark.mirror
def test_mlknn_equals_scikit_multilearn_on_yeast(tmp_path, mirror):
    from mlbench.data import load_dataset

    ds = load_dataset("yeast", data_dir=tmp_path, mirror=mirror)
    rng = np.random.RandomState(0)
    perm = rng.permutation(ds.n_instances)
    tr, te = perm[:1200], perm[1200:1600]
    ref = reference_mlknn(ds.X[tr], ds.Y[tr], ds.X[te], k=10, s=1.0)
    est = MLkNN().fit(ds.X[tr], ds.Y[tr])
    np.testing.assert_array_equal(est.predict(ds.X[te]), ref["predict"])
    np.testing.assert_allclose(_skml_proba(est, ds.X[te]), ref["proba"], rtol=1e-10)


# -- IBLR -----------------------------------------------------------------------------------------
def test_iblr_features_are_neighbour_label_fractions():
    Yn = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    idx = np.array([[0, 1], [2, 3]])
    dist = np.array([[1.0, 3.0], [0.0, 2.0]])
    np.testing.assert_allclose(neighbour_label_fractions(dist, idx, Yn), [[1, 0.5], [0, 0.5]])
    # 1/d weights: 1 and 1/3 -> 3/4 and 1/4; a zero distance takes all the weight
    np.testing.assert_allclose(neighbour_label_fractions(dist, idx, Yn, "distance"),
                               [[1, 0.25], [0, 1]])


def test_iblr_equals_logistic_regression_on_hand_made_features():
    est = IBLR(k=10).fit(XTR, YTR)
    nn = NearestNeighbors(n_neighbors=11).fit(XTR)
    tr_idx = nn.kneighbors(XTR, return_distance=False)[:, 1:]  # drop the point itself
    te_idx = nn.kneighbors(XTE, n_neighbors=10, return_distance=False)
    F_tr, F_te = YTR[tr_idx].mean(axis=1), YTR[te_idx].mean(axis=1)
    pred, prob = reference_br_lr(F_tr, YTR, F_te)
    np.testing.assert_array_equal(est.predict(XTE), pred)
    np.testing.assert_allclose(est.predict_proba(XTE), prob, rtol=1e-8, atol=1e-10)


def test_iblr_plus_uses_the_features_too():
    plain = IBLR(k=10).fit(XTR, YTR)
    plus = IBLR(k=10, include_features=True).fit(XTR, YTR)
    assert plus.br_.estimators_[0].coef_.shape[1] == 5 + XTR.shape[1]
    assert not np.allclose(plain.predict_proba(XTE), plus.predict_proba(XTE))


# -- shared behaviour ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", BASELINES)
def test_sparse_input_gives_the_dense_results(name):
    dense = fit(name, seed=7)
    sparse = fit(name, X=sp.csr_matrix(XTR), seed=7)
    np.testing.assert_array_equal(dense.predict(XTE), sparse.predict(sp.csr_matrix(XTE)))
    np.testing.assert_allclose(scores(dense, XTE), scores(sparse, sp.csr_matrix(XTE)),
                               rtol=1e-6, atol=1e-6)
    if hasattr(dense, "joint_log_proba"):
        np.testing.assert_allclose(dense.joint_log_proba(XTE, YTE),
                                   sparse.joint_log_proba(sp.csr_matrix(XTE), YTE), rtol=1e-5)


@pytest.mark.parametrize("name", BASELINES)
def test_same_seed_same_numbers(name):
    a, b = fit(name, seed=11), fit(name, seed=11)
    np.testing.assert_array_equal(scores(a, XTE), scores(b, XTE))
    assert a.predict(XTE).shape == YTE.shape and set(np.unique(a.predict(XTE))) <= {0, 1}


@pytest.mark.parametrize("name, params",
                         [("br-rf", {}), ("ecc", {}), ("rakel", {"n_labelsets": 4})])
def test_other_seed_other_numbers(name, params):
    # (RAkEL with L = 5 and m = 2L draws all C(5, 3) = 10 labelsets whatever the seed)
    a, b = fit(name, seed=1, **params), fit(name, seed=2, **params)
    assert not np.array_equal(scores(a, XTE), scores(b, XTE))


@pytest.mark.parametrize("name, params", [(n, {}) for n in BASELINES]
                         + [("rakel", {"aggregate": "proba"}), ("ecc", {"aggregate": "proba"})])
def test_constant_labels_in_training(name, params):
    Yc = YTR.copy()
    Yc[:, 1] = 0
    Yc[:, 3] = 1
    est = fit(name, Y=Yc, **params)
    pred = est.predict(XTE)
    assert (pred[:, 1] == 0).all() and (pred[:, 3] == 1).all()
    s = scores(est, XTE)
    if name == "mlknn":  # smoothed Bayesian posterior: never exactly 0 or 1
        assert (s[:, 1] < 0.5).all() and (s[:, 3] > 0.5).all()
    elif name == "br-svm":
        assert (s[:, 1] == -1).all() and (s[:, 3] == 1).all()
    else:  # exact for votes and constant models; sums of class probabilities for "proba"
        np.testing.assert_allclose(s[:, 1], 0, atol=1e-12)
        np.testing.assert_allclose(s[:, 3], 1, atol=1e-12)


def test_unknown_base_learner():
    bad = BinaryRelevance(base="perceptron")
    assert not hasattr(bad, "predict_proba")  # hidden, not raised inside hasattr
    with pytest.raises(ValueError, match="unknown base learner"):
        bad.fit(XTR, YTR)
    with pytest.raises(ValueError, match="aggregate"):
        EnsembleClassifierChains(aggregate="median").fit(XTR, YTR)


# -- joint probabilities (the MC paper's conditional log-likelihood loss) -------------------------
ALL_VECTORS = np.array([[(v >> l) & 1 for l in range(5)] for v in range(32)])


@pytest.mark.parametrize("name", ["br-lr", "cc", "mlknn", "iblr"])
def test_joint_is_a_distribution_over_label_vectors(name):
    est = fit(name)
    rows = XTE[:6]
    total = np.zeros(len(rows))
    for y in ALL_VECTORS:
        total += np.exp(est.joint_log_proba(rows, np.tile(y, (len(rows), 1))))
    np.testing.assert_allclose(total, 1.0, rtol=1e-10)


def test_br_joint_is_the_product_of_label_probabilities():
    est = fit("br-lr")
    _, prob = reference_br_lr(XTR, YTR, XTE)
    expected = np.sum(np.log(np.where(YTE == 1, prob, 1 - prob)), axis=1)
    np.testing.assert_allclose(est.joint_log_proba(XTE, YTE), expected, rtol=1e-9)


def test_cc_joint_follows_the_chain_rule_with_the_given_labels():
    from sklearn.multioutput import ClassifierChain as SkChain

    order = [3, 0, 4, 1, 2]
    est = ClassifierChain(order=order).fit(XTR, YTR)
    ref = SkChain(LogisticRegression(C=1.0, max_iter=1000), order=order).fit(XTR, YTR)
    expected = np.zeros(len(XTE))
    for j, model in enumerate(ref.estimators_):
        Xj = np.hstack([XTE, YTE[:, order[:j]]])
        p1 = model.predict_proba(Xj)[:, 1]
        expected += np.log(np.where(YTE[:, order[j]] == 1, p1, 1 - p1))
    np.testing.assert_allclose(est.joint_log_proba(XTE, YTE), expected, rtol=1e-9)


def test_mlknn_joint_is_the_product_of_posteriors():
    est = fit("mlknn")
    post = est.predict_proba(XTE)
    expected = np.sum(np.log(np.where(YTE == 1, post, 1 - post)), axis=1)
    np.testing.assert_allclose(est.joint_log_proba(XTE, YTE), expected, rtol=1e-10)


def test_joint_of_a_label_unseen_in_training_is_finite():
    Yc = YTR.copy()
    Yc[:, 2] = 0
    est = fit("br-lr", Y=Yc)
    Yt = YTE.copy()
    Yt[:, 2] = 1
    with_one = est.joint_log_proba(XTE, Yt)
    Yt[:, 2] = 0
    with_zero = est.joint_log_proba(XTE, Yt)
    # Laplace's rule for the constant label: P(1) = 1 / (n + 2) with n = 160 training rows
    np.testing.assert_allclose(with_one - with_zero, np.log(1 / 162) - np.log(161 / 162))


@pytest.mark.parametrize("name", ["br-svm", "ecc", "rakel"])
def test_no_joint_without_probabilities(name):
    assert not hasattr(fit(name), "joint_log_proba")
