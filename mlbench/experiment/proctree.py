"""A cell owns every process it starts: found, measured and killed with it.

A method may start processes of its own (``subprocess.Popen``, ``os.fork``, joblib's loky
workers).  Each cell's process therefore

* starts a new session (:func:`become_cell_leader`, ``os.setsid``): it leads its own process group,
  which every descendant joins unless it leaves on purpose, and it is detached from the terminal,
  so Ctrl-C reaches the driver only;
* is a *child subreaper* (Linux ``PR_SET_CHILD_SUBREAPER``): a descendant whose parent exits is
  re-parented to the cell's process instead of to init, so while the cell's process lives every
  process started under it -- even one that called ``setsid`` itself or was double-forked -- is
  still found among its descendants.

The supervisor of a cell (the driver's :class:`~mlbench.experiment.executors.LocalExecutor`, or
:func:`~mlbench.experiment.supervise.run_supervised` on a Dask worker) keeps a :class:`CellTree`:
every poll it lists the cell's descendants (remembering each as a :class:`psutil.Process`, which
knows its start time, so a reused pid is never mistaken for it) and their private memory (its peak
goes into the row's ``peak_memory_mb``) and, with ``--max-memory`` or ``--cpu-time``, sums memory
and CPU over the whole tree.  When the cell ends, times out, is stopped by a limit, or the run is
interrupted, :meth:`CellTree.kill` stops the tree (SIGSTOP, so nothing forks while it looks),
lists it again and SIGKILLs the process group, every descendant found and every one remembered.  The cell's process itself also kills its descendants before it
sends its row (:func:`kill_descendants`), so a normal end leaves nothing behind either.

Limits of this scheme (a cgroup would have none, but needs a delegated cgroup, which a shared
machine or a container rarely gives): a descendant that leaves the cell's process group *and* is
orphaned by the cell's process dying abruptly (a segfault, the CPU limit's SIGKILL) within one poll
(0.1-0.25 s) of being started is not known to anyone and survives; and when the driver itself is
SIGKILLed, the kernel kills each cell's process (``PR_SET_PDEATHSIG``) but nobody is left to kill
its descendants.
"""
from __future__ import annotations

import atexit
import os
import resource
import signal
import weakref

import psutil

_PR_SET_CHILD_SUBREAPER = 36     # <linux/prctl.h>
_HAS_CHILDREN_FILE = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def _prctl(option, value):
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def become_cell_leader():
    """In a cell's freshly forked process, before anything else: a new session and process group,
    and the subreaper of everything started below it (see the module doc)."""
    try:
        os.setsid()
    except OSError:      # already a process group leader: cannot happen right after fork
        pass
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def _children(pid):
    """Pids of the direct children of ``pid`` (empty when it is gone)."""
    if _HAS_CHILDREN_FILE:
        out = []
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return out
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as fh:
                    out.extend(int(p) for p in fh.read().split())
            except (OSError, ValueError):
                pass
        return out
    try:
        return [p.pid for p in psutil.Process(pid).children()]
    except psutil.Error:
        return []


def descendants(pid):
    """Pids of every descendant of ``pid`` (children, their children, ...)."""
    out, stack = [], [pid]
    while stack:
        kids = _children(stack.pop())
        out.extend(kids)
        stack.extend(kids)
    return out


def private_memory(pid):
    """Memory private to process ``pid`` in bytes (its unique set size, USS).

    A cell's process is forked from the driver, so its resident set starts with every page of the
    driver (shared copy-on-write until written).  Those pages cost nothing new, and counting them
    would stop a small cell of a large driver; so memory is counted as private pages only
    (Private_Clean + Private_Dirty of ``/proc/PID/smaps_rollup``).  Where that file is missing
    (kernels before 4.14) the resident set of ``statm`` is the fallback.
    """
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            total = 0
            for line in fh:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    total += int(line.split()[1]) * 1024
            return total
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _cpu(proc):
    """CPU seconds of ``proc`` and of its children it has reaped (0 when it is gone)."""
    try:
        t = proc.cpu_times()
    except psutil.Error:
        return 0.0
    return t.user + t.system + t.children_user + t.children_system


def _signal(proc, signum):
    try:
        proc.send_signal(signum)     # psutil checks the pid still names the same process
    except psutil.Error:
        pass


_LIVE = weakref.WeakSet()    # trees of cells still running in this process (killed at exit)


class CellTree:
    """The processes of one cell: its process ``pid`` (a process group and session leader) and
    every descendant seen so far."""

    def __init__(self, pid, owner=None):
        self.pid = pid
        self.owner = owner       # who started the cell (a run's id on a shared Dask worker)
        try:
            self.root = psutil.Process(pid)
        except psutil.Error:
            self.root = None
        self.known = {}          # pid -> psutil.Process of a descendant seen
        self.children_memory = 0     # private memory (bytes) of the descendants at the last refresh
        self.children_peak = 0       # and the most seen
        _LIVE.add(self)

    def refresh(self):
        """Remember the descendants the cell has now; forget those that are gone (a zombie, not
        yet reaped, stays: its CPU seconds reach its parent's count only when it is reaped)."""
        for pid in descendants(self.pid):
            if pid not in self.known:
                try:
                    self.known[pid] = psutil.Process(pid)
                except psutil.Error:
                    pass
        for pid, proc in list(self.known.items()):
            if not proc.is_running():
                del self.known[pid]
        self.children_memory = sum(private_memory(p) for p in self.known)
        self.children_peak = max(self.children_peak, self.children_memory)

    def memory(self):
        """Private memory (bytes) of the cell's process and its descendants (call after
        :meth:`refresh`); pages they share with each other or the driver are not counted."""
        return private_memory(self.pid) + self.children_memory

    def cpu_seconds(self):
        """CPU seconds of the whole tree: the cell's process, the children it (or a descendant)
        reaped, and every live descendant (call after :meth:`refresh`)."""
        return (_cpu(self.root) if self.root is not None else 0.0) + sum(
            _cpu(p) for p in self.known.values())

    def _all(self):
        return ([self.root] if self.root is not None else []) + list(self.known.values())

    def kill(self):
        """SIGKILL the cell's process group, its process and every descendant, found now or
        remembered.  The tree is stopped first and listed again, so a process forked meanwhile is
        not missed.  Safe to call again and after the cell's process ended."""
        for _ in range(2):
            try:
                os.killpg(self.pid, signal.SIGSTOP)
            except OSError:
                pass
            for proc in self._all():
                _signal(proc, signal.SIGSTOP)
            self.refresh()
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass
        for proc in self._all():
            _signal(proc, signal.SIGKILL)
        self.known.clear()
        _LIVE.discard(self)


# a forked cell must not inherit (and at its exit kill) the trees of the cells running beside it
os.register_at_fork(after_in_child=_LIVE.clear)


@atexit.register
def kill_cells(owner=None):
    """Kill the trees of the cells still running in this process (those of ``owner`` only, when
    given); how many.  Run at exit, and by an interrupted Dask run on each of its workers."""
    trees = [tree for tree in list(_LIVE) if owner is None or tree.owner == owner]
    for tree in trees:
        tree.kill()
    return len(trees)


def kill_descendants(reap_seconds=2.0):
    """In a cell's process, when its work is done: stop and SIGKILL every descendant, then reap
    them (as the subreaper, it becomes the parent of each one whose parent died).  The process
    itself stays: it still has to send its row."""
    import time

    me = os.getpid()
    procs = {}
    for _ in range(2):
        for pid in descendants(me):
            if pid not in procs:
                try:
                    procs[pid] = psutil.Process(pid)
                except psutil.Error:
                    continue
                _signal(procs[pid], signal.SIGSTOP)
    for proc in procs.values():
        _signal(proc, signal.SIGKILL)
    deadline = time.monotonic() + reap_seconds
    while procs and time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            time.sleep(0.005)
        procs.pop(pid, None)


class ChildCpu:
    """In a cell's process: the CPU seconds of the processes it started since it was made (reaped
    ones through ``RUSAGE_CHILDREN``, live ones read from ``/proc``), for the row's
    ``cpu_seconds``.  Their memory is sampled by the supervisor (:attr:`CellTree.children_peak`)."""

    def __init__(self):
        self._me = os.getpid()
        self._before = set(descendants(self._me))
        self._ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)

    def __call__(self):
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        reaped = (ru.ru_utime - self._ru0.ru_utime) + (ru.ru_stime - self._ru0.ru_stime)
        live = 0.0
        for pid in descendants(self._me):
            if pid not in self._before:
                try:
                    live += _cpu(psutil.Process(pid))
                except psutil.Error:
                    pass
        return reaped + live
