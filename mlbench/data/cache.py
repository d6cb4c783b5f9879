"""The parsed-dataset cache: ``<data_dir>/<name>.npz``.

One uncompressed ``.npz`` per dataset (loads in milliseconds): ``X`` dense, or CSR as
``X_data``/``X_indices``/``X_indptr``/``X_shape``; ``Y``; the parts' row indices; and a JSON
``meta`` (names, nominal values, hierarchy edges, domain, sha256, cache format version).  Written to
a temporary file in the same directory and moved into place with ``os.replace`` (atomic), so a
crash never leaves a half-written cache.  A cache whose version or source hash disagrees with the
registry is ignored (and rebuilt by the loader).
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from mlbench.data.dataset import Dataset
from mlbench.data.hierarchy import Hierarchy

VERSION = 1


def cache_path(root: Path, name: str) -> Path:
    return Path(root) / f"{name}.npz"


def save(root: Path, ds: Dataset) -> Path:
    """Write ``ds`` atomically to ``<root>/<name>.npz``."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
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
        "hierarchy": None if ds.hierarchy is None else
        {"nodes": list(ds.hierarchy.nodes), "edges": [list(e) for e in ds.hierarchy.edges]},
    }
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    fd, tmp = tempfile.mkstemp(dir=root, prefix=f".{ds.name}-", suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **arrays)
        os.replace(tmp, cache_path(root, ds.name))
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return cache_path(root, ds.name)


def load(root: Path, name: str, sha256: str | None = None) -> Dataset | None:
    """The cached dataset, or None when absent, unreadable, of another version or hash."""
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
                                  shape=tuple(z["X_shape"]))
            Y = z["Y"]
            parts = {p: z[f"part_{p}"] for p in meta["parts"]}
    except (OSError, ValueError, KeyError, json.JSONDecodeError):
        return None
    h = meta["hierarchy"]
    hierarchy = None if h is None else Hierarchy([tuple(e) for e in h["edges"]], h["nodes"])
    return Dataset(name=meta["name"], X=X, Y=Y, feature_names=meta["feature_names"],
                   label_names=meta["label_names"],
                   nominal={int(k): v for k, v in meta["nominal"].items()}, parts=parts,
                   hierarchy=hierarchy, sha256=meta["sha256"], domain=meta["domain"])
