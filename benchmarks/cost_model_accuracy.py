"""How well does the cost model predict a grid's cells on a dataset it has not run?

For every (method, dataset, protocol) of the committed results (results/papers/*.csv), a
:class:`~mlbench.experiment.costs.CostModel` is built from all the other rows and asked for that
cell's CPU seconds, as ``mlbench run --dry-run`` asks it before a dataset's first cell (no twin
datasets: a new dataset has none); a searched protocol's cells go through
``searched_seconds`` with the protocol's search, as the runner does.  The error is
|log10(predicted / median measured)|; the script prints its median, 90th percentile and the
share within a factor of 3, per protocol, for this checkout's model and for the model of an
earlier revision (``--rev``, default ``HEAD``: the committed one; its costs.py is loaded from git,
so the comparison needs no copy of the old code).

    PYTHONPATH=$PWD python benchmarks/cost_model_accuracy.py --rev 2ce0349
"""
from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from mlbench.experiment import costs as current
from mlbench.protocols import load_protocol, protocol_names


def module_at(rev):
    """mlbench.experiment.costs as it was at git revision ``rev``."""
    source = subprocess.run(["git", "show", f"{rev}:mlbench/experiment/costs.py"],
                            capture_output=True, text=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "costs_at_rev.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(f"costs_at_{rev}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module          # dataclasses look their module up there
        spec.loader.exec_module(module)
    return module


def searches(protocols):
    """(protocol, method id) -> the protocol's search of that method, for the searched methods
    of ``protocols`` (shipped protocol names)."""
    out = {}
    for name in protocols:
        protocol = load_protocol(name)
        for m in protocol.methods:
            if protocol.search_of(m):
                out[(name, m.id or m.name)] = protocol.search_of(m)
    return out


def errors(module, rows, search):
    """One row per (protocol, method, dataset): the signed log10 error of ``module``'s model."""
    seconds = current.cell_seconds(rows)
    out = []
    for (method, dataset, protocol), idx in rows.groupby(["method", "dataset", "protocol"]).indices.items():
        rest = rows.drop(rows.index[idx]).reset_index(drop=True)
        if not (rest["method"] == method).any():
            continue
        model = module.CostModel(rest, shapes={})
        first = rows.iloc[idx[0]]
        shape = (first.n_train, first.n_features, first.n_labels)
        kw = dict(dataset=dataset, protocol=protocol)
        found = search.get((protocol, method))
        predicted = (model.searched_seconds(found, method, *shape, **kw) if found
                     else model.seconds(method, *shape, **kw))
        truth = float(np.median(seconds.iloc[idx]))
        out.append((protocol, method, dataset,
                    float(np.log10(max(predicted, 1e-3)) - np.log10(max(truth, 1e-3)))))
    return pd.DataFrame(out, columns=["protocol", "method", "dataset", "error"])


def summary(frame):
    def stats(e):
        a = e.abs()
        return pd.Series({"cells": len(a), "median": a.median(), "p90": a.quantile(0.9),
                          "within 3x": (a < np.log10(3)).mean()})

    table = frame.groupby("protocol")["error"].apply(stats).unstack()
    table.loc["all"] = stats(frame["error"])
    return table


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="HEAD", help="the earlier revision to compare with")
    a = ap.parse_args()
    rows = current.CostModel.from_csvs(current.shipped_results()).rows
    search = searches(sorted(set(rows["protocol"]) & set(protocol_names())))
    before = summary(errors(module_at(a.rev), rows, search))
    after = summary(errors(current, rows, search))
    both = pd.concat({f"at {a.rev}": before, "this checkout": after}, axis=1)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print("absolute log10 error of the predicted CPU seconds of a (method, dataset) from the "
              "rows of the other datasets")
        print(both.round(3).to_string())


if __name__ == "__main__":
    sys.exit(main())
