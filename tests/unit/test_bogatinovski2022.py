"""The pieces of the bogatinovski2022 protocol: sized stratified holdouts, min-max scaling, micro
AUC-PR, PCut, symbolic grid values, the budgeted random search, the protocol's search settings and
the report style's tables."""
import time

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import average_precision_score
from sklearn.preprocessing import MinMaxScaler

from mlbench.data.dataset import Dataset
from mlbench.data.preprocess import Pipeline
from mlbench.data.splits import SplitScheme, iterative_stratification, make_splits
from mlbench.errors import ConfigError, DataError, MlbenchError
from mlbench.experiment.grid import data_spec
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.tuning import RandomSearch, pcut, resolve_grid, resolve_value
from mlbench.metrics import get_measure
from mlbench.protocols import load_protocol, parse_protocol


def _data(n=90, L=4, seed=0, name="d"):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    Y = (X[:, :L] + 0.7 * rng.normal(size=(n, L)) > 0.4).astype(np.int8)
    return Dataset(name, X, Y, list("abcde"), [f"y{i}" for i in range(L)], sha256="x")


# --- splits ---------------------------------------------------------------------------------------

def test_holdout_with_test_sizes_is_exact_stratified_and_seeded():
    ds = _data(n=101)
    scheme = SplitScheme("holdout", stratify="iterative", test_sizes=(("d", 37),)).check()
    s = make_splits(ds, scheme, protocol="p", seed=0)[0]
    assert s.test.size == 37 and s.train.size == 64
    assert np.intersect1d(s.train, s.test).size == 0
    # each label's positives are shared in proportion (within one row of the target)
    target = ds.Y.sum(axis=0) * 37 / 101
    assert np.all(np.abs(ds.Y[s.test].sum(axis=0) - target) <= 1.5)
    again = make_splits(ds, scheme, protocol="p", seed=0)[0]
    assert np.array_equal(s.test, again.test)
    other = make_splits(ds, scheme, protocol="p", seed=1)[0]
    assert not np.array_equal(s.test, other.test)
    # a dataset the table does not list keeps train_fraction
    plain = make_splits(_data(n=100, name="e"), scheme, protocol="p", seed=0)[0]
    assert plain.train.size == 50


def test_sized_stratification_hits_the_sizes_and_equal_folds_are_unchanged():
    Y = _data(n=53).Y
    part = iterative_stratification(Y, 2, np.random.default_rng(3), sizes=(40, 13))
    assert np.bincount(part).tolist() == [40, 13]
    with pytest.raises(ValueError):
        iterative_stratification(Y, 2, np.random.default_rng(3), sizes=(40, 12))
    # without sizes: the same folds as before the option existed (same draws, same rule)
    a = iterative_stratification(Y, 3, np.random.default_rng(5))
    b = iterative_stratification(Y, 3, np.random.default_rng(5), sizes=None)
    assert np.array_equal(a, b)


def test_too_large_test_size_and_bad_tables_are_one_line_errors():
    with pytest.raises(DataError, match="a test part of 90 rows"):
        make_splits(_data(n=90), SplitScheme("holdout", test_sizes=(("d", 90),)), protocol="p",
                    seed=0)
    with pytest.raises(ConfigError, match="holdout scheme only"):
        SplitScheme("kfold", test_sizes=(("d", 5),)).check()
    with pytest.raises(ConfigError, match="positive integers"):
        SplitScheme("holdout", test_sizes=(("d", 0),)).check()


def test_fingerprint_counts_the_new_split_fields_only_when_set():
    plain = SplitScheme("holdout", train_fraction=0.5)
    # the fingerprint of a holdout without the new fields is the one recorded before they existed
    assert data_spec((), plain, "d") == "361899fa0bd06a91"
    sized = SplitScheme("holdout", train_fraction=0.5, stratify="iterative",
                        test_sizes=(("d", 30), ("e", 7)))
    assert data_spec((), sized, "d") != data_spec((), sized, "e") != data_spec((), plain, "d")


# --- min_max ------------------------------------------------------------------------------------

def test_min_max_matches_scikit_learn_on_the_training_part_and_scales_csr():
    ds = _data()
    train, test = ds.X[:60], ds.X[60:]
    mk = lambda X: Dataset("d", X, ds.Y[: X.shape[0]], ds.feature_names, ds.label_names)
    pipe = Pipeline(["min_max"]).fit(mk(train))
    ref = MinMaxScaler().fit(train)
    assert np.allclose(pipe.transform(mk(test)).X, ref.transform(test))
    assert pipe.train_.X.min() == 0.0 and pipe.train_.X.max() == 1.0
    Xs = sp.csr_matrix(np.abs(train) * (np.abs(train) > 0.8))      # nonnegative, many zeros
    out = Pipeline(["min_max"]).fit(mk(Xs)).train_.X
    assert sp.issparse(out)
    assert np.allclose(out.toarray(), MinMaxScaler().fit_transform(Xs.toarray()))
    # nominal columns are left alone unless nominal: true
    nom = Dataset("d", np.c_[train[:, :2], np.arange(60) % 3], ds.Y[:60], list("abc"),
                  ds.label_names, nominal={2: ["p", "q", "r"]})
    kept = Pipeline(["min_max"]).fit(nom).train_
    assert np.array_equal(kept.X[:, 2], np.arange(60) % 3) and 2 in kept.nominal
    scaled = Pipeline([{"step": "min_max", "nominal": True}]).fit(nom).train_
    assert scaled.X[:, 2].max() == 1.0 and scaled.nominal == {}


# --- measures, PCut, symbolic values --------------------------------------------------------------

def test_micro_auc_pr_is_pooled_average_precision():
    rng = np.random.default_rng(1)
    Y = (rng.random((30, 4)) < 0.3).astype(np.int8)
    S = rng.random((30, 4))
    m = get_measure("micro_auc_pr")
    assert m.greater_is_better and m.needs == "scores"
    assert m(Y, S) == pytest.approx(average_precision_score(Y, S, average="micro"))
    # by hand: scores 0.9 (relevant), 0.8 (not), 0.7 (relevant): AP = 1/2 * 1 + 1/2 * 2/3
    assert m(np.array([[1, 0, 1]]), np.array([[0.9, 0.8, 0.7]])) == pytest.approx(5 / 6)
    assert np.isnan(m(np.zeros((2, 2)), S[:2, :2]))
    assert m.undefined(np.zeros((2, 2))) == "no test label is positive"


def test_pcut_is_mekas_pcut1_at_the_training_cardinality():
    S = np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.7], [0.3, 0.4, 0.6]])
    # round(1.0 * 3) = 3: MEKA's threshold is the midpoint of the 3rd and 2nd highest scores
    # (0.7 and 0.8), so the two highest are positive (PCut1 leaves one score fewer above it)
    P = pcut(S, cardinality=1.0)
    assert P.tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 0]]
    assert pcut(S, 0.0).sum() == 1 and pcut(S, 3.0).sum() == 8
    tied = pcut(np.array([[0.5, 0.5], [0.5, 0.1]]), cardinality=0.5)   # ties at the cut all in
    assert tied.tolist() == [[1, 1], [1, 0]]


def test_symbolic_grid_values():
    assert resolve_value({"labels": 0.5}, 7, 100) == 3
    assert resolve_value({"labels": 2, "max": 100}, 983, 100) == 100
    assert resolve_value({"features": 0.2}, 7, 72) == 14
    homer = [2, 3] + [{"labels": 1, "offset": -1, "min": 2, "max": m} for m in (4, 5, 6)]
    assert resolve_grid({"k": homer}, 4, 1)["k"] == [2, 3]
    assert resolve_grid({"k": homer}, 6, 1)["k"] == [2, 3, 4, 5]
    assert resolve_grid({"k": homer}, 20, 1)["k"] == [2, 3, 4, 5, 6]
    with pytest.raises(ConfigError, match="exactly one"):
        resolve_value({"labels": 1, "features": 1}, 3, 3)


# --- RandomSearch ---------------------------------------------------------------------------------

class Shift(MultiLabelClassifier):
    """Scores = sigmoid(X[:, :L] + shift); ``shift`` decides the quality, ``sleep`` the CPU cost."""

    def __init__(self, shift=0.0, sleep=0.0, fail=False, random_state=None):
        self.shift = shift
        self.sleep = sleep
        self.fail = fail
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        if self.fail:
            raise RuntimeError("this candidate always fails")
        start = time.process_time()
        while time.process_time() - start < self.sleep:
            pass
        self.L_ = Y.shape[1]
        return self

    def decision_function(self, X):
        X = self._validate_predict(X)
        return X[:, : self.L_] + self.shift * np.sin(np.arange(self.L_) + X[:, :1])


def test_search_scores_the_whole_grid_by_cv_and_refits_the_best():
    ds = _data(n=120)
    est = RandomSearch(Shift(), grid={"shift": [3.0, 0.0, 1.5]}, cv=3, budget=60,
                       random_state=0).fit(ds.X, ds.Y)
    info = est.fit_info_["search"]
    assert info["scored"] == 3 and info["grid_size"] == 3 and not info["exhausted"]
    assert est.best_params_ == {"shift": 0.0} == info["chosen"]
    assert sorted(p["shift"] for p, _ in info["scores"]) == [0.0, 1.5, 3.0]
    pred = est.predict(ds.X)
    # MEKA's PCut1: one positive fewer than round(cardinality * n) (distinct scores)
    assert pred.sum() == round(ds.Y.sum(axis=1).mean() * len(ds.X)) - 1
    assert np.array_equal(est.decision_function(ds.X), est.estimator_.decision_function(ds.X))
    order = [p["shift"] for p, _ in info["scores"]]
    again = RandomSearch(Shift(), grid={"shift": [3.0, 0.0, 1.5]}, cv=3, budget=60,
                         random_state=0).fit(ds.X, ds.Y).fit_info_["search"]
    assert [p["shift"] for p, _ in again["scores"]] == order


def test_search_stops_at_the_budget_and_keeps_the_best_scored():
    ds = _data(n=60)
    est = RandomSearch(Shift(sleep=0.02), grid={"shift": [0.0, 1.0, 2.0, 3.0, 4.0]}, cv=3,
                       budget=0.05, random_state=1).fit(ds.X, ds.Y)
    info = est.fit_info_["search"]
    assert info["exhausted"] and 1 <= info["scored"] < 5
    assert info["seconds_used"] >= 0.05 and info["budget_seconds"] == 0.05
    best = min((s, i) for i, (_, s) in enumerate(info["scores"]))
    assert info["chosen"] == info["scores"][best[1]][0]


def test_search_draws_the_grid_in_a_random_permutation():
    """A search the budget stops must be a random sample of the grid: the order the candidates
    are scored in is a permutation that depends on the seed, not the grid's own order (version 1
    of RandomSearch, by ParameterSampler asked for all n of n points, scanned the grid in order)."""
    ds = _data(n=60)
    grid = {"shift": [float(v) for v in range(6)], "sleep": [0.0, 0.0001]}

    def order(seed):
        info = RandomSearch(Shift(), grid=grid, cv=2, budget=60,
                            random_state=seed).fit(ds.X, ds.Y).fit_info_["search"]
        assert info["scored"] == 12 and not info["exhausted"]
        return [(p["shift"], p["sleep"]) for p, _ in info["scores"]]

    in_grid_order = [(a, b) for a in grid["shift"] for b in grid["sleep"]]
    orders = [order(seed) for seed in range(4)]
    for drawn in orders:
        assert sorted(drawn) == sorted(in_grid_order) and drawn != in_grid_order
    assert len({tuple(o) for o in orders}) == 4
    assert orders[0] == order(0)


class LastShift(Shift):
    """Shift whose ``shift`` is a last-stage parameter: ``refit_last`` changes it on a copy."""

    _last_stage_params = ("shift",)
    fits = 0

    def fit(self, X, Y):
        type(self).fits += 1
        return super().fit(X, Y)

    def refit_last(self, **params):
        import copy

        return copy.copy(self).set_params(**params)


def test_search_groups_candidates_that_differ_only_in_last_stage_parameters():
    """Candidates that differ only in ``_last_stage_params`` share one fit per fold (refit_last
    for the others), with the scores, order and choice of fitting each; other parameters still
    fit again, and a failing group member is skipped like a failing candidate."""
    ds = _data(n=120)
    grid = {"shift": [3.0, 0.0, 1.5, 0.5], "sleep": [0.0, 0.0001]}
    LastShift.fits = 0
    grouped = RandomSearch(LastShift(), grid=grid, cv=3, budget=60, random_state=3).fit(ds.X, ds.Y)
    assert LastShift.fits == 2 * 3 + 1      # one fit per value of sleep and fold, and the refit
    plain = RandomSearch(Shift(), grid=grid, cv=3, budget=60, random_state=3).fit(ds.X, ds.Y)
    a, b = grouped.fit_info_["search"], plain.fit_info_["search"]
    assert a["scores"] == b["scores"] and a["chosen"] == b["chosen"] and a["scored"] == 8


def test_search_drops_a_group_the_budget_interrupts():
    """The budget is checked between folds: the first group is scored in full, a later group that
    the budget interrupts is dropped as a whole, like a candidate."""
    ds = _data(n=60)
    grid = {"shift": [0.0, 1.0, 2.0], "sleep": [0.02, 0.021, 0.022]}
    est = RandomSearch(LastShift(), grid=grid, cv=3, budget=0.085, random_state=1).fit(ds.X, ds.Y)
    info = est.fit_info_["search"]
    assert info["exhausted"] and info["scored"] == 3
    assert len({p["sleep"] for p, _ in info["scores"]}) == 1


def test_a_searched_method_s_identity_names_the_search_version():
    from mlbench.experiment.provenance import algorithm_identity

    assert RandomSearch.algorithm_version == 2
    assert algorithm_identity("mlknn", searched=True) == algorithm_identity("mlknn") + "+RandomSearch@2"


def test_search_skips_failing_candidates_subsamples_and_refuses_bad_settings():
    ds = _data(n=200)
    est = RandomSearch(Shift(), grid={"fail": [True, False]}, rows=60, random_state=0)
    info = est.fit(ds.X, ds.Y).fit_info_["search"]
    assert info["chosen"] == {"fail": False} and info["rows"] == 60
    assert [s for p, s in info["scores"] if p["fail"]] == [None]
    with pytest.raises(ValueError, match="no candidate"):
        RandomSearch(Shift(fail=True), grid={"shift": [0.0, 1.0]}).fit(ds.X, ds.Y)
    with pytest.raises(ConfigError, match="no parameter 'C'"):
        RandomSearch(Shift(), grid={"C": [1.0]}).fit(ds.X, ds.Y)
    with pytest.raises(ConfigError, match="threshold"):
        RandomSearch(Shift(), grid={}, threshold="scut").fit(ds.X, ds.Y)
    # no grid: the method as it is, thresholded by PCut
    plain = RandomSearch(Shift(), grid={}).fit(ds.X, ds.Y)
    assert plain.fit_info_["search"]["scored"] == 0


# --- the protocol -----------------------------------------------------------------------------------

def _proto(**extra):
    base = {"name": "t", "split": {"scheme": "holdout"}, "metrics": ["hamming_loss"],
            "methods": [{"name": "mlknn", "search": {"k": [3, 5]}}]}
    return {**base, **extra}


def test_search_settings_parse_and_reach_each_method():
    p = parse_protocol(_proto(search={"budget": 5}))
    assert p.search == {"cv": 3, "rows": None, "budget": 5, "metric": "hamming_loss",
                        "threshold": "pcut"}
    assert p.search_of(p.methods[0])["grid"] == {"k": [3, 5]}
    with pytest.raises(ConfigError, match="no search: settings"):
        parse_protocol(_proto())
    with pytest.raises(ConfigError, match="unknown key"):
        parse_protocol(_proto(search={"folds": 3}))
    with pytest.raises(ConfigError, match="budget"):
        parse_protocol(_proto(search={"budget": -1}))
    assert parse_protocol({**_proto(), "methods": ["mlknn"]}).search_of(p.methods[0]) == {}


def test_shipped_protocol():
    p = load_protocol("bogatinovski2022")
    assert p.split.stratify == "iterative" and p.split.test_size("emotions") == 270
    assert len(p.split.test_sizes) == 40 and len(p.main_methods) == 27
    assert p.search["budget"] == 300 and p.search["rows"] == 1000
    assert "micro_auc_pr" in p.metrics and p.style == "bogatinovski2022"
    assert all(e.search is not None for e in p.methods if not e.not_followed)


# --- the claim test and a paper without results ----------------------------------------------------

def test_best_overall_claim_and_a_paper_not_run_yet(tmp_path):
    import pandas as pd
    import yaml

    from mlbench.report.reproduction import _test, render

    rows = [{"dataset": d, "split": "s", "method": m, "macro_f1": v + i / 10,
             "hamming_loss": 0.5 - v}
            for i, d in enumerate("pqr") for m, v in (("a", 0.3), ("b", 0.2), ("c", 0.1))]
    df = pd.DataFrame(rows)
    claim = {"test": "best_overall", "method": ["b", "a"], "metrics": ["macro_f1", "hamming_loss"]}
    holds, why = _test(claim, df)
    assert holds and "best: a 1.00, b 2.00, c 3.00" in why
    assert "3 methods and 3 datasets (p, q, r)" in why
    assert not _test({**claim, "method": ["a", "c"]}, df)[0]
    assert not _test({**claim, "method": ["a", "zz"]}, df)[0]
    (tmp_path / "claims.yaml").write_text(yaml.safe_dump({"papers": {"later": {
        "title": "T", "csv": "results/none.csv", "run": "mlbench run -p x", "report": "r",
        "claims": [{"text": "A wins.", "test": "best_overall", "method": ["a"],
                    "metrics": ["macro_f1"]}]}}}))
    text = render(tmp_path / "claims.yaml", tmp_path)
    assert "`results/none.csv` does not exist yet" in text
    assert "- NOT CHECKED (no results yet): A wins." in text


def test_top_k_counts_count_ties_at_the_kth_place_and_skip_missing_ranks():
    from mlbench.stats.ranks import top_k_counts

    R = [[1, 2, 3, 4], [4, 3, 2, 1], [1.5, 1.5, 3, 4], [np.nan, 1, 2, 3]]
    assert top_k_counts(R, 1).tolist() == [2, 2, 0, 1]   # row 3: the two tied at 1st both count
    assert top_k_counts(R, 2).tolist() == [2, 3, 2, 1]
    assert top_k_counts(R, 9).tolist() == [3, 4, 4, 4]   # k above the methods: all ranked count
    with pytest.raises(MlbenchError):
        top_k_counts([1, 2], 1)


def test_best_overall_by_the_top_k_rule_can_differ_from_the_mean_rank(tmp_path):
    import pandas as pd
    import yaml

    from mlbench.report.reproduction import _test, load_claims

    # one dataset: a is best on two measures and last on the third; b is 2nd, 2nd, 1st
    values = {"a": (0.9, 0.9, 0.1), "b": (0.8, 0.8, 0.95), "c": (0.7, 0.7, 0.5),
              "d": (0.6, 0.6, 0.4)}
    metrics = ["macro_f1", "micro_f1", "accuracy"]
    df = pd.DataFrame([{"dataset": "p", "split": "s", "method": m, **dict(zip(metrics, v))}
                       for m, v in values.items()])
    claim = {"test": "best_overall", "method": ["a"], "metrics": metrics}
    holds, why = _test(claim, df)
    assert not holds and "best: b 1.67, a 2.00, c 2.67" in why
    holds, why = _test({**claim, "rule": "top_k"}, df)
    assert holds and "one of the 1 best average ranks" in why and "best: a 2, b 1, c 0" in why
    assert "by the mean of the average ranks: b 1.67, a 2.00" in why
    (tmp_path / "claims.yaml").write_text(yaml.safe_dump({"papers": {"p": {
        "title": "T", "csv": "x.csv", "run": "r", "report": "r",
        "claims": [{**claim, "text": "A wins.", "rule": "median"}]}}}))
    with pytest.raises(ConfigError, match="claim 1: unknown rule 'median'; choose one of "
                                          "mean_rank, top_k"):
        load_claims(tmp_path / "claims.yaml")


def test_methods_that_cannot_take_their_grid_are_skipped_or_refused():
    from mlbench.experiment.runner import resolve_methods, skip_reason

    p = parse_protocol(_proto(search={"budget": 5}, methods=[
        {"name": "mlknn", "search": {"k": [3]}}, {"name": "rakel", "search": {"C": [1.0]}},
        {"name": "not-written-yet", "search": {}}]))
    entries, missing = resolve_methods(p)
    assert [e.label for e in entries] == ["mlknn"] and missing == ["not-written-yet", "rakel"]
    assert skip_reason(p, "rakel") == ("registered 'rakel' has no parameter 'C' of the protocol's "
                                       "search grid")
    assert skip_reason(p, "not-written-yet") == "'not-written-yet' is not registered yet"
    with pytest.raises(ConfigError, match="method 'rakel': registered 'rakel' has no parameter 'C'"):
        resolve_methods(p, ["rakel"])


def test_split_files_written_before_sized_holdouts_stay_current():
    from pathlib import Path

    from mlbench.data import load_dataset
    from mlbench.data.splits import load_splits
    from mlbench.experiment.runner import _splits_meta

    root = Path(__file__).resolve().parents[2]
    _, saved = load_splits(root / "results/reference/quick.csv.splits/quick-emotions-seed0.npz")
    quick = load_protocol("quick")
    assert _splits_meta(quick, "emotions", load_dataset("emotions")) == saved
    study = _splits_meta(load_protocol("bogatinovski2022"), "emotions", load_dataset("emotions"))
    assert study["scheme"]["test_size"] == 270 and "test_sizes" not in study["scheme"]


def test_a_method_the_protocol_cannot_follow_is_listed_with_its_reason_and_never_run():
    from mlbench.experiment.runner import resolve_methods, skip_reason

    p = parse_protocol(_proto(search={"budget": 5}, methods=[
        {"name": "mlknn", "search": {"k": [3]}},
        {"name": "mlknn", "id": "knn-old", "not_followed": "no configuration"}]))
    entries, missing = resolve_methods(p)
    assert [e.label for e in entries] == ["mlknn"] and missing == ["knn-old"]
    assert skip_reason(p, "knn-old") == "not followed: no configuration"
    with pytest.raises(ConfigError, match="'knn-old' of protocol .* is not followed: no configuration"):
        resolve_methods(p, ["knn-old"])
    with pytest.raises(ConfigError, match="takes no other keys"):
        parse_protocol(_proto(methods=[{"name": "x", "not_followed": "why", "params": {"k": 1}}]))
    with pytest.raises(ConfigError, match="must be the reason"):
        parse_protocol(_proto(methods=[{"name": "x", "not_followed": 3}]))


def test_the_shipped_protocol_gives_each_method_it_does_not_follow_a_reason():
    from mlbench.experiment.runner import skip_reason
    from mlbench.protocols import load_protocol

    p = load_protocol("bogatinovski2022")
    off = {e.label: e.not_followed for e in p.methods if e.not_followed}
    assert {"cde", "tremlc", "deep1", "deep4"} <= set(off)
    for label in off:
        assert skip_reason(p, label).startswith("not followed: ")


def test_a_method_can_keep_its_own_predict_inside_a_pcut_search():
    p = parse_protocol(_proto(search={"budget": 5, "threshold": "pcut"}, methods=[
        {"name": "mlknn", "threshold": "none", "search": {"k": [3]}},
        {"name": "br-lr", "search": {}}]))
    by = {e.label: p.search_of(e) for e in p.methods}
    assert by["mlknn"]["threshold"] == "none" and by["br-lr"]["threshold"] == "pcut"
    with pytest.raises(ConfigError, match="threshold of method 'mlknn' must be pcut or none"):
        parse_protocol(_proto(methods=[{"name": "mlknn", "threshold": "scut", "search": {}}]))
    with pytest.raises(ConfigError, match="beside its search"):
        parse_protocol(_proto(methods=[{"name": "mlknn", "threshold": "none"}]))
    # the study scored its scikit-multilearn methods on their own predict, the MEKA ones by PCut
    study = load_protocol("bogatinovski2022")
    own = {e.label for e in study.methods if study.search_of(e).get("threshold") == "none"}
    assert own == {"mlknn", "mlaram", "clems", "mltsvm"}
