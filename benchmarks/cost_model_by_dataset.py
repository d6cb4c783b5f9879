"""How well does ``run --dry-run`` estimate a dataset it has not run, counting sparse features?

For each named dataset of a protocol's committed grid (``results/papers/PROTOCOL.csv``), the
dataset's rows are removed from the history (the committed file and the other papers' files), the
dry run of that dataset alone is planned from what is left, as the runner plans it (with the
nonzero shares of the cached datasets), and its estimate of each cell is set against the cell's
recorded CPU seconds.  Prints, per dataset and over all, the estimated and measured core-hours,
the median |log10(estimate / measured)| and the share within a factor of 3, and the worst cell.

    MLBENCH_MIRROR=... PYTHONPATH=$PWD python benchmarks/cost_model_by_dataset.py \\
        bogatinovski2022 ng20,stackex_philosophy,langlog,enron,slashdot,reutersk500,stackex_chess,medical
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import tempfile

import numpy as np

import mlbench.experiment.costs as costs
from mlbench.experiment.runner import run_experiment
from mlbench.protocols import load_protocol


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("protocol")
    ap.add_argument("datasets", help="comma-separated datasets of the protocol's committed grid")
    args = ap.parse_args()
    committed = os.path.join(costs.checkout_root(), "results", "papers", f"{args.protocol}.csv")
    others = [p for p in costs.shipped_results() if os.path.abspath(p) != committed]
    costs.shipped_results = lambda: others          # the held-out rows must not leak back
    protocol = load_protocol(args.protocol)
    with open(committed, newline="") as fh:
        rows = list(csv.DictReader(fh))
    errors, estimated, measured = [], 0.0, 0.0
    for name in args.datasets.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            history = os.path.join(tmp, "history.csv")
            with open(history, "w", newline="") as fh:
                w = csv.DictWriter(fh, list(rows[0]), lineterminator="\n")
                w.writeheader()
                w.writerows(r for r in rows if r["dataset"] != name)
            plan = run_experiment(protocol, out=history, dry_run=True, datasets=[name])
        est = {c.method: plan.costs[c.key] for c in plan.todo if plan.costs.get(c.key)}
        cpu = {r["method"]: float(r["cpu_seconds"]) for r in rows
               if r["dataset"] == name and r["status"] == "ok" and r["method"] in est}
        err = {m: abs(math.log10(est[m] / cpu[m])) for m in cpu}
        worst = max(err, key=err.get)
        errors += list(err.values())
        estimated += sum(est[m] for m in cpu)
        measured += sum(cpu.values())
        print(f"{name:>20}: estimated {sum(est[m] for m in cpu) / 3600:5.2f} core-h, measured "
              f"{sum(cpu.values()) / 3600:5.2f}; median error {np.median(list(err.values())):.2f}"
              f" decades, within 3x {np.mean(np.array(list(err.values())) < math.log10(3)):.0%};"
              f" worst {worst} {est[worst]:,.0f} s for {cpu[worst]:,.0f}")
    print(f"{'all':>20}: {len(errors)} cells, estimated {estimated / 3600:.2f} core-h, measured "
          f"{measured / 3600:.2f}; median error {np.median(errors):.2f} decades, within 3x "
          f"{np.mean(np.array(errors) < math.log10(3)):.0%}")


if __name__ == "__main__":
    main()
