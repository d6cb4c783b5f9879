"""Issue 41 item 4: temporary files of failed writes do not stay.  A write that fails removes its
temporary file; one left by a killed writer is swept by the next run on the same results file
(in ``<out>.splits/``, ``<out>.predictions/`` and beside the results file)."""
import errno
import os
import sys

import numpy as np
import pytest

from mlbench.data.splits import make_splits, save_splits
from mlbench.errors import MlbenchError
from mlbench.experiment.runner import run_experiment

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import test_run as t  # noqa: E402

toys = t.toys


def full_disk(monkeypatch, where):
    """``np.savez_compressed`` into a file whose path contains ``where`` writes a little, then
    finds the disk full."""
    real = np.savez_compressed

    def savez(fh, **arrays):
        name = fh.name if isinstance(fh.name, str) else os.readlink(f"/proc/self/fd/{fh.name}")
        if where not in name:
            return real(fh, **arrays)
        fh.write(b"PK\x03\x04 part of an archive")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", savez)


def test_a_failed_write_of_splits_or_predictions_removes_its_temp_file(toys, tmp_path, monkeypatch):
    ds = t.toy_dataset()
    p = t.protocol()
    full_disk(monkeypatch, ".splits")
    with pytest.raises(MlbenchError, match="No space left"):
        save_splits(tmp_path / "r.csv.splits" / "t-toy-seed0.npz",
                    make_splits(ds, p.split, protocol="t", seed=0))
    assert os.listdir(tmp_path / "r.csv.splits") == []
    monkeypatch.undo()
    full_disk(monkeypatch, ".predictions")
    out = tmp_path / "p.csv"
    with pytest.raises(MlbenchError, match="No space left"):     # the run stops at the first
        run_experiment(p, out=out, loader=t.loader, save_predictions=True)
    assert (t.read(out).status == "error").all()     # the cell that could not save is recorded
    assert os.listdir(f"{out}.predictions") == []    # and left no partial file


def test_the_next_run_sweeps_temp_files_left_by_killed_writers(toys, tmp_path):
    out = tmp_path / "r.csv"
    run_experiment(t.protocol(), out=out, loader=t.loader, save_predictions=True)
    leftovers = [f"{out}.splits/t-toy-seed0.npz.tmp4242", f"{out}.predictions/x.npz.tmp17",
                 f"{out}.tmp99", f"{out}.predictions/y.npz.tmpa1b2_c3d"]
    kept = [f"{out}.predictions/notes.tmp", f"{out}.splits/mine.tmpx", str(tmp_path / "other.csv.tmp5")]
    for name in leftovers + kept:
        with open(name, "w") as fh:
            fh.write("partial")
    rep = run_experiment(t.protocol(), out=out, loader=t.loader, save_predictions=True)
    assert rep.skipped == 3
    assert [n for n in leftovers if os.path.exists(n)] == []
    assert all(os.path.exists(n) for n in kept)
    assert len(os.listdir(f"{out}.predictions")) == 3 + 1
