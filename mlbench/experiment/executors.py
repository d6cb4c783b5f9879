"""Executors: where cells run.  The driver (:mod:`mlbench.experiment.runner`) is the only writer of
the results file; an executor takes cell specs and yields ``(spec, row)`` as cells finish.

An executor is any object with ``run(cells, get_dataset, on_start, on_tick) -> iterator of
(spec, row)``: ``get_dataset(name)`` returns the loaded dataset (cached by the driver),
``on_start(spec)`` is called when a cell begins and ``on_tick()`` now and then while cells run
(the live display refreshes there).  Rows come from :func:`mlbench.experiment.cell.run_cell` or, for a cell
that produced nothing, :func:`~mlbench.experiment.cell.failure_row`.

:class:`LocalExecutor` runs each cell in its own forked process, at most ``jobs`` at once.  We do not
use joblib here: joblib cannot stop one task that overruns its time without tearing down the whole
pool, while a process per cell can be killed on its own (``--timeout``), and a method that crashes
the interpreter (a segfault in an extension) costs only its own cell.  Forking is cheap (a few ms),
and the child inherits the datasets the driver has loaded, so nothing is pickled or reloaded.
Each worker limits its BLAS/OpenMP thread pools to one thread (``MLBENCH_THREADS`` changes it): the
run's parallelism is across cells (``--jobs``), and on a shared machine a multi-threaded BLAS spins
for cores it does not get (measured: classifier chain on emotions 17 s with the default OpenBLAS
threads vs 0.5 s with one, at load 15 on 2 cores).
"""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
from collections import deque
from multiprocessing.connection import wait

from mlbench.errors import ConfigError
from mlbench.experiment.cell import CELL_JOBS_ENV, describe_exception, failure_row, run_cell
from mlbench.experiment.proctree import CellTree, become_cell_leader, kill_descendants
from mlbench.experiment.supervise import (_die_with_parent, cpu_limit_row, cpu_tree_row, limit_cpu,
                                          memory_row, over_limits, with_children_memory)


def _child(spec, dataset, conn, threads, cpu_time=None, cell_jobs=1):
    become_cell_leader()
    _die_with_parent()
    limit_cpu(cpu_time)
    os.environ[CELL_JOBS_ENV] = str(cell_jobs)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=threads)
    except Exception:  # threadpoolctl is optional here: only a performance guard
        pass
    try:
        row = run_cell(spec, dataset)
    except BaseException as exc:  # noqa: BLE001  (report anything, even SystemExit, as the cell's error)
        row = failure_row(spec, "error", describe_exception(exc), dataset.sha256)
    kill_descendants()
    try:
        conn.send(row)
    finally:
        conn.close()


def _threads_per_cell():
    value = os.environ.get("MLBENCH_THREADS", "1")
    try:
        threads = int(value)
    except ValueError:
        raise ConfigError(f"MLBENCH_THREADS must be a positive integer, got {value!r}") from None
    if threads < 1:
        raise ConfigError(f"MLBENCH_THREADS must be a positive integer, got {value!r}")
    return threads


class LocalExecutor:
    """Cells in forked worker processes, ``jobs`` at a time, each stopped after ``timeout`` seconds
    (wall clock), ``cpu_time`` CPU seconds (all threads of all its processes; status ``timeout``
    either way) or when the private memory (USS, see ``proctree.private_memory``) of its processes
    exceeds ``max_memory`` bytes (polled every ``poll`` s; status ``memory``).  Each cell owns the
    processes it starts (:mod:`mlbench.experiment.proctree`): they are killed with it when it
    ends, is stopped, or the run ends or is interrupted."""

    def __init__(self, jobs=1, timeout=None, poll=0.25, max_memory=None, cpu_time=None):
        if int(jobs) < 1:
            raise ConfigError("--jobs must be at least 1")
        if timeout is not None and float(timeout) <= 0:
            raise ConfigError("--timeout must be a positive number of seconds")
        if "fork" not in mp.get_all_start_methods():
            raise ConfigError("the local executor needs the 'fork' start method (Linux or macOS)")
        self.jobs = int(jobs)
        self.max_memory = None if max_memory is None else int(max_memory)  # bytes of private memory (USS)
        self.timeout = None if timeout is None else float(timeout)
        self.cpu_time = None if cpu_time is None else float(cpu_time)   # CPU seconds per cell
        self.poll = poll
        self.threads = _threads_per_cell()
        self._ctx = mp.get_context("fork")

    def run(self, cells, get_dataset, on_start=lambda spec: None, on_tick=None):
        pending = deque(cells)
        running = {}  # connection -> (process, spec, start time, sha256, process tree)

        def stop(conn):
            proc, spec, start, sha, tree = running.pop(conn)
            tree.kill()
            proc.join()
            conn.close()
            return spec, sha

        try:
            while pending or running:
                while pending and len(running) < self.jobs:
                    spec = pending.popleft()
                    dataset = get_dataset(spec.dataset)
                    recv, send = self._ctx.Pipe(duplex=False)
                    # the grid's tail: fewer cells than cores left, so this cell may use the idle ones
                    cell_jobs = max(1, self.jobs - len(running) - len(pending))
                    proc = self._ctx.Process(target=_child, args=(spec, dataset, send, self.threads,
                                                                  self.cpu_time, cell_jobs))
                    proc.start()
                    send.close()
                    running[recv] = (proc, spec, time.monotonic(), dataset.sha256, CellTree(proc.pid))
                    on_start(spec)
                timeout = self.poll
                if self.timeout is not None:
                    now = time.monotonic()
                    left = min(start + self.timeout - now for _, _, start, _, _ in running.values())
                    timeout = max(0.0, min(timeout, left))
                ready = wait(list(running), timeout=timeout)
                if on_tick is not None:
                    on_tick()
                for conn in ready:
                    proc = running[conn][0]
                    try:
                        row = with_children_memory(conn.recv(), running[conn][4])
                    except (EOFError, OSError):
                        row = None
                        proc.join(5)     # it is ending: let it tell how before its tree is killed
                    spec, sha = stop(conn)
                    if row is None and proc.exitcode is not None and proc.exitcode < 0:
                        row = cpu_limit_row(spec, self.cpu_time, -proc.exitcode, sha)
                    if row is None:
                        code = proc.exitcode
                        why = (f"killed by signal {-code}" if code is not None and code < 0
                               else f"exit status {code}")
                        row = failure_row(spec, "error", f"WorkerDied: the worker process ended "
                                          f"without a result ({why})", sha)
                    yield spec, row
                for conn, (proc, spec, start, sha, tree) in list(running.items()):
                    # remember the cell's processes every poll (a limit needs their usage)
                    over = over_limits(tree, self.max_memory, self.cpu_time)
                    if over is not None:
                        stop(conn)
                        kind, used = over
                        yield spec, (memory_row(spec, used, self.max_memory, sha) if kind == "memory"
                                     else cpu_tree_row(spec, self.cpu_time, sha))
                if self.timeout is not None:
                    now = time.monotonic()
                    for conn, (proc, spec, start, sha, tree) in list(running.items()):
                        if now - start >= self.timeout:
                            stop(conn)
                            yield spec, failure_row(
                                spec, "timeout", f"Timeout: stopped after {self.timeout:g} s", sha)
        finally:
            for conn in list(running):
                stop(conn)
