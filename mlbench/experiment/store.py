"""The results file: a CSV appended one row per finished cell, crash-safe and resumable.

* Each row is one line (error texts are collapsed to one line; JSON has no raw newlines), written
  with a single ``write`` on a file opened in append mode, then flushed and ``fsync``-ed, so a crash
  at any moment loses at most the line being written.
* On opening, a last line without its newline (the run was killed mid-write) is cut off, and lines
  whose field count does not match the header are dropped.
* :meth:`ResultsStore.prepare` drops earlier rows of the cells about to run (failures are never
  cached, as in benchopt: a rerun retries them; ``ok`` rows whose parameters changed are replaced)
  and duplicate rows, by an atomic rewrite, so the file keeps exactly one row per cell.
* :meth:`ResultsStore.ok_params` gives, per cell key, the ``params`` of the ``ok`` row a rerun
  keeps, so the driver can tell a finished cell from one whose parameters changed since.  A row
  with an empty ``params`` (files from before the column was filled) cannot be compared and counts
  as finished.  :meth:`ResultsStore.ok_data_specs` does the same for the ``data_spec`` fingerprint
  of the cell's preprocessing and split rule recorded in ``extra`` (absent in older rows: finished).
* New metric columns (another protocol writing to the same file) are added by an atomic rewrite
  with the union of the columns; old rows get empty values there.
* An exclusive ``flock`` on ``<file>.lock`` refuses a second run on the same file; the kernel
  releases it when the holder dies, so a crashed run never leaves it stuck.  On Linux a second
  lock on the file's name (an abstract socket, :func:`_name_lock`) also holds when someone
  deletes ``<file>.lock`` during a run.
"""
from __future__ import annotations

import csv
import fcntl
import io
import json
import math
import os

from mlbench.errors import ConfigError
from mlbench.experiment.columns import COLUMNS
from mlbench.experiment.grid import key_of

_LOCK_FDS: set[int] = set()


def _name_lock(path):
    """A lock on the results file's *name* that deleting ``<file>.lock`` cannot lift: a Linux
    abstract-namespace socket bound to a name derived from the file's real path.  The kernel
    frees the name when the holder exits, however it dies, so there is no stale lock to clean
    up.  Returns the bound socket, False when another process holds it, None where abstract
    sockets do not exist (the flock on ``<file>.lock`` then works alone)."""
    import hashlib
    import socket
    import sys

    if not sys.platform.startswith("linux"):
        return None
    name = "\0mlbench-results-" + hashlib.sha256(os.path.realpath(path).encode()).hexdigest()[:40]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(name)
    except OSError:
        sock.close()
        return False
    return sock


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


def _row_key(row):
    return key_of(row.get("dataset"), row.get("method"), row.get("split"), row.get("protocol"),
                  row.get("seed"))


def canonical_params(text):
    """``text`` (a ``params`` cell) re-serialised with sorted keys and no layout differences."""
    try:
        return json.dumps(json.loads(text), sort_keys=True)
    except (TypeError, ValueError, RecursionError):   # RecursionError: hostile, deeply nested
        return text or ""


def _data_spec_of(extra):
    if "data_spec" not in (extra or ""):  # most old rows: skip parsing their JSON
        return ""
    try:
        value = json.loads(extra)
    except (ValueError, RecursionError):
        return ""
    return str(value.get("data_spec", "")) if isinstance(value, dict) else ""


#: the largest field a results file may hold (a cell's ``extra`` with bootstrap replicates is
#: tens of kilobytes; csv's own default of 128 KiB would make a longer one a traceback)
FIELD_LIMIT = 2**24
KEY_COLUMNS = ("dataset", "method", "split", "protocol", "seed", "status")
#: what to do when the results file (or its lock, backup or folder) cannot be written
OUT_HINT = "choose another --out"
KEPT_ADVICE = ("the rows written before are kept: free space or choose another --out, then "
               "rerun to resume")


def check_results_path(path):
    """Refuse an ``--out`` that is not a regular file (a directory, device, FIFO or socket): the
    results file is rewritten atomically, which would replace such a thing or hang on it."""
    import stat

    try:
        mode = os.stat(path).st_mode        # follows a symbolic link to its target
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ConfigError(f"{path}: cannot use it as a results file ({exc.strerror})") from None
    if not stat.S_ISREG(mode):
        raise ConfigError(f"{path} is not a regular file; give a results CSV path (-o FILE)")


def parse_lines(data, path, problems):
    """(header, rows) of results-CSV bytes, each row a dict with its line number in ``"__line"``.
    Every row is one physical line (the writer collapses newlines), so each line is parsed on its
    own: a stray quote or a bare CR spoils its line only, never the lines after it.  Unparsable
    records and records of the wrong width go to ``problems`` as ``"line N: why"``."""
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    csv.field_size_limit(max(csv.field_size_limit(), FIELD_LIMIT))

    def parse(line):
        return next(csv.reader([line], strict=True))

    try:
        header = parse(lines[0]) if lines else []
    except (csv.Error, StopIteration) as exc:
        raise ConfigError(f"{path}: line 1: not a results CSV header ({exc})") from None
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        if not line:
            continue
        try:
            fields = parse(line)
        except (csv.Error, StopIteration) as exc:
            problems.append(f"line {number}: {exc}")
            continue
        if len(fields) != len(header):
            problems.append(f"line {number}: {len(fields)} fields, the header has {len(header)}")
            continue
        rows.append({**dict(zip(header, fields)), "__line": number})
    return header, rows


def read_rows(path, problems=None):
    """(header, rows, repaired) of the results file ``path``, read-only: rows as dicts.  Left out
    and counted in ``repaired``: a torn last line (a run killed mid-write), records of the wrong
    width and records the CSV reader cannot parse (a stray quote, a field over ``FIELD_LIMIT``).
    ``problems`` (a list) receives ``"line N: why"`` for each.  A file without the key columns is
    not a results file: ConfigError, and the caller touches nothing.  A missing or empty file has
    no header and no rows."""
    check_results_path(path)
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return [], [], 0
    with open(path, "rb") as fh:
        data = fh.read()
    problems = [] if problems is None else problems
    if not data.endswith(b"\n"):
        # killed mid-write: the last line is incomplete; cut it off
        cut = data.rfind(b"\n") + 1
        last = data.count(b"\n") + 1
        problems.append(f"line {last}: incomplete last line")
        data = data[:cut]
    header, rows = parse_lines(data, path, problems)
    if not set(KEY_COLUMNS) <= set(header):
        raise ConfigError(f"{path} is not an mlbench results file (its first line lacks the "
                          f"columns {', '.join(c for c in KEY_COLUMNS if c not in header)}); "
                          f"nothing was changed")
    return header, rows, len(problems)


def _ok_params(rows):
    return {_row_key(r): canonical_params(r.get("params", "")) for r in rows if r.get("status") == "ok"}


def _ok_data_specs(rows):
    return {_row_key(r): _data_spec_of(r.get("extra", "")) for r in rows if r.get("status") == "ok"}


def read_ok(path):
    """(:meth:`ResultsStore.ok_params`, :meth:`ResultsStore.ok_data_specs`) of ``path``, read-only
    and without the run lock (``run --dry-run`` plans from it)."""
    _, rows, _ = read_rows(path)
    return _ok_params(rows), _ok_data_specs(rows)


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
        self._lock()
        try:
            self.columns, self.rows = self._read()
            wanted = list(COLUMNS) + [m for m in metrics if m not in COLUMNS]
            missing = [c for c in wanted if c not in self.columns]
            if self.repaired:
                self._keep_original()
            if missing or self.repaired:
                self.columns = list(self.columns) + missing
                self._rewrite()
        except BaseException:
            # refused (not a results file, cannot write): release the lock, leave no trace
            self.close()
            if not lock_existed:
                try:
                    os.unlink(self.path + ".lock")
                except OSError:
                    pass
            raise

    # -- locking --------------------------------------------------------------------------------
    def _lock(self):
        busy = ConfigError(f"another mlbench run is writing {self.path}; wait for it or use "
                           "another --out")
        sock = _name_lock(self.path)
        if sock is False:
            raise busy
        from mlbench.fileio import writing

        with writing(self.path + ".lock", OUT_HINT):
            fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            if sock is not None:
                sock.close()
            raise busy from None
        self._lock_fd, self._lock_sock = fd, sock
        _LOCK_FDS.add(fd)
        if sock is not None:
            _LOCK_FDS.add(sock.fileno())

    def close(self):
        fd = getattr(self, "_lock_fd", None)
        if fd is not None:
            _LOCK_FDS.discard(fd)
            os.close(fd)
            self._lock_fd = None
        sock = getattr(self, "_lock_sock", None)
        if sock is not None:
            _LOCK_FDS.discard(sock.fileno())
            sock.close()
            self._lock_sock = None

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

    # -- the resume logic -------------------------------------------------------------------------------
    def ok_params(self):
        """Key -> canonical ``params`` of the key's last ``ok`` row (the one :meth:`prepare` keeps)."""
        return _ok_params(self.rows)

    def ok_data_specs(self):
        """Key -> ``data_spec`` recorded in the ``extra`` JSON of the key's last ``ok`` row ("" when
        the row has none: older files, or an ``extra`` that is not a JSON object)."""
        return _ok_data_specs(self.rows)

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
