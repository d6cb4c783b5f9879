"""Benchmark of RF-PCT's compact forest against scikit-learn's own trees: memory and predict time.

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_pct.py [--datasets corel5k,enron] [--trees 100]

For each dataset (first half to fit, second half to predict) one ``rf-pct`` forest is grown by
scikit-learn; the script prints the bytes its trees hold (node arrays + value arrays) against the
compact form's (node arrays + sparse leaf vectors), checks that both predict the same numbers bit
for bit, and prints both predict times with their ratio.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from mlbench.data import load_dataset
from mlbench.methods.trees.pct import CompactForest, make_forest


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="corel5k,enron")
    ap.add_argument("--trees", type=int, default=100)
    args = ap.parse_args()
    for name in filter(None, args.datasets.split(",")):
        ds = load_dataset(name)
        X, Y = ds.X, np.asarray(ds.Y, dtype=np.float64)
        half = X.shape[0] // 2
        forest = make_forest("variance", "rf", n_estimators=args.trees, random_state=0)
        forest.fit(X[:half], Y[:half])
        sk_bytes = sum(e.tree_.__getstate__()["nodes"].nbytes + e.tree_.value.nbytes
                       for e in forest.estimators_)
        t = time.perf_counter()
        ref = forest.predict(X[half:])
        t_sk = time.perf_counter() - t
        compact = CompactForest(forest)
        t = time.perf_counter()
        got = compact.predict(X[half:])
        t_c = time.perf_counter() - t
        print(f"{name:10s} L={Y.shape[1]:3d} {args.trees} trees  scikit-learn {sk_bytes / 2**20:8.1f} MB  "
              f"compact {compact.nbytes() / 2**20:6.1f} MB ({sk_bytes / compact.nbytes():5.1f}x less)  "
              f"predict s {t_sk:.2f} vs {t_c:.2f} (ratio {t_sk / t_c:.2f}x)  identical "
              f"{np.array_equal(ref, got)}", flush=True)


if __name__ == "__main__":
    main()
