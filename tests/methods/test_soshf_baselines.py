"""The SOSHF table's comparison methods written here: imbalance-aware BR, CLR, HOMER, COCOA."""
import numpy as np
import pytest
from sklearn.datasets import make_multilabel_classification
from sklearn.metrics import roc_auc_score

from mlbench.errors import ConfigError
from mlbench.methods import registry
from mlbench.methods.transformation.cocoa import _f1_grid_threshold
from mlbench.methods.transformation.homer import HOMER, balanced_kmeans
from mlbench.methods.transformation.imbalance import adasyn_resample, forest_oob_proba, paper_forest

X, Y = make_multilabel_classification(n_samples=150, n_features=6, n_classes=5, random_state=1)
X = (X - X.mean(0)) / X.std(0)
Y[:, 4] = 0
Y[:3, 4] = 1  # a rare label: three positives
NAMES = ["svm-cost", "svm-down", "svm-adasyn", "rf-cost", "rf-down", "rf-adasyn", "clr", "homer",
         "cocoa"]
FAST = {"rf-cost": {"n_estimators": 5}, "rf-down": {"n_estimators": 5},
        "rf-adasyn": {"n_estimators": 5}, "cocoa": {"n_estimators": 4, "n_couplings": 2}}


@pytest.mark.parametrize("name", NAMES)
def test_fit_predict_scores_and_reproducible(name):
    kw = FAST.get(name, {})
    a = registry.make(name, random_state=0, **kw).fit(X[:100], Y[:100])
    b = registry.make(name, random_state=0, **kw).fit(X[:100], Y[:100])
    S = a._scores(X[100:])
    assert S.shape == (50, 5)
    np.testing.assert_array_equal(S, b._scores(X[100:]))
    P = a.predict(X[100:])
    assert P.shape == (50, 5) and set(np.unique(P)) <= {0, 1}
    assert roc_auc_score(Y[100:, :4], S[:, :4], average="macro") > 0.6
    assert registry.get(name).paper == "soshf"


def test_adasyn_rule_for_few_minority_rows():
    y = np.zeros(100, dtype=int)
    y[:1] = 1
    assert adasyn_resample(X[:100], y, 5, 0) is None  # one minority row: nothing to interpolate
    y[:3] = 1
    Xr, yr = adasyn_resample(X[:100], y, 5, 0)  # k shrinks to 2
    assert yr.sum() > 3 and len(yr) == len(Xr)


def test_adasyn_counts_skipped_labels():
    m = registry.make("svm-adasyn", random_state=0)
    Yb = Y[:100].copy()
    Yb[:, 3] = 0
    Yb[0, 3] = 1
    m.fit(X[:100], Yb)
    assert m.fit_info_["adasyn_skipped"] >= 1


def test_svm_cost_uses_balanced_weights_and_down_balances():
    m = registry.make("svm-cost", random_state=0).fit(X[:100], Y[:100])
    assert all(getattr(e, "class_weight", "balanced") == "balanced" for e in m.estimators_)
    assert np.all(m.threshold_ == 0.0)


def test_forest_oob_rows_are_the_undrawn_ones():
    y = Y[:100, 0]
    f = paper_forest(n_estimators=3, random_state=0).fit(X[:100], y)
    assert all(len(r) == 75 and len(set(r)) == 75 for r in f.estimators_samples_)
    oob = forest_oob_proba(f, X[:100], 100)
    drawn_by_all = np.ones(100, dtype=bool)
    for r in f.estimators_samples_:
        mask = np.zeros(100, dtype=bool)
        mask[r] = True
        drawn_by_all &= mask
    assert np.isnan(oob[drawn_by_all]).all() and not np.isnan(oob[~drawn_by_all]).any()


def test_rf_cost_sets_thresholds_from_oob():
    m = registry.make("rf-cost", random_state=0, n_estimators=8).fit(X[:100], Y[:100])
    assert m.threshold_.shape == (5,) and not np.all(m.threshold_ == 0.5)


def test_clr_votes_sum_to_a_constant_and_ties_with_the_calibrated_label_are_relevant():
    m = registry.make("clr", random_state=0).fit(X[:100], Y[:100])
    L = 5
    V = m.decision_function(X[100:]) * L  # v_i, MULAN's confidence times L
    assert np.allclose(V, np.round(V)) and (V >= 0).all() and (V <= L).all()
    # every calibration and pairwise model casts exactly one vote, so
    # sum_i v_i + v_0 = L + pairs with v_0 a whole number of votes in [0, L]
    v0 = L + len(m.pairs_) - V.sum(axis=1)
    assert np.allclose(v0, np.round(v0)) and (v0 >= 0).all() and (v0 <= L).all()
    # MULAN's rule: relevant when v_i >= v_0, a tie included
    np.testing.assert_array_equal(m.predict(X[100:]), (V >= v0[:, None]).astype(int))
    assert (V == v0[:, None]).any()     # the tie rule is exercised


def test_balanced_kmeans_respects_capacity():
    V = np.random.default_rng(0).random((10, 30))
    groups = balanced_kmeans(V, 4, np.random.RandomState(0))
    assert sorted(np.concatenate(groups)) == list(range(10))
    assert max(len(g) for g in groups) <= 3


def test_homer_hierarchy_and_hard_predictions_follow_the_path():
    Y8 = np.c_[Y, Y[:, :3] ^ 1]
    m = HOMER(n_children=2, random_state=0).fit(X[:100], Y8[:100])
    assert len(m.root_.children) == 2
    S = m.predict_proba(X[100:])
    assert np.all((S >= 0) & (S <= 1))
    P = m.predict(X[100:])
    # a label predicted by the hard descent had probability >= 0.5 at every step
    assert np.all(S[P == 1] > 0)
    with pytest.raises(ConfigError):
        HOMER(n_children=1).fit(X, Y)


def test_cocoa_grid_threshold():
    s = np.array([0.1, 0.2, 0.6, 0.7, 0.9])
    y = np.array([0, 0, 1, 1, 1])
    assert _f1_grid_threshold(s, y) == pytest.approx(0.25)


def test_bad_strategy_is_config_error():
    with pytest.raises(ConfigError):
        registry.make("svm-cost", strategy="smote").fit(X, Y)
