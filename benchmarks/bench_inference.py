"""Benchmark of the inference used beyond ``max_labels`` labels against exact enumeration.

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_inference.py [--datasets emotions,scene,yeast] [--large enron] [--methods mmoc,pcc,epcc,mlcrf]

For each small dataset (standardised, one seeded 90/10 split, the mc protocol's settings) and
method: one fit, its test part decoded both ways (``max_labels=0`` forces the approximation) — the
share of rows where the approximation finds the exact answer, exact-match accuracy of both, the
largest marginal error (pcc, epcc) and predict seconds with their ratio (benchmarks/_harness.py).  For mmoc also a second
fit with the metric learned by the relaxation.  ``--large`` datasets (more labels than enumeration
can list) get the approximate fit and predict, timed.
"""
from __future__ import annotations

import copy

import _harness

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from mlbench.data import load_dataset
from mlbench.methods import registry


def split(name):
    ds = load_dataset(name)
    X = ds.X.toarray() if hasattr(ds.X, "toarray") else np.asarray(ds.X)
    Xtr, Xte, Ytr, Yte = train_test_split(X, np.asarray(ds.Y), test_size=0.1, random_state=0)
    sc = StandardScaler().fit(Xtr)
    return sc.transform(Xtr), sc.transform(Xte), Ytr, Yte


def ema(P, Y):
    return float((P == Y).all(axis=1).mean())


def small(name, method, timing):
    Xtr, Xte, Ytr, Yte = split(name)
    m = registry.make(method, random_state=0).fit(Xtr, Ytr)
    a = copy.deepcopy(m)
    a.max_labels = 0
    out = _harness.compare(f"{method} {name} (L={Ytr.shape[1]}): predict, approximate against exact",
                           lambda: a.predict(Xte), lambda: m.predict(Xte),
                           labels=("approximate", "exact"), **timing)
    approx, exact = out.results["approximate"], out.results["exact"]
    agree = (exact == approx).all(axis=1).mean()
    line = (f"   same answer {agree:6.1%}  EMA exact {ema(exact, Yte):.3f} approximate "
            f"{ema(approx, Yte):.3f}")
    if hasattr(m, "predict_proba"):
        line += f"  max marginal error {np.abs(a.predict_proba(Xte) - m.predict_proba(Xte)).max():.3f}"
    print(line, flush=True)
    if method == "mmoc":
        fit = _harness.measure(f"mmoc {name}: fit with the metric learned by the relaxation",
                               lambda: registry.make(method, max_labels=0, random_state=0)
                               .fit(Xtr, Ytr), label="relaxed fit", **timing)
        print(f"   relaxed fit EMA {ema(fit.results['relaxed fit'].predict(Xte), Yte):.3f}")


def large(name, method, timing):
    Xtr, Xte, Ytr, Yte = split(name)
    fit = _harness.measure(f"{method} {name} (L={Ytr.shape[1]}): approximate fit",
                           lambda: registry.make(method, random_state=0).fit(Xtr, Ytr),
                           label="fit", **timing)
    m = fit.results["fit"]
    pred = _harness.measure(f"{method} {name}: approximate predict", lambda: m.predict(Xte),
                            label="predict", **timing)
    print(f"   EMA {ema(pred.results['predict'], Yte):.3f}", flush=True)


def main():
    ap = _harness.parser(__doc__, repeats=3)
    ap.add_argument("--datasets", default="emotions,scene,yeast")
    ap.add_argument("--large", default="enron")
    ap.add_argument("--methods", default="mmoc,pcc,epcc,mlcrf")
    args = ap.parse_args()
    timing = _harness.timing(args)
    methods = [m for m in args.methods.split(",") if m]
    datasets, bigger = ("emotions", "") if args.quick else (args.datasets, args.large)
    methods = ["pcc"] if args.quick else methods
    for name in filter(None, datasets.split(",")):
        for method in methods:
            small(name, method, timing)
    for name in filter(None, bigger.split(",")):
        for method in methods:
            large(name, method, timing)


if __name__ == "__main__":
    main()
