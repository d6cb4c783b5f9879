"""MEKA datasets: one ARFF file whose relation name carries the label count.

MEKA writes ``@relation 'Name: -C N ...'``: with ``N > 0`` the first N attributes are the labels,
with ``N < 0`` the last ``|N|`` are.  Files are often bz2-compressed (handled by
:func:`mlbench.data.arff.read_bytes`).
"""
from __future__ import annotations

import re

from mlbench.data.arff import ArffData
from mlbench.errors import DataError

_C_OPTION = re.compile(r"(?:^|\s)-C\s+(-?\d+)")


def label_count(relation: str, path: str = "") -> int:
    """The signed N of ``-C N`` in a MEKA relation name."""
    m = _C_OPTION.search(relation)
    if not m or int(m.group(1)) == 0:
        raise DataError(f"{path}: not a MEKA file: relation {relation!r} has no '-C N' label count")
    return int(m.group(1))


def label_columns(data: ArffData) -> list[int]:
    """Indices of the label attributes of a MEKA ARFF file."""
    n = label_count(data.relation, data.path)
    n_attr = len(data.attributes)
    if abs(n) >= n_attr:
        raise DataError(f"{data.path}: '-C {n}' leaves no feature among {n_attr} attributes")
    return list(range(n)) if n > 0 else list(range(n_attr + n, n_attr))
