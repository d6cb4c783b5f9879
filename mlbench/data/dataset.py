"""The in-memory dataset every loader returns and every method and protocol consumes."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp

from mlbench.errors import DataError


@dataclass
class Dataset:
    """A multi-label dataset.

    ``X`` is float64, dense (C order) or CSR; nominal attributes hold their value's index in the
    attribute's declared value list (``nominal`` maps column -> values).  ``Y`` is a dense ``int8``
    0/1 matrix (n, L).  ``parts`` maps a given part ("train", "test", "valid") to its row indices when
    the dataset comes split; the rows of ``X`` are the parts concatenated in that order.
    """

    name: str
    X: np.ndarray | sp.csr_matrix
    Y: np.ndarray
    feature_names: list[str]
    label_names: list[str]
    nominal: dict[int, list[str]] = field(default_factory=dict)
    parts: dict[str, np.ndarray] = field(default_factory=dict)
    hierarchy: object | None = None
    sha256: str = ""
    domain: str = ""

    @property
    def n_instances(self):
        return self.X.shape[0]

    @property
    def n_features(self):
        return self.X.shape[1]

    @property
    def n_labels(self):
        return self.Y.shape[1]

    @property
    def is_sparse(self):
        return sp.issparse(self.X)

    def without_features(self, names) -> "Dataset":
        """This dataset without the named feature columns (a registry entry's ``drop_features``:
        identifiers such as genbase's ``protein`` are not features).  Nominal column indices are
        renumbered; naming a feature the dataset lacks is a DataError (a stale registry entry)."""
        names = list(names)
        if not names:
            return self
        index = {n: j for j, n in enumerate(self.feature_names)}
        missing = [n for n in names if n not in index]
        if missing:
            raise DataError(f"{self.name}: drop_features names no feature {missing[0]!r}")
        drop = {index[n] for n in names}
        keep = [j for j in range(self.n_features) if j not in drop]
        new = {j: k for k, j in enumerate(keep)}
        X = self.X[:, keep]
        return replace(self, X=sp.csr_matrix(X) if sp.issparse(X) else np.ascontiguousarray(X),
                       feature_names=[self.feature_names[j] for j in keep],
                       nominal={new[j]: v for j, v in self.nominal.items() if j in new})


def content_sha256(ds) -> str:
    """sha256 (16 hex digits) of what a method sees of ``ds``: X (dense bytes, or CSR data,
    indices, indptr) with its shape, and Y.  Cheap (hashing, no copy of a C-ordered array); the
    ``data_content`` of a results row and the check of a dataset cache."""
    import hashlib

    h = hashlib.sha256()
    X = ds.X
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        h.update(b"csr" + repr(X.shape).encode())
        for a, dtype in ((X.data, np.float64), (X.indices, np.int64), (X.indptr, np.int64)):
            h.update(np.ascontiguousarray(a, dtype=dtype).tobytes())
    else:
        h.update(b"dense" + repr(X.shape).encode())
        h.update(np.ascontiguousarray(X, dtype=np.float64).tobytes())
    Y = np.ascontiguousarray(ds.Y, dtype=np.int8)
    h.update(b"Y" + repr(Y.shape).encode() + Y.tobytes())
    return h.hexdigest()[:16]
