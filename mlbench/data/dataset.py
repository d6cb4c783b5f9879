"""The in-memory dataset every loader returns and every method and protocol consumes."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp


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
