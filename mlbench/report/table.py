"""A format-neutral table: what every style builds and every format renders.

A :class:`Table` has a title, column headers (the first names the row labels), rows of
:class:`Cell` (optionally in named groups, e.g. one group per measure) and notes (legend, the tests
used, incomplete results).  A cell keeps its number(s) beside the text so ``csv``/``json`` carry the
values, and ``best`` says whether the style highlights it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np


@dataclass
class Cell:
    text: str
    value: float | None = None
    std: float | None = None
    marker: str = ""
    best: bool = False

    def to_dict(self):
        d = asdict(self)
        for k in ("value", "std"):
            if d[k] is not None and not np.isfinite(d[k]):
                d[k] = None
        return d


@dataclass
class Row:
    label: str
    cells: list
    group: str | None = None


@dataclass
class Table:
    key: str
    title: str
    columns: list
    rows: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def to_dict(self):
        return {"key": self.key, "title": self.title, "columns": list(self.columns),
                "rows": [{"label": r.label, "group": r.group, "cells": [c.to_dict() for c in r.cells]}
                         for r in self.rows],
                "notes": list(self.notes)}


def fmt(value, digits=4):
    """A number as tables print it; missing values become an em dash, infinite ones ∞."""
    if value is None or np.isnan(value):
        return "—"
    if np.isinf(value):
        return "∞" if value > 0 else "-∞"
    return f"{value:.{digits}f}"


def mark_best(cells, greater_is_better):
    """Set ``best`` on the cell(s) with the best ``value`` (ties all marked)."""
    values = np.array([c.value if c.value is not None else np.nan for c in cells], dtype=float)
    if not np.isfinite(values).any():
        return
    target = np.nanmax(values) if greater_is_better else np.nanmin(values)
    for c, v in zip(cells, values):
        if np.isfinite(v) and np.isclose(v, target, rtol=0, atol=1e-12):
            c.best = True
