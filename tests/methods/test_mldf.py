"""MLDF: feature reuse (Algorithm 1), threshold (Algorithm 2), layer growth (Algorithm 3)."""
import numpy as np
import pytest
from sklearn.datasets import make_multilabel_classification

from mlbench.errors import ConfigError
from mlbench.experiment.cell import recorded_params
from mlbench.methods import registry
from mlbench.methods.trees.mldf import MLDF, MultiMeasureMLDF, reuse
from mlbench.methods.trees.mldf_measures import aggregate, is_better, per_unit, worse_mask
from mlbench.metrics import get_measure

X, Y = make_multilabel_classification(n_samples=90, n_features=8, n_classes=5, n_labels=2,
                                      random_state=1)
SMALL = dict(n_estimators_start=4, n_estimators_step=2, n_estimators_max=8, n_folds=3)


def test_reuse_replaces_columns_or_rows_below_threshold():
    H = np.full((3, 2), 0.9)
    G_prev = np.zeros((3, 2))
    log_alpha = np.log([0.1, 0.8])
    G = reuse(H, G_prev, log_alpha, np.log(0.5), "macro_auc")  # label-based: columns
    np.testing.assert_array_equal(G[:, 0], 0.0)
    np.testing.assert_array_equal(G[:, 1], 0.9)
    G = reuse(H, G_prev, np.log([0.1, 0.8, 0.2]), np.log(0.5), "ranking_loss")  # rows
    np.testing.assert_array_equal(G[[0, 2]], 0.0)
    np.testing.assert_array_equal(G[1], 0.9)
    # theta = 0 (log -inf): nothing reused
    np.testing.assert_array_equal(reuse(H, G_prev, log_alpha, -np.inf, "macro_auc"), H)


@pytest.mark.parametrize("measure,metric", [("hamming_loss", "hamming_loss"),
                                            ("one_error", "one_error"),
                                            ("coverage", "coverage_normalized"),
                                            ("ranking_loss", "ranking_loss"),
                                            ("average_precision", "average_precision"),
                                            ("macro_auc", "macro_auc")])
def test_training_measure_agrees_with_mlbench_metrics(measure, metric):
    F = np.random.default_rng(0).random(Y.shape)
    m = get_measure(metric)
    inputs = (F > 0.5).astype(int) if m.needs == "predictions" else F
    assert aggregate(per_unit(F, Y, measure)) == pytest.approx(m(Y, inputs))


def test_direction_helpers():
    assert is_better(0.1, 0.2, "ranking_loss") and not is_better(0.1, 0.2, "macro_auc")
    assert is_better(0.3, np.nan, "macro_auc") and not is_better(np.nan, 0.3, "macro_auc")
    np.testing.assert_array_equal(worse_mask([0.5, 0.1, np.nan], [0.2, 0.2, 0.1], "coverage"),
                                  [True, False, False])


@pytest.mark.parametrize("name", ["mldf-hl", "mldf-oe", "mldf-cov", "mldf-rl", "mldf-ap",
                                  "mldf-auc", ("mldf-rl", {"block": "c45"})])
def test_variants_fit_grow_and_keep_best_layer(name):
    name, extra = name if isinstance(name, tuple) else (name, {})
    est = registry.make(name, random_state=0, max_layers=6, **SMALL, **extra).fit(X, Y)
    P = est.predict_proba(X)
    assert P.shape == Y.shape and P.min() >= 0 and P.max() <= 1
    info = est.fit_info_
    L, grown = info["layers"], info["layers_grown"]
    assert len(est.layers_) == L and 1 <= L <= grown <= 6
    assert grown == 6 or grown - L == 3          # stopped by T or by the patience of 3 layers
    perf = est.train_measure_
    best = np.nanmax(perf) if est.measure_ in ("macro_auc", "average_precision") else np.nanmin(perf)
    assert perf[L - 1] == best and np.flatnonzero(perf == best)[0] == L - 1
    # theta_1 = theta_2 = 0: no reuse in the first two layers
    assert all(layer["log_threshold"] == -np.inf for layer in est.layers_[:2])


def test_same_seed_same_numbers_and_seed_matters():
    a = MLDF(measure="ranking_loss", random_state=5, max_layers=3, **SMALL).fit(X, Y)
    b = MLDF(measure="ranking_loss", random_state=5, max_layers=3, **SMALL).fit(X, Y)
    c = MLDF(measure="ranking_loss", random_state=6, max_layers=3, **SMALL).fit(X, Y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not np.array_equal(a.predict_proba(X), c.predict_proba(X))


def test_feature_reuse_sets_thresholds_only_when_enabled():
    on = MLDF(measure="ranking_loss", random_state=0, max_layers=5, patience=5, **SMALL).fit(X, Y)
    off = MLDF(measure="ranking_loss", random_state=0, max_layers=5, patience=5,
               feature_reuse=False, **SMALL).fit(X, Y)
    assert any(np.isfinite(layer["log_threshold"]) for layer in on.layers_[2:])
    assert all(layer["log_threshold"] == -np.inf for layer in off.layers_)


def test_prediction_applies_the_learnt_reuse():
    est = MLDF(measure="average_precision", random_state=0, max_layers=5, patience=5,
               **SMALL).fit(X, Y)
    assert len(est.layers_) >= 3
    # a threshold above every confidence makes layer 3 hand every row of G^2 through
    est.layers_[2]["log_threshold"] = 0.0 + 1e-9
    del est.layers_[3:]
    two = MLDF(measure="average_precision", random_state=0, max_layers=5, patience=5, **SMALL)
    two = two.fit(X, Y)
    del two.layers_[2:]
    np.testing.assert_allclose(est.predict_proba(X), two.predict_proba(X))


def test_layer_sizes_follow_the_paper():
    est = MLDF()
    assert [est._layer_size(t) for t in (1, 2, 3, 4, 5)] == [(40, 3), (60, 6), (80, 9),
                                                             (100, 12), (100, 15)]


def test_bad_parameters_are_config_errors():
    with pytest.raises(ConfigError):
        MLDF(measure="f1").fit(X, Y)
    with pytest.raises(ConfigError):
        MLDF(block="svm").fit(X, Y)
    with pytest.raises(ConfigError):
        MLDF(n_folds=1).fit(X, Y)
    with pytest.raises(ValueError, match="n_samples=3"):
        MLDF(n_folds=5).fit(X[:3], Y[:3])


def test_sparse_input():
    import scipy.sparse as sp
    est = MLDF(random_state=0, max_layers=2, **SMALL).fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(est.predict_proba(sp.csr_matrix(X)), est.predict_proba(X))


ALL_SIX = ["hamming_loss", "one_error", "coverage", "ranking_loss", "average_precision",
           "macro_auc"]


@pytest.mark.parametrize("measures", [
    ["hamming_loss", "coverage", "macro_auc"],
    pytest.param(ALL_SIX, marks=pytest.mark.slow)])
def test_multi_measure_fit_equals_separate_fits_with_the_same_seed(measures):
    kw = dict(random_state=4, max_layers=5, n_estimators_start=3, n_estimators_step=1,
              n_estimators_max=4, n_folds=2)
    multi = MultiMeasureMLDF(measures=measures, **kw).fit(X, Y)
    Xt = X[::-1] + 0.05
    own = multi.measure_outputs(Xt)
    separate_fits = 0
    for measure in measures:
        single = MLDF(measure=measure, **kw).fit(X, Y)
        column = "coverage_normalized" if measure == "coverage" else measure
        P = single.predict_proba(Xt)
        np.testing.assert_array_equal(own[column]["scores"], P)
        np.testing.assert_array_equal(own[column]["predictions"], single.predict(Xt))
        assert multi.fit_info_["layers"][column] == single.fit_info_["layers"]
        assert multi.fit_info_["train_measure"][column] == single.fit_info_["train_measure"]
        separate_fits += single.fit_info_["layers_grown"]
    np.testing.assert_array_equal(multi.predict_proba(Xt), own["hamming_loss"]["scores"])
    np.testing.assert_array_equal(own["coverage"]["scores"], own["coverage_normalized"]["scores"])
    # layers 1-3 are computed once for all six measures (every branch grows at least 4 layers)
    info = multi.fit_info_
    assert info["layer_fits_separate"] == separate_fits
    assert info["layer_fits"] <= separate_fits - 3 * (len(measures) - 1)
    first = [multi.branches_[m][0]["forests"] for m in measures]
    assert all(f is first[0] for f in first)  # the kept layer 1 is refit once and shared


def test_mldf_c45_grows_every_measure_from_c45_blocks():
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

    est = registry.make("mldf-c45", random_state=0, max_layers=4, **SMALL)
    assert isinstance(est, MultiMeasureMLDF) and est.block == "c45"
    est.fit(X, Y)
    assert set(est.measure_outputs(X)) >= {"hamming_loss", "one_error", "coverage_normalized",
                                           "ranking_loss", "average_precision", "macro_auc"}
    forests = est.branches_["macro_auc"][0]["forests"]
    assert [type(f) for f in forests] == [RandomForestClassifier, ExtraTreesClassifier]
    assert all(f.criterion == "entropy" for f in forests)


def test_multi_measure_without_reuse_shares_every_layer():
    kw = dict(random_state=1, max_layers=5, feature_reuse=False, **SMALL)
    multi = MultiMeasureMLDF(measures=["ranking_loss", "macro_auc"], **kw).fit(X, Y)
    assert multi.fit_info_["layer_fits"] == max(multi.fit_info_["layers_grown"].values())


def test_multi_measure_bad_measures_are_config_errors():
    with pytest.raises(ConfigError):
        MultiMeasureMLDF(measures=["f1"]).fit(X, Y)
    with pytest.raises(ConfigError):
        MultiMeasureMLDF(measures=[]).fit(X, Y)


@pytest.mark.parametrize("reference", ["G", "H"])
def test_algorithm_2_compares_with_the_chosen_previous_representation(reference):
    from mlbench.methods.trees.mldf_cascade import Branch
    from mlbench.methods.trees.mldf_confidence import log_confidence, log_mean

    rng = np.random.RandomState(3)
    Yb = rng.randint(2, size=(40, 5))
    Hs = [np.clip(Yb * 0.3 + rng.rand(40, 5) * 0.7, 0, 1) for _ in range(4)]
    b = Branch("macro_auc")
    G_before, m_H = [], []
    for t, H in enumerate(Hs, 1):
        G_before.append(b.G)
        if t == 4:
            prev = per_unit(G_before[-1], Yb, "macro_auc") if reference == "G" else m_H[-1]
            la = log_confidence(H, "macro_auc")
            expected = log_mean(la[worse_mask(per_unit(H, Yb, "macro_auc"), prev, "macro_auc")])
        b.step(t, H, t - 1, Yb, True, 10, reference)
        m_H.append(per_unit(H, Yb, "macro_auc"))
    assert not np.array_equal(G_before[-1], Hs[2])   # layer 3 copied columns: the readings differ
    assert b.thetas[3] == expected


def test_threshold_reference_is_checked_and_changes_the_fit_only_from_layer_4():
    with pytest.raises(ConfigError, match="threshold_reference"):
        MLDF(threshold_reference="F").fit(X, Y)
    kw = dict(measure="ranking_loss", random_state=0, max_layers=5, patience=5, **SMALL)
    g, h = MLDF(**kw).fit(X, Y), MLDF(threshold_reference="H", **kw).fit(X, Y)
    assert [la["log_threshold"] for la in g.layers_[:3]] == [la["log_threshold"] for la in h.layers_[:3]]


@pytest.mark.parametrize("leaf", [1, 3])
def test_min_samples_leaf_reaches_every_forest_and_is_recorded_only_when_set(leaf):
    est = MLDF(measure="macro_auc", max_layers=2, min_samples_leaf=leaf, random_state=0,
               **SMALL).fit(X, Y)
    sizes = []
    for layer in est.layers_:
        for forest in layer["forests"]:
            for skeleton in forest.compact_.skeletons:
                nodes = skeleton.__getstate__()["nodes"]
                sizes.append(nodes["n_node_samples"][nodes["left_child"] == -1].min())
    assert min(sizes) >= leaf
    if leaf == 1:   # the trees do reach single-row leaves, so the option is what bounds them
        assert min(sizes) == 1
    assert ("min_samples_leaf" in recorded_params(est)) == (leaf != 1)
