"""Benchmark of the classifier chain (``cc``) against scikit-learn's ``ClassifierChain``.

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_cc.py [--datasets yeast,scene,enron,corel5k] [--rows N]

Both chains use the same L2 logistic regression (lbfgs, C = 1) in the label order on the same
rows (the first half of the dataset, ``--rows`` caps it); the predictions on the other half are
checked equal, then fit + predict seconds (best of ``--repeat``) and their ratio are printed.

``--trees``: chains of entropy trees instead (``base="tree"``, as ECC in the soshf protocol): ours,
which presorts x's columns once per chain, against ours sorting them again for every tree (the
previous implementation) and scikit-learn's ``ClassifierChain`` of
``DecisionTreeClassifier(criterion="entropy")``; all three must predict the same.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import ClassifierChain as SkChain
from sklearn.tree import DecisionTreeClassifier

from mlbench.data import load_dataset
from mlbench.methods import registry


def best_of(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return out, min(times)


def run(name, rows, repeat):
    ds = load_dataset(name)
    X, Y = ds.X, np.asarray(ds.Y).astype(int)
    half = min(X.shape[0] // 2, rows)
    Y = Y[:, Y[:half].std(axis=0) > 0]    # scikit-learn's chain cannot fit a label constant in training
    Xtr, Xte, Ytr = X[:half], X[half:2 * half], Y[:half]
    if sp.issparse(Xtr):
        Xtr, Xte = Xtr.tocsr(), Xte.tocsr()

    def ours():
        m = registry.make("cc", random_state=0).fit(Xtr, Ytr)
        return m.predict(Xte)

    def theirs():
        m = SkChain(LogisticRegression(C=1.0, max_iter=1000), order=list(range(Y.shape[1])))
        return m.fit(Xtr, Ytr).predict(Xte).astype(int)

    p_ours, t_ours = best_of(ours, repeat)
    p_sk, t_sk = best_of(theirs, repeat)
    same = np.mean(p_ours == p_sk)
    kind = "sparse" if sp.issparse(X) else "dense"
    print(f"{name:10s} {kind:6s} {half:5d}x{X.shape[1]:5d} L={Y.shape[1]:3d}  ours {t_ours:7.2f}s  "
          f"scikit-learn {t_sk:7.2f}s  ratio {t_sk / t_ours:5.2f}x  same predictions {same:.4%}",
          flush=True)


def run_trees(name, rows, repeat):
    from mlbench.methods.transformation import cc

    ds = load_dataset(name)
    X = ds.X.toarray() if sp.issparse(ds.X) else np.asarray(ds.X)
    Y = np.asarray(ds.Y).astype(int)
    half = min(X.shape[0] // 2, rows)
    Y = Y[:, Y[:half].std(axis=0) > 0]
    Xtr, Xte, Ytr = X[:half], X[half:2 * half], Y[:half]
    order = list(range(Y.shape[1]))

    from mlbench.methods.transformation.fast_tree import EntropyTree

    def chain():
        return cc.ClassifierChain(base=EntropyTree(), order=order, random_state=0).fit(Xtr, Ytr)

    def ours():
        return chain().predict(Xte)

    def before():
        keep = cc._presorted_prefixes
        cc._presorted_prefixes = lambda *a: None
        try:
            return ours()
        finally:
            cc._presorted_prefixes = keep

    seeds = [m.random_state for m in chain().estimators_]

    def theirs():   # the same seeds, label by label (constant labels were dropped above)
        preds, cur = [], Xtr
        models = []
        for j, seed in enumerate(seeds):
            models.append(DecisionTreeClassifier(criterion="entropy", random_state=seed)
                          .fit(cur, Ytr[:, j]))
            cur = np.hstack([cur, Ytr[:, j:j + 1]])
        cur = Xte
        for m in models:
            preds.append(m.predict(cur))
            cur = np.hstack([cur, preds[-1][:, None].astype(float)])
        return np.column_stack(preds)

    (p_ours, t_ours), (p_before, t_before) = best_of(ours, repeat), best_of(before, repeat)
    p_sk, t_sk = best_of(theirs, repeat)
    same = np.array_equal(p_ours, p_before) and np.array_equal(p_ours, p_sk)
    print(f"{name:10s} {half:5d}x{X.shape[1]:5d} L={Y.shape[1]:3d}  ours {t_ours:7.2f}s  "
          f"before {t_before:7.2f}s  scikit-learn {t_sk:7.2f}s  ratio {t_before / t_ours:5.2f}x "
          f"{t_sk / t_ours:5.2f}x  same {same}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="yeast,scene,enron,corel5k")
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--trees", action="store_true", help="chains of entropy trees (see above)")
    args = ap.parse_args()
    for name in filter(None, args.datasets.split(",")):
        (run_trees if args.trees else run)(name, args.rows, args.repeat)


if __name__ == "__main__":
    main()
