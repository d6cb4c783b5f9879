"""Run one cell in a forked child process that can be stopped for real: time and memory limits.

:func:`run_supervised` forks (``os.fork``, not :mod:`multiprocessing`: a Dask worker is a daemonic
process, which multiprocessing forbids to have children), runs
:func:`mlbench.experiment.cell.run_cell` in the child and reads the pickled row back through a pipe.
The child leads its own session and process group and owns everything it starts
(:mod:`mlbench.experiment.proctree`).  The parent polls every ``poll`` seconds: past ``timeout``
seconds the cell's whole process tree is SIGKILLed and the row has status ``timeout``; when the
private memory (USS) of the tree exceeds ``max_memory`` bytes it is SIGKILLed and the row has status
``memory`` (with the peak seen in ``peak_memory_mb``); when the tree's CPU seconds exceed
``cpu_time`` it is SIGKILLed with status ``timeout``.  Whatever the end, the tree is killed before
the row is returned.  A child that dies without a row (segfault, killed) gives an ``error`` row
naming the signal.  The child asks the kernel to SIGKILL it when its parent dies
(``PR_SET_PDEATHSIG``), so a killed worker leaves no orphan.
"""
from __future__ import annotations

import os
import pickle
import select
import signal
import time

from mlbench.experiment.cell import describe_exception, failure_row, run_cell
from mlbench.experiment.proctree import CellTree, become_cell_leader, kill_descendants

_PR_SET_PDEATHSIG = 1       # <linux/prctl.h>


def _die_with_parent():
    """Linux: have the kernel SIGKILL this worker when the driver dies (no orphan keeps computing)."""
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def parse_size(text):
    """``"4GB"``, ``"512MB"``, ``"1.5G"``, ``"2048"`` (bytes) -> bytes (int); None stays None."""
    from mlbench.errors import ConfigError

    if text is None:
        return None
    s = str(text).strip().upper().replace(" ", "")
    units = {"": 1, "B": 1, "K": 2**10, "KB": 2**10, "M": 2**20, "MB": 2**20, "G": 2**30,
             "GB": 2**30, "T": 2**40, "TB": 2**40, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30}
    num = s.rstrip("KMGTIB")
    unit = s[len(num):]
    try:
        value = float(num) * units[unit]
    except (ValueError, KeyError):
        raise ConfigError(f"--max-memory: cannot read {text!r} (use e.g. 4GB or 512MB)") from None
    if not 0 < value <= 2**50:       # also refuses nan and inf
        raise ConfigError(f"--max-memory must be a positive size up to 1 PiB, got {text!r}")
    return int(value)


def limit_cpu(seconds):
    """In a cell's child process: the kernel stops it after ``seconds`` of CPU time, all threads
    counted (RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL 5 s later), without a core file."""
    import math
    import resource

    if seconds is None:
        return
    soft = max(1, math.ceil(float(seconds)))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))


def cpu_limit_row(spec, cpu_time, signum, sha):
    """The row of a cell the CPU-time limit stopped (SIGXCPU, or SIGKILL at the hard limit), or
    None when the signal was something else."""
    if cpu_time is None or signum not in (signal.SIGXCPU, signal.SIGKILL):
        return None
    return cpu_tree_row(spec, cpu_time, sha)


def cpu_tree_row(spec, cpu_time, sha):
    """The row of a cell whose processes used more than ``cpu_time`` CPU seconds."""
    return failure_row(spec, "timeout", f"CpuTimeLimit: stopped after {cpu_time:g} CPU seconds", sha)


def memory_row(spec, peak, max_memory, sha):
    """The row of a cell whose process tree held more than ``max_memory`` bytes of private memory."""
    return failure_row(spec, "memory", f"MemoryLimit: private memory of the cell's processes "
                       f"{peak / 2**20:.0f} MB above the limit of {max_memory / 2**20:.0f} MB", sha,
                       peak_memory_mb=round(peak / 2**20, 3))


def with_children_memory(row, tree):
    """The cell's own ``row`` with the peak private memory of the processes it started (sampled
    by ``tree``, the supervisor's :class:`~mlbench.experiment.proctree.CellTree`) added to its
    ``peak_memory_mb``."""
    peak = row.get("peak_memory_mb")
    if tree.children_peak and isinstance(peak, (int, float)) and peak == peak:
        row["peak_memory_mb"] = round(peak + tree.children_peak / 2**20, 3)
    return row


def over_limits(tree, max_memory, cpu_time):
    """``("memory", bytes)`` or ``("cpu", seconds)`` when the cell's tree is over a limit, else
    None; refreshes the tree's list of processes either way."""
    tree.refresh()
    if max_memory is not None:
        used = tree.memory()
        if used > max_memory:
            return "memory", used
    if cpu_time is not None:
        used = tree.cpu_seconds()
        if used > cpu_time:
            return "cpu", used
    return None


def _child_main(spec, dataset, wfd, threads, cpu_time=None):
    become_cell_leader()
    _die_with_parent()
    limit_cpu(cpu_time)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=threads)
    except Exception:  # only a performance guard
        pass
    try:
        row = run_cell(spec, dataset)
    except BaseException as exc:  # noqa: BLE001
        row = failure_row(spec, "error", describe_exception(exc), dataset.sha256)
    kill_descendants()
    data = pickle.dumps(row)
    view = memoryview(data)
    while view:
        view = view[os.write(wfd, view):]
    os.close(wfd)


def run_supervised(spec, dataset, timeout=None, max_memory=None, threads=1, poll=0.1, cpu_time=None,
                   owner=None):
    """The row of ``spec`` on ``dataset``, run in a killable child; see the module doc.  ``owner``
    tags the cell's process tree (:func:`mlbench.experiment.proctree.kill_cells`)."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into the caller's code
        code = 0
        try:
            os.close(rfd)
            _child_main(spec, dataset, wfd, threads, cpu_time)
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(wfd)
    tree = CellTree(pid, owner)
    start = time.monotonic()
    chunks, status, used, ended = [], None, 0, False
    try:
        while True:
            ready, _, _ = select.select([rfd], [], [], poll)
            if ready:
                data = os.read(rfd, 1 << 20)
                if not data:
                    ended = True
                    break
                chunks.append(data)
                continue
            over = over_limits(tree, max_memory, cpu_time)
            if over is not None:
                status, used = over
                break
            if timeout is not None and time.monotonic() - start >= timeout:
                status = "timeout"
                break
    finally:
        os.close(rfd)
        if ended:    # the child closed its end: it is exiting; let it tell how, then kill its tree
            _, wstatus = os.waitpid(pid, 0)
        tree.kill()
        if not ended:
            _, wstatus = os.waitpid(pid, 0)
    sha = dataset.sha256
    if status == "timeout":
        return failure_row(spec, "timeout", f"Timeout: stopped after {timeout:g} s", sha)
    if status == "memory":
        return memory_row(spec, used, max_memory, sha)
    if status == "cpu":
        return cpu_tree_row(spec, cpu_time, sha)
    try:
        return with_children_memory(pickle.loads(b"".join(chunks)), tree)
    except Exception:  # noqa: BLE001  (no or partial row: the child died)
        if os.WIFSIGNALED(wstatus):
            row = cpu_limit_row(spec, cpu_time, os.WTERMSIG(wstatus), sha)
            if row is not None:
                return row
        why = (f"killed by signal {os.WTERMSIG(wstatus)}" if os.WIFSIGNALED(wstatus)
               else f"exit status {os.WEXITSTATUS(wstatus)}")
        return failure_row(spec, "error", f"WorkerDied: the cell's process ended without a result "
                           f"({why})", sha)
