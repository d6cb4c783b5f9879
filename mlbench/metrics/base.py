"""Measures as data.

Each measure is a :class:`Measure`: a name (the results-CSV column), a function, its direction and
what it needs.  ``needs`` is one of

* ``"predictions"``: a 0/1 matrix (n, L);
* ``"scores"``: a real-valued matrix (n, L), larger = more relevant (probabilities or margins);
* ``"joint"``: a vector (n,) of log P(Y = y_true | x) from a probabilistic method;
* ``"hierarchy"``: 0/1 predictions plus the dataset's :class:`~mlbench.data.hierarchy.Hierarchy`.

The function is called as ``func(Y_true, inputs)`` (plus ``hierarchy=`` for hierarchical measures)
and returns a float.  Modules in this package register their measures with :func:`register_measure`.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Callable

from mlbench.errors import ConfigError

NEEDS = ("predictions", "scores", "joint", "hierarchy")


@dataclass(frozen=True)
class Measure:
    """A registered measure: call it as ``measure(Y_true, inputs, **context)`` for a float."""

    name: str
    func: Callable
    greater_is_better: bool
    needs: str
    #: "example", "label", "ranking", "probabilistic" or "hierarchical"
    kind: str
    description: str = ""
    #: how the value is shown in tables (e.g. "Hamming loss")
    display: str = ""
    #: ``undefined(Y_true)``: why the measure has no value (NaN) on this truth matrix, or None; a
    #: NaN the measure does not explain so fails the cell (:mod:`mlbench.experiment.outputs`)
    undefined: Callable | None = None

    @property
    def smaller_is_better(self):
        return not self.greater_is_better

    def __call__(self, Y_true, inputs, **context):
        return float(self.func(Y_true, inputs, **context))


MEASURES: dict[str, Measure] = {}


def register_measure(name, func, *, greater_is_better, needs, kind, description="", display="",
                     undefined=None):
    """Register ``func(Y_true, inputs, **context) -> float`` as the measure ``name`` (the results
    column); ``needs`` is one of :data:`NEEDS`, ``display`` its name in tables, ``undefined`` (see
    :class:`Measure`) explains a NaN.  Returns ``func``."""
    if needs not in NEEDS:
        raise ValueError(f"measure {name!r}: needs must be one of {NEEDS}")
    MEASURES[name] = Measure(name, func, greater_is_better, needs, kind, description, display or name,
                             undefined)
    return func


def get_measure(name):
    """The measure called ``name``; unknown names raise :class:`ConfigError` with the closest match."""
    from mlbench import metrics  # noqa: F401  (importing the package registers every measure)

    try:
        return MEASURES[name]
    except KeyError:
        close = difflib.get_close_matches(name, MEASURES, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ConfigError(f"unknown metric {name!r}{hint}") from None
