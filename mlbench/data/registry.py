"""The dataset registry: ``datasets.yaml`` parsed into :class:`DatasetEntry` objects.

Names are case-insensitive (``cal500`` finds ``CAL500``); an unknown name raises a DataError that
suggests the closest known name.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources


from mlbench.errors import DataError

FORMATS = ("mulan", "meka", "mldr-rda", "clus-hmc", "other")
PART_ROLES = ("train", "valid", "test")


@dataclass(frozen=True)
class FileEntry:
    """One source file: its role, pinned URL, sha256 (None when it cannot be established);
    ``network_only``: too large for the offline mirror (fetched from its URL only)."""

    role: str
    url: str
    sha256: str | None
    bytes: int | None = None
    network_only: bool = False

    @property
    def basename(self) -> str:
        return self.url.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class DatasetEntry:
    """One dataset of datasets.yaml."""

    name: str
    format: str
    domain: str
    published: dict
    papers: tuple = ()
    verified: bool = False
    hierarchy: str | None = None
    source: str | None = None
    note: str = ""
    files: tuple = field(default_factory=tuple)
    drop_features: tuple = ()     # columns that are identifiers, not features (applied at load)

    @property
    def parts(self) -> list[FileEntry]:
        """The train / valid / test files, in that order (empty for a single full file)."""
        return sorted((f for f in self.files if f.role in PART_ROLES),
                      key=lambda f: PART_ROLES.index(f.role))

    @property
    def data_files(self) -> list[FileEntry]:
        return self.parts or [f for f in self.files if f.role == "full"]

    def file(self, role) -> FileEntry | None:
        return next((f for f in self.files if f.role == role), None)

    @property
    def fetchable(self) -> bool:
        return bool(self.data_files) and self.format != "other"

    @property
    def network_only(self) -> bool:
        """Some data file is fetched from its URL only (not testable against an offline mirror)."""
        return any(f.network_only for f in self.data_files)

    @property
    def pinned(self) -> bool:
        """Every file has a known checksum."""
        return bool(self.files) and all(f.sha256 for f in self.files)


def _entry(name, d) -> DatasetEntry:
    from mlbench.safety import check_name, check_url

    check_name(name, "dataset name", "datasets.yaml")
    for f in d.get("files") or []:
        check_url(f.get("url") if isinstance(f, dict) else None, f"datasets.yaml: {name}")
    fmt = d.get("format")
    if fmt not in FORMATS:
        raise DataError(f"datasets.yaml: {name}: unknown format {fmt!r}")
    files = tuple(FileEntry(f["role"], f["url"], f.get("sha256"), f.get("bytes"),
                            bool(f.get("network_only", False)))
                  for f in d.get("files") or [])
    return DatasetEntry(name=name, format=fmt, domain=d.get("domain", ""),
                        published=dict(d.get("published") or {}),
                        papers=tuple(d.get("papers") or ()), verified=bool(d.get("verified")),
                        hierarchy=d.get("hierarchy"), source=d.get("source"),
                        note=d.get("note", ""), files=files,
                        drop_features=tuple(d.get("drop_features") or ()))


#: datasets files of the user's (``mlbench --registry FILE`` or $MLBENCH_REGISTRY, ':'-separated)
_USER_FILES: list[str] = []


def add_registry_file(path) -> list[str]:
    """Add a lab's own datasets file (the schema of datasets.yaml) to the registry; its names
    must not repeat a registered one.  Returns the names it added."""
    import os

    from mlbench.safety import load_yaml

    path = os.fspath(path)
    data = load_yaml(path, "datasets file")
    if not isinstance(data, dict) or not isinstance(data.get("datasets"), dict):
        raise DataError(f"datasets file {path}: expected a mapping 'datasets: {{NAME: ...}}'")
    known = {n.lower() for n in registry()}
    added = {}
    for name, d in data["datasets"].items():
        if str(name).lower() in known:
            raise DataError(f"datasets file {path}: {name!r} is already a registered dataset")
        if not isinstance(d, dict):
            raise DataError(f"datasets file {path}: {name}: expected a mapping")
        for f in d.get("files") or []:
            if not (isinstance(f, dict) and isinstance(f.get("sha256"), str) and len(f["sha256"]) == 64):
                raise DataError(f"datasets file {path}: {name}: every file needs its sha256 (a "
                                f"lab's file is only as good as its pin)")
        try:
            added[name] = _entry(name, d)
        except (KeyError, TypeError) as exc:
            raise DataError(f"datasets file {path}: {name}: missing or bad field {exc}") from None
    registry().update(added)
    _USER_FILES.append(path)
    return list(added)


@lru_cache(maxsize=None)
def registry() -> dict[str, DatasetEntry]:
    """name -> DatasetEntry for every dataset of the packaged datasets.yaml (plus those of any
    file given to :func:`add_registry_file`)."""
    from mlbench.safety import load_yaml

    with resources.as_file(resources.files("mlbench").joinpath("datasets.yaml")) as path:
        raw = load_yaml(path, "datasets file")["datasets"]
    return {name: _entry(name, d) for name, d in raw.items()}


def list_datasets(paper: str | None = None) -> list[str]:
    """Every dataset name (those of one paper when given), in datasets.yaml order."""
    return [n for n, e in registry().items() if paper is None or paper in e.papers]


def get_entry(name: str) -> DatasetEntry:
    """The entry of ``name`` (case-insensitive); DataError with the closest name otherwise."""
    reg = registry()
    if name in reg:
        return reg[name]
    lower = {n.lower(): n for n in reg}
    if name.lower() in lower:
        return reg[lower[name.lower()]]
    close = difflib.get_close_matches(name.lower(), list(lower), n=1, cutoff=0.4)
    hint = f"; did you mean {lower[close[0]]!r}?" if close else "; see datasets.yaml"
    raise DataError(f"unknown dataset {name!r}{hint}")
