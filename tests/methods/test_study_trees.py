"""The study's tree, ensemble and stacking methods (Bogatinovski et al. 2022): pct, rfpct, rfdtbr,
ebrj48, eccj48, mbr, and MEKA's PCut1 threshold.  Each is compared with scikit-learn's own estimators
doing the same algorithm on the same rows and seeds (MultiOutputClassifier, ClassifierChain, the
forests and trees), and with mlbench's method contract (check_method)."""
import numpy as np
import pytest
from sklearn.datasets import make_multilabel_classification
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import ClassifierChain as SkChain
from sklearn.multioutput import MultiOutputClassifier
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from mlbench.methods import registry
from mlbench.methods.components.binary import draw_seeds
from mlbench.methods.components.thresholds import pcut1_threshold
from mlbench.methods.trees.pct import resolve_max_features
from mlbench.testing import check_method

X, Y = make_multilabel_classification(n_samples=160, n_features=9, n_classes=5, random_state=3)
X = X + np.random.RandomState(1).rand(*X.shape)        # continuous: no tied cut points
TR, TE = slice(0, 110), slice(110, None)
SEED_MAX = np.iinfo(np.int32).max

STUDY = ("pct", "rfpct", "rfdtbr", "ebrj48", "eccj48", "mbr", "cdn", "ada300")


@pytest.mark.parametrize("name", STUDY)
def test_study_method_contract(name):
    small = {"rfpct": {"n_estimators": 5}, "rfdtbr": {"n_estimators": 5},
             "ebrj48": {"n_estimators": 3}, "eccj48": {"n_estimators": 3},
             "mbr": {"base": "lr"}, "cdn": {"n_iterations": 20, "n_collection": 5},
             "ada300": {"n_estimators": 10}}.get(name, {})
    found = check_method(registry.make(name, **small))
    assert found["scores"] == "predict_proba"
    assert found["sparse"]


def test_pcut1_follows_mekas_rule():
    # 3 rows x 2 labels; LC = 1 -> i = 6 - 3 = 3; sorted .1 .2 .3 .6 .7 .9; j = max(4, 2) = 4
    S = np.array([[0.9, 0.1], [0.6, 0.3], [0.2, 0.7]])
    assert pcut1_threshold(S, 1.0) == pytest.approx((0.6 + 0.7) / 2)
    # i = NL - round(LC N) with Java's round-half-up: LC = 0.5 -> round(1.5) = 2 -> i = 4
    assert pcut1_threshold(S, 0.5) == pytest.approx((0.7 + 0.9) / 2)
    # LC = 0: i = NL -> the mean of the two largest scores
    assert pcut1_threshold(S, 0.0) == pytest.approx((0.7 + 0.9) / 2)
    # tiny scores: never below 1e-5
    assert pcut1_threshold(np.zeros((3, 2)), 1.0) == 1e-5
    # one label: i + 1 > N -> 1.0; i + 1 == N -> mean of the two largest
    s = np.array([[0.2], [0.4], [0.8]])
    assert pcut1_threshold(s, 0.0) == 1.0
    assert pcut1_threshold(s, 1 / 3) == pytest.approx(0.6)
    assert pcut1_threshold(s, 2 / 3) == pytest.approx(0.6)     # i = 1: (s_1 + s_2) / 2
    assert pcut1_threshold(np.zeros((0, 2)), 1.0) == 0.5


def test_pcut1_prediction_uses_the_predicted_rows():
    m = registry.make("ebrj48", n_estimators=3, random_state=0).fit(X[TR], Y[TR])
    scores = m.predict_proba(X[TE])
    t = pcut1_threshold(scores, Y[TR].sum(1).mean())
    np.testing.assert_array_equal(m.predict(X[TE]), (scores >= t).astype(int))
    fixed = registry.make("ebrj48", n_estimators=3, threshold=0.5, random_state=0).fit(X[TR], Y[TR])
    np.testing.assert_array_equal(fixed.predict(X[TE]), (scores >= 0.5).astype(int))
    with pytest.raises(ValueError, match="pcut1"):
        registry.make("ebrj48", threshold="pcut2").fit(X[TR], Y[TR])


def test_pct_is_one_variance_tree_on_all_rows():
    m = registry.make("pct", pruning="none", random_state=5).fit(X[TR], Y[TR])
    forest_seed = np.random.RandomState(5).randint(SEED_MAX)
    tree_seed = np.random.RandomState(forest_seed).randint(SEED_MAX)   # sklearn's forest draw
    ref = DecisionTreeRegressor(min_samples_leaf=2, random_state=tree_seed)
    ref.fit(X[TR], Y[TR].astype(float))
    np.testing.assert_array_equal(m.predict_proba(X[TE]), ref.predict(X[TE]))
    np.testing.assert_array_equal(m.predict(X[TE]), (ref.predict(X[TE]) > 0.5).astype(int))
    assert ref.get_n_leaves() > 2 and ref.tree_.n_node_samples.min() >= 2


def test_feature_subset_rules():
    assert resolve_max_features("ceil-log2", 9) == 4 and resolve_max_features("ceil-log2", 8) == 3
    assert resolve_max_features("log2+1", 9) == 4 and resolve_max_features("log2+1", 8) == 4
    assert resolve_max_features("log2+1", 1) == 1 and resolve_max_features("sqrt", 9) == "sqrt"


def test_rfpct_is_sklearns_forest_with_clus_defaults():
    m = registry.make("rfpct", n_estimators=4, random_state=2).fit(X[TR], Y[TR])
    ref = RandomForestRegressor(n_estimators=4, max_features=4, min_samples_leaf=2,
                                random_state=np.random.RandomState(2).randint(SEED_MAX))
    ref.fit(X[TR].astype(np.float32), Y[TR].astype(float))
    np.testing.assert_allclose(m.predict_proba(X[TE]), ref.predict(X[TE].astype(np.float32)),
                               rtol=0, atol=1e-12)


def test_rfdtbr_is_one_entropy_forest_per_label():
    m = registry.make("rfdtbr", n_estimators=6, random_state=4).fit(X[TR], Y[TR])
    seeds = draw_seeds(4, Y.shape[1])
    ref = np.column_stack([
        RandomForestClassifier(n_estimators=6, criterion="entropy", max_features=4,
                               random_state=seeds[l]).fit(X[TR], Y[TR, l]).predict_proba(X[TE])[:, 1]
        for l in range(Y.shape[1])])
    np.testing.assert_array_equal(m.predict_proba(X[TE]), ref)


def test_ebrj48_averages_per_label_j48_trees_on_its_bootstrap_samples():
    """Each member is BR: one J48 tree (Weka's defaults) per label on the member's bootstrap
    rows; the score is the mean of their P(y = 1)."""
    from mlbench.methods.components.j48 import J48

    m = registry.make("ebrj48", n_estimators=3, random_state=8).fit(X[TR], Y[TR])
    seeds = draw_seeds(8, 6)
    ref = np.zeros((X[TE].shape[0], Y.shape[1]))
    for k, rows in enumerate(m.estimators_samples_):
        assert rows.size == 110 and np.unique(rows).size < 110      # N rows, with replacement
        np.testing.assert_array_equal(rows, np.random.RandomState(seeds[2 * k]).randint(110, size=110))
        for l in range(Y.shape[1]):
            tree = J48(C=0.25, M=2).fit(X[TR][rows], Y[TR][rows, l])
            ref[:, l] += tree.predict_proba(X[TE])[:, list(tree.classes_).index(1)]
    np.testing.assert_allclose(m.predict_proba(X[TE]), ref / 3, rtol=0, atol=1e-12)


def test_eccj48_votes_of_sklearn_chains_on_its_samples():
    """Each chain equals scikit-learn's ClassifierChain with the chain's order on its bootstrap
    rows.  sklearn's chain gives every position the same seed, mlbench's one seed each: the trees
    are kept shallow so that no two splits tie and the seeds do not matter (test_tree_bases.py
    checks the full-depth EntropyTree against scikit-learn's tree seed for seed)."""
    m = registry.make("eccj48", n_estimators=3, base="tree", base_params={"max_depth": 2},
                      threshold=0.5, random_state=6).fit(X[TR], Y[TR])
    seeds = draw_seeds(6, 6)
    votes = np.zeros((X[TE].shape[0], Y.shape[1]))
    for k, chain in enumerate(m.estimators_):
        rows = np.random.RandomState(seeds[2 * k]).randint(110, size=110)
        sk = SkChain(DecisionTreeClassifier(criterion="entropy", max_depth=2, random_state=0),
                     order=chain.order_).fit(X[TR][rows], Y[TR][rows])
        votes += sk.predict(X[TE])
    np.testing.assert_array_equal(m.predict_proba(X[TE]), votes / 3)
    np.testing.assert_array_equal(m.predict(X[TE]), (votes / 3 >= 0.5).astype(int))
    assert len({tuple(c.order_) for c in m.estimators_}) == 3          # random orders


def test_eccj48_chains_are_j48_chains():
    """With its own base (J48's defaults, deterministic: no seed involved) each chain equals
    scikit-learn's ClassifierChain of J48 trees with the chain's order on its bootstrap rows."""
    from mlbench.methods.components.j48 import J48

    m = registry.make("eccj48", n_estimators=2, threshold=0.5, random_state=3).fit(X[TR], Y[TR])
    seeds = draw_seeds(3, 4)
    votes = np.zeros((X[TE].shape[0], Y.shape[1]))
    for k, chain in enumerate(m.estimators_):
        rows = np.random.RandomState(seeds[2 * k]).randint(110, size=110)
        votes += SkChain(J48(), order=chain.order_).fit(X[TR][rows], Y[TR][rows]).predict(X[TE])
    np.testing.assert_array_equal(m.predict_proba(X[TE]), votes / 2)


def test_mbr_stacks_two_multioutput_levels():
    m = registry.make("mbr", base="lr", threshold=0.5, random_state=0).fit(X[TR], Y[TR])

    def proba(mo, A):
        return np.column_stack([p[:, 1] for p in mo.predict_proba(A)])

    one = MultiOutputClassifier(LogisticRegression(max_iter=1000)).fit(X[TR], Y[TR])
    two = MultiOutputClassifier(LogisticRegression(max_iter=1000))
    two.fit(np.hstack([X[TR], proba(one, X[TR])]), Y[TR])
    ref = proba(two, np.hstack([X[TE], proba(one, X[TE])]))
    np.testing.assert_allclose(m.predict_proba(X[TE]), ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(m.predict(X[TE]), (ref >= 0.5).astype(int))


def _stationary_marginals(models, x, d):
    """Exact P(y_j = 1) under the stationary law of CDN's random-scan Gibbs chain for 2 labels:
    one iteration visits the labels in order (0, 1) or (1, 0) with probability 1/2 each."""
    def p1(j, y):
        z = np.r_[x, y].reshape(1, -1).copy()
        z[0, d + j] = 0.0
        return models[j].predict_proba(z)[0, 1]

    states = [(a, b) for a in (0, 1) for b in (0, 1)]
    T = np.zeros((4, 4))
    for order in ((0, 1), (1, 0)):
        for s, start in enumerate(states):
            dist = {start: 1.0}
            for j in order:
                nxt = {}
                for y, w in dist.items():
                    q = p1(j, np.array(y, float))
                    for v, pv in ((1, q), (0, 1 - q)):
                        yy = list(y)
                        yy[j] = v
                        nxt[tuple(yy)] = nxt.get(tuple(yy), 0.0) + w * pv
                dist = nxt
            for y, w in dist.items():
                T[s, states.index(y)] += 0.5 * w
    vals, vecs = np.linalg.eig(T.T)
    pi = np.real(vecs[:, np.argmin(np.abs(vals - 1))])
    pi /= pi.sum()
    return np.array([pi[2] + pi[3], pi[1] + pi[3]])


@pytest.mark.slow
def test_cdn_gibbs_frequencies_match_the_chains_stationary_marginals():
    X2, Y2 = X[:, :4], Y[:, :2]
    m = registry.make("cdn", base="lr", n_iterations=1500, n_collection=1200, threshold=0.5,
                      random_state=0).fit(X2[TR], Y2[TR])
    # each label's model reads x and the other label, never its own column (held at 0)
    for j, est in enumerate(m.estimators_):
        assert est.coef_[0, 4 + j] == 0.0 and est.coef_[0, 4 + 1 - j] != 0.0
    rows = X2[TE][:4]
    got = m.predict_proba(rows)
    exact = np.array([_stationary_marginals(m.estimators_, x, 4) for x in rows])
    np.testing.assert_allclose(got, exact, atol=0.06)
    np.testing.assert_array_equal(got, m.predict_proba(rows))           # seeded draws


def test_cdn_collects_the_last_iterations_as_meka_does():
    """Labels a tree predicts with certainty: every collected sample is that label set, and MEKA's
    rule counts Ic - 1 iterations over Ic."""
    Yd = np.column_stack([(X[:, 0] > np.median(X[:, 0])), (X[:, 1] > np.median(X[:, 1]))]).astype(int)
    m = registry.make("cdn", n_iterations=10, n_collection=4, threshold=0.5,
                      random_state=1).fit(X[TR], Yd[TR])
    # each tree is one split on its label's own feature: P(y_j = 1 | x, y_-j) is 0 or 1
    assert [list(est.feature_[est.left_ != -1]) for est in m.estimators_] == [[0], [1]]
    Z = np.hstack([X[TE], np.zeros((X[TE].shape[0], 2))])
    certain = np.column_stack([est.predict_proba(Z)[:, 1] for est in m.estimators_])
    np.testing.assert_array_equal(m.predict_proba(X[TE]), 0.75 * certain)


def _expanded(X, L):
    """The (example, label) pairs: X repeated per label plus the label's one-hot indicator."""
    n = X.shape[0]
    return np.hstack([np.repeat(X, L, axis=0), np.tile(np.eye(L), (n, 1))])


@pytest.mark.parametrize("binary", [False, True])
def test_ada300_is_sklearns_discrete_adaboost_over_label_pairs(binary):
    from sklearn.ensemble import AdaBoostClassifier

    Xa = (X > np.median(X, axis=0)).astype(float) if binary else X
    T = 15
    m = registry.make("ada300", n_estimators=T).fit(Xa[TR], Y[TR])
    L = Y.shape[1]
    ref = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1, criterion="entropy"),
                             n_estimators=T, random_state=0)   # SAMME
    ref.fit(_expanded(Xa[TR], L), Y[TR].ravel())
    assert len(m.betas_) == len(ref.estimators_) == T
    np.testing.assert_allclose(m.betas_, ref.estimator_weights_[:T], rtol=1e-9)
    E = _expanded(Xa[TE], L)
    S = sum(w * (2.0 * est.predict(E) - 1.0)
            for est, w in zip(ref.estimators_, ref.estimator_weights_)).reshape(-1, L)
    np.testing.assert_array_equal(np.sign(S), np.sign(ref.decision_function(E).reshape(-1, L)))
    np.testing.assert_allclose(m.decision_scores(Xa[TE]), S, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(m.predict(Xa[TE]), (S >= 0).astype(int))
    kinds = {s[0] for s in m.stumps_}
    assert "feature" in kinds


def test_ada300_scores_are_additive_so_every_row_ranks_the_labels_alike():
    """A stump reads the label or one feature, never both: S(x, l) = F(x) + G(l) (MULAN's
    AdaBoostMH; benchmarks/ada300_ranking_diagnostic.py shows what it does to the study's grid)."""
    m = registry.make("ada300", n_estimators=40).fit(X[TR], Y[TR])
    assert {s[0] for s in m.stumps_} == {"feature", "label"}
    S = m.decision_scores(X[TE])
    G = S - S[:, :1]
    np.testing.assert_allclose(G, np.broadcast_to(G[0], G.shape), atol=1e-9)
    assert len({tuple(np.argsort(-g, kind="stable")) for g in np.round(G, 9)}) == 1


def test_ada300_keeps_a_perfect_first_stump_alone():
    """Weka's AdaBoostM1 stops when a stump makes no error; a first stump is then the model and
    its branch class fractions are the scores."""
    y = (X[:, 2] > np.median(X[TR, 2])).astype(int).reshape(-1, 1)
    m = registry.make("ada300").fit(X[TR], y[TR])
    assert len(m.stumps_) == 1 and m.betas_ == [] and m.stumps_[0][:2] == ("feature", 2)
    np.testing.assert_array_equal(m.predict_proba(X[TE]), (X[TE, 2:3] > m.stumps_[0][2]) * 1.0)
    np.testing.assert_array_equal(m.predict(X[TE]), (X[TE, 2:3] > m.stumps_[0][2]).astype(int))


def test_mbr_takes_the_protocols_flat_C_and_gamma():
    m = registry.make("mbr", C=4.0, gamma=0.5, threshold=0.5, random_state=0).fit(X[TR], Y[TR])
    for level in (m.level1_, m.level2_):
        svc = level.estimators_[0]
        assert (svc.kernel, svc.C, svc.gamma) == ("rbf", 4.0, 0.5)
    assert registry.get("mbr").grid["C"][0] == 2.0 ** -5


def test_c45_added_errors():
    from mlbench.methods.components.c45_pruning import added_errors

    # no error: the exact bound n (1 - CF^(1/n)); Quinlan (1993) gives U(0, 6) = 0.206 per row
    assert added_errors(6, 0.0) == pytest.approx(6 * (1 - 0.25 ** (1 / 6)))
    assert added_errors(6, 0.0) / 6 == pytest.approx(0.206, abs=1e-3)
    # the normal approximation near Quinlan's exact U(1, 16) = 0.157 per row
    assert (1 + added_errors(16, 1.0)) / 16 == pytest.approx(0.157, abs=0.01)
    assert added_errors(4, 3.6) == pytest.approx(0.4)          # e + 0.5 >= n: n - e


def test_pct_c45_pruning_keeps_the_signal_and_leaf_fractions_of_its_rows():
    from mlbench.methods.trees.single_pct import PredictiveClusteringTree

    rng = np.random.RandomState(0)
    Xs = rng.rand(300, 6)
    Ys = np.column_stack([Xs[:, 0] > 0.5, Xs[:, 0] > 0.5, rng.rand(300) < 0.2]).astype(int)
    flip = rng.rand(300, 3) < 0.1
    Ys = np.where(flip, 1 - Ys, Ys)
    grown = PredictiveClusteringTree(pruning="none", random_state=0).fit(Xs, Ys)
    pruned = PredictiveClusteringTree(random_state=0).fit(Xs, Ys)
    feature, threshold, left, right, value = pruned.nodes_
    n_inner = int((left != -1).sum())
    assert 1 <= n_inner < grown.tree_.compact_.skeletons[0].node_count // 10
    assert feature[0] == 0 and abs(threshold[0] - 0.5) < 0.05
    # every leaf predicts the label fractions of the training rows that reach it
    leaf = np.zeros(300, dtype=int)
    for i in range(300):
        node = 0
        while left[node] != -1:
            node = left[node] if np.float32(Xs[i, feature[node]]) <= threshold[node] else right[node]
        leaf[i] = node
    for k in np.unique(leaf):
        np.testing.assert_allclose(value[k], Ys[leaf == k].mean(axis=0))
    np.testing.assert_array_equal(pruned.predict_proba(Xs), value[leaf])


def test_pct_c45_pruning_decision_on_one_split():
    """One label, ten rows, one split into 5 + 5 whose sides predict differently (so neither the
    same-prediction nor the training-error step prunes it): C4.5's rule keeps the split exactly
    when the leaf's estimated errors exceed the children's by more than 0.1."""
    from mlbench.methods.components.c45_pruning import added_errors
    from mlbench.methods.trees.single_pct import PredictiveClusteringTree

    x = np.arange(10, dtype=float).reshape(-1, 1)
    for left_ones, right_ones in ((2, 3), (0, 4), (1, 4)):
        y = np.zeros((10, 1), dtype=int)
        y[:left_ones] = 1
        y[5:5 + right_ones] = 1
        m = PredictiveClusteringTree(min_samples_leaf=5, random_state=0).fit(x, y)
        e_leaf = min(left_ones + right_ones, 10 - left_ones - right_ones)
        as_leaf = e_leaf + added_errors(10, e_leaf)
        as_tree = (left_ones + added_errors(5, left_ones)
                   + (5 - right_ones) + added_errors(5, 5 - right_ones))
        assert (m.nodes_[2][0] != -1) == (as_leaf > as_tree + 0.1)
    assert m.nodes_[2][0] != -1 and m.nodes_[1][0] == 4.5      # (1, 4): kept, cut at 4.5
    y23 = np.array([1, 1, 0, 0, 0, 1, 1, 1, 0, 0]).reshape(-1, 1)
    pruned = PredictiveClusteringTree(min_samples_leaf=5).fit(x, y23)
    assert pruned.nodes_[2][0] == -1                          # (2, 3): pruned to the root
