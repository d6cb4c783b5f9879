"""Label-vector enumeration shared by the methods that search the joint label space exactly."""
from __future__ import annotations

import numpy as np


def all_label_vectors(L):
    """Every 0/1 vector of length L, shape (2^L, L), in binary counting order (label 0 the top bit)."""
    codes = np.arange(2 ** L)
    return ((codes[:, None] >> np.arange(L - 1, -1, -1)) & 1).astype(np.int8)
