"""Getting a dataset's source files onto the local disk, verified.

Where a file comes from, in order:

1. the data directory (``<data_dir>/files/HOST/PATH``), when it is there with the right sha256;
2. the copy embedded in the package (``mlbench/embedded/BASENAME.gz``, emotions only), decompressed
   and checked against the same sha256;
3. the mirror (``--mirror`` or ``MLBENCH_MIRROR``): a directory, where the file of URL
   ``https://HOST/PATH`` is ``MIRROR/HOST/PATH`` and is read in place after its checksum is checked
   (never modified), or a base URL, downloaded like 4. from ``MIRROR/HOST/PATH``;
4. the pinned URL, downloaded with pooch (``known_hash``, retries, progress bar) into a temporary
   name that is moved into place only once the checksum matches.

A checksum mismatch raises a DataError naming the file and both hashes; a file of ours that fails
(a download or a stale copy in the data directory) is removed first.
"""
from __future__ import annotations

import gzip
import hashlib
import os
import re
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from mlbench.data.registry import DatasetEntry, FileEntry
from mlbench.errors import DataError

MIRROR_HINT = "set MLBENCH_MIRROR=/path/to/mirror (or pass --mirror DIR_OR_URL)"
#: where else dataset files can go when the data directory cannot be written
DATA_HINT = "set MLBENCH_DATA (or pass --data-dir) to a writable folder"
RETRIES = 2  # extra download attempts after a failure (pooch waits 1 s, 2 s, ... between them)


def data_dir(path=None) -> Path:
    """The data directory: ``path``, else ``$MLBENCH_DATA``, else the user cache directory."""
    if path is None:
        path = os.environ.get("MLBENCH_DATA")
    if not path:
        import platformdirs

        path = platformdirs.user_cache_dir("mlbench")
    return Path(path).expanduser()


def mirror_location(mirror=None) -> str | None:
    """The mirror: ``mirror``, else ``$MLBENCH_MIRROR``, else None."""
    return mirror or os.environ.get("MLBENCH_MIRROR") or None


def relative_path(url: str) -> str:
    """``HOST/PATH`` of ``https://HOST/PATH`` (the file's place in a mirror or the data dir)."""
    parts = urlsplit(url)
    return f"{parts.netloc}{parts.path}"


def sha256_of(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _mismatch(path, expected, actual):
    return DataError(f"checksum mismatch for {path}: expected sha256 {expected}, got {actual}")


def _embedded(f: FileEntry):
    ref = resources.files("mlbench").joinpath("embedded", f.basename + ".gz")
    return ref if ref.is_file() else None


def _install_embedded(ref, f: FileEntry, dest: Path) -> Path:
    """Decompress the embedded copy to ``dest`` (atomically), checked against its sha256."""
    from mlbench.fileio import atomic_write

    def copy(out):
        digest = hashlib.sha256()
        with ref.open("rb") as raw, gzip.open(raw) as src:
            for chunk in iter(lambda: src.read(1 << 20), b""):
                digest.update(chunk)
                out.write(chunk)
        if f.sha256 and digest.hexdigest() != f.sha256:
            raise _mismatch(f"embedded {f.basename}", f.sha256, digest.hexdigest())

    return atomic_write(dest, copy, hint=DATA_HINT, make_parents=True)


class _RichProgress:
    """The progress-bar object pooch drives (total, update, reset, close), drawn with rich."""

    def __init__(self, label):
        from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn,
                                   TransferSpeedColumn)

        self._progress = Progress(TextColumn(label), BarColumn(), DownloadColumn(),
                                  TransferSpeedColumn(), transient=True)
        self._task = self._progress.add_task(label, total=None)
        self._progress.start()
        self._total = None

    @property
    def total(self):
        return self._total

    @total.setter
    def total(self, value):
        self._total = value or None
        self._progress.update(self._task, total=self._total)

    def update(self, n):
        self._progress.advance(self._task, n)

    def reset(self):
        self._progress.reset(self._task, total=self._total)

    def close(self):
        self._progress.stop()


def _download(url: str, f: FileEntry, dest: Path) -> Path:
    """Download url to dest through pooch (temporary file, hash check, retries, progress bar)."""
    import pooch
    import requests

    from mlbench.fileio import make_dirs, write_error

    make_dirs(dest.parent, DATA_HINT)
    pooch.get_logger().setLevel("WARNING")   # the progress bar shows the download; an error is one line
    known = f"sha256:{f.sha256}" if f.sha256 else None
    store = pooch.create(path=dest.parent, base_url="", registry={dest.name: known},
                         urls={dest.name: url}, retry_if_failed=RETRIES)
    try:
        bar = _RichProgress(f.basename)
        try:
            downloader = pooch.HTTPDownloader(progressbar=bar, timeout=60)
            return Path(store.fetch(dest.name, downloader=downloader))
        finally:
            bar.close()
    except ValueError as exc:  # pooch: hash mismatch (it has already removed the download)
        got = re.search(r"got ([0-9a-f]{64})", str(exc))
        if got:
            raise DataError(f"checksum mismatch for {url}: expected sha256 {f.sha256}, "
                            f"got {got.group(1)}; the file was removed") from None
        raise DataError(f"cannot download {url}: {exc}") from None
    except requests.exceptions.RequestException as exc:
        kind = type(exc).__name__
        raise DataError(f"cannot download {url} ({kind}); no network? {MIRROR_HINT}") from None
    except OSError as exc:     # the data directory is full, read-only or not ours
        cause = exc.__cause__ if isinstance(exc.__cause__, OSError) else exc  # pooch's rewording
        raise write_error(dest, cause, DATA_HINT) from None


class NetworkOnlyError(DataError):
    """A network-only file (see ``FileEntry.network_only``) asked of a mirror that lacks it."""


def fetch_file(f: FileEntry, root: Path, mirror: str | None) -> tuple[Path, str]:
    """Local path of one verified source file, and where it came from."""
    from mlbench.safety import check_url, inside

    rel = relative_path(check_url(f.url, f.basename))
    dest = inside(root / "files" / rel, root / "files", "download target")
    if dest.is_file():
        actual = sha256_of(dest)
        if f.sha256 is None or actual == f.sha256:
            return dest, "data dir"
        from mlbench.fileio import writing

        with writing(dest, DATA_HINT):
            dest.unlink()  # a stale or corrupt copy of ours
    ref = _embedded(f)
    if ref is not None:
        return _install_embedded(ref, f, dest), "embedded"
    if mirror:
        if "://" in mirror:
            return _download(mirror.rstrip("/") + "/" + rel, f, dest), "mirror URL"
        src = inside(Path(mirror).expanduser() / rel, Path(mirror).expanduser(), "mirror file")
        if not src.is_file() and f.network_only:
            size = f" ({f.bytes / 2**20:,.0f} MiB)" if f.bytes else ""
            raise NetworkOnlyError(
                f"{f.basename}{size} is network-only: offline mirrors do not hold it; fetch it on "
                f"a machine with network access without --mirror / MLBENCH_MIRROR (it is checked "
                f"against its pinned sha256), or put it at {src}")
        if not src.is_file():
            raise DataError(f"{f.basename} is not in the mirror {mirror} (expected {src})")
        actual = sha256_of(src)
        if f.sha256 and actual != f.sha256:
            raise _mismatch(src, f.sha256, actual)
        return src, "mirror"
    return _download(f.url, f, dest), "download"


def fetch_files(entry: DatasetEntry, root: Path, mirror: str | None) -> dict[str, Path]:
    """role -> verified local path of every file of ``entry``."""
    if not entry.fetchable:
        where = f" (best public source: {entry.source})" if entry.source else ""
        raise DataError(f"{entry.name} has no pinned, readable file{where}: unverified, "
                        f"not fetchable")
    return {f.role: fetch_file(f, root, mirror)[0] for f in entry.files}


def combined_sha256(entry: DatasetEntry, paths: dict[str, Path] | None = None) -> str:
    """The dataset's hash: the file's sha256 for one file, else sha256 of the files' hex digests
    joined by newlines in datasets.yaml order (computed from ``paths`` where none is pinned)."""
    digests = [f.sha256 or (sha256_of(paths[f.role]) if paths else "") for f in entry.files]
    if len(digests) == 1:
        return digests[0]
    return hashlib.sha256("\n".join(digests).encode()).hexdigest()
