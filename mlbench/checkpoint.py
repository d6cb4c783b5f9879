"""Checkpoints of a long computation inside one cell, so that an interrupted run resumes it.

A cell is the unit a results file resumes by: a run that is stopped loses the cells it was
computing.  Most cells take minutes; a few take hours (CLEMS's SMACOF on delicious).  For
those, the runner gives each cell a directory, ``<out>.checkpoints/<cell>/`` (:func:`use`, in
the cell's process), where a method saves the state of a long loop now and then (:func:`save`)
and finds it again when the cell runs again (:func:`load`).

A state is saved under a ``key`` that hashes everything it was computed from (:func:`key`: the
arrays' bytes, the settings, the code's state version), so a state is never read for other
inputs: there is nothing stale to clean up and nothing to trust.  A file that cannot be read is
ignored (and removed); a directory that cannot be written makes :func:`save` warn once and do
nothing more, because a checkpoint only saves time.  With no directory (a method used outside
the runner) a :class:`Timer` is never due and :func:`load` finds nothing.  The runner removes a
cell's directory once the cell's ``ok`` row is written.

A method resumes exactly where it stopped: its state holds every variable its loop carries, and
:func:`resumed` tells the row (``extra.resumed``) which states were read and the CPU seconds they
stand for, since the row's ``cpu_seconds`` measure only the run that finished the cell.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import time
import warnings

import numpy as np

#: seconds of computation between two saves of one loop (``MLBENCH_CHECKPOINT_SECONDS``)
EVERY_ENV = "MLBENCH_CHECKPOINT_SECONDS"
DEFAULT_EVERY = 600.0

_state = {"dir": None, "every": DEFAULT_EVERY, "resumed": [], "failed": False}


@contextlib.contextmanager
def use(directory, every=None):
    """Within the block, checkpoints go to ``directory`` (None: no checkpoints), a loop saving
    every ``every`` seconds (default ``MLBENCH_CHECKPOINT_SECONDS`` or 600)."""
    if every is None:
        every = float(os.environ.get(EVERY_ENV, DEFAULT_EVERY))
    saved = dict(_state)
    _state.update(dir=None if directory is None else os.fspath(directory), every=float(every),
                  resumed=[], failed=False)
    try:
        yield
    finally:
        _state.clear()
        _state.update(saved)


def key(*parts):
    """A hex digest of ``parts``: arrays by dtype, shape and bytes, anything else by ``repr``."""
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, np.ndarray):
            a = np.ascontiguousarray(p)
            h.update(f"array {a.dtype.str} {a.shape}".encode())
            h.update(memoryview(a).cast("B"))
        else:
            h.update(f"value {p!r}".encode())
        h.update(b"\0")
    return h.hexdigest()


def _path(name, digest):
    return os.path.join(_state["dir"], f"{name}-{digest[:32]}.npz")


def active():
    """Whether checkpoints are kept (a directory is set and writing has not failed)."""
    return _state["dir"] is not None and not _state["failed"]


class Timer:
    """When a loop should save next: ``due()`` is true once ``every`` seconds (wall clock) have
    passed since the timer started or since ``saved()``; never without a checkpoint directory.
    ``saved_any``: whether the loop has saved (so it is long enough to keep its result)."""

    def __init__(self):
        self.last = time.monotonic()
        self.saved_any = False

    def due(self):
        return active() and time.monotonic() - self.last >= _state["every"]

    def saved(self):
        self.last = time.monotonic()
        self.saved_any = True


def load(name, digest):
    """The arrays saved as ``name`` under ``digest`` (a dict), or None.  A state read is listed by
    :func:`resumed` with the CPU seconds it records (``cpu_seconds``, if saved)."""
    if _state["dir"] is None:
        return None
    path = _path(name, digest)
    if not os.path.exists(path):
        return None
    try:
        with np.load(path, allow_pickle=False) as f:
            state = {k: f[k] for k in f.files}
    except Exception as exc:  # noqa: BLE001 - a damaged checkpoint is only time lost
        warnings.warn(f"checkpoint {path} could not be read ({type(exc).__name__}); "
                      "computing it again", RuntimeWarning, stacklevel=2)
        with contextlib.suppress(OSError):
            os.remove(path)
        return None
    _state["resumed"].append((name, float(state.get("cpu_seconds", np.nan))))
    return state


def save(name, digest, **arrays):
    """Save ``arrays`` as ``name`` under ``digest`` (atomic: a stopped save leaves the older
    state).  Returns whether it was saved."""
    if not active():
        return False
    from mlbench.fileio import atomic_write

    try:
        atomic_write(_path(name, digest), lambda fh: np.savez(fh, **arrays), make_parents=True)
    except Exception as exc:  # noqa: BLE001 - no checkpoint, the computation goes on
        _state["failed"] = True
        warnings.warn(f"checkpoints of this cell are off: {exc}", RuntimeWarning, stacklevel=2)
        return False
    return True


def resumed():
    """``{"states": n, "cpu_seconds": s}`` of the states read in this block, or None."""
    if not _state["resumed"]:
        return None
    seconds = [s for _, s in _state["resumed"] if np.isfinite(s)]
    return {"states": len(_state["resumed"]), "cpu_seconds": round(float(sum(seconds)), 3)}
