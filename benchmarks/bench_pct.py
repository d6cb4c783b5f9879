"""Benchmark of the variance forests (RF-PCT, ERF-PCT, MLDF's layers) against scikit-learn's own.

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_pct.py [--datasets corel5k,enron] [--trees 100]
    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_pct.py --fit [--datasets yeast,corel16k-s1] [--trees 10]

Memory (default): for each dataset (first half to fit, second half to predict) one ``rf-pct``
forest is grown; the script prints the bytes scikit-learn's trees hold (node arrays + value arrays)
against the compact form's (node arrays + sparse leaf vectors), checks that both predict the same
numbers bit for bit, and prints both predict times with their ratio; then the CPU time of building
the compact form (its leaf vectors by the kernel ``_pct.leaf_csr``) against the previous build
(each tree's values copied, internal rows zeroed, converted by scipy's ``csr_matrix``), with
whether the two give the same sparse arrays.

``--fit``: fit CPU seconds of the forests as mlbench grows them (:mod:`mlbench.methods.trees.fast_pct`)
against the same kernel sorting every node by introsort (the previous implementation; nodes of
``fast_pct.RADIX_MIN`` rows or more now sort by radix) and against scikit-learn's
``RandomForestRegressor`` / ``ExtraTreesRegressor`` (which mlbench used before that), fully grown
and at depth 6, on the first half of each dataset (dense float32, as MLDF gives it); all three
fits are checked to give the same predictions bit for bit.  ``--extra N`` appends N uniform
columns (the kind of continuous outputs MLDF's layers append to X).

Every time goes through benchmarks/_harness.py (the sides interleaved and repeated equally after a
warm-up, one thread; CPU and wall medians and their ratio).
"""
from __future__ import annotations

import _harness

import numpy as np
import scipy.sparse as sp

from mlbench.data import load_dataset
from mlbench.methods.trees import fast_pct
from mlbench.methods.trees.pct import CompactForest, make_forest


def introsort_only(fit):
    """``fit()`` with every node sorted by introsort (the kernel before the radix sort)."""
    saved = fast_pct.RADIX_MIN
    fast_pct.RADIX_MIN = np.iinfo(np.intp).max
    try:
        return fit()
    finally:
        fast_pct.RADIX_MIN = saved


def scipy_leaf_values(forest):
    """The previous CompactForest leaf vectors: a dense copy per tree, internal rows zeroed,
    converted by scipy."""
    out = []
    for est in forest.estimators_:
        state = est.tree_.__getstate__()
        values = state["values"][:, :, 0].copy()
        values[state["nodes"]["left_child"] != -1] = 0.0
        out.append(sp.csr_matrix(values))
    return out


def fit_speed(names, trees, extra, timing):
    for name in names:
        ds = load_dataset(name)
        X = ds.X.toarray() if hasattr(ds.X, "toarray") else np.asarray(ds.X)
        X = np.ascontiguousarray(X, dtype=np.float32)
        if extra:
            rng = np.random.RandomState(0)
            X = np.ascontiguousarray(np.hstack([X, rng.rand(X.shape[0], extra)]), dtype=np.float32)
        Y = np.asarray(ds.Y, dtype=np.float64)
        half = X.shape[0] // 2
        for randomization in ("rf", "erf"):
            for depth in (None, 6):
                kw = dict(n_estimators=trees, max_depth=depth, random_state=0)

                def fit(fast=True):
                    return make_forest("variance", randomization, fast=fast, **kw).fit(X[:half],
                                                                                       Y[:half])

                out = _harness.compare_many(
                    f"{name} {randomization} forest, depth {depth}, {trees} trees: fit",
                    {"mlbench": fit, "introsort only": lambda: introsort_only(fit),
                     "scikit-learn": lambda: fit(fast=False)}, **timing)
                p = out.results["mlbench"].predict(X[half:])
                same = all(np.array_equal(p, out.results[k].predict(X[half:]))
                           for k in ("introsort only", "scikit-learn"))
                print(f"   same predictions {same}", flush=True)


def main():
    ap = _harness.parser(__doc__, repeats=3)
    ap.add_argument("--datasets", default=None)
    ap.add_argument("--trees", type=int, default=None)
    ap.add_argument("--fit", action="store_true", help="time the fits instead of memory/predict")
    ap.add_argument("--extra", type=int, default=0, help="--fit: uniform columns appended to X")
    args = ap.parse_args()
    timing = _harness.timing(args)
    if args.quick:
        args.datasets, args.trees = "emotions", 2
    if args.fit:
        fit_speed(filter(None, (args.datasets or "yeast,corel16k-s1").split(",")), args.trees or 10,
                  args.extra, timing)
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
        compact = CompactForest(forest)
        print(f"{name:10s} L={Y.shape[1]:3d} {args.trees} trees  scikit-learn {sk_bytes / 2**20:8.1f} MB  "
              f"compact {compact.nbytes() / 2**20:6.1f} MB ({sk_bytes / compact.nbytes():5.1f}x less)")
        out = _harness.compare(f"{name}: predict", lambda: compact.predict(X[half:]),
                               lambda: forest.predict(X[half:]),
                               labels=("compact", "scikit-learn"), **timing)
        print(f"   identical {np.array_equal(out.results['compact'], out.results['scikit-learn'])}",
              flush=True)
        out = _harness.compare(f"{name}: building the compact form's leaf vectors",
                               lambda: CompactForest(forest), lambda: scipy_leaf_values(forest),
                               labels=("kernel", "scipy conversion"), **timing)
        compact, before = out.results["kernel"], out.results["scipy conversion"]
        same = all(np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
                   and np.array_equal(a.data, b.data) for a, b in zip(compact.leaf_values, before))
        print(f"   same leaf arrays {same}", flush=True)


if __name__ == "__main__":
    main()
