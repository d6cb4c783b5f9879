"""The runner end to end on a tiny synthetic dataset with toy methods registered here only."""
import csv
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

from mlbench.data.dataset import Dataset
from mlbench.data.splits import load_splits
from mlbench.errors import ConfigError, DataError
from mlbench.experiment.executors import LocalExecutor
from mlbench.experiment.runner import run_experiment
from mlbench.experiment.store import ResultsStore
from mlbench.methods import registry
from mlbench.methods.base import MultiLabelClassifier
from mlbench.protocols import parse_protocol

HERE = os.path.dirname(os.path.abspath(__file__))


def toy_dataset(name="toy"):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    Y = (X[:, :3] + 0.5 * rng.normal(size=(60, 3)) > 0).astype(np.int8)
    return Dataset(name, X, Y, list("abcd"), ["y0", "y1", "y2"], sha256="toysha",
                   parts={"train": np.arange(40), "test": np.arange(40, 60)})


def loader(name):
    if name not in ("toy", "toy2"):
        raise DataError(f"no dataset {name}")
    return toy_dataset(name)


class NoisyMean(MultiLabelClassifier):
    """Scores = per-label training frequency + sign(x0) + noise from random_state (tests seeds)."""

    def __init__(self, *, noise=0.1, sleep=0.0, random_state=None):
        self.noise = noise
        self.sleep = sleep
        self.random_state = random_state

    def fit(self, X, Y, validation=None):
        X, Y = self._validate_fit(X, Y)
        rng = np.random.default_rng(self.random_state)
        self.freq_ = Y.mean(axis=0) + self.noise * rng.normal(size=Y.shape[1])
        self.fit_info_ = {"validation_rows": 0 if validation is None else int(validation[0].shape[0])}
        time.sleep(self.sleep)
        return self

    def predict_proba(self, X):
        X = self._validate_predict(X)
        return np.clip(self.freq_ + 0.3 * np.sign(X[:, :1]), 0, 1)


class Busy(NoisyMean):
    """Spends ``sleep`` seconds of CPU time in fit, where NoisyMean spends them asleep."""

    def fit(self, X, Y, validation=None):
        X, Y = self._validate_fit(X, Y)
        start = time.process_time()
        while time.process_time() - start < self.sleep:
            pass
        self.freq_ = Y.mean(axis=0)
        return self


class Broken(NoisyMean):
    def fit(self, X, Y, validation=None):
        raise RuntimeError("this method always fails\nsecond line")


TOY = {"toy-mean": NoisyMean, "toy-broken": Broken}


@pytest.fixture
def toys():
    for name, cls in TOY.items():
        registry.register(name, cls, family="test", paper="platform")
    registry.register("toy-slow", NoisyMean, family="test", paper="platform", params={"sleep": 30.0})
    yield
    for name in [*TOY, "toy-slow"]:
        registry._REGISTRY.pop(name, None)


def protocol(**changes):
    data = {"name": "t", "split": {"scheme": "holdout", "repeats": 3},
            "preprocess": ["standardize"], "metrics": ["hamming_loss", "macro_f1", "macro_auc"],
            "datasets": ["toy"], "methods": ["toy-mean"]}
    data.update(changes)
    return parse_protocol(data)


def read(out):
    return pd.read_csv(out)


def test_run_writes_one_row_per_cell_and_resume_skips(toys, tmp_path):
    out = tmp_path / "r.csv"
    rep = run_experiment(protocol(datasets=["toy", "toy2"]), out=out, loader=loader)
    assert rep.ran == 6 and rep.statuses == {"ok": 6}
    df = read(out)
    assert len(df) == 6 and (df.status == "ok").all()
    assert set(df.split) == {"holdout-r00", "holdout-r01", "holdout-r02"}
    assert df[["n_train", "n_test", "n_labels", "n_features"]].iloc[0].tolist() == [30, 30, 3, 4]
    assert df.dataset_sha256.iloc[0] == "toysha" and df.mlbench_version.notna().all()
    assert json.loads(df.params.iloc[0])["random_state"] > 0
    assert df.macro_auc.between(0, 1).all()
    again = run_experiment(protocol(datasets=["toy", "toy2"]), out=out, loader=loader)
    assert again.ran == 0 and again.skipped == 6
    assert len(read(out)) == 6
    # the splits were saved beside the results and name the rows' splits
    splits, meta = load_splits(tmp_path / "r.csv.splits" / "t-toy-seed0.npz")
    assert [s.id for s in splits] == sorted(set(df.split)) and meta["dataset_sha256"] == "toysha"


def test_rows_record_cpu_seconds_apart_from_wall_seconds(toys, tmp_path):
    registry.register("toy-busy", Busy, family="test", paper="platform", params={"sleep": 0.3})
    registry.register("toy-sleepy", NoisyMean, family="test", paper="platform", params={"sleep": 1.0})
    try:
        p = protocol(split={"scheme": "holdout", "repeats": 1})
        for jobs in (1, 2):
            out = tmp_path / f"r{jobs}.csv"
            run_experiment(p, methods=["toy-busy", "toy-sleepy"], out=out, loader=loader, jobs=jobs)
            df = read(out).set_index("method")
            assert df.loc["toy-busy", "cpu_seconds"] >= 0.3
            assert df.loc["toy-sleepy", "fit_seconds"] >= 1.0
            # the first fit of a process also pays lazy imports (measured 0.18 s of CPU)
            assert df.loc["toy-sleepy", "cpu_seconds"] < df.loc["toy-sleepy", "fit_seconds"] - 0.5
    finally:
        for name in ("toy-busy", "toy-sleepy"):
            registry._REGISTRY.pop(name, None)


def test_a_file_from_before_cpu_seconds_gains_the_column_and_keeps_its_rows(toys, tmp_path):
    out = tmp_path / "r.csv"
    run_experiment(protocol(), out=out, loader=loader)
    read(out).drop(columns=["cpu_seconds"]).to_csv(out, index=False)   # an older file
    rep = run_experiment(protocol(datasets=["toy", "toy2"]), out=out, loader=loader)
    df = read(out)
    assert rep.ran == 3 and len(df) == 6
    assert df[df.dataset == "toy"].cpu_seconds.isna().all()
    assert df[df.dataset == "toy2"].cpu_seconds.notna().all()


def test_same_seed_same_numbers_whatever_jobs_and_order(toys, tmp_path):
    a = run_experiment(protocol(), methods=["toy-mean"], out=tmp_path / "a.csv", loader=loader, jobs=1)
    b = run_experiment(protocol(), methods=["toy-mean"], out=tmp_path / "b.csv", loader=loader, jobs=2)
    cols = ["split", "macro_f1", "macro_auc", "hamming_loss", "params"]
    da = read(a.out).sort_values("split")[cols].reset_index(drop=True)
    db = read(b.out).sort_values("split")[cols].reset_index(drop=True)
    pd.testing.assert_frame_equal(da, db)
    c = run_experiment(protocol(seed=1), out=tmp_path / "c.csv", loader=loader)
    assert not read(c.out).sort_values("split").params.equals(da.params)


def test_failing_and_timing_out_methods_are_recorded_and_retried(toys, tmp_path):
    out = tmp_path / "r.csv"
    p = protocol(split={"scheme": "holdout", "repeats": 2})
    rep = run_experiment(p, methods=["toy-mean", "toy-broken", "toy-slow"], out=out, loader=loader,
                         executor=LocalExecutor(jobs=2, timeout=1.0))
    df = read(out)
    assert len(df) == 6
    by = df.groupby("method").status.agg(set).to_dict()
    assert by == {"toy-mean": {"ok"}, "toy-broken": {"error"}, "toy-slow": {"timeout"}}
    err = df[df.method == "toy-broken"].error.iloc[0]
    assert err == "RuntimeError: this method always fails second line"
    assert df[df.method == "toy-slow"].macro_f1.isna().all()
    assert rep.statuses == {"ok": 2, "error": 2, "timeout": 2}
    # a rerun retries the failures and replaces their rows: still one row per cell
    rep = run_experiment(p, methods=["toy-mean", "toy-broken"], out=out, loader=loader)
    assert rep.ran == 2 and rep.skipped == 2
    df = read(out)
    assert len(df) == 6 and df.duplicated(["dataset", "method", "split"]).sum() == 0


def test_worker_crash_is_an_error_row(toys, tmp_path):
    class Crash(NoisyMean):
        def fit(self, X, Y, validation=None):
            os.kill(os.getpid(), signal.SIGKILL)

    registry.register("toy-crash", Crash, family="test", paper="platform")
    try:
        run_experiment(protocol(split={"scheme": "holdout", "repeats": 1}), methods=["toy-crash"],
                       out=tmp_path / "r.csv", loader=loader)
    finally:
        registry._REGISTRY.pop("toy-crash")
    df = read(tmp_path / "r.csv")
    assert df.status.tolist() == ["error"] and "signal 9" in df.error.iloc[0]


def test_half_written_last_line_is_dropped_on_resume(toys, tmp_path):
    out = tmp_path / "r.csv"
    run_experiment(protocol(), out=out, loader=loader)
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])  # SIGKILL mid-write
    rep = run_experiment(protocol(), out=out, loader=loader)
    assert rep.ran == 1
    df = read(out)
    assert len(df) == 3 and (df.status == "ok").all()


def test_validation_part_is_passed_to_methods_that_take_it(toys, tmp_path):
    p = protocol(split={"scheme": "given", "validation_fraction": 0.25})
    run_experiment(p, out=tmp_path / "r.csv", loader=loader)
    df = read(tmp_path / "r.csv")
    assert df.split.tolist() == ["given-r00"]
    assert json.loads(df.extra.iloc[0])["validation_rows"] == 10
    assert df.n_train.iloc[0] == 40 and df.n_test.iloc[0] == 20


def test_save_predictions_lets_metrics_be_recomputed(toys, tmp_path):
    from mlbench.metrics import get_measure

    out = tmp_path / "r.csv"
    run_experiment(protocol(), out=out, loader=loader, save_predictions=True)
    df = read(out)
    files = sorted((tmp_path / "r.csv.predictions").iterdir())
    assert len(files) == 3
    row = df[df.split == "holdout-r01"].iloc[0]
    with np.load([f for f in files if "holdout-r01" in f.name][0]) as z:
        assert np.isclose(get_measure("macro_auc")(z["Y_true"], z["scores"]), row.macro_auc)
        assert np.isclose(get_measure("hamming_loss")(z["Y_true"], z["predictions"]), row.hamming_loss)
        assert z["test_rows"].size == 30


def test_method_resolution_and_dataset_errors(toys, tmp_path):
    with pytest.raises(ConfigError, match="unknown method"):
        run_experiment(protocol(), methods=["toy-meen"], out=tmp_path / "r.csv", loader=loader)
    with pytest.raises(ConfigError, match="bad parameters"):
        run_experiment(protocol(methods=[{"name": "toy-mean", "params": {"nois": 1}}]),
                       out=tmp_path / "r.csv", loader=loader)
    # a protocol dataset that cannot be loaded is skipped; a named one is an error
    rep = run_experiment(protocol(datasets=["toy", "absent"]), out=tmp_path / "r.csv", loader=loader)
    assert "absent" in rep.skipped_datasets and rep.ran == 3
    with pytest.raises(DataError):
        run_experiment(protocol(), datasets=["absent"], out=tmp_path / "r.csv", loader=loader)
    # protocol entries that are not registered are skipped and reported
    rep = run_experiment(protocol(methods=["toy-mean", "not-yet-written"]), out=tmp_path / "s.csv",
                         loader=loader)
    assert rep.skipped_methods == ["not-yet-written"]


def test_second_writer_is_refused(tmp_path):
    with ResultsStore(tmp_path / "r.csv", ["macro_f1"]):
        with pytest.raises(ConfigError, match="another mlbench run"):
            ResultsStore(tmp_path / "r.csv", ["macro_f1"])
    ResultsStore(tmp_path / "r.csv", ["macro_f1"]).close()  # released


def test_new_metric_columns_are_added_to_an_existing_file(toys, tmp_path):
    out = tmp_path / "r.csv"
    run_experiment(protocol(), out=out, loader=loader)
    run_experiment(protocol(name="u", metrics=["ranking_loss"]), out=out, loader=loader)
    df = read(out)
    assert len(df) == 6 and df[df.protocol == "u"].ranking_loss.notna().all()
    assert df[df.protocol == "t"].ranking_loss.isna().all()
    with open(out) as fh:
        assert len({len(r) for r in csv.reader(fh)}) == 1


SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {here!r})
    import test_run as t
    from mlbench.methods import registry
    from mlbench.experiment.runner import run_experiment
    registry.register("toy-mean", t.NoisyMean, family="test", paper="platform", params={{"sleep": 0.15}})
    p = t.protocol(split={{"scheme": "holdout", "repeats": 8}}, datasets=["toy", "toy2"])
    rep = run_experiment(p, out={out!r}, loader=t.loader, jobs=2)
    print("ran", rep.ran)
""")


def _run_sigkill_target(out):
    registry.register("toy-mean", NoisyMean, family="test", paper="platform", params={"sleep": 0.1})
    p = protocol(split={"scheme": "holdout", "repeats": 8}, datasets=["toy", "toy2"])
    run_experiment(p, out=out, loader=loader, jobs=2)


def _wait_rows(out, n, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(out) and len(open(out).read().splitlines()) >= n:
            return
        time.sleep(0.02)


def test_forked_driver_sigkilled_midway_then_rerun_gives_one_row_per_cell(tmp_path):
    """The driver (a forked copy of this process, so nothing is re-imported) is SIGKILLed after a
    few rows; a rerun completes the grid with exactly one row per cell."""
    import multiprocessing as mp

    out = str(tmp_path / "r.csv")
    proc = mp.get_context("fork").Process(target=_run_sigkill_target, args=(out,))
    proc.start()
    _wait_rows(out, 4)
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    before = len(open(out).read().splitlines()) - 1
    assert 3 <= before < 16, "the run should have been killed midway"
    registry.register("toy-mean", NoisyMean, family="test", paper="platform", params={"sleep": 0.1})
    try:
        p = protocol(split={"scheme": "holdout", "repeats": 8}, datasets=["toy", "toy2"])
        rep = run_experiment(p, out=out, loader=loader, jobs=2)
    finally:
        registry._REGISTRY.pop("toy-mean", None)
    df = read(out)
    assert len(df) == 16 and not df.duplicated(["dataset", "method", "split"]).any()
    assert (df.status == "ok").all() and rep.skipped + rep.ran == 16 and rep.ran < 16


@pytest.mark.slow
def test_sigkill_midway_then_rerun_gives_one_row_per_cell(tmp_path):
    """The same with a separate ``python`` process as the driver (as a user would run it)."""
    out = str(tmp_path / "r.csv")
    script = SCRIPT.format(here=HERE, out=out)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    _wait_rows(out, 4)  # a few rows on disk, then kill the driver
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = len(open(out).read().splitlines()) - 1
    assert 3 <= before < 16, "the run should have been killed midway"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    df = read(out)
    assert len(df) == 16 and not df.duplicated(["dataset", "method", "split"]).any()
    assert (df.status == "ok").all()
    assert int(done.stdout.split()[-1]) == 16 - before or int(done.stdout.split()[-1]) == 16 - before + 1


def test_all_entry_runs_every_method_with_the_protocol_overrides(toys):
    from mlbench.experiment.runner import resolve_methods

    p = protocol(methods=["all", {"name": "toy-mean", "params": {"noise": 0.5}}])
    entries, missing = resolve_methods(p)
    assert [e.name for e in entries] == [s.name for s in registry.all_methods()] and not missing
    assert next(e for e in entries if e.name == "toy-mean").params == {"noise": 0.5}
    entries, _ = resolve_methods(p, ["toy-mean"])
    assert entries[0].params == {"noise": 0.5}


def test_live_display_renders_running_cells_and_eta(toys, tmp_path):
    import io

    from rich.console import Console

    from mlbench.experiment.progress import Progress

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100)
    rep = run_experiment(protocol(), out=tmp_path / "r.csv", loader=loader,
                         progress=lambda n, s, j: Progress(n, s, j, console=console, live=True))
    text = buf.getvalue()
    assert rep.ran == 3 and "[3/3] toy toy-mean holdout-r02 ok" in text
    assert "cells 0/3" in text and "ETA" in text and "running" in text


def test_bootstrap_rows_hold_paired_replicates(toys, tmp_path):
    from mlbench.stats.bootstrap import paired_interval, row_interval

    out = tmp_path / "r.csv"
    proto = protocol(split={"scheme": "holdout", "repeats": 1}, bootstrap={"replicates": 200},
                     methods=["toy-mean", {"name": "toy-mean", "id": "toy-mean-2",
                                           "params": {"noise": 0.3}}])
    run_experiment(proto, out=out, loader=loader)
    df = read(out).set_index("method")
    a, b = df.loc["toy-mean"], df.loc["toy-mean-2"]
    for metric in ("hamming_loss", "macro_f1", "macro_auc"):
        lo, hi = row_interval(a, metric)
        assert lo <= a[metric] + 1e-3 and a[metric] - 1e-3 <= hi
        extra = json.loads(a.extra)["bootstrap"]
        assert extra["B"] == 200 and extra["ci95"][metric] == pytest.approx([lo, hi], abs=1e-3)
    diff, lo, hi = paired_interval(a, b, "macro_auc")
    assert diff == pytest.approx(a["macro_auc"] - b["macro_auc"])   # the point difference
    assert lo <= diff <= hi
    # the same row twice: the paired difference is exactly 0 (same resamples)
    assert paired_interval(a, a, "macro_auc") == (0.0, 0.0, 0.0)
