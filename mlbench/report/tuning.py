"""Report notes for hyper-parameters that internal cross-validation chose at an end of its grid.

A value chosen at the smallest or largest point of a grid shows no optimum: the best value may lie
beyond the grid, and the table then compares a method held back by its grid.  (The mc protocol's
logistic models chose the smallest C of {0.01, ..., 100} for every label of scene, image and the
rcv1 subsets; from 1e-4 the rcv1 subsets chose 1e-3, and the conditional log-likelihood moved by
up to 15%.)

Convention read from the results rows (every built-in CV-tuned method follows it, and a user's
method can): a hyper-parameter ``name`` chosen by the fit is recorded as ``name`` in the ``extra``
column (one value, a list per label, or lists per ensemble member, with ``null`` for a label that
chose nothing), and its grid as ``name + "s"`` in the ``params`` column, or in ``base_params`` for a
base learner that searches one (``lr-cv``): ``C`` from ``Cs`` (or ``cs``, HRLR's), HierCost's
``rho`` from ``rhos``; :class:`mlbench.methods.tuning.Tuned` records its grid as ``grid`` and each
chosen parameter under its name; :class:`mlbench.methods.tuning.RandomSearch` its grid as
``search.grid`` in ``params`` and its choice as ``search.chosen`` in ``extra`` (a budget-stopped
search that scanned one corner of its grid shows here).
Rows without a recorded grid or choice are skipped.

A (method, dataset, name) is named when at least ``share`` of all its choices over all its splits
sit at one end of the grid, except at a smallest end of 0 in a grid of no negative value: such a
parameter (a count such as EPS's ``max_subsets``, a rate, a penalty) has nothing below zero to try.
"""
from __future__ import annotations

import math
from collections import defaultdict

from mlbench.results_file import json_object

#: default fraction of choices at one end of the grid that makes a note
EDGE_SHARE = 0.5


def _grid(params, name):
    grid = None
    for where in (params, params.get("base_params")):
        if grid is None and isinstance(where, dict):
            grid = where.get(name + "s", where.get(name.lower() + "s"))
    if grid is None and isinstance(params.get("grid"), dict):     # mlbench.methods.tuning.Tuned
        grid = params["grid"].get(name)
    return _sorted_grid(grid)


def _sorted_grid(grid):
    """``grid`` as sorted floats when it is a list of at least two finite numbers, else None (a
    data-sized value such as ``{labels: 0.5}`` is not a number)."""
    if not isinstance(grid, list) or len(grid) < 2:
        return None
    try:
        values = sorted(float(c) for c in grid)
    except (TypeError, ValueError):
        return None
    return values if all(math.isfinite(v) for v in values) else None


def choices(value):
    """The finite numbers in ``value``, a number or nested lists (walked without recursion)."""
    out, stack = [], [value]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(reversed(v))
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            out.append(float(v))
    return out


def _at(value, end):
    return math.isclose(value, end, rel_tol=1e-9)


def grid_edge_counts(frame):
    """``{(method, dataset, name): (grid, n_choices, n_at_low, n_at_high)}`` from the ok rows of
    ``frame``."""
    counts = defaultdict(lambda: [None, 0, 0, 0])
    if "params" not in frame.columns or "extra" not in frame.columns:
        return {}
    for method, dataset, params, extra in frame[["method", "dataset", "params", "extra"]].itertuples(index=False):
        params, extra = json_object(params), json_object(extra)
        if not params or not extra:
            continue
        for name, value in extra.items():
            grid = _grid(params, name)
            chosen = choices(value) if grid else []
            if not chosen:
                continue
            entry = counts[(method, dataset, name)]
            entry[0] = grid
            entry[1] += len(chosen)
            entry[2] += sum(_at(c, grid[0]) for c in chosen)
            entry[3] += sum(_at(c, grid[-1]) for c in chosen)
        for name, (grid, chosen) in _searched(params, extra).items():
            entry = counts[(method, dataset, name)]
            entry[0] = grid
            entry[1] += 1
            entry[2] += _at(chosen, grid[0])
            entry[3] += _at(chosen, grid[-1])
    return {k: tuple(v) for k, v in counts.items()}


def _searched(params, extra):
    """``{name: (sorted grid, chosen value)}`` of a row tuned by
    :class:`mlbench.methods.tuning.RandomSearch` (grid in ``params.search.grid``, choice in
    ``extra.search.chosen``), for the numeric parameters of at least two values."""
    search, found = params.get("search"), extra.get("search")
    if not (isinstance(search, dict) and isinstance(search.get("grid"), dict)
            and isinstance(found, dict) and isinstance(found.get("chosen"), dict)):
        return {}
    out = {}
    for name, value in found["chosen"].items():
        grid = _sorted_grid(search["grid"].get(name))
        if grid and isinstance(value, (int, float)) and not isinstance(value, bool) \
                and math.isfinite(value):
            out[name] = (grid, float(value))
    return out


def grid_edge_notes(frame, share=EDGE_SHARE):
    """One note per method and hyper-parameter whose CV chose a grid end for at least ``share`` of
    its choices on a dataset."""
    flagged = defaultdict(list)   # (method, name, end, value) -> ["dataset fraction", ...]
    for (method, dataset, name), (grid, n, low, high) in sorted(grid_edge_counts(frame).items()):
        for end, hits, value in (("smallest", low, grid[0]), ("largest", high, grid[-1])):
            if end == "smallest" and value == 0:        # grid sorted: no negative value in it
                continue
            if n and hits / n >= share:
                flagged[(method, name, end, value)].append(f"{dataset} {hits / n:.0%}")
    notes = []
    for (method, name, end, value), where in flagged.items():
        beyond = "below" if end == "smallest" else "above"
        grid_name = name if name.endswith("s") else name + "s"
        notes.append(f"{method}: internal CV chose the {end} {name} of its grid ({value:g}) for "
                     f"{', '.join(where)} of its choices; the best {name} may lie {beyond} the grid "
                     f"(widen {grid_name})")
    return notes
