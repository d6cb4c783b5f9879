"""MLDF speed: one ``mldf`` fit (the six measures' cascades grown together) on yeast and scene
(time, layers kept / grown per measure, shared layer computations), optionally against the previous
way (six separate single-measure fits) in the same run, and the cost of the Table 2
confidences (O(n) log-space version against the direct O(n^2) formulas).

    MLBENCH_MIRROR=/work/shared/datasets .venv/bin/python benchmarks/bench_mldf.py \
        [--datasets yeast,scene] [--measures hl,oe,cov,rl,ap,auc] [--compare] [--max-layers T] \
        [--no-fit] [--repeats 3]

The fit uses the mldf protocol's first split (50/50 holdout, seed 0) and the registered parameters;
it prints the test value of each measure from the cascade grown for it, and wall and CPU
time: on a shared machine the CPU time is the better estimate of the work.  Every time goes through
benchmarks/_harness.py (the sides interleaved and repeated equally after a warm-up, one thread;
medians and their ratio).  ``--compare``
checks that the separate fits give the same test probabilities (they must: same seeds, same trees).
The confidences are timed on matrices of each dataset's training shape (rows x labels) and on a
CAL500-shaped one (251 x 174); both versions are checked to agree.
"""
from __future__ import annotations

import _harness

import numpy as np

from mlbench.methods import registry
from mlbench.methods.trees.mldf_confidence import (MEASURE_AXIS, confidence_reference,
                                                   log_confidence)

SHORT = {"hl": "hamming_loss", "oe": "one_error", "cov": "coverage", "rl": "ranking_loss",
         "ap": "average_precision", "auc": "macro_auc"}
METRIC_COLUMN = {"coverage": "coverage_normalized"}


def bench_confidences(shapes, timing):
    print("\nTable 2 confidences: log-space O(n) (vectorised) vs direct O(n^2) NumPy, same matrices")
    rng = np.random.default_rng(0)
    for name, (m, L) in shapes.items():
        P = rng.random((m, L))
        for measure in ("coverage", "ranking_loss", "average_precision", "macro_auc"):
            out = _harness.compare(f"{name} {m}x{L} {measure}",
                                   lambda: log_confidence(P, measure),
                                   lambda: confidence_reference(P, measure),
                                   labels=("log-space", "direct"), **timing)
            fast, ref = out.results["log-space"], out.results["direct"]
            ok = ref > 1e-300  # the direct products underflow to 0 on long vectors
            err = np.max(np.abs(np.exp(fast[ok]) - ref[ok]) / ref[ok]) if ok.any() else float("nan")
            print(f"   max relative error {err:.1e}"
                  + ("" if ok.all() else f"  ({(~ok).sum()} of {ok.size} direct values underflow "
                                         "to 0)"))
            axis = MEASURE_AXIS[measure]
            assert fast.shape == ((L,) if axis == "label" else (m,))


def peak_rss_mb():
    """The process's peak resident set (Linux ru_maxrss is in KB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def first_split(name):
    from mlbench.data import load_dataset

    ds = load_dataset(name)
    X = ds.X.toarray() if hasattr(ds.X, "toarray") else ds.X
    perm = np.random.default_rng(0).permutation(ds.n_instances)
    tr, te = perm[: ds.n_instances // 2], perm[ds.n_instances // 2:]
    return X[tr], ds.Y[tr], X[te], ds.Y[te]


def test_value(metric_name, Y, P):
    from mlbench.metrics import get_measure

    metric = get_measure(metric_name)
    return metric(Y, (P > 0.5).astype(int) if metric.needs == "predictions" else P)


def bench_fits(datasets, measures, compare, max_layers, timing):
    """One ``mldf`` fit (all measures, shared layers) per dataset; with ``compare``, against the
    separate per-measure fits (the mldf-* variants, as the protocol ran them before) in the same
    run, checked to give identical test probabilities."""
    names = [SHORT[m] for m in measures]
    columns = [METRIC_COLUMN.get(m, m) for m in names]
    extra = {} if max_layers is None else {"max_layers": max_layers}
    print("\nMLDF fits (mldf protocol, split 0: 50/50, seed 0, random_state 0"
          + (f", max_layers {max_layers}" if max_layers else "") + ")")
    for name in datasets:
        Xtr, Ytr, Xte, Yte = first_split(name)

        def one_fit():
            return registry.make("mldf", random_state=0, measures=names, **extra).fit(Xtr, Ytr)

        def separate_fits():
            return [registry.make(f"mldf-{short}", random_state=0, **extra).fit(Xtr, Ytr)
                    for short in measures]

        sides = {"one mldf fit": one_fit}
        if compare:
            sides["separate fits (before)"] = separate_fits
        out = _harness.compare_many(f"{name}: fit, {len(measures)} measures", sides, **timing)
        est = out.results["one mldf fit"]
        pred = _harness.measure(f"{name}: predict every measure's outputs",
                                lambda: est.measure_outputs(Xte), label="predict", **timing)
        own = pred.results["predict"]
        info = est.fit_info_
        n_forests = len({id(f) for layers in est.branches_.values() for lay in layers
                         for f in lay["forests"]})
        print(f"   out-of-fold layer computations {info['layer_fits']} (separate fits: "
              f"{info['layer_fits_separate']}); {n_forests} forests kept; peak RSS so far "
              f"{peak_rss_mb():.0f} MB")
        print(f"{'measure':>20} {'kept':>5} {'grown':>6} {'test value':>10}")
        for col in columns:
            print(f"{col:>20} {info['layers'][col]:5d} {info['layers_grown'][col]:6d} "
                  f"{test_value(col, Yte, own[col]['scores']):10.4f}")
        if compare:
            same = all(np.array_equal(single.predict_proba(Xte), own[col]["scores"])
                       for single, col in zip(out.results["separate fits (before)"], columns))
            print(f"   identical test probabilities: {'yes' if same else 'NO'}", flush=True)


def main():
    ap = _harness.parser(__doc__, repeats=3)
    ap.add_argument("--datasets", default="yeast,scene")
    ap.add_argument("--measures", default="hl,oe,cov,rl,ap,auc")
    ap.add_argument("--no-fit", action="store_true", help="time the confidences only")
    ap.add_argument("--compare", action="store_true",
                    help="also time the separate per-measure fits (mldf-hl, ..., mldf-auc)")
    ap.add_argument("--max-layers", type=int, default=None, help="T (default: the paper's 20)")
    args = ap.parse_args()
    timing = _harness.timing(args)
    shapes = {"yeast": (1208, 14), "scene": (1203, 6), "cal500": (251, 174)}
    if args.quick:
        shapes, args.no_fit = {"small": (50, 5)}, True
    bench_confidences(shapes, timing)
    if not args.no_fit:
        bench_fits(args.datasets.split(","), args.measures.split(","), args.compare,
                   args.max_layers, timing)


if __name__ == "__main__":
    main()
