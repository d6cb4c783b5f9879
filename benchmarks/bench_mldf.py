"""MLDF speed: one fit per measure on yeast and scene (time, layers grown / kept), and the cost of the
Table 2 confidences (O(n) log-space version against the direct O(n^2) formulas) in the same run.

    MLBENCH_MIRROR=/work/shared/datasets .venv/bin/python benchmarks/bench_mldf.py \
        [--datasets yeast,scene] [--measures hl,oe,cov,rl,ap,auc] [--no-fit] [--repeats 3]

The fit uses the mldf protocol's first split (50/50 holdout, seed 0) and its registered
parameters; it also prints the test value of the measure each model was grown for.  The
confidences are timed on matrices of each dataset's training shape (rows x labels) and on a
CAL500-shaped one (251 x 174); both versions are checked to agree.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from mlbench.methods import registry
from mlbench.methods.trees.mldf_confidence import (MEASURE_AXIS, confidence_reference,
                                                   log_confidence)

SHORT = {"hl": "hamming_loss", "oe": "one_error", "cov": "coverage", "rl": "ranking_loss",
         "ap": "average_precision", "auc": "macro_auc"}
METRIC_COLUMN = {"coverage": "coverage_normalized"}


def best_time(fn, repeats):
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def bench_confidences(shapes, repeats):
    print("\nTable 2 confidences: log-space O(n) (vectorised) vs direct O(n^2) NumPy, same matrices")
    print(f"{'shape':>12} {'measure':>18} {'fast ms':>10} {'direct ms':>10} {'ratio':>8} {'max rel err':>12}")
    rng = np.random.default_rng(0)
    for name, (m, L) in shapes.items():
        P = rng.random((m, L))
        for measure in ("coverage", "ranking_loss", "average_precision", "macro_auc"):
            t_fast, fast = best_time(lambda: log_confidence(P, measure), repeats)
            t_ref, ref = best_time(lambda: confidence_reference(P, measure), 1)
            ok = ref > 1e-300  # the direct products underflow to 0 on long vectors
            err = np.max(np.abs(np.exp(fast[ok]) - ref[ok]) / ref[ok]) if ok.any() else float("nan")
            print(f"{name + ' ' + str(m) + 'x' + str(L):>12} {measure:>18} {t_fast * 1e3:10.2f} "
                  f"{t_ref * 1e3:10.1f} {t_ref / t_fast:8.0f} {err:12.1e}"
                  + ("" if ok.all() else f"  ({(~ok).sum()} of {ok.size} direct values underflow "
                                         "to 0)"))
            axis = MEASURE_AXIS[measure]
            assert fast.shape == ((L,) if axis == "label" else (m,))


def bench_fits(datasets, measures):
    from mlbench.data import load_dataset
    from mlbench.metrics import get_measure

    print("\nOne MLDF fit per measure (mldf protocol, split 0: 50/50, seed 0)")
    print(f"{'dataset':>8} {'method':>9} {'fit s':>8} {'predict s':>9} {'kept':>5} {'grown':>6} "
          f"{'test value':>10}")
    for name in datasets:
        ds = load_dataset(name)
        X = ds.X.toarray() if hasattr(ds.X, "toarray") else ds.X
        perm = np.random.default_rng(0).permutation(ds.n_instances)
        tr, te = perm[: ds.n_instances // 2], perm[ds.n_instances // 2:]
        total = 0.0
        for short in measures:
            est = registry.make(f"mldf-{short}", random_state=0)
            start = time.perf_counter()
            est.fit(X[tr], ds.Y[tr])
            fit_s = time.perf_counter() - start
            start = time.perf_counter()
            P = est.predict_proba(X[te])
            pred_s = time.perf_counter() - start
            total += fit_s
            metric = get_measure(METRIC_COLUMN.get(SHORT[short], SHORT[short]))
            value = metric(ds.Y[te], (P >= 0.5).astype(int) if metric.needs == "predictions" else P)
            info = est.fit_info_
            print(f"{name:>8} {'mldf-' + short:>9} {fit_s:8.1f} {pred_s:9.2f} {info['layers']:5d} "
                  f"{info['layers_grown']:6d} {value:10.4f}", flush=True)
        print(f"{name:>8} {'all six':>9} {total:8.1f}   (x 10 splits = {total * 10 / 60:.0f} min on "
              "one core)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="yeast,scene")
    ap.add_argument("--measures", default="hl,oe,cov,rl,ap,auc")
    ap.add_argument("--no-fit", action="store_true", help="time the confidences only")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    bench_confidences({"yeast": (1208, 14), "scene": (1203, 6), "cal500": (251, 174)},
                      args.repeats)
    if not args.no_fit:
        bench_fits(args.datasets.split(","), args.measures.split(","))


if __name__ == "__main__":
    main()
