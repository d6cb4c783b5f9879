"""Benchmark of the inference used beyond ``max_labels`` labels against exact enumeration.

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_inference.py [--datasets emotions,scene,yeast] [--large enron] [--methods mmoc,pcc,epcc,mlcrf]

For each small dataset (standardised, one seeded 90/10 split, the mc protocol's settings) and
method: one fit, its test part decoded both ways (``max_labels=0`` forces the approximation) — the
share of rows where the approximation finds the exact answer, exact-match accuracy of both, the
largest marginal error (pcc, epcc) and predict seconds with their ratio.  For mmoc also a second
fit with the metric learned by the relaxation.  ``--large`` datasets (more labels than enumeration
can list) get the approximate fit and predict, timed.
"""
from __future__ import annotations

import argparse
import time

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


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def ema(P, Y):
    return float((P == Y).all(axis=1).mean())


def small(name, method):
    Xtr, Xte, Ytr, Yte = split(name)
    m = registry.make(method, random_state=0).fit(Xtr, Ytr)
    exact, t_exact = timed(lambda: m.predict(Xte))
    marg = m.predict_proba(Xte) if hasattr(m, "predict_proba") else None
    m.max_labels = 0
    approx, t_approx = timed(lambda: m.predict(Xte))
    agree = (exact == approx).all(axis=1).mean()
    line = (f"{method:5s} {name:10s} L={Ytr.shape[1]:3d}  same answer {agree:6.1%}  EMA exact "
            f"{ema(exact, Yte):.3f} approximate {ema(approx, Yte):.3f}  predict s exact {t_exact:.3f} "
            f"approximate {t_approx:.3f} (ratio {t_exact / t_approx:.1f}x)")
    if marg is not None:
        line += f"  max marginal error {np.abs(m.predict_proba(Xte) - marg).max():.3f}"
    if method == "mmoc":
        mr, t_fit = timed(lambda: registry.make(method, max_labels=0, random_state=0).fit(Xtr, Ytr))
        line += f"  relaxed fit {t_fit:.1f}s EMA {ema(mr.predict(Xte), Yte):.3f}"
    print(line, flush=True)


def large(name, method):
    Xtr, Xte, Ytr, Yte = split(name)
    m, t_fit = timed(lambda: registry.make(method, random_state=0).fit(Xtr, Ytr))
    P, t_pred = timed(lambda: m.predict(Xte))
    print(f"{method:5s} {name:10s} L={Ytr.shape[1]:3d}  EMA {ema(P, Yte):.3f}  fit {t_fit:.1f}s  "
          f"predict {t_pred:.2f}s", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="emotions,scene,yeast")
    ap.add_argument("--large", default="enron")
    ap.add_argument("--methods", default="mmoc,pcc,epcc,mlcrf")
    args = ap.parse_args()
    methods = [m for m in args.methods.split(",") if m]
    for name in filter(None, args.datasets.split(",")):
        for method in methods:
            small(name, method)
    for name in filter(None, args.large.split(",")):
        for method in methods:
            large(name, method)


if __name__ == "__main__":
    main()
