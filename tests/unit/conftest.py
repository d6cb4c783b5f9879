"""Fixtures of the unit tests: real read-only and full file systems (small tmpfs mounts), and
another process holding a results file's lock."""
import contextlib
import errno
import os
import shutil
import subprocess
import sys

import pytest


class Mounts:
    """Small tmpfs file systems mounted on directories of a test, unmounted after it.

    ``read_only(path, fill)`` mounts one at ``path``, lets ``fill(path)`` put files in it and
    remounts it read-only; ``full(path, fill)`` mounts one, lets ``fill`` run, then fills the rest
    with one file, so that the next write that needs a block fails with ENOSPC.  Mounting needs
    root (or CAP_SYS_ADMIN): without it a read-only test is skipped with the reason, and
    ``full`` makes ``os.fsync`` and ``os.write`` of files under ``path`` raise ENOSPC instead
    (every mlbench writer flushes through them), with ``real`` False so a test that needs the
    real thing can skip.
    """

    def __init__(self, monkeypatch):
        self._monkeypatch = monkeypatch
        self._mounted = []
        self.real = True
        self.why_not = _why_no_mount()

    def _mount(self, path, size):
        os.makedirs(path, exist_ok=True)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs",
                               str(path)], capture_output=True, text=True)
        if done.returncode != 0:
            return done.stderr.strip() or f"mount exited with {done.returncode}"
        self._mounted.append(str(path))
        return None

    def read_only(self, path, fill=None, size="1m"):
        if self.why_not:
            pytest.skip(f"a read-only file system needs a tmpfs mount: {self.why_not}")
        why = self._mount(path, size)
        if why:
            pytest.skip(f"cannot mount a tmpfs: {why}")
        if fill is not None:
            fill(path)
        done = subprocess.run(["mount", "-o", "remount,ro", str(path)], capture_output=True,
                              text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot remount a tmpfs read-only: {done.stderr.strip()}")
        return path

    def full(self, path, fill=None, size="512k"):
        why = self.why_not or self._mount(path, size)
        if why:
            os.makedirs(path, exist_ok=True)
            if fill is not None:
                fill(path)
            self._fake_full(path)
            return path
        if fill is not None:
            fill(path)
        chunk = b"\0" * 4096
        with open(os.path.join(path, "filler"), "wb", buffering=0) as fh:
            try:
                while fh.write(chunk):
                    pass
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
        return path

    def _fake_full(self, path):
        self.real = False
        root = os.path.realpath(path) + os.sep
        real_fsync, real_write = os.fsync, os.write

        def under(fd):
            try:
                return os.readlink(f"/proc/self/fd/{fd}").startswith(root)
            except OSError:
                return False

        def fsync(fd):
            if under(fd if isinstance(fd, int) else fd.fileno()):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real_fsync(fd)

        def write(fd, data):
            if under(fd):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real_write(fd, data)

        self._monkeypatch.setattr(os, "fsync", fsync)
        self._monkeypatch.setattr(os, "write", write)

    def unmount_all(self):
        for path in reversed(self._mounted):
            if subprocess.run(["umount", path], capture_output=True).returncode != 0:
                subprocess.run(["umount", "-l", path], capture_output=True)
        self._mounted.clear()


def _why_no_mount():
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "not root"
    if shutil.which("mount") is None:
        return "no mount command"
    return None


@pytest.fixture
def mounts(monkeypatch):
    """A :class:`Mounts`; every file system it mounted is unmounted after the test."""
    m = Mounts(monkeypatch)
    try:
        yield m
    finally:
        m.unmount_all()


HOLDER = """
import sys, time
from mlbench.experiment.store import ResultsStore
with ResultsStore(sys.argv[1], ["macro_f1"]):
    print("locked", flush=True)
    time.sleep(60)
"""


@pytest.fixture
def lock_holder():
    """``with lock_holder(path):`` another process writes the results file ``path`` (a
    :class:`~mlbench.experiment.store.ResultsStore` holding its lock) for the block, and is
    killed at its end."""
    @contextlib.contextmanager
    def hold(path):
        holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)],
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout.readline().strip() == "locked"
            yield holder
        finally:
            holder.kill()
            holder.wait()
            holder.stdout.close()

    return hold
