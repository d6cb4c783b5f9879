"""The label-set methods of the Bogatinovski et al. (2022) study: br, lp, pst, eps, rakel2, ssm,
rsmlcc.

References: scikit-multilearn (the test extra's scikit-multilearn-ng, or 0.2.0: the same
LabelPowerset and MajorityVotingClassifier over fixed labelsets = RAkEL-o's voting) and
scikit-learn (one SVC per label; ClassifierChain), each with the same RBF SVC, on a fixed split
of emotions.
"""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC

from mlbench.methods import registry
from mlbench.methods.base import SVC_CS, SVC_GAMMAS, make_base_learner
from mlbench.methods.transformation.br import BinaryRelevance
from mlbench.methods.transformation.pruned_sets import (EnsemblePrunedSets, PrunedSets, RAkELPrunedSets,
                                                        first_seen_labelsets, pruned_sets_transform)
from mlbench.testing import check_method

STUDY = ("br", "lp", "pst", "eps", "rakel2", "ssm", "rsmlcc")

# labelsets: A = {0,1} x3, B = {0} x2, C = {2} x2, D = {0,1,2} x1, E = {0,2} x1, F = {} x1
Y_PS = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 0], [0, 0, 1], [1, 1, 1], [1, 0, 0], [1, 1, 0],
                 [0, 0, 1], [1, 0, 1], [0, 0, 0]])


def _dense(A):
    return A.toarray() if hasattr(A, "toarray") else np.asarray(A)


def _emotions_split(mirror, tmp_path):
    from sklearn.preprocessing import StandardScaler

    from mlbench.data import load_dataset

    ds = load_dataset("emotions", data_dir=tmp_path, mirror=mirror)
    perm = np.random.RandomState(0).permutation(ds.n_instances)
    tr, te = perm[:300], perm[300:]
    scaler = StandardScaler().fit(ds.X[tr])
    return scaler.transform(ds.X[tr]), ds.Y[tr], scaler.transform(ds.X[te]), ds.Y[te]


# -- the PS transformation (MEKA's PSUtils.PSTransformation) ---------------------------------------
def test_first_seen_labelsets_keeps_order_of_appearance():
    combos, inverse, counts = first_seen_labelsets(Y_PS)
    np.testing.assert_array_equal(combos[:3], [[1, 1, 0], [1, 0, 0], [0, 0, 1]])
    np.testing.assert_array_equal(counts, [3, 2, 2, 1, 1, 1])
    np.testing.assert_array_equal(combos[inverse], Y_PS)


def test_pruning_drops_infrequent_labelsets_without_reintroduction():
    rows, classes, kept, p = pruned_sets_transform(Y_PS, pruning=1, max_subsets=0)
    assert p == 1
    np.testing.assert_array_equal(kept, [[1, 1, 0], [1, 0, 0], [0, 0, 1]])   # count > 1
    np.testing.assert_array_equal(rows, [0, 1, 2, 3, 5, 6, 7])
    np.testing.assert_array_equal(kept[classes], Y_PS[rows])


def test_pruned_rows_come_back_with_their_best_frequent_subsets():
    rows, classes, kept, _ = pruned_sets_transform(Y_PS, pruning=1, max_subsets=2)
    extra = [(r, tuple(kept[c])) for r, c in zip(rows[7:], classes[7:])]
    # {0,1,2}: subsets {0,1} (size 2), then {0} and {2} (size 1, both count 2: first seen wins)
    # {0,2}: {0} then {2}; the empty labelset has no non-empty frequent subset
    assert extra == [(4, (1, 1, 0)), (4, (1, 0, 0)), (8, (1, 0, 0)), (8, (0, 0, 1))]
    rows1, classes1, _, _ = pruned_sets_transform(Y_PS, pruning=1, max_subsets=1)
    assert [(r, tuple(kept[c])) for r, c in zip(rows1[7:], classes1[7:])] == \
        [(4, (1, 1, 0)), (8, (1, 0, 0))]


def _brute_force_ps(Y, p, n):
    """PS by the definition, row by row: (row, labelset) pairs of the transformed data."""
    sets = [tuple(r) for r in Y]
    count = {s: sets.count(s) for s in sets}
    order = list(dict.fromkeys(sets))                      # first seen first
    kept = [s for s in order if count[s] > p]
    best = sorted(kept, key=lambda s: (-sum(s), -count[s], order.index(s)))
    out = [(i, s) for i, s in enumerate(sets) if s in kept]
    for i, y in enumerate(sets):
        if y not in kept:
            subs = [s for s in best if sum(s) > 0 and all(a <= b for a, b in zip(s, y))][:n]
            out += [(i, s) for s in subs]
    return sorted(out)


@pytest.mark.parametrize("seed", range(4))
def test_pruned_sets_transform_matches_the_definition(seed):
    rng = np.random.RandomState(seed)
    Y = (rng.rand(120, 6) < rng.uniform(0.1, 0.5, size=6)).astype(int)
    for p, n in ((1, 0), (1, 3), (2, 2), (3, 1)):
        rows, classes, kept, used = pruned_sets_transform(Y, p, n)
        assert used == p
        got = sorted((int(r), tuple(kept[c])) for r, c in zip(rows, classes))
        assert got == _brute_force_ps(Y, p, n)


def test_too_much_pruning_lowers_the_pruning_value():
    # counts 3, 2, 2, 1, 1, 1: p = 5, 4, 3 keep nothing and p = 2 one labelset; p = 1 keeps three
    _, _, kept, p = pruned_sets_transform(Y_PS, pruning=5)
    assert p == 1 and kept.shape[0] == 3


def test_zero_pruning_is_the_label_powerset():
    rows, classes, kept, p = pruned_sets_transform(Y_PS)
    assert p == 0 and kept.shape[0] == 6
    np.testing.assert_array_equal(rows, np.arange(len(Y_PS)))
    np.testing.assert_array_equal(kept[classes], Y_PS)


# -- the contract ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", STUDY)
def test_study_method_meets_the_contract(name):
    spec = registry.get(name)
    assert spec.paper == "bogatinovski2022"
    found = check_method(registry.make(name, random_state=0))
    assert found["scores"] == "predict_proba" and found["random_state"]


def test_svc_base_and_study_grid():
    est = make_base_learner("svc", random_state=3, C=8.0, gamma=0.125)
    assert isinstance(est, SVC) and est.kernel == "rbf" and est.C == 8.0 and est.gamma == 0.125
    assert SVC_CS == tuple(2.0 ** j for j in (-5, -3, -1, 1, 3, 5, 7, 9, 11, 13))
    assert SVC_GAMMAS == tuple(2.0 ** j for j in (-15, -13, -11, -9, -7, -5, -3, -1, 1))
    assert registry.get("br").grid == {"C": list(SVC_CS), "gamma": list(SVC_GAMMAS)}


@pytest.mark.parametrize("make", [
    lambda **kw: BinaryRelevance(base="svc", **kw),
    lambda **kw: registry.make("cc", base="svc", **kw),
    lambda **kw: registry.make("clr", base="svc", **kw),
    lambda **kw: registry.make("homer", base="svc", node="lp", n_children=2, **kw),
    lambda **kw: PrunedSets(**kw),
    lambda **kw: RAkELPrunedSets(n_labelsets=4, **kw),
])
def test_flat_C_and_gamma_reach_the_svc(make):
    """The protocol searches C and gamma as the method's own parameters: the same model as
    base_params, and a different one from the default."""
    rng = np.random.RandomState(4)
    X = rng.normal(size=(70, 4))
    Y = (X @ rng.normal(size=(4, 4)) + 0.5 * rng.normal(size=(70, 4)) > 0).astype(int)
    flat = make(C=100.0, gamma=2.0, random_state=0).fit(X, Y)
    nested = make(base_params={"C": 100.0, "gamma": 2.0}, random_state=0).fit(X, Y)
    default = make(random_state=0).fit(X, Y)
    np.testing.assert_array_equal(flat.predict(X), nested.predict(X))
    assert not np.array_equal(flat.predict(X), default.predict(X))


def test_homer_lp_nodes_follow_the_predicted_meta_labelset():
    from mlbench.methods.transformation.homer import HOMER

    rng = np.random.RandomState(5)
    X = rng.normal(size=(120, 5))
    Y = (X @ rng.normal(size=(5, 7)) > 0.5).astype(int)
    Y[:, 6] = 0                                         # a label never seen: an empty group
    est = HOMER(n_children=3, node="lp", base="svc", random_state=0).fit(X, Y)
    root = est.root_
    sets = root.models.predict(X)                       # the root's LP: one meta-labelset per row
    assert sets.shape == (120, len(root.children))
    pred = est.predict(X)
    for c, child in enumerate(root.children):           # a label is predicted only below a reached child
        assert np.all(pred[:, child.labels][sets[:, c] == 0] == 0)
    assert np.all(pred[:, 6] == 0) and pred.sum() > 0
    proba = est.predict_proba(X)
    assert np.all((proba >= 0) & (proba <= 1))
    with pytest.raises(Exception, match="node must be"):
        HOMER(node="cc").fit(X, Y)


def test_pst_scores_are_class_posterior_marginals():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(60, 4))
    Y = (X[:, :3] > 0).astype(int)
    est = PrunedSets(pruning=1, predict_rule="threshold", random_state=0).fit(X, Y)
    clf, sets = est.model_.estimator, est.model_.labelsets
    expected = clf.predict_proba(X) @ sets[clf.classes_]
    np.testing.assert_allclose(est.predict_proba(X), expected)
    np.testing.assert_array_equal(est.predict(X), (expected >= 0.5).astype(int))
    lp = PrunedSets(random_state=0).fit(X, Y)                     # LP: the arg-max class's set
    sets = lp.model_.labelsets[lp.model_.estimator.predict(X)]
    np.testing.assert_array_equal(lp.predict(X), sets)
    np.testing.assert_array_equal(lp.predict_proba(X), sets)      # MEKA's LC output: 0/1


def test_threshold_rule_needs_probabilities():
    X, Y = np.random.RandomState(0).normal(size=(20, 3)), np.eye(2, dtype=int)[np.arange(20) % 2]
    with pytest.raises(ValueError, match="predict_proba"):
        PrunedSets(predict_rule="threshold", base="svm").fit(X, Y)
    with pytest.raises(ValueError, match="pruning must be"):
        PrunedSets(pruning=-1).fit(X, Y)


def test_eps_members_use_seventy_percent_of_the_rows():
    rng = np.random.RandomState(2)
    X = rng.normal(size=(50, 4))
    Y = (X[:, :3] + 0.3 * rng.normal(size=(50, 3)) > 0).astype(int)
    est = EnsemblePrunedSets(n_estimators=4, random_state=0).fit(X, Y)
    assert len(est.estimators_) == 4
    votes = np.mean([m.predict(X) for m in est.estimators_], axis=0)
    np.testing.assert_allclose(est.predict_proba(X), votes)
    np.testing.assert_array_equal(est.predict(X), (votes >= 0.5).astype(int))


def test_rakel2_study_sizes_and_vote_scores():
    rng = np.random.RandomState(3)
    X = rng.normal(size=(60, 4))
    Y = (X @ rng.normal(size=(4, 8)) > 0).astype(int)
    est = RAkELPrunedSets(labelset_size="half", n_labelsets=None, random_state=0).fit(X, Y)
    assert est.labelsets_.shape == (16, 4)                       # M = min(100, 2L), k = L / 2
    votes = np.zeros(Y.shape)
    for m in est.estimators_:
        votes[:, m.labels] += m.predict(X)
    np.testing.assert_allclose(est.predict_proba(X), votes / 16)
    mean = votes / np.maximum(est.n_votes_, 1)
    np.testing.assert_array_equal(est.predict(X), ((mean >= 0.5) & (est.n_votes_ > 0)).astype(int))


def test_nearest_labelsets_is_the_first_at_least_hamming_distance():
    from mlbench.methods.transformation.subset_mapper import nearest_labelsets

    rng = np.random.RandomState(6)
    known = np.unique(rng.randint(0, 2, size=(15, 6)), axis=0)[::-1]
    B = rng.randint(0, 2, size=(40, 6))
    dist = np.abs(B[:, None, :] - known[None, :, :]).sum(axis=2)
    np.testing.assert_array_equal(nearest_labelsets(B, known), np.argmin(dist, axis=1))
    np.testing.assert_array_equal(nearest_labelsets(known, known), np.arange(len(known)))


def test_subset_mapper_predicts_known_labelsets_only():
    from mlbench.methods.transformation.subset_mapper import SubsetMapper

    rng = np.random.RandomState(7)
    X = rng.normal(size=(80, 5))
    Y = (X @ rng.normal(size=(5, 5)) + rng.normal(size=(80, 5)) > 0.8).astype(int)
    est = SubsetMapper(random_state=0).fit(X[:60], Y[:60])
    pred = est.predict(X[60:])
    known = {tuple(r) for r in Y[:60]}
    assert all(tuple(r) in known for r in pred)
    raw = (est.br_.predict_proba(X[60:]) >= 0.5).astype(int)
    seen = np.array([tuple(r) in known for r in raw])
    np.testing.assert_array_equal(pred[seen], raw[seen])          # a known output stays
    dist = np.abs(raw[:, None, :] - est.labelsets_[None]).sum(axis=2)
    np.testing.assert_array_equal(np.abs(pred - raw).sum(axis=1), dist.min(axis=1))
    np.testing.assert_array_equal(est.predict_proba(X[60:]), pred)


# -- references ----------------------------------------------------------------------------------------
@pytest.mark.mirror
@pytest.mark.slow
def test_lp_equals_scikit_multilearn_label_powerset(mirror, tmp_path):
    from skmultilearn.problem_transform import LabelPowerset

    Xtr, Ytr, Xte, _ = _emotions_split(mirror, tmp_path)
    params = {"C": 2.0, "gamma": 2.0 ** -5}
    ours = registry.make("lp", random_state=0, **params).fit(Xtr, Ytr)
    ref = LabelPowerset(classifier=SVC(**params), require_dense=[True, True]).fit(Xtr, Ytr)
    np.testing.assert_array_equal(ours.predict(Xte), _dense(ref.predict(Xte)))


@pytest.mark.mirror
@pytest.mark.slow
def test_rakel2_without_pruning_equals_scikit_multilearn_voting(mirror, tmp_path):
    """MEKA's RAkEL with p = 0 is RAkEL-o's vote over the same labelsets; scikit-multilearn
    rounds a mean vote of exactly 1/2 to 0 (numpy's round half to even) where RAkEL (and
    mlbench) predict the label, so those cells are checked apart."""
    from skmultilearn.cluster import FixedLabelSpaceClusterer
    from skmultilearn.ensemble import MajorityVotingClassifier
    from skmultilearn.problem_transform import LabelPowerset

    Xtr, Ytr, Xte, _ = _emotions_split(mirror, tmp_path)
    params = {"C": 2.0, "gamma": 2.0 ** -5}
    ours = RAkELPrunedSets(labelset_size=3, n_labelsets=8, pruning=0, random_state=0,
                           **params).fit(Xtr, Ytr)
    ref = MajorityVotingClassifier(
        classifier=LabelPowerset(classifier=SVC(**params), require_dense=[True, True]),
        clusterer=FixedLabelSpaceClusterer(clusters=[list(s) for s in ours.labelsets_]),
        require_dense=[True, True]).fit(Xtr, Ytr)
    got, want = ours.predict(Xte), _dense(ref.predict(Xte))
    votes = ours.predict_proba(Xte) * len(ours.estimators_)
    tie = votes == ours.n_votes_ / 2
    np.testing.assert_array_equal(got[~tie], want[~tie])
    assert np.all(got[tie] == 1) and np.all(want[tie] == 0)


@pytest.mark.mirror
@pytest.mark.slow
def test_br_and_cc_with_svc_equal_scikit_learn(mirror, tmp_path):
    from sklearn.multioutput import ClassifierChain as SkChain

    Xtr, Ytr, Xte, _ = _emotions_split(mirror, tmp_path)
    params = {"C": 8.0, "gamma": 2.0 ** -7}
    br = registry.make("br", random_state=0, **params).fit(Xtr, Ytr)
    want = np.column_stack([SVC(**params).fit(Xtr, Ytr[:, l]).predict(Xte)
                            for l in range(Ytr.shape[1])])
    np.testing.assert_array_equal(br.predict(Xte), want)
    cc = registry.make("cc", random_state=0, base="svc", **params).fit(Xtr, Ytr)
    ref = SkChain(SVC(**params), order=list(range(Ytr.shape[1]))).fit(Xtr, Ytr)
    np.testing.assert_array_equal(cc.predict(Xte), ref.predict(Xte).astype(int))


# -- rsmlcc: MEKA's RandomSubspaceML over LC with J48 ----------------------------------------------
def test_rsmlcc_members_are_label_powerset_j48_trees_on_row_and_feature_subsets():
    from mlbench.methods.components.j48 import J48
    from mlbench.methods.transformation.random_subspace import RandomSubspaceLC

    rng = np.random.RandomState(5)
    X = rng.normal(size=(90, 12))
    Y = (X[:, :3] + 0.5 * rng.normal(size=(90, 3)) > 0.3).astype(int)
    m = RandomSubspaceLC(n_estimators=4, attributes=25, confidence=0.1, threshold=0.5,
                         random_state=2).fit(X[:60], Y[:60])
    votes = np.zeros((30, 3))
    for rows, feats in zip(m.estimators_samples_, m.estimators_features_):
        assert rows.size == 60 * 67 // 100 and np.unique(rows).size == rows.size   # no repeats
        assert feats.size == 12 * 25 // 100 == 3
        sets, codes = first_seen_labelsets(Y[:60][rows])[:2]
        tree = J48(C=0.1, M=2).fit(X[:60][rows][:, feats], codes)
        votes += sets[tree.predict(X[60:][:, feats])]
    np.testing.assert_array_equal(m.predict_proba(X[60:]), votes / 4)
    np.testing.assert_array_equal(m.predict(X[60:]), (votes / 4 >= 0.5).astype(int))
    assert len({tuple(f) for f in m.estimators_features_}) > 1              # random subspaces


def test_rsmlcc_pcut1_and_bad_parameters():
    from mlbench.methods.components.thresholds import pcut1_threshold
    from mlbench.methods.transformation.random_subspace import RandomSubspaceLC

    rng = np.random.RandomState(1)
    X = rng.normal(size=(50, 6))
    Y = (X[:, :2] > 0).astype(int)
    m = RandomSubspaceLC(n_estimators=3, random_state=0).fit(X[:35], Y[:35])
    scores = m.predict_proba(X[35:])
    t = pcut1_threshold(scores, Y[:35].sum(axis=1).mean())
    np.testing.assert_array_equal(m.predict(X[35:]), (scores >= t).astype(int))
    for bad in ({"attributes": 0}, {"attributes": 101}, {"bag_percent": 0},
                {"n_estimators": 0}, {"confidence": 1.0}, {"threshold": "pcut2"}):
        with pytest.raises(ValueError):
            RandomSubspaceLC(**bad).fit(X[:35], Y[:35])
