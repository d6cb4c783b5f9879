"""Benchmark of the variance forests (RF-PCT, ERF-PCT, MLDF's layers) against scikit-learn's own.

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_pct.py [--datasets corel5k,enron] [--trees 100]
    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_pct.py --fit [--datasets yeast,corel16k-s1] [--trees 10]

Memory (default): for each dataset (first half to fit, second half to predict) one ``rf-pct``
forest is grown; the script prints the bytes scikit-learn's trees hold (node arrays + value arrays)
against the compact form's (node arrays + sparse leaf vectors), checks that both predict the same
numbers bit for bit, and prints both predict times with their ratio.

``--fit``: fit CPU seconds of the forests as mlbench grows them (:mod:`mlbench.methods.trees.fast_pct`)
against scikit-learn's ``RandomForestRegressor`` / ``ExtraTreesRegressor`` (which mlbench used before),
fully grown and at depth 6, on the first half of each dataset (dense float32, as MLDF gives it);
both fits are checked to give the same predictions bit for bit.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from mlbench.data import load_dataset
from mlbench.methods.trees.pct import CompactForest, make_forest


def cpu(fn):
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


def fit_speed(names, trees):
    print(f"{'dataset':12s} {'forest':7s} {'depth':>5s} {'mlbench s':>10s} {'sklearn s':>10s} {'ratio':>7s}  same")
    for name in names:
        ds = load_dataset(name)
        X = ds.X.toarray() if hasattr(ds.X, "toarray") else np.asarray(ds.X)
        X = np.ascontiguousarray(X, dtype=np.float32)
        Y = np.asarray(ds.Y, dtype=np.float64)
        half = X.shape[0] // 2
        for randomization in ("rf", "erf"):
            for depth in (None, 6):
                kw = dict(n_estimators=trees, max_depth=depth, random_state=0)
                fast, t_fast = cpu(lambda: make_forest("variance", randomization, **kw).fit(X[:half], Y[:half]))
                ref, t_ref = cpu(lambda: make_forest("variance", randomization, fast=False, **kw)
                                 .fit(X[:half], Y[:half]))
                same = np.array_equal(fast.predict(X[half:]), ref.predict(X[half:]))
                print(f"{name:12s} {randomization:7s} {str(depth):>5s} {t_fast:10.2f} {t_ref:10.2f} "
                      f"{t_ref / t_fast:6.1f}x  {same}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=None)
    ap.add_argument("--trees", type=int, default=None)
    ap.add_argument("--fit", action="store_true", help="time the fits instead of memory/predict")
    args = ap.parse_args()
    if args.fit:
        fit_speed(filter(None, (args.datasets or "yeast,corel16k-s1").split(",")), args.trees or 10)
        return
    args.trees = args.trees or 100
    for name in filter(None, (args.datasets or "corel5k,enron").split(",")):
        ds = load_dataset(name)
        X, Y = ds.X, np.asarray(ds.Y, dtype=np.float64)
        half = X.shape[0] // 2
        forest = make_forest("variance", "rf", n_estimators=args.trees, random_state=0, fast=False)
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
