"""The parsed-dataset cache: ``<data_dir>/<name>.npz``.

One uncompressed ``.npz`` per dataset (loads in milliseconds): ``X`` dense, or CSR as
``X_data``/``X_indices``/``X_indptr``/``X_shape``; ``Y``; the parts' row indices; and a JSON
``meta`` (names, nominal values, hierarchy edges, domain, sha256, cache format version).  Written to
a temporary file in the same directory and moved into place with ``os.replace`` (atomic), so a
crash never leaves a half-written cache.  A cache whose version or source hash disagrees with the
registry is ignored (and rebuilt by the loader).  The meta also holds the content hash of X and Y
it was saved with (:func:`mlbench.data.dataset.content_sha256`); a cache whose arrays no longer
give that hash (rewritten, or edited, as a valid ``.npz``) is discarded with a note and rebuilt
from the verified source files, so a result is never computed from arrays nobody verified.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from mlbench.data.arff import shorten
from mlbench.data.dataset import Dataset, content_sha256
from mlbench.data.hierarchy import Hierarchy

VERSION = 2     # 2: meta holds the arrays' content hash


def cache_path(root: Path, name: str) -> Path:
    from mlbench.safety import check_name

    return Path(root) / f"{check_name(name, 'dataset name')}.npz"


def save(root: Path, ds: Dataset) -> Path:
    """Write ``ds`` atomically to ``<root>/<name>.npz``; a full or read-only ``root`` is a
    one-line :class:`~mlbench.errors.WriteError` and leaves no file behind."""
    from mlbench.data.fetch import DATA_HINT
    from mlbench.fileio import atomic_write

    arrays = {"Y": np.ascontiguousarray(ds.Y, dtype=np.int8)}
    if sp.issparse(ds.X):
        X = sp.csr_matrix(ds.X)
        arrays.update(X_data=X.data, X_indices=X.indices, X_indptr=X.indptr,
                      X_shape=np.array(X.shape, dtype=np.int64))
    else:
        arrays["X"] = np.ascontiguousarray(ds.X, dtype=np.float64)
    for part, idx in ds.parts.items():
        arrays[f"part_{part}"] = np.asarray(idx, dtype=np.int64)
    meta = {
        "version": VERSION, "name": ds.name, "feature_names": list(ds.feature_names),
        "label_names": list(ds.label_names),
        "nominal": {str(k): v for k, v in ds.nominal.items()},
        "parts": list(ds.parts), "sha256": ds.sha256, "domain": ds.domain,
        "content_sha256": content_sha256(ds),
        "hierarchy": None if ds.hierarchy is None else
        {"nodes": list(ds.hierarchy.nodes), "edges": [list(e) for e in ds.hierarchy.edges]},
    }
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    return atomic_write(cache_path(root, ds.name), lambda fh: np.savez(fh, **arrays),
                        hint=DATA_HINT, make_parents=True)


def load(root: Path, name: str, sha256: str | None = None) -> Dataset | None:
    """The cached dataset, or None when absent, of another version or source hash, or unusable.

    A cache that cannot be read (truncated, not a zip, bad JSON) or whose parts disagree with each
    other (X's columns vs the feature names, Y vs the label names, rows vs parts) is deleted with a
    note on stderr, and the caller rebuilds it from the source files.
    """
    path = cache_path(root, name)
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(z["meta"].tobytes().decode())
            if meta.get("version") != VERSION or (sha256 and meta.get("sha256") != sha256):
                return None
            if "X" in z.files:
                X = z["X"]
            else:
                X = sp.csr_matrix((z["X_data"], z["X_indices"], z["X_indptr"]),
                                  shape=tuple(int(v) for v in z["X_shape"]))
                X.check_format(full_check=True)
            Y = z["Y"]
            parts = {p: z[f"part_{p}"] for p in meta["parts"]}
        h = meta["hierarchy"]
        hierarchy = None if h is None else Hierarchy([tuple(e) for e in h["edges"]], h["nodes"])
        ds = Dataset(name=meta["name"], X=X, Y=Y, feature_names=list(meta["feature_names"]),
                     label_names=list(meta["label_names"]),
                     nominal={int(k): list(v) for k, v in meta["nominal"].items()}, parts=parts,
                     hierarchy=hierarchy, sha256=meta["sha256"], domain=meta["domain"])
        problem = _inconsistency(ds)
        if problem is None and content_sha256(ds) != meta.get("content_sha256"):
            problem = ("its arrays do not match the content hash they were saved with "
                       "(the file was rewritten)")
    except Exception as exc:  # noqa: BLE001 - the cache is disposable: any failure means rebuild
        # (zipfile alone raises BadZipFile, NotImplementedError, EOFError, struct.error, ...)
        problem = f"{type(exc).__name__}: {exc}"
    if problem is None:
        return ds
    _discard(path, problem)
    return None


def _inconsistency(ds: Dataset) -> str | None:
    """What makes a loaded cache disagree with itself, or None."""
    n, d = ds.X.shape if ds.X.ndim == 2 else (-1, -1)
    if d != len(ds.feature_names):
        return f"X has {d} columns for {len(ds.feature_names)} feature names"
    if ds.Y.ndim != 2 or ds.Y.shape != (n, len(ds.label_names)):
        return f"Y of shape {ds.Y.shape} for {n} rows and {len(ds.label_names)} labels"
    if any(not 0 <= k < d for k in ds.nominal):
        return "a nominal column index out of range"
    if ds.parts and sum(len(v) for v in ds.parts.values()) != n:
        return "the parts do not cover the rows"
    return None


def _discard(path: Path, problem: str):
    print(f"mlbench: note: {path}: discarding an unusable dataset cache "
          f"({shorten(problem, 100)[1:-1]}); rebuilding it", file=sys.stderr)
    try:
        path.unlink()
    except OSError:
        pass
