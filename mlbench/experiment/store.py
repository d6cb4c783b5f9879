"""The results file: a CSV appended one row per finished cell, crash-safe and resumable.

* Each row is one line (error texts are collapsed to one line; JSON has no raw newlines), written
  with a single ``write`` on a file opened in append mode, then flushed and ``fsync``-ed, so a crash
  at any moment loses at most the line being written.
* On opening, a last line without its newline (the run was killed mid-write) is cut off, and lines
  refused by the line rules of :mod:`mlbench.results_file` are dropped (the file as it was is kept
  in ``<file>.bak-N``).
* :meth:`ResultsStore.prepare` drops earlier rows of the cells about to run (failures are never
  cached, as in benchopt: a rerun retries them; ``ok`` rows whose parameters changed are replaced)
  and duplicate rows, by an atomic rewrite, so the file keeps exactly one row per cell.
* :meth:`ResultsStore.ok_rows` gives, per cell key, the ``ok`` row a rerun keeps, so the driver
  can tell a finished cell from one whose recorded provenance is no longer current.
* Lines are read by :mod:`mlbench.results_file` (the file's one owner): a line laid out otherwise
  than the header is refused, never reinterpreted.
* New metric columns (another protocol writing to the same file) are added by an atomic rewrite
  with the union of the columns; old rows get empty values there.
* A second run on the same file is refused, whatever name it uses for it (:meth:`ResultsStore._lock`):
  an exclusive ``flock`` on ``<real path>.lock``; on Linux a lock on the real path's *name* (an
  abstract socket, :func:`_name_lock`) that holds when someone deletes ``<file>.lock``; and a lock
  on the file's identity, its device and inode, so a hard link, a bind mount or any other path to
  the same file is refused too.  The atomic rewrites give the file a new inode, so each inode the
  file has during the run is locked (and kept open, so its number cannot be reused by another file
  while locked); an old inode no name refers to any more is released.  The kernel releases every
  one of these locks when the holder dies, so a crashed run never leaves one stuck.
"""
from __future__ import annotations

import csv
import fcntl
import io
import math
import os

from mlbench.errors import ConfigError
from mlbench.experiment.columns import COLUMNS
from mlbench.results_file import (canonical_params, check_results_path, parse_lines,  # noqa: F401
                                  read_rows, row_key as _row_key)

_LOCK_FDS: set[int] = set()


def _name_lock(key):
    """A lock on the name ``key`` that deleting a file cannot lift: a Linux abstract-namespace
    socket bound to a name derived from ``key``.  The kernel frees the name when the holder
    exits, however it dies, so there is no stale lock to clean up.  Returns the bound socket, False
    when another process holds it, None where abstract sockets do not exist."""
    import hashlib
    import socket
    import sys

    if not sys.platform.startswith("linux"):
        return None
    name = "\0mlbench-results-" + hashlib.sha256(key.encode()).hexdigest()[:40]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(name)
    except OSError:
        sock.close()
        return False
    return sock


def _inode_lock(fd):
    """A lock on the identity (device, inode) of the file open as ``fd``: an abstract socket named
    by it on Linux, elsewhere an ``flock`` on ``fd`` itself.  Returns the socket (or None for the
    flock), or False when another process holds it."""
    st = os.fstat(fd)
    sock = _name_lock(f"inode {st.st_dev}:{st.st_ino}")
    if sock is not None:
        return sock
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return None


def _close_locks_in_child():
    # a forked worker must not keep the run's lock alive after the driver dies
    for fd in list(_LOCK_FDS):
        try:
            os.close(fd)
        except OSError:
            pass
    _LOCK_FDS.clear()


os.register_at_fork(after_in_child=_close_locks_in_child)


def _format(value):
    if value is None:
        return ""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    return str(value)


#: what to do when the results file (or its lock, backup or folder) cannot be written
OUT_HINT = "choose another --out"
KEPT_ADVICE = ("the rows written before are kept: free space or choose another --out, then "
               "rerun to resume")


def _ok_rows(rows):
    return {_row_key(r): r for r in rows if r.get("status") == "ok"}


def read_ok(path):
    """:meth:`ResultsStore.ok_rows` of ``path``, read-only and without the run lock (``run
    --dry-run`` plans from it)."""
    _, rows, _ = read_rows(path)
    return _ok_rows(rows)


class ResultsStore:
    """Open (and lock) ``path`` for a run writing ``metrics`` columns."""

    def __init__(self, path, metrics=()):
        # a symbolic link is written through: the rewrites replace its target, not the link
        self.path = os.path.realpath(os.fspath(path))
        self.repaired = 0
        self.problems = []
        self.backup = None
        check_results_path(self.path)
        from mlbench.fileio import make_dirs

        make_dirs(os.path.dirname(self.path), OUT_HINT)
        lock_existed = os.path.exists(self.path + ".lock")
        self.created = False
        try:
            self._lock()
            self.columns, self.rows = self._read()
            wanted = list(COLUMNS) + [m for m in metrics if m not in COLUMNS]
            missing = [c for c in wanted if c not in self.columns]
            if self.repaired:
                self._keep_original()
            if missing or self.repaired:
                self.columns = list(self.columns) + missing
                self._rewrite()
        except BaseException:
            # refused (another run, not a results file, cannot write): release the lock, leave
            # no trace
            self.close()
            leftovers = ([] if lock_existed else [self.path + ".lock"]) + (
                [self.path] if self.created else [])
            for name in leftovers:
                try:
                    if name != self.path or os.path.getsize(name) == 0:
                        os.unlink(name)
                except OSError:
                    pass
            raise

    # -- locking --------------------------------------------------------------------------------
    def _lock(self):
        """Refuse a second writer of this file, by path (``<file>.lock`` and the real path's name)
        and by identity (device and inode, see the module doc)."""
        busy = ConfigError(f"another mlbench run is writing {self.path}; wait for it or use "
                           "another --out")
        self._inode_locks = []     # (open fd, socket or None) of each inode the file had
        sock = _name_lock("path " + self.path)
        if sock is False:
            raise busy
        self._lock_sock = sock
        if sock is not None:
            _LOCK_FDS.add(sock.fileno())
        from mlbench.fileio import writing

        with writing(self.path + ".lock", OUT_HINT):
            fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise busy from None
        self._lock_fd = fd
        _LOCK_FDS.add(fd)
        self.created = not os.path.exists(self.path)    # an empty file gives the inode to lock
        if not self._lock_inode():
            raise busy

    def _lock_inode(self):
        """Lock the inode the file has now (kept open); release the locks of older inodes no name
        refers to any more (an atomic rewrite replaced them).  False when another run holds it."""
        for fd, sock in list(self._inode_locks):
            if os.fstat(fd).st_nlink == 0:
                self._inode_locks.remove((fd, sock))
                self._release(fd, sock)
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CREAT, 0o644)
        except OSError as exc:
            raise self._write_error(exc) from None
        if any(os.path.samestat(os.fstat(fd), os.fstat(f)) for f, _ in self._inode_locks):
            os.close(fd)
            return True
        sock = _inode_lock(fd)
        if sock is False:
            os.close(fd)
            return False
        self._inode_locks.append((fd, sock))
        _LOCK_FDS.add(fd)
        if sock is not None:
            _LOCK_FDS.add(sock.fileno())
        return True

    @staticmethod
    def _release(fd, sock):
        if sock is not None:
            _LOCK_FDS.discard(sock.fileno())
            sock.close()
        if fd is not None:
            _LOCK_FDS.discard(fd)
            os.close(fd)

    def close(self):
        for fd, sock in getattr(self, "_inode_locks", []):
            self._release(fd, sock)
        self._inode_locks = []
        self._release(getattr(self, "_lock_fd", None), getattr(self, "_lock_sock", None))
        self._lock_fd = self._lock_sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- reading and repair ---------------------------------------------------------------------------
    def _read(self):
        header, rows, repaired = read_rows(self.path, self.problems)
        self.repaired += repaired
        return header, rows

    def _keep_original(self):
        """Before a repair drops unreadable lines, keep the file as it was in ``<file>.bak-N``."""
        import shutil

        n = 1
        while os.path.exists(f"{self.path}.bak-{n}"):
            n += 1
        backup = f"{self.path}.bak-{n}"
        try:
            shutil.copy2(self.path, backup)
        except OSError as exc:
            if os.path.exists(backup):
                os.unlink(backup)
            raise self._write_error(exc, backup) from None
        self.backup = backup

    def _write_error(self, exc, path=None):
        """A full disk, a read-only file system, a lost permission: one line, the file as it was."""
        from mlbench.fileio import write_error

        return write_error(path or self.path, exc, advice=KEPT_ADVICE)

    def _rewrite(self):
        from mlbench.fileio import atomic_write

        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for row in self.rows:
            w.writerow([_format(row.get(c, "")) for c in self.columns])
        atomic_write(self.path, buf.getvalue(), advice=KEPT_ADVICE)
        self._lock_inode()     # the rewrite gave the file a new inode

    # -- the resume logic -------------------------------------------------------------------------------
    def ok_rows(self):
        """Key -> the key's last ``ok`` row (the one :meth:`prepare` keeps), whose recorded
        provenance the driver compares with the cell's (:mod:`mlbench.experiment.provenance`)."""
        return _ok_rows(self.rows)

    def prepare(self, keys_to_run):
        """Drop every row of the cells in ``keys_to_run`` (failures, changed parameters) and keep
        one row of every other cell: its last ``ok`` row, or its last row if none is ``ok``."""
        keys_to_run = set(keys_to_run)
        last, last_ok = {}, {}
        for i, row in enumerate(self.rows):
            k = _row_key(row)
            last[k] = i
            if row.get("status") == "ok":
                last_ok[k] = i
        keep = sorted(last_ok.get(k, i) for k, i in last.items() if k not in keys_to_run)
        kept = [self.rows[i] for i in keep]
        if len(kept) != len(self.rows):
            self.rows = kept
            self._rewrite()

    # -- appending ------------------------------------------------------------------------------------------
    def append(self, row):
        """Write ``row`` as one line (the header first if the file is empty), flush and fsync."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        new = not os.path.exists(self.path) or os.path.getsize(self.path) == 0
        if new:
            w.writerow(self.columns)
        w.writerow([_format(row.get(c, "")) for c in self.columns])
        data = buf.getvalue().encode("utf-8")
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                written = 0
                while written < len(data):
                    written += os.write(fd, data[written:])
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:   # a torn line left by a full disk is cut off on resume
            raise self._write_error(exc) from None
        self.rows.append({c: _format(row.get(c, "")) for c in self.columns})
