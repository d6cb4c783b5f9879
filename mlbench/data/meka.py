"""MEKA datasets: one ARFF file whose relation name carries the label count.

MEKA writes ``@relation 'Name: -C N ...'``: with ``N > 0`` the first N attributes are the labels,
with ``N < 0`` the last ``|N|`` are.  Files are often bz2-compressed (handled by
:func:`mlbench.data.arff.read_bytes`).
"""
from __future__ import annotations

import re

from mlbench.data.arff import ArffData, shorten
from mlbench.errors import DataError

_C_OPTION = re.compile(r"(?:^|\s)-C\s+(-?\d+)")


def label_count(relation: str, path: str = "") -> int:
    """The signed N of ``-C N`` in a MEKA relation name (``path``: ``file:line:column``).

    Exactly one ``-C`` option is accepted: two would leave the label columns ambiguous.
    """
    found = _C_OPTION.findall(relation)
    if len(found) != 1 or int(found[0]) == 0:
        what = "several '-C' options" if len(found) > 1 else "no '-C N' label count"
        raise DataError(f"{path}: not a MEKA file: relation has {what} ({shorten(relation)})")
    return int(found[0])


def label_columns(data: ArffData) -> list[int]:
    """Indices of the label attributes of a MEKA ARFF file."""
    n = label_count(data.relation, data.where(data.relation_line))
    n_attr = len(data.attributes)
    if abs(n) >= n_attr:
        raise DataError(f"{data.where(data.relation_line)}: '-C {n}' leaves no feature among "
                        f"{n_attr} attributes ({shorten(data.relation)})")
    return list(range(n)) if n > 0 else list(range(n_attr + n, n_attr))
