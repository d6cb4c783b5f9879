"""Limits shared by both executors (``--max-memory``, timeouts in a killable child) and the
``--executor`` command-line options; no Dask cluster is started here."""
import os
import sys

import numpy as np
import pandas as pd
import pytest

from mlbench.errors import ConfigError
from mlbench.experiment import runner
from mlbench.experiment.executors import LocalExecutor
from mlbench.experiment.grid import build_grid
from mlbench.experiment.runner import run_experiment
from mlbench.experiment.supervise import parse_size, run_supervised
from mlbench.methods import registry

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_run as t  # noqa: E402

toys = t.toys


class Hog(t.NoisyMean):
    """Holds ~400 MB (touched, so resident) for a few seconds during fit."""

    def fit(self, X, Y, validation=None):
        block = np.ones(50_000_000)
        import time

        time.sleep(5.0)
        self.size_ = block.size
        return super().fit(X, Y)


def _registered(name, cls):
    registry.register(name, cls, family="test", paper="platform")
    yield
    registry._REGISTRY.pop(name, None)


@pytest.fixture
def hog():
    yield from _registered("toy-hog", Hog)


def one_cell(method):
    p = t.protocol(split={"scheme": "holdout", "repeats": 1})
    from mlbench.data.splits import make_splits
    from mlbench.protocols import MethodEntry

    ds = t.toy_dataset()
    splits = {"toy": make_splits(ds, p.split, protocol="t", seed=0)}
    cells = build_grid(p, ["toy"], [MethodEntry(method)], splits)
    return cells[0], ds


def test_parse_size():
    assert parse_size("4GB") == 4 * 2**30 and parse_size("512mb") == 512 * 2**20
    assert parse_size("1.5G") == int(1.5 * 2**30) and parse_size("2048") == 2048
    assert parse_size(None) is None
    for bad in ("lots", "-1GB", "4XB"):
        with pytest.raises(ConfigError):
            parse_size(bad)


def test_local_executor_stops_a_cell_above_max_memory(toys, hog, tmp_path):
    out = tmp_path / "r.csv"
    rep = run_experiment(t.protocol(split={"scheme": "holdout", "repeats": 1}),
                         methods=["toy-hog", "toy-mean"], out=out, loader=t.loader,
                         executor=LocalExecutor(jobs=1, max_memory=parse_size("200MB"), poll=0.1))
    df = pd.read_csv(out).set_index("method")
    assert rep.statuses == {"memory": 1, "ok": 1}
    assert df.loc["toy-hog", "status"] == "memory" and "MemoryLimit" in df.loc["toy-hog", "error"]
    assert df.loc["toy-hog", "peak_memory_mb"] > 200
    assert df.loc["toy-mean", "peak_memory_mb"] >= 0


def test_supervised_child_gives_the_row_or_stops_it(toys, hog):
    spec, ds = one_cell("toy-mean")
    row = run_supervised(spec, ds)
    assert row["status"] == "ok" and row["macro_f1"] == row["macro_f1"]
    spec, ds = one_cell("toy-hog")
    assert run_supervised(spec, ds, max_memory=parse_size("200MB"))["status"] == "memory"
    assert run_supervised(spec, ds, timeout=0.5)["status"] == "timeout"
    spec, ds = one_cell("toy-broken")
    assert run_supervised(spec, ds)["status"] == "error"


def test_dask_executor_without_dask_says_how_to_install(toys, tmp_path, cli, monkeypatch):
    monkeypatch.setattr(runner, "_default_loader", t.loader)
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    code, _, err = cli(["run", "-m", "toy-mean", "-d", "toy", "-o", str(tmp_path / "r.csv"),
                        "--executor", "dask"])
    assert code == 2 and "pip install 'mlbench[dask]'" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_bad_max_memory_is_one_line_exit_2(toys, tmp_path, cli, monkeypatch):
    monkeypatch.setattr(runner, "_default_loader", t.loader)
    code, _, err = cli(["run", "-m", "toy-mean", "-d", "toy", "-o", str(tmp_path / "r.csv"),
                        "--max-memory", "lots"])
    assert code == 2 and "--max-memory" in err and len(err.strip().splitlines()) == 1


def test_local_executor_with_max_memory_runs_normal_cells(toys, tmp_path, cli, monkeypatch):
    monkeypatch.setattr(runner, "_default_loader", t.loader)
    code, _, err = cli(["run", "-m", "toy-mean", "-d", "toy", "-o", str(tmp_path / "r.csv"),
                        "--max-memory", "2GB", "-q"])
    assert code in (0, None), err
    assert (pd.read_csv(tmp_path / "r.csv").status == "ok").all()


def test_workers_read_a_dataset_from_the_shared_cache_only_when_it_matches(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    from mlbench.data import load_dataset
    from mlbench.experiment import dask_executor as de

    monkeypatch.setenv("MLBENCH_DATA", str(tmp_path))
    monkeypatch.setattr(de, "_WORKER_DATA", {})
    assert de._cached_dataset("emotions", "whatever") is None  # nothing cached yet
    ds = load_dataset("emotions")  # the driver's load fills the cache
    got = de._cached_dataset("emotions", ds.sha256)
    assert got is not None and np.array_equal(got.Y, ds.Y) and got.sha256 == ds.sha256
    assert de._cached_dataset("emotions", "0" * 64) is None  # another version: scatter instead
    assert de._cached_dataset("toy", "toysha") is None  # not a registered dataset


class Spin(t.NoisyMean):
    """Burns 4 s of CPU time during fit (a busy loop, no sleep)."""

    def fit(self, X, Y, validation=None):
        import time

        start = time.process_time()
        while time.process_time() - start < 4.0:
            pass
        return super().fit(X, Y)


@pytest.fixture
def spin():
    yield from _registered("toy-spin", Spin)


def test_cpu_time_limit_stops_a_busy_cell_in_both_executors(toys, spin, tmp_path):
    """--cpu-time: the kernel stops the cell after its CPU seconds (RLIMIT_CPU); a cell that only
    sleeps (toy-slow's wall time) is not stopped by it."""
    spec, ds = one_cell("toy-spin")
    row = run_supervised(spec, ds, cpu_time=1)
    assert row["status"] == "timeout" and "CpuTimeLimit" in row["error"]
    ex = LocalExecutor(jobs=1, cpu_time=1)
    (_, row), = list(ex.run([spec], lambda name: ds))
    assert row["status"] == "timeout" and "CpuTimeLimit: stopped after 1 CPU seconds" in row["error"]
    spec, ds = one_cell("toy-mean")
    (_, row), = list(LocalExecutor(jobs=1, cpu_time=1).run([spec], lambda name: ds))
    assert row["status"] == "ok"


class Threads(t.NoisyMean):
    """Records the n_jobs it was fitted with."""

    def __init__(self, *, n_jobs=1, noise=0.1, sleep=0.0, random_state=None):
        super().__init__(noise=noise, sleep=sleep, random_state=random_state)
        self.n_jobs = n_jobs

    def fit(self, X, Y, validation=None):
        super().fit(X, Y)
        self.fit_info_ = {"fitted_with": self.n_jobs}
        return self


def test_the_grid_tail_gives_a_cell_the_idle_cores(toys, tmp_path):
    """With fewer cells than --jobs left, a cell's n_jobs (left at 1) gets the idle cores; its
    recorded params do not change (so resume still matches) and n_jobs changes no number."""
    import json

    registry.register("toy-threads", Threads, family="test", paper="platform")
    try:
        spec, ds = one_cell("toy-threads")
        (_, row), = list(LocalExecutor(jobs=3).run([spec], lambda name: ds))
        extra = json.loads(row["extra"])
        assert extra["fitted_with"] == 3 and extra["n_jobs"] == 3
        assert json.loads(row["params"])["n_jobs"] == 1
        rows = list(LocalExecutor(jobs=1).run([spec], lambda name: ds))
        assert json.loads(rows[0][1]["extra"])["fitted_with"] == 1
        assert rows[0][1]["macro_f1"] == row["macro_f1"]
    finally:
        registry._REGISTRY.pop("toy-threads", None)


def test_forests_give_the_same_numbers_for_any_n_jobs():
    from sklearn.datasets import make_multilabel_classification

    X, Y = make_multilabel_classification(n_samples=120, n_features=8, n_classes=4, random_state=0)
    for name in ("sf", "rf-pct"):
        a = registry.make(name, random_state=3, n_jobs=1, n_estimators=6).fit(X, Y)
        b = registry.make(name, random_state=3, n_jobs=2, n_estimators=6).fit(X, Y)
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
