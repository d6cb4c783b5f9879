"""Tests of the cell cost model (exact medians, per-method power laws, pooled fallback) and the
longest-first order."""
import os

import numpy as np
import pandas as pd

from mlbench.experiment.costs import CostModel, longest_first, shipped_results


def frame(rows):
    return pd.DataFrame(rows, columns=["method", "status", "fit_seconds", "predict_seconds",
                                       "n_train", "n_features", "n_labels"])


def test_same_shape_gives_the_median_of_its_rows():
    m = CostModel(frame([["a", "ok", 1.0, 0.0, 100, 10, 5], ["a", "ok", 3.0, 1.0, 100, 10, 5],
                         ["a", "ok", 2.0, 0.5, 100, 10, 5]]))
    assert m.seconds("a", 100, 10, 5) == 2.5


def test_power_law_recovers_the_exponent_and_unseen_methods_use_the_pooled_law():
    sizes = [(100, 10, 5), (400, 20, 5), (1000, 50, 10), (3000, 100, 20)]
    rows = [["a", "ok", 2.0 * (n * d * L) ** 1.3, 0.0, n, d, L] for n, d, L in sizes]
    m = CostModel(frame(rows))
    got = m.seconds("a", 2000, 80, 7)
    assert np.isclose(got, 2.0 * (2000 * 80 * 7) ** 1.3, rtol=1e-6)
    assert np.isclose(m.seconds("never-seen", 2000, 80, 7), got, rtol=1e-6)


def test_one_shape_scales_linearly_and_an_empty_model_knows_nothing():
    m = CostModel(frame([["a", "ok", 4.0, 0.0, 100, 10, 5]]))
    assert np.isclose(m.seconds("a", 200, 10, 5), 8.0)
    empty = CostModel.from_csvs([])
    assert not empty.known and empty.seconds("a", 1, 1, 1) is None


def test_from_csvs_skips_missing_foreign_and_failed_rows(tmp_path):
    good = tmp_path / "r.csv"
    frame([["a", "ok", 1.0, 0.0, 10, 2, 2], ["a", "error", 99.0, 0.0, 10, 2, 2]]).to_csv(good, index=False)
    foreign = tmp_path / "x.csv"
    foreign.write_text("just,some\n1,2\n")
    m = CostModel.from_csvs([good, foreign, tmp_path / "missing.csv"])
    assert m.seconds("a", 10, 2, 2) == 1.0


def test_longest_first_puts_unknown_costs_last_and_keeps_ties_in_order():
    costs = {"a": 1.0, "b": None, "c": 5.0, "d": 1.0}
    assert longest_first(list("abcd"), costs.get) == ["c", "a", "d", "b"]


def test_an_installed_package_has_no_shipped_results_and_the_commands_say_so(
        cli, tmp_path, monkeypatch):
    """Run from a checkout, the paper results are its results/papers; installed (the package in a
    site-packages without pyproject.toml and results beside it), there are none, even with a
    foreign results/papers there, and costs, methods NAME and run --dry-run say so in one line."""
    from mlbench.experiment import costs

    assert shipped_results() and all(p.endswith(".csv") and os.sep + "papers" + os.sep in p
                                      for p in shipped_results())
    site = tmp_path / "site-packages"
    (site / "results" / "papers").mkdir(parents=True)
    (site / "results" / "papers" / "other.csv").write_text("method,status\na,ok\n")
    monkeypatch.setattr(costs, "__file__", str(site / "mlbench" / "experiment" / "costs.py"))
    assert costs.checkout_root() is None and shipped_results() == []
    code, out, err = cli(["costs"])
    assert code == 2 and out == "" and err == (
        "mlbench: error: no results CSV given and the paper results (results/papers) come with a "
        "source checkout of mlbench, not with the installed package; name one\n")
    code, out, err = cli(["methods", "mlknn"])
    assert code == 0, err
    assert out.rstrip().endswith("measured cost: not shown (the paper results (results/papers) "
                                 "come with a source checkout of mlbench, not with the installed "
                                 "package)")
    code, out, err = cli(["run", "-p", "quick", "-d", "emotions", "-m", "mlknn", "--repeats", "1",
                          "-o", tmp_path / "r.csv", "--dry-run"])
    assert code == 0, err
    assert "estimates come from earlier results in the --out file (the paper results" in out


def test_shipped_results_predict_held_out_datasets_within_an_order_of_magnitude():
    """Leave one dataset out of the shipped paper results: the median error of the predicted
    seconds of its cells (their fit and predict work, the search left out as the laws do) is
    within a factor of 10 (the model only ranks cells)."""
    from mlbench.experiment.costs import cell_seconds, search_seconds

    paths = shipped_results()
    rows = CostModel.from_csvs(paths).rows
    shapes = rows.drop_duplicates(["n_train", "n_features", "n_labels"])
    errors = []
    for _, s in shapes.head(6).iterrows():
        same = ((rows.n_train == s.n_train) & (rows.n_features == s.n_features)
                & (rows.n_labels == s.n_labels))
        m = CostModel(rows[~same].reset_index(drop=True))
        held = rows[same]
        pred = np.array([m.seconds(r.method, r.n_train, r.n_features, r.n_labels)
                         for r in held.itertuples()])
        total = cell_seconds(held)
        work = np.maximum(total - search_seconds(held), 0.1 * total)
        errors.extend(np.abs(np.log10(pred / np.maximum(work, 1e-3))))
    assert np.median(errors) < 1.0


def test_committed_costs_table_is_current():
    """results/papers/COSTS.md is what `mlbench costs` makes of the committed results files
    (regenerate it with `mlbench costs -o results/papers/COSTS.md` after a paper run)."""
    import os

    from mlbench.experiment.costs import costs_markdown

    paths = shipped_results()
    root = os.path.dirname(os.path.dirname(os.path.dirname(paths[0])))
    with open(os.path.join(root, "results", "papers", "COSTS.md"), encoding="utf-8") as fh:
        assert fh.read() == costs_markdown(paths, root=root) + "\n"


def test_costs_command_writes_the_table(cli, tmp_path):
    src = tmp_path / "r.csv"
    frame([["a", "ok", 1.5, 0.5, 10, 2, 2]]).assign(dataset="toy", protocol="p", peak_memory_mb=12.0) \
        .to_csv(src, index=False)
    out = tmp_path / "COSTS.md"
    code, _, err = cli(["costs", src, "-o", out])
    assert code == 0 and "| a | ~2.0 s / 12 MB |" in out.read_text()   # wall seconds: marked


def test_costs_from_the_timing_columns_a_file_has_with_the_missing_one_noted(cli, tmp_path):
    """No predict_seconds column, or an empty one in ok and failed rows: the table counts the
    fit seconds alone and says so (under the table and on stderr), without a traceback."""
    rows = frame([["a", "ok", 1.5, 0.5, 10, 2, 2], ["a", "ok", 2.0, np.nan, 10, 2, 2],
                  ["b", "error", np.nan, np.nan, 10, 2, 2], ["b", "ok", np.nan, np.nan, 10, 2, 2]])
    rows = rows.assign(dataset="toy", protocol="p", peak_memory_mb=[12.0, 12.0, np.nan, np.nan])
    rows.to_csv(tmp_path / "empty.csv", index=False)
    rows.drop(columns="predict_seconds").to_csv(tmp_path / "none.csv", index=False)

    code, out, err = cli(["costs", tmp_path / "empty.csv"])
    assert code == 0, err
    assert "| a | ~2.0 s / 12 MB |" in out          # the median of 1.5 + 0.5 and 2.0 alone
    assert "| b | ~? s / ? MB |" in out              # an ok row without any seconds
    assert ("Incomplete: 1 ok row(s) with an empty fit_seconds (the other timing column alone "
            "counts); 2 ok row(s) with an empty predict_seconds") in out
    assert err.splitlines()[0] == ("note: empty.csv, protocol p: 1 ok row(s) with an empty "
                                   "fit_seconds (the other timing column alone counts)")
    code, out, err = cli(["costs", tmp_path / "none.csv"])
    assert code == 0, err
    assert "| a | ~1.8 s / 12 MB |" in out and "Traceback" not in err    # 1.5 and 2.0
    assert "note: none.csv, protocol p: no predict_seconds column (the other timing column " \
        "alone counts)" in err


def test_cpu_seconds_decide_where_recorded_and_wall_seconds_stand_in_elsewhere(tmp_path):
    from mlbench.experiment.costs import costs_markdown

    rows = frame([["a", "ok", 2.0, 0.5, 10, 2, 2], ["a", "ok", 4.0, 0.5, 10, 2, 2],
                  ["b", "ok", 3.0, 0.0, 10, 2, 2], ["c", "ok", 3.0, 0.0, 10, 2, 2],
                  ["c", "ok", 5.0, 0.0, 10, 2, 2]])
    rows["cpu_seconds"] = [1.0, 2.0, np.nan, 0.5, np.nan]      # b: an older row; c: mixed
    rows = rows.assign(dataset=["d1", "d1", "d1", "d2", "d2"], protocol="p", peak_memory_mb=8.0)
    m = CostModel(rows)
    assert m.seconds("a", 10, 2, 2, dataset="d1", protocol="p") == 1.5
    assert m.seconds("b", 10, 2, 2, dataset="d1", protocol="p") == 3.0
    assert m.seconds("c", 10, 2, 2, dataset="d2", protocol="p") == 2.75
    rows.to_csv(tmp_path / "r.csv", index=False)
    text = costs_markdown([tmp_path / "r.csv"])
    assert "| a | 1.5 s / 8 MB | — |" in text
    assert "| b | ~3.0 s / 8 MB | — |" in text
    assert "| c | — | ~2.8 s / 8 MB |" in text


def test_an_unseen_method_id_is_predicted_as_its_registered_method():
    import pandas as pd

    from mlbench.experiment.costs import CostModel

    rows = pd.DataFrame({"method": ["slow", "fast"], "n_train": [100, 100], "n_features": [10, 10],
                         "n_labels": [5, 5], "fit_seconds": [50.0, 1.0], "predict_seconds": [0.0, 0.0]})
    model = CostModel(rows)
    assert model.seconds("slow-variant", 100, 10, 5, fallback="slow") == 50.0
    assert model.seconds("slow-variant", 100, 10, 5) != 50.0      # the pooled law
    assert model.seconds("fast", 100, 10, 5, fallback="slow") == 1.0


def test_a_cells_other_splits_decide_before_its_shape():
    """A protocol's preprocessing changes the recorded shape (soshf keeps 1,486 of rcv1's 47,236
    features): the median of the same method's rows on the same dataset and protocol is used."""
    rows = frame([["a", "ok", 10.0, 0.0, 100, 15, 5], ["a", "ok", 30.0, 0.0, 100, 15, 5],
                  ["a", "ok", 1000.0, 0.0, 100, 500, 5]])
    rows["dataset"] = ["d", "d", "e"]
    rows["protocol"] = ["p", "p", "p"]
    m = CostModel(rows)
    assert m.seconds("a", 100, 500, 5, dataset="d", protocol="p") == 20.0      # not 1000
    assert m.seconds("a", 100, 500, 5, dataset="d", protocol="q") == 1000.0    # other protocol
    assert m.seconds("a", 100, 500, 5) == 1000.0


def test_a_twin_dataset_under_the_same_protocol_decides_before_the_recorded_shape():
    """mc keeps rcv1's ten most common labels, so its rows record 10 labels where the registry
    says 101: a cell on another RCV1 subset takes the median of the same method and protocol on a
    dataset of the same registered shape, not a power law at 101 labels."""
    rows = frame([["a", "ok", 10.0, 0.0, 5400, 47236, 10], ["a", "ok", 30.0, 0.0, 5400, 47236, 10],
                  ["a", "ok", 1.0, 0.0, 500, 70, 6]])
    rows["dataset"] = ["rcv1subset1", "rcv1subset1", "emotions"]
    rows["protocol"] = ["mc", "mc", "mc"]
    shapes = {"rcv1subset1": (6000, 47236, 101), "rcv1subset2": (6000, 47236, 101),
              "emotions": (593, 72, 6), "emotions2": (5930, 72, 6)}
    m = CostModel(rows, shapes=shapes)
    assert m.seconds("a", 5400, 47236, 101, dataset="rcv1subset2", protocol="mc") == 20.0
    assert m.seconds("a", 5400, 47236, 101, dataset="rcv1subset2", protocol="soshf") != 20.0
    assert m.seconds("a", 5400, 47236, 101, dataset="emotions2", protocol="mc") != 20.0
    from mlbench.experiment.costs import registered_shapes

    shapes = registered_shapes()
    m = CostModel(rows, shapes=shapes)
    assert m.seconds("a", 5400, 47229, 101, dataset="rcv1subset4", protocol="mc") == 20.0


def test_estimates_read_the_shape_after_the_protocols_preprocessing(tmp_path):
    """The rows record the preprocessed shape (mc keeps 7,900 of rcv1's 47,236 features), so a
    cell is estimated at its preprocessed shape too, not at the registered one: the power law
    fitted on rows of 20 features predicts a 20-feature cell, not a 400-feature one."""
    from types import SimpleNamespace

    from mlbench.data.dataset import Dataset
    from mlbench.data.splits import Split
    from mlbench.experiment.runner import cell_costs

    rng = np.random.RandomState(0)
    X = (rng.rand(50, 400) < 0.2) * 1.0        # 380 columns nonzero in about 20% of the rows:
    X[:, :20] = rng.rand(50, 20)               # dropped by the step, which keeps these 20
    Y = (rng.rand(50, 3) < 0.5).astype(np.int8)
    ds = Dataset("d", X, Y, [f"f{i}" for i in range(400)], ["a", "b", "c"])
    split = Split("s", 0, None, train=np.arange(40), test=np.arange(40, 50))
    history = tmp_path / "h.csv"
    frame([["a", "ok", 1.0, 0.0, 40, 20, 3], ["a", "ok", 8.0, 0.0, 80, 40, 3]]).to_csv(history,
                                                                                      index=False)
    cell = SimpleNamespace(key="k", dataset="d", split="s", method="a", method_name="a",
                           protocol="p", search=None, preprocess=())
    kept = SimpleNamespace(**{**vars(cell), "preprocess": (
        {"step": "min_feature_frequency", "min_fraction": 0.5},)})
    raw = cell_costs([cell], {"d": ds}, {"d": [split]}, [str(history)])["k"]
    pre = cell_costs([kept], {"d": ds}, {"d": [split]}, [str(history)])["k"]
    assert np.isclose(pre, 1.0) and raw > 5 * pre


def test_a_cells_estimate_does_not_depend_on_the_datasets_run_with_it(tmp_path, monkeypatch):
    """A sparse dataset's earlier rows are counted by its nonzero share whether it is in the run or
    only in the local cache, so a cell on another dataset gets the same estimate from a run of
    its dataset alone as from the whole grid; a dataset that is not cached counts as dense."""
    from types import SimpleNamespace

    import mlbench.data.load as load
    import mlbench.data.registry as reg
    from mlbench.data.dataset import Dataset
    from mlbench.data.splits import Split, SplitScheme
    from mlbench.experiment.runner import cell_costs

    rng = np.random.RandomState(0)
    Y = (rng.rand(100, 2) < 0.5).astype(np.int8)

    def dataset(name, features, filled):
        X = np.zeros((100, features))
        X[:, :filled] = 1.0 + rng.rand(100, filled)
        return Dataset(name, X, Y, [f"f{i}" for i in range(features)], ["a", "b"])

    data = {"new": dataset("new", 200, 200), "dense": dataset("dense", 100, 100),
            "sparse": dataset("sparse", 5000, 100)}
    history = tmp_path / "h.csv"
    rows = frame([["a", "ok", 10.0, 0.0, 50, 100, 2], ["a", "ok", 10.0, 0.0, 50, 5000, 2]])
    rows["dataset"], rows["protocol"] = ["dense", "sparse"], ["p", "p"]
    rows.to_csv(history, index=False)
    protocol = SimpleNamespace(name="p", split=SplitScheme(), seed=0, preprocess=())
    cell = SimpleNamespace(key="k", dataset="new", split="s", method="a", method_name="a",
                           protocol="p", search=None, preprocess=())
    other = SimpleNamespace(**{**vars(cell), "key": "other", "dataset": "sparse"})
    split = Split("s", 0, None, train=np.arange(50), test=np.arange(50, 100))
    entry = SimpleNamespace(published={})
    monkeypatch.setattr(reg, "registry", lambda: dict.fromkeys(data, entry))
    monkeypatch.setattr(load, "cached_dataset", lambda name: data.get(name))

    def alone(protocol=protocol):
        return cell_costs([cell], {"new": data["new"]}, {"new": [split]}, [str(history)],
                          protocol)["k"]

    whole = cell_costs([cell, other], {k: data[k] for k in ("new", "sparse")},
                       {"new": [split], "sparse": [split]}, [str(history)], protocol)["k"]
    assert np.isclose(alone(), whole) and np.isclose(whole, 20.0)   # both rows: 50 x 100 x 2 filled
    monkeypatch.setattr(load, "cached_dataset", lambda name: None)       # not cached: dense
    assert not np.isclose(alone(), whole)
    assert np.isclose(alone(), alone(protocol=None))


def test_the_laws_leave_the_search_out_and_a_searched_cell_adds_it_capped_by_its_budget():
    """Rows of a searched method record the search's CPU seconds in extra.search.seconds_used; the
    power law models the rest (fit and predict), so a larger dataset's estimate grows with the
    refit only, and the search is added back as its candidates' folds, at most the budget (plus
    the fold that crosses it)."""
    import json

    rows = frame([["a", "ok", 150.0, 0.0, 100, 10, 2], ["a", "ok", 300.0, 0.0, 200, 10, 2]])
    rows["extra"] = [json.dumps({"search": {"seconds_used": 90.0}}),
                     json.dumps({"search": {"seconds_used": 180.0}})]
    m = CostModel(rows)
    assert np.isclose(m.seconds("a", 100, 10, 2), 60.0)         # the refit alone
    assert np.isclose(m.seconds("a", 400, 10, 2), 240.0)        # linear in the refit's size
    search = {"grid": {"C": [1, 2, 3, 4]}, "cv": 3, "rows": 100, "budget": 50.0}
    one = m.seconds("a", 66, 10, 2)
    assert np.isclose(m.searched_seconds(search, "a", 400, 10, 2), 240.0 + 50.0 + one)
    search["budget"] = 1e9                                       # the whole grid: 4 x 3 folds
    assert np.isclose(m.searched_seconds(search, "a", 400, 10, 2), 240.0 + 12 * one)
    rows["extra"] = [None, "not json"]                           # no search recorded: the totals
    assert np.isclose(CostModel(rows).seconds("a", 100, 10, 2), 150.0)


def test_the_laws_count_features_by_their_nonzero_share_where_it_is_known():
    """A method seen on two dense datasets (cost linear in rows x features x labels) is
    predicted on a sparse one of 2% nonzeros as on a dense one with 2% of its features; a
    dataset whose density is not known counts as dense, as before."""
    rows = frame([["a", "ok", 10.0, 0.0, 100, 100, 2], ["a", "ok", 20.0, 0.0, 200, 100, 2]])
    rows["dataset"] = ["d1", "d2"]
    rows["protocol"] = ["p", "p"]
    m = CostModel(rows, shapes={}, density={"d1": 1.0, "d2": 1.0, "sparse": 0.02})
    assert np.isclose(m.seconds("a", 1000, 5000, 2, dataset="sparse", protocol="p"), 100.0)
    assert np.isclose(m.seconds("a", 1000, 5000, 2, dataset="other", protocol="p"), 5000.0)
    # the rows' own datasets are counted by their density too: a sparse row is a small problem
    rows["dataset"] = ["d1", "sparse"]
    rows["n_features"] = [100, 5000]                  # 5000 x 0.02 = 100 filled
    m = CostModel(rows, shapes={}, density={"d1": 1.0, "sparse": 0.02})
    assert np.isclose(m.seconds("a", 300, 100, 2, dataset="d1", protocol="q"), 30.0)


def test_a_method_id_takes_its_level_from_its_own_protocol_and_its_growth_from_every_row():
    """The same id names different configurations in different protocols (imtsl-paper's ``br``
    searches ten penalties; another protocol's ``br`` fits one): a dataset new to protocol p is
    predicted at p's level, with the exponent fitted on every row of the id; the same shape run
    under p decides before one run elsewhere; an id p never ran keeps the cross-protocol rules."""
    sizes = [(100, 10, 5), (400, 20, 5), (1000, 50, 10)]
    rows = [["a", "ok", 1e-3 * (n * d * L) ** 1.5, 0.0, n, d, L] for n, d, L in sizes]
    rows += [["a", "ok", 50 * 1e-3 * (100 * 10 * 5) ** 1.5, 0.0, 100, 10, 5]]   # 50 times dearer
    rows = frame(rows)
    rows["dataset"] = ["d1", "d2", "d3", "d1"]
    rows["protocol"] = ["q", "q", "q", "p"]
    m = CostModel(rows, shapes={})
    want = 50 * 1e-3 * (3000 * 80 * 7) ** 1.5
    assert np.isclose(m.seconds("a", 3000, 80, 7, dataset="new", protocol="p"), want, rtol=0.05)
    assert np.isclose(m.seconds("a", 3000, 80, 7, dataset="new", protocol="q"), want / 50,
                      rtol=0.05)
    assert np.isclose(m.seconds("a", 400, 20, 5, dataset="new", protocol="q"),
                      1e-3 * (400 * 20 * 5) ** 1.5)                   # q's row of that shape
    assert np.isclose(m.seconds("a", 100, 10, 5, dataset="new", protocol="p"),
                      50 * 1e-3 * (100 * 10 * 5) ** 1.5)              # p's own, not q's
    law = m.seconds("a", 3000, 80, 7, dataset="new", protocol="r")    # r never ran a: rules 4-6
    assert law < want / 5

