"""CLEMS's SMACOF under its two stopping tests: steps and final stress of the same starts.

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/clems_stop_diagnostic.py \
        delicious:500,delicious:1000,corel5k:1000 [--starts 1]

For each DATASET:ROWS, the label vectors of ROWS rows drawn at random (seed 0), their distinct
vectors embedded as CLEMS does (Hamming cost, truth and prediction points in R^L, uniform starts),
once with ``stop="relative"`` (the stress's relative fall, what the committed clems cells ran) and
once with ``stop="normalized"`` (the study's weighted MDS: scikit-multilearn's ``_mdsw``), 300
steps at most, eps 1e-3.  Prints the steps each took, its final stress and the CPU seconds.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from mlbench.data import load_dataset
from mlbench.methods.embedding.clems import bipartite_smacof, hamming_cost


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", help="DATASET:ROWS,... (e.g. delicious:500,corel5k:1000)")
    ap.add_argument("--starts", type=int, default=1, help="random starts per case")
    a = ap.parse_args()
    for case in a.cases.split(","):
        name, rows = case.split(":")
        ds = load_dataset(name)
        Y = np.asarray(ds.Y.toarray() if hasattr(ds.Y, "toarray") else ds.Y)
        rng = np.random.default_rng(0)
        Y = Y[rng.choice(Y.shape[0], min(int(rows), Y.shape[0]), replace=False)]
        U, counts = np.unique(Y, axis=0, return_counts=True)
        cost = np.sqrt(hamming_cost(U, U))
        K, L = U.shape
        starts = np.random.RandomState(0)
        for s in range(a.starts):
            init = starts.random_sample((2 * K, L))
            out = []
            for stop in ("relative", "normalized"):
                t = time.process_time()
                _, stress, steps = bipartite_smacof(cost, counts, init, 300, 1e-3, stop=stop)
                out.append(f"{stop} {steps:3d} steps, stress {stress:10.4g}, "
                           f"{time.process_time() - t:6.1f} s")
            print(f"{name} {rows} rows (K {K}, L {L}) start {s}: " + "; ".join(out), flush=True)


if __name__ == "__main__":
    main()
