"""Grid-end diagnostic: does a CV choice at the end of its grid hold the results back?

``mlbench report`` notes a (method, dataset) whose internal CV chose an end of its C grid for most
of its choices.  This refits one cell of a protocol as the runner does (same preprocessing, split
and seed), once with the protocol's grid and once with the grid extended, and prints the chosen
Cs and the test measures of both.  If the extended grid chooses beyond the end and moves the
measures, the grid holds the method back; if it keeps choosing the end, the end was not binding.

    PYTHONPATH=$PWD MLBENCH_MIRROR=../shared/datasets OMP_NUM_THREADS=1 \\
        python benchmarks/grid_edge_diagnostic.py mc iblr rcv1subset3 kfold-r00-f00 --extend 1e3,1e4,1e5,1e6

The grid is the method's ``Cs`` (``cs``: HRLR's C; ``rhos``: the HierCost family's rho) or, for a
base learner that searches one (``lr-cv``), its ``base_params["Cs"]``; ``--extend`` adds values to
it.  The choices are read from the row's ``extra`` (``C`` or ``rho``), as the report's note reads
them.

    python benchmarks/grid_edge_diagnostic.py hiercost hiercost cellcycle_FUN given-r00 --extend 1e5,1e6
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import json

from mlbench.data import load_dataset
from mlbench.data.splits import make_splits
from mlbench.experiment.cell import run_cell
from mlbench.experiment.grid import build_grid
from mlbench.methods.base import LR_CV_CS
from mlbench.protocols import load_protocol
from mlbench.report.tuning import choices


#: grid parameter -> the choice its fit records in ``extra``
GRIDS = {"Cs": "C", "cs": "C", "rhos": "rho", "lambdas": "lambda"}
#: ``extra`` keys holding the validation criterion per grid value (the HierCost family's)
VALIDATION = ("validation_micro_f1",)


def _with_grid(params, extra_values):
    """``params`` with the grid extended by ``extra_values``; the grid used before; the name of the
    choice recorded in ``extra``."""
    params = dict(params)
    for name, chosen in GRIDS.items():
        if name in params:
            grid = list(params[name])
            params[name] = sorted(set(grid) | set(extra_values))
            return params, grid, chosen
    if params.get("base") != "lr-cv":
        raise SystemExit("the method has no grid this diagnostic knows (Cs, cs, rhos, lr-cv's Cs)")
    base = dict(params.get("base_params") or {})
    grid = list(base.get("Cs", LR_CV_CS))
    base["Cs"] = sorted(set(grid) | set(extra_values))
    params["base_params"] = base
    return params, grid, "C"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("protocol")
    ap.add_argument("method", help="a method id of the protocol")
    ap.add_argument("dataset")
    ap.add_argument("split", help="e.g. kfold-r00-f00")
    ap.add_argument("--extend", default="1e3,1e4,1e5,1e6", help="values added to the grid")
    a = ap.parse_args()
    protocol = load_protocol(a.protocol)
    entries = [m for m in protocol.methods if (m.id or m.name) == a.method]
    if not entries:
        raise SystemExit(f"{a.method!r} is not a method of protocol {protocol.name}")
    dataset = load_dataset(a.dataset)
    splits = [s for s in make_splits(dataset, protocol.split, protocol=protocol.name, seed=protocol.seed)
              if s.id == a.split]
    if not splits:
        raise SystemExit(f"{a.split!r} is not a split of {a.dataset} under {protocol.name}")
    cell = build_grid(protocol, [a.dataset], entries, {a.dataset: splits})[0]
    params, grid, name = _with_grid(cell.method_params, [float(v) for v in a.extend.split(",")])
    wider = dataclasses.replace(cell, method_params=params)
    print(f"{cell.label}: protocol grid {grid}")
    for label, spec in (("protocol grid", cell), ("extended grid", wider)):
        row = run_cell(spec, dataset)
        if row["status"] != "ok":
            print(f"  {label}: {row['status']} {row['error']}")
            continue
        extra = json.loads(row["extra"])
        chosen = collections.Counter(choices(extra.get(name)))
        measures = "  ".join(f"{m} {row[m]:.4f}" for m in protocol.metrics if isinstance(row.get(m), float))
        print(f"  {label:13s} {name} chosen {dict(sorted(chosen.items()))}\n  {'':13s} {measures}")
        for key in VALIDATION:           # the criterion along the grid, where the fit records it
            if isinstance(extra.get(key), dict):
                scores = ", ".join(f"{k}: {v:.4g}" for k, v in extra[key].items())
                print(f"  {'':13s} {key}: {scores}")


if __name__ == "__main__":
    main()
