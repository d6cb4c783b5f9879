"""Checkpoints inside a cell (mlbench.checkpoint): keys, saving and reading, a SMACOF start that
resumes with the iterates of an uninterrupted one, and the runner's folder per cell."""
import json
import os

import numpy as np
import pandas as pd
import pytest

from mlbench import checkpoint
from mlbench.errors import DataError
from mlbench.experiment import runner
from mlbench.experiment.runner import run_experiment
from mlbench.methods import registry
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.embedding.clems import bipartite_smacof, hamming_cost
from mlbench.protocols import parse_protocol


def test_keys_tell_apart_bytes_dtypes_shapes_and_values():
    a = np.arange(6.0)
    keys = {checkpoint.key(a), checkpoint.key(a.reshape(2, 3)), checkpoint.key(a.astype(np.float32)),
            checkpoint.key(a + 1e-12), checkpoint.key(a, 1), checkpoint.key(a, "1"),
            checkpoint.key(a[::2]), checkpoint.key(a[:3])}
    assert len(keys) == 8
    assert checkpoint.key(a, "x", 3) == checkpoint.key(np.arange(6.0), "x", 3)


def test_save_load_and_what_was_resumed(tmp_path):
    assert checkpoint.load("s", "0" * 64) is None and not checkpoint.active()
    assert not checkpoint.save("s", "0" * 64, x=np.ones(2))    # no folder: nothing written
    with checkpoint.use(tmp_path / "cell", every=0):
        assert checkpoint.active() and checkpoint.Timer().due()
        digest = checkpoint.key(np.ones(3))
        assert checkpoint.load("s", digest) is None and checkpoint.resumed() is None
        assert checkpoint.save("s", digest, x=np.arange(3.0), cpu_seconds=2.5)
        state = checkpoint.load("s", digest)
        assert np.array_equal(state["x"], np.arange(3.0))
        assert checkpoint.load("s", checkpoint.key(np.zeros(3))) is None     # another input
        assert checkpoint.resumed() == {"states": 1, "cpu_seconds": 2.5}
    assert not checkpoint.active() and not checkpoint.Timer().due()
    with checkpoint.use(tmp_path / "cell", every=3600):
        assert not checkpoint.Timer().due()


def test_a_damaged_state_is_computed_again_and_a_read_only_folder_turns_saving_off(tmp_path):
    with checkpoint.use(tmp_path, every=0):
        digest = checkpoint.key(1)
        checkpoint.save("s", digest, x=np.ones(1))
        path = next(tmp_path.glob("s-*.npz"))
        path.write_bytes(b"PK\x03\x04 not a zip")
        with pytest.warns(RuntimeWarning, match="could not be read"):
            assert checkpoint.load("s", digest) is None
        assert not path.exists()
    blocker = tmp_path / "file"
    blocker.write_text("")
    with checkpoint.use(blocker / "cell", every=0):      # a folder below a file: not writable
        with pytest.warns(RuntimeWarning, match="checkpoints of this cell are off"):
            assert not checkpoint.save("s", "1" * 64, x=np.ones(1))
        assert not checkpoint.active() and not checkpoint.save("s", "1" * 64, x=np.ones(1))


class Interrupted(Exception):
    pass


@pytest.mark.parametrize("stop", ["relative", "normalized"])
def test_smacof_resumes_with_the_iterates_of_an_uninterrupted_start(tmp_path, monkeypatch, stop):
    """A start stopped after a saved step (the 7th, or the one before it stops) and run again in
    the same folder ends with the points, stress and steps of a start that was never stopped; a
    third run reads its result; other inputs do not read it."""
    rng = np.random.RandomState(0)
    U = (rng.random_sample((30, 8)) < 0.3).astype(float)
    cost, counts = np.sqrt(hamming_cost(U, U)), rng.randint(1, 4, size=30)
    init = rng.random_sample((60, 8))
    want = bipartite_smacof(cost, counts, init, 150, 1e-4, stop)
    assert 20 < want[2] <= 150     # normalized: stops at 133; relative: runs to the limit
    save = checkpoint.save
    for at in (7, want[2] - 1):
        folder, saves = tmp_path / f"at{at}", []

        def stopping_save(name, digest, **arrays):
            saved = save(name, digest, **arrays)
            saves.append(int(arrays["it"]))
            if len(saves) == at:
                raise Interrupted
            return saved

        monkeypatch.setattr(checkpoint, "save", stopping_save)
        with checkpoint.use(folder, every=0):
            with pytest.raises(Interrupted):
                bipartite_smacof(cost, counts, init, 150, 1e-4, stop)
        assert saves == list(range(1, at + 1))
        monkeypatch.setattr(checkpoint, "save", save)
        for _ in range(2):      # resumed from step `at`, then from the saved result
            with checkpoint.use(folder, every=0):
                got = bipartite_smacof(cost, counts, init, 150, 1e-4, stop)
                assert checkpoint.resumed()["states"] == 1
            assert np.array_equal(got[0], want[0]) and got[1] == want[1] and got[2] == want[2]
        with checkpoint.use(folder, every=0):
            bipartite_smacof(cost, counts, init, 150, 1e-3, stop)
            assert checkpoint.resumed() is None


def test_a_short_start_saves_nothing(tmp_path):
    U = np.eye(5)
    with checkpoint.use(tmp_path, every=3600):
        bipartite_smacof(np.sqrt(hamming_cost(U, U)), np.ones(5), np.random.RandomState(1)
                         .random_sample((10, 5)), 50, 1e-3, "normalized")
    assert list(tmp_path.iterdir()) == []


# --- the runner: one folder per cell, read on the rerun, removed once the cell is ok ----------------

class Resumable(MultiLabelClassifier):
    """Fails the first time (after saving a state), succeeds from that state the second time."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        digest = checkpoint.key(X, Y)
        state = checkpoint.load("part", digest)
        if state is None:
            checkpoint.save("part", digest, freq=Y.mean(axis=0), cpu_seconds=4.0)
            raise RuntimeError("stopped half-way")
        self.freq_ = state["freq"]
        return self

    def predict_proba(self, X):
        X = self._validate_predict(X)
        return np.tile(self.freq_, (X.shape[0], 1))


def tiny(name):
    from mlbench.data.dataset import Dataset

    if name != "tiny":
        raise DataError(f"no dataset {name}")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 3))
    return Dataset(name, X, (X[:, :2] > 0).astype(np.int8), list("abc"), ["y0", "y1"],
                   sha256="tinysha")


def test_the_runner_gives_each_cell_a_folder_and_removes_it_once_the_cell_is_ok(tmp_path,
                                                                                 monkeypatch):
    registry.register("toy-resumable", Resumable, family="test", paper="platform")
    monkeypatch.setattr(runner, "_default_loader", tiny)
    try:
        proto = parse_protocol({"name": "ck", "split": {"scheme": "holdout", "repeats": 2},
                                "metrics": ["hamming_loss"], "datasets": ["tiny"],
                                "methods": [{"name": "toy-resumable"}]})
        out = str(tmp_path / "r.csv")
        first = run_experiment(proto, out=out, jobs=1)
        assert first.statuses == {"error": 2}
        folders = sorted(os.listdir(f"{out}.checkpoints"))
        assert folders == ["ck__tiny__toy-resumable__holdout-r00__s0",
                           "ck__tiny__toy-resumable__holdout-r01__s0"]
        second = run_experiment(proto, out=out, jobs=1)
        assert second.statuses == {"ok": 2}
        rows = pd.read_csv(out)
        assert [json.loads(e)["resumed"] for e in rows.extra] == [
            {"states": 1, "cpu_seconds": 4.0}] * 2
        assert not os.path.exists(f"{out}.checkpoints")
    finally:
        registry._REGISTRY.pop("toy-resumable", None)
