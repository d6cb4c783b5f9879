"""Resume compares a cell's recorded provenance: a cell whose method parameters, data
preprocessing (steps, split rule), data or method code changed is run again."""
import csv
import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import yaml

from mlbench.data.dataset import Dataset
from mlbench.errors import DataError
from mlbench.experiment import runner
from mlbench.experiment.runner import cells_to_run, run_experiment
from mlbench.experiment.store import ResultsStore, canonical_params
from mlbench.methods import registry
from mlbench.methods.base import MultiLabelClassifier
from mlbench.protocols import load_protocol


class Shifted(MultiLabelClassifier):
    """Scores = per-label training frequency + ``shift`` (so a parameter change shows in results)."""

    def __init__(self, *, shift=0.0, random_state=None):
        self.shift = shift
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        self.freq_ = Y.mean(axis=0) + self.shift
        return self

    def predict_proba(self, X):
        X = self._validate_predict(X)
        return np.clip(np.tile(self.freq_, (X.shape[0], 1)) + 0.1 * np.sign(X[:, :1]), 0, 1)


def tiny(name):
    if name != "tiny":
        raise DataError(f"no dataset {name}")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 3))
    Y = (X[:, :2] > 0).astype(np.int8)
    return Dataset(name, X, Y, list("abc"), ["y0", "y1"], sha256="tinysha")


@pytest.fixture
def shifted(monkeypatch):
    registry.register("toy-shift-a", Shifted, family="test", paper="platform")
    registry.register("toy-shift-b", Shifted, family="test", paper="platform")
    monkeypatch.setattr(runner, "_default_loader", tiny)
    yield
    for name in ("toy-shift-a", "toy-shift-b"):
        registry._REGISTRY.pop(name, None)


def write_protocol(path, shift_a, shift_b=0.0):
    path.write_text(yaml.safe_dump({
        "name": "resume", "split": {"scheme": "holdout", "repeats": 2},
        "metrics": ["hamming_loss", "macro_auc"], "datasets": ["tiny"],
        "methods": [{"name": "toy-shift-a", "params": {"shift": shift_a}},
                    {"name": "toy-shift-b", "params": {"shift": shift_b}}]}))
    return path


def test_changed_param_in_yaml_reruns_only_that_method(shifted, tmp_path, cli):
    proto, out = tmp_path / "resume.yaml", tmp_path / "r.csv"
    write_protocol(proto, shift_a=0.0)
    code, _, err = cli(["run", "-p", proto, "-o", out, "-j", 1, "-q"])
    assert code == 0, err
    assert "parameters changed" not in err
    before = pd.read_csv(out).set_index(["method", "split"]).sort_index()
    assert len(before) == 4

    write_protocol(proto, shift_a=0.5)
    code, _, err = cli(["run", "-p", proto, "-o", out, "-j", 1, "-q"])
    assert code == 0, err
    assert "2 cell(s) rerun because what they were computed from changed: 2 parameters changed" in err
    assert "2 cell(s) run, 2 already done" in err
    after = pd.read_csv(out).set_index(["method", "split"]).sort_index()
    assert len(after) == 4 and (after.status == "ok").all()  # replaced, not duplicated
    a, b = after.loc["toy-shift-a"], after.loc["toy-shift-b"]
    assert {json.loads(p)["shift"] for p in a.params} == {0.5}
    assert not np.allclose(a.hamming_loss, before.loc["toy-shift-a"].hamming_loss)
    # the other method's rows are the very same rows (timings included)
    pd.testing.assert_frame_equal(b, before.loc["toy-shift-b"])

    code, _, err = cli(["run", "-p", proto, "-o", out, "-j", 1, "-q"])
    assert code == 0 and "parameters changed" not in err and "0 cell(s) run, 4 already done" in err


def test_other_protocol_file_with_same_name_reruns(shifted, tmp_path):
    out = tmp_path / "r.csv"
    first = load_protocol(str(write_protocol(tmp_path / "one.yaml", shift_a=0.0)))
    run_experiment(first, out=out)
    second = load_protocol(str(write_protocol(tmp_path / "two.yaml", shift_a=0.0, shift_b=0.25)))
    notes = []
    rep = run_experiment(second, out=out, notice=notes.append)
    assert (rep.ran, rep.skipped, rep.changed) == (2, 2, 2)
    assert notes == ["2 cell(s) rerun because what they were computed from changed: 2 parameters changed"]
    assert len(pd.read_csv(out)) == 4


def test_rows_without_params_count_as_done(shifted, tmp_path):
    """Results files whose ok rows have an empty params column keep working: nothing reruns."""
    out = tmp_path / "r.csv"
    proto = load_protocol(str(write_protocol(tmp_path / "p.yaml", shift_a=0.0)))
    run_experiment(proto, out=out)
    df = pd.read_csv(out, dtype=str, keep_default_na=False)
    df["params"] = ""
    df.to_csv(out, index=False)
    rep = run_experiment(proto, out=out)
    assert (rep.ran, rep.skipped, rep.changed) == (0, 4, 0)


def test_params_layout_does_not_matter():
    a = json.dumps({"shift": 0.5, "random_state": 3}, sort_keys=True)
    b = '{ "random_state":3,\n"shift": 5e-1 }'
    assert canonical_params(a) == canonical_params(b)
    assert canonical_params("") == "" and canonical_params("not json") == "not json"


IDENT = dict(data_sha256="sha", data_content="content", data_spec="spec", algorithm="m@1",
             conventions="v1")


class Cell:
    def __init__(self, key, params, **identity):
        self.key, self.params = key, params
        for k, v in {**IDENT, **identity}.items():
            setattr(self, k, v)


def ok_row(params, **identity):
    """A recorded ok row with the provenance of ``Cell``'s defaults, ``identity`` overriding."""
    ident = {**IDENT, **identity}
    return {"status": "ok", "params": params, "dataset_sha256": ident["data_sha256"],
            "data_content": ident["data_content"], "protocol_spec": ident["data_spec"],
            "algorithm": ident["algorithm"], "conventions": ident["conventions"]}


def test_cells_to_run_decisions():
    p1, p2 = '{"shift": 0.0}', '{"shift": 1.0}'
    cells = [Cell("new", p1), Cell("same", p1), Cell("changed", p2), Cell("legacy", p1),
             Cell("data", p1), Cell("code", p1), Cell("unverified", p1)]
    todo, causes = cells_to_run(cells, {
        "same": ok_row(p1), "changed": ok_row(p1), "legacy": ok_row(""),
        "data": ok_row(p1, data_sha256="old"), "code": ok_row(p1, algorithm="m@0"),
        "unverified": {"status": "ok", "params": p1, "dataset_sha256": "sha"}})
    assert [c.key for c in todo] == ["new", "changed", "data", "code", "unverified"]
    assert causes == [["params"], ["dataset_sha256"], ["algorithm"], ["unverified"]]
    assert runner.rerun_notice(causes, "r.csv").startswith(
        "4 cell(s) rerun because what they were computed from changed: 1 parameters changed, "
        "1 data changed, 1 method changed, 1 no recorded provenance (rows written before")


def write_rows(path, rows):
    cols = ["dataset", "method", "protocol", "split", "seed", "status", "params"]
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow(r)


def test_prepare_keeps_the_last_ok_row_and_drops_rerun_cells(tmp_path):
    out = tmp_path / "r.csv"
    write_rows(out, [
        ["d", "m", "p", "s1", "0", "ok", '{"x": 1}'],
        ["d", "m", "p", "s1", "0", "error", ""],       # a later failure must not hide the ok row
        ["d", "m", "p", "s2", "0", "ok", '{"x": 1}'],
        ["d", "m", "p", "s2", "0", "ok", '{"x": 2}'],  # duplicate: the last ok row wins
        ["d", "m", "p", "s3", "0", "ok", '{"x": 1}'],  # rerun: dropped
    ])
    with ResultsStore(out) as store:
        assert store.ok_rows()[("d", "m", "s2", "p", "0")]["params"] == '{"x": 2}'
        store.prepare([("d", "m", "s3", "p", "0")])
        kept = [(r["split"], r["status"], r["params"]) for r in store.rows]
    assert kept == [("s1", "ok", '{"x": 1}'), ("s2", "ok", '{"x": 2}')]
    assert pd.read_csv(out).split.tolist() == ["s1", "s2"]


def test_grid_params_equal_what_every_registered_method_records():
    """build_grid builds each estimator once; its params must still be the cell's own."""
    from types import SimpleNamespace

    from mlbench.experiment.cell import make_estimator, params_json
    from mlbench.experiment.grid import build_grid
    from mlbench.protocols import MethodEntry, parse_protocol

    registry.discover()
    proto = parse_protocol({"name": "g", "split": {"scheme": "holdout", "repeats": 2},
                            "metrics": ["hamming_loss"], "datasets": ["d"]})
    splits = [SimpleNamespace(id=f"holdout-r0{i}", repeat=i, fold=None) for i in range(2)]
    entries = [MethodEntry(s.name) for s in registry.all_methods()]
    cells = build_grid(proto, ["d"], entries, {"d": splits})
    assert len(cells) == 2 * len(entries) > 2
    for c in cells:
        assert c.params == params_json(make_estimator(c)), c.method
    seeds = {}  # method -> its random_state in each split
    for c in cells:
        if "random_state" in json.loads(c.params):
            seeds.setdefault(c.method, set()).add(json.loads(c.params)["random_state"])
    assert seeds and all(len(v) == 2 for v in seeds.values())


# -- data preprocessing and split rule ---------------------------------------------------------------
def two_tiny(name):
    if name not in ("tiny", "tiny2"):
        raise DataError(f"no dataset {name}")
    rng = np.random.default_rng(0 if name == "tiny" else 1)
    X = rng.normal(size=(24, 3))
    Y = (X[:, :2] > 0).astype(np.int8)
    return Dataset(name, X, Y, list("abc"), ["y0", "y1"], sha256=f"{name}sha")


@pytest.fixture
def two_datasets(shifted, monkeypatch):
    monkeypatch.setattr(runner, "_default_loader", two_tiny)


def data_protocol(path, preprocess, split=None, name="resume"):
    path.write_text(yaml.safe_dump({
        "name": name, "split": split or {"scheme": "holdout", "repeats": 2},
        "metrics": ["hamming_loss"], "datasets": ["tiny", "tiny2"], "preprocess": preprocess,
        "methods": [{"name": "toy-shift-a", "params": {"shift": 0.0}}]}))
    return load_protocol(str(path))


def frame(out):
    return pd.read_csv(out, dtype=str, keep_default_na=False).set_index(
        ["protocol", "dataset", "split"]).sort_index()


def test_changed_preprocess_step_reruns_only_that_protocols_cells(two_datasets, tmp_path):
    out = tmp_path / "r.csv"
    run_experiment(data_protocol(tmp_path / "a.yaml", ["standardize"]), out=out)
    run_experiment(data_protocol(tmp_path / "b.yaml", ["standardize"], name="other"), out=out)
    before = frame(out)
    assert len(before) == 8
    assert "" not in set(before.protocol_spec)

    notes = []
    changed = data_protocol(tmp_path / "a.yaml", [{"step": "standardize", "nominal": True}])
    rep = run_experiment(changed, out=out, notice=notes.append)
    assert (rep.ran, rep.skipped, rep.changed) == (4, 0, 4)
    assert notes == ["4 cell(s) rerun because what they were computed from changed: "
                     "4 protocol changed"]
    after = frame(out)
    assert len(after) == 8 and (after.status == "ok").all()
    # the other protocol's rows are untouched; this protocol's rows record the new fingerprint
    pd.testing.assert_frame_equal(after.loc["other"], before.loc["other"])
    assert set(after.loc["resume"].protocol_spec).isdisjoint(before.loc["resume"].protocol_spec)

    rep = run_experiment(changed, out=out)
    assert (rep.ran, rep.skipped, rep.changed) == (0, 4, 0)


def test_step_restricted_to_another_dataset_reruns_only_that_dataset(two_datasets, tmp_path):
    out = tmp_path / "r.csv"
    run_experiment(data_protocol(tmp_path / "a.yaml", ["standardize"]), out=out)
    before = frame(out)
    only = {"step": "min_feature_frequency", "min_fraction": 0.5, "only": ["tiny2"]}
    rep = run_experiment(data_protocol(tmp_path / "a.yaml", ["standardize", only]), out=out)
    assert (rep.ran, rep.skipped, rep.changed) == (2, 2, 2)
    after = frame(out)
    pd.testing.assert_frame_equal(after.xs("tiny", level="dataset"), before.xs("tiny", level="dataset"))
    assert set(after.xs("tiny2", level="dataset").protocol_spec) != \
        set(before.xs("tiny2", level="dataset").protocol_spec)


def one_rare(name):
    """tiny with label y0 positive in one row of 24: its ratio is 23 on all rows, infinite on a
    training part without that row."""
    ds = two_tiny("tiny")
    ds.Y[:, 0] = 0
    ds.Y[5, 0] = 1
    return ds


def test_label_selection_on_all_rows_reaches_every_cell(shifted, monkeypatch, tmp_path):
    monkeypatch.setattr(runner, "_default_loader", one_rare)
    kept = {}
    for rows in ("training", "all"):
        out = tmp_path / f"{rows}.csv"
        step = {"step": "drop_imbalanced_labels", "max_ratio": 23, "rows": rows}
        protocol = data_protocol(tmp_path / "a.yaml", [step], split={"scheme": "holdout", "repeats": 4})
        run_experiment(replace(protocol, datasets=("tiny",)), out=out)
        kept[rows] = list(pd.read_csv(out).n_labels)
    assert kept["all"] == [2, 2, 2, 2]
    assert 1 in kept["training"]   # a training part without row 5 drops y0


def test_split_rule_change_reruns_but_more_repeats_do_not(two_datasets, tmp_path):
    out = tmp_path / "r.csv"
    run_experiment(data_protocol(tmp_path / "a.yaml", []), out=out)
    more = {"scheme": "holdout", "repeats": 3}
    rep = run_experiment(data_protocol(tmp_path / "a.yaml", [], split=more), out=out)
    assert (rep.ran, rep.skipped, rep.changed) == (2, 4, 0)   # only the new repeat's cells
    other = {"scheme": "holdout", "repeats": 3, "train_fraction": 0.75}
    rep = run_experiment(data_protocol(tmp_path / "a.yaml", [], split=other), out=out)
    assert (rep.ran, rep.skipped, rep.changed) == (6, 0, 6)
    assert set(frame(out).n_train) == {"18"}


def test_rows_of_old_files_are_rerun_as_unverified_and_old_data_spec_is_read(two_datasets, tmp_path):
    """Rows written before provenance (no identity columns; the fingerprint in extra.data_spec)
    are unverified: rerun, and said so; a recorded extra.data_spec still decides."""
    out = tmp_path / "r.csv"
    run_experiment(data_protocol(tmp_path / "a.yaml", ["standardize"]), out=out)
    df = pd.read_csv(out, dtype=str, keep_default_na=False)
    df["extra"] = [json.dumps({"data_spec": s}) for s in df.protocol_spec]
    df = df.drop(columns=["data_content", "protocol_spec", "algorithm", "conventions"])
    df.to_csv(out, index=False)
    notes = []
    rep = run_experiment(data_protocol(tmp_path / "a.yaml", ["standardize"]), out=out,
                         notice=notes.append)
    assert (rep.ran, rep.skipped, rep.changed) == (4, 0, 4)
    assert "4 no recorded provenance" in notes[-1] and "mlbench.experiment.upgrade" in notes[-1]
    assert "" not in set(frame(out).algorithm)
    old = {"status": "ok", "params": "{}", "extra": json.dumps({"data_spec": "x"})}
    todo, causes = cells_to_run([Cell("k", "{}", data_spec="y")], {"k": old})
    assert causes == [["protocol_spec"]]


def test_data_spec_definition():
    from mlbench.data.splits import SplitScheme
    from mlbench.experiment.grid import data_spec

    hold = SplitScheme("holdout", repeats=2)
    base = data_spec(("standardize",), hold, "d")
    assert len(base) == 16
    # defaults filled in; steps restricted to other datasets and the number of repeats do not count
    assert data_spec(({"step": "standardize", "nominal": False},), hold, "d") == base
    rare = {"step": "min_feature_frequency", "min_fraction": 0.1, "only": ["e"]}
    assert data_spec(("standardize", rare), hold, "d") == base
    assert data_spec(("standardize",), SplitScheme("holdout", repeats=5), "d") == base
    assert data_spec(("standardize",), SplitScheme("holdout", repeats=2, folds=3), "d") == base
    # a parameter added later counts only when set away from the value that reproduces old rows
    ratio = {"step": "drop_imbalanced_labels", "max_ratio": 50}
    with_ratio = data_spec((ratio,), hold, "d")
    assert data_spec(({**ratio, "rows": "training"},), hold, "d") == with_ratio
    assert data_spec(({**ratio, "rows": "all"},), hold, "d") != with_ratio
    # what changes the data does
    assert data_spec(("standardize", rare), hold, "e") != data_spec(("standardize",), hold, "e")
    assert data_spec(({"step": "standardize", "nominal": True},), hold, "d") != base
    assert data_spec(("standardize", "impute"), hold, "d") != data_spec(("impute", "standardize"), hold, "d")
    assert data_spec(("standardize",), SplitScheme("holdout", train_fraction=0.6), "d") != base
    assert data_spec(("standardize",), SplitScheme("kfold", folds=5), "d") != \
        data_spec(("standardize",), SplitScheme("kfold", folds=10), "d")


def test_cells_to_run_compares_data_specs():
    cells = [Cell("same", "{}", data_spec="x"), Cell("stale", "{}", data_spec="y")]
    todo, causes = cells_to_run(cells, {"same": ok_row("{}", data_spec="x"),
                                        "stale": ok_row("{}", data_spec="x")})
    assert [c.key for c in todo] == ["stale"] and causes == [["protocol_spec"]]


def test_dry_run_plans_without_writing_and_orders_longest_first(shifted, tmp_path, cli, monkeypatch):
    proto, out = tmp_path / "resume.yaml", tmp_path / "r.csv"
    write_protocol(proto, shift_a=0.0)
    seconds = {"toy-shift-a": 1.0, "toy-shift-b": 50.0}
    monkeypatch.setattr(runner, "cell_costs",
                        lambda cells, *a: {c.key: seconds[c.method] for c in cells})
    code, stdout, err = cli(["run", "-p", proto, "-o", out, "-j", 2, "--dry-run"])
    assert code == 0, err
    assert not out.exists() and not (tmp_path / "r.csv.splits").exists()
    assert list(tmp_path.iterdir()) == [proto]
    assert "4 cell(s) to run" in stdout and "0 cell(s) already done" in err
    assert "0.03 core-hours" in stdout  # (2 x 50 + 2 x 1) s
    assert "0.01 h wall on 2 worker(s)" in stdout  # LPT: 50+1 on each core
    head, groups = stdout.split("by dataset and method")
    largest = [line.split()[1:] for line in head.splitlines() if line.startswith("  ")]
    assert [m for _, m, _ in largest] == ["toy-shift-b", "toy-shift-b", "toy-shift-a", "toy-shift-a"]
    by_group = [line.split() for line in groups.splitlines() if line.startswith("  ")]
    assert [(g[0], g[1], g[3]) for g in by_group] == [("0.03", "2", "toy-shift-b"),
                                                     ("0.00", "2", "toy-shift-a")]

    cli(["run", "-p", proto, "-o", out, "-j", 1, "-q"])
    rep = run_experiment(load_protocol(str(proto)), out=out, dry_run=True)
    assert (len(rep.todo), rep.skipped) == (0, 4)
    # a real run executes the longest cells first too
    out2 = tmp_path / "r2.csv"
    rep = run_experiment(load_protocol(str(proto)), out=out2)
    assert [c.method for c in rep.todo] == ["toy-shift-b"] * 2 + ["toy-shift-a"] * 2


def test_the_plan_totals_each_dataset_when_it_holds_several():
    from types import SimpleNamespace

    from mlbench.experiment.costs import plan_lines

    todo = [SimpleNamespace(key=k, dataset=d, method=m, label=f"{d} {m}")
            for k, d, m in [("1", "big", "a"), ("2", "big", "b"), ("3", "small", "a")]]
    lines = plan_lines(todo, {"1": 3600.0, "2": 1800.0, "3": 360.0}, workers=2)
    at = lines.index("by dataset (estimated core-hours, cells):")
    assert [line.split() for line in lines[at + 1:at + 3]] == [["1.50", "2", "big"],
                                                                ["0.10", "1", "small"]]
    one = plan_lines(todo[:2], {"1": 3600.0, "2": 1800.0}, workers=2)
    assert not any(line.startswith("by dataset (") for line in one)


def test_makespan_is_lpt():
    from mlbench.experiment.costs import makespan

    assert makespan([3, 3, 2, 2, 2], 2) == 7  # LPT: {3,2,2} {3,2}; optimum is 6
    assert makespan([], 4) == 0 and makespan([5, 1], 1) == 6 and makespan([5, 1], 0) == 6


def test_a_parameter_added_with_its_neutral_default_is_not_recorded():
    from mlbench.experiment.cell import params_json
    from mlbench.methods.trees.mldf import MLDF

    assert "threshold_reference" not in json.loads(params_json(MLDF(random_state=1)))
    assert json.loads(params_json(MLDF(threshold_reference="H")))["threshold_reference"] == "H"


def test_rows_written_with_or_without_a_neutral_parameter_both_count_as_done():
    """I-MTSL's ``graph`` was added later with "learned" (what every earlier row ran) and was
    recorded for a while: rows without it and rows with graph="learned" both match the grid,
    a row with another value does not."""
    from mlbench.experiment.cell import params_json
    from mlbench.experiment.runner import same_params
    from mlbench.methods.mtl.imtsl import IMTSL

    grid = params_json(IMTSL(random_state=1))
    assert "graph" not in json.loads(grid)
    old = json.dumps({k: v for k, v in json.loads(grid).items()})
    recorded = json.dumps({**json.loads(grid), "graph": "learned"})
    other = json.dumps({**json.loads(grid), "graph": "empty"})
    neutral = IMTSL._unrecorded_defaults
    assert same_params(old, grid, neutral) and same_params(recorded, grid, neutral)
    assert not same_params(other, grid, neutral)
    assert not same_params(recorded, grid, {})

    class ImtslCell(Cell):
        method_name = "imtsl"

    cells = [ImtslCell(k, grid) for k in ("old", "recorded", "other")]
    todo, causes = cells_to_run(cells, {"old": ok_row(old), "recorded": ok_row(recorded),
                                        "other": ok_row(other)})
    assert [c.key for c in todo] == ["other"] and causes == [["params"]]


class Rounded(Shifted):
    """Shifted's scores rounded to one decimal: the two labels often tie."""

    def predict_proba(self, X):
        return np.round(super().predict_proba(X), 1)


def ties_protocol(path, ties=None):
    registry.register("toy-rounded", Rounded, family="test", paper="platform")
    data = {"name": "resume", "split": {"scheme": "holdout", "repeats": 2},
            "metrics": ["one_error", "ranking_loss", "macro_auc"], "datasets": ["tiny"],
            "methods": [{"name": "toy-rounded", "params": {"shift": 0.0}}]}
    if ties is not None:
        data["ties"] = ties
    path.write_text(yaml.safe_dump(data))
    return load_protocol(str(path))


def test_tie_convention_is_recorded_and_a_changed_one_reruns(shifted, tmp_path):
    out = tmp_path / "r.csv"
    run_experiment(ties_protocol(tmp_path / "a.yaml"), out=out)
    before = pd.read_csv(out)
    extras = [json.loads(e) for e in before.extra]
    assert {e["ties"] for e in extras} == {"pessimistic"}
    assert all(0 <= e["tie_share"] <= 1 for e in extras)
    # writing the default explicitly changes nothing: the recorded cells are done
    rep = run_experiment(ties_protocol(tmp_path / "a.yaml", "pessimistic"), out=out)
    assert (rep.ran, rep.skipped) == (0, 2)
    # another convention supersedes every cell of the protocol
    rep = run_experiment(ties_protocol(tmp_path / "a.yaml", "half"), out=out)
    assert (rep.ran, rep.changed) == (2, 2)
    after = pd.read_csv(out)
    assert len(after) == 2 and {json.loads(e)["ties"] for e in after.extra} == {"half"}
    # half differs from pessimistic by half the tie share, cell by cell
    share = np.array([json.loads(e)["tie_share"] for e in after.extra])
    assert share.max() > 0
    np.testing.assert_allclose(before.ranking_loss - after.ranking_loss, share / 2, atol=1e-6)
    registry._REGISTRY.pop("toy-rounded", None)
