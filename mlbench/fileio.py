"""Writing files: every write atomic, every write error one line.

Every file mlbench writes (results, splits, predictions, dataset caches and source files, reports,
pictures, costs, reproduction, protocols, JUnit XML) goes through this module:

* :func:`atomic_write` writes to a temporary file in the target's directory (``NAME.tmpXXXXXXXX``),
  flushes and ``fsync``-s it, then moves it into place with ``os.replace``: a reader sees the old
  file or the new one, never half of one.  On any failure (a full disk, a read-only file system,
  an exception of the caller's writer, Ctrl-C) the temporary file is removed and the old file is
  left as it was.
* :func:`writing` turns an ``OSError`` of the writes in its block (a directory created, a lock file
  opened, a line appended) into the same one-line error.
* :func:`write_error` is that error: a :class:`~mlbench.errors.WriteError` naming the file, the
  system's reason with its errno name and what to do next, e.g. ``cannot write r.csv: No space left
  on device (ENOSPC); free space or choose another --out``.
"""
from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from mlbench.errors import WriteError

_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_DENIED = {errno.EROFS, errno.EACCES, errno.EPERM}
_MISSING = {errno.ENOENT, errno.ENOTDIR}


def shown(path):
    """``path`` as text fit for a one-line message (``repr`` when it holds a newline or the like)."""
    text = os.fspath(path) if isinstance(path, os.PathLike) else str(path)
    return text if text.isprintable() else repr(text)


def write_error(path, exc, hint="choose another output file", advice=None):
    """The one-line :class:`WriteError` for the ``OSError`` ``exc`` met writing ``path``.
    ``hint`` says where else the user can write (``choose another --out``); ``advice``, when
    given, replaces the whole remedy the errno would suggest.  The error keeps ``exc`` as
    ``os_error``."""
    code = errno.errorcode.get(exc.errno, "") if exc.errno else ""
    reason = " ".join(str(exc.strerror or exc).split()) + (f" ({code})" if code else "")
    if advice is not None:
        pass
    elif exc.errno in _FULL:
        advice = f"free space or {hint}"
    elif exc.errno in _DENIED:
        advice = f"make it writable or {hint}"
    elif exc.errno in _MISSING:
        advice = f"create its folder or {hint}"
    elif exc.errno == errno.EISDIR:
        advice = f"it is a folder: {hint}"
    else:
        advice = hint
    error = WriteError(f"cannot write {shown(path)}: {reason}; {advice}")
    error.os_error = exc
    return error


@contextlib.contextmanager
def writing(path, hint="choose another output file", advice=None):
    """A block whose ``OSError`` becomes :func:`write_error` for ``path``."""
    try:
        yield
    except OSError as exc:
        raise write_error(path, exc, hint, advice) from None


def make_dirs(path, hint="choose another output file"):
    """``os.makedirs(path, exist_ok=True)``; a failure is one line naming ``path``."""
    with writing(path, hint):
        os.makedirs(path, exist_ok=True)


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path, data, *, hint="choose another output file", advice=None,
                 make_parents=False):
    """Write ``data`` to ``path`` atomically (see the module docstring); return ``path``.

    ``data`` is ``bytes``, ``str`` (written as UTF-8) or a callable given the open binary file
    (``lambda fh: np.savez(fh, **arrays)``).  ``make_parents`` creates the missing folders first.
    Any ``OSError`` is one :func:`write_error` line; the target is unchanged and no temporary file
    is left.  The new file gets the permissions ``open`` would give it (0666 less the umask)."""
    import tempfile

    path = Path(path)
    parent = path.parent
    if make_parents:
        make_dirs(parent, hint)
    tmp = None
    try:
        with writing(path, hint, advice):
            fd, tmp = tempfile.mkstemp(dir=parent, prefix=f"{path.name}.tmp")
            with os.fdopen(fd, "wb") as fh:
                if callable(data):
                    data(fh)
                else:
                    fh.write(data.encode("utf-8") if isinstance(data, str) else data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, path)
            tmp = None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    _sync_dir(parent)
    return path


def _sync_dir(path):
    """Make a rename in ``path`` durable (best effort: some file systems refuse it)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write_text(path, text, hint="choose another output file"):
    """:func:`atomic_write` of the string ``text``."""
    return atomic_write(path, text, hint=hint)
