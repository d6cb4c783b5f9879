"""Benchmark of MMOC's box relaxation (used beyond ``max_labels``) against exact enumeration.

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_mmoc.py [--datasets emotions,scene,yeast] [--large enron]

For each small dataset (standardised, one seeded 90/10 split, the mc protocol's MMOC settings):
one fit with the metric learned by enumeration, decoded both ways on the test part — the share of
rows where the relaxation finds the exact argmin, exact-match accuracy of both and decoding seconds
with their ratio — then a second fit with the metric learned by the relaxation too.  ``--large``
datasets (more labels than enumeration can list) get the relaxed fit and decode, timed.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from mlbench.data import load_dataset
from mlbench.methods.transformation.mmoc import MaxMarginOutputCoding


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


def small(name):
    Xtr, Xte, Ytr, Yte = split(name)
    m = MaxMarginOutputCoding(random_state=0).fit(Xtr, Ytr)
    exact, t_exact = timed(lambda: m.predict(Xte))
    m.max_labels = 0
    relaxed, t_relaxed = timed(lambda: m.predict(Xte))
    agree = (exact == relaxed).all(axis=1).mean()
    mr, t_fit = timed(lambda: MaxMarginOutputCoding(max_labels=0, random_state=0).fit(Xtr, Ytr))
    print(f"{name:10s} L={Ytr.shape[1]:3d}  same argmin {agree:6.1%}  EMA exact {ema(exact, Yte):.3f}"
          f"  relaxed decode {ema(relaxed, Yte):.3f}  relaxed fit+decode {ema(mr.predict(Xte), Yte):.3f}"
          f"  decode s exact {t_exact:.3f} relaxed {t_relaxed:.3f} (ratio {t_exact / t_relaxed:.1f}x)"
          f"  relaxed fit {t_fit:.1f}s")


def large(name):
    Xtr, Xte, Ytr, Yte = split(name)
    m, t_fit = timed(lambda: MaxMarginOutputCoding(random_state=0).fit(Xtr, Ytr))
    P, t_pred = timed(lambda: m.predict(Xte))
    print(f"{name:10s} L={Ytr.shape[1]:3d}  inference {m.fit_info_['inference']}  EMA {ema(P, Yte):.3f}"
          f"  fit {t_fit:.1f}s  predict {t_pred:.2f}s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="emotions,scene,yeast")
    ap.add_argument("--large", default="enron")
    args = ap.parse_args()
    for name in filter(None, args.datasets.split(",")):
        small(name)
    for name in filter(None, args.large.split(",")):
        large(name)


if __name__ == "__main__":
    main()
