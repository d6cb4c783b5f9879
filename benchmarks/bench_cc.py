"""Benchmark of the classifier chain (``cc``) against scikit-learn's ``ClassifierChain``.

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_cc.py \
        [--datasets yeast,scene,enron,corel5k] [--rows N] [--repeats 3] [--trees]

Both chains use the same L2 logistic regression (lbfgs, C = 1) in the label order on the same
rows (the first half of the dataset, ``--rows`` caps it); the predictions on the other half are
compared.  Timing of fit + predict: benchmarks/_harness.py (warm-up, both sides the same number of
interleaved rounds, one BLAS thread, CPU and wall medians and their ratio).

``--trees``: chains of entropy trees instead (``base="tree"``, as ECC in the soshf protocol): ours,
which presorts x's columns once per chain, against ours sorting them again for every tree (the
previous implementation) and scikit-learn's ``ClassifierChain`` of
``DecisionTreeClassifier(criterion="entropy")``; all three must predict the same.
"""
from __future__ import annotations

import _harness

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import ClassifierChain as SkChain
from sklearn.tree import DecisionTreeClassifier

from mlbench.data import load_dataset
from mlbench.methods import registry


def run(name, rows, timing):
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

    kind = "sparse" if sp.issparse(X) else "dense"
    out = _harness.compare(f"cc-lr {name} ({kind}, {half} x {X.shape[1]}, L={Y.shape[1]})", ours,
                           theirs, labels=("mlbench", "scikit-learn"), **timing)
    same = np.mean(out.results["mlbench"] == out.results["scikit-learn"])
    print(f"   same predictions {same:.4%}", flush=True)


def run_trees(name, rows, timing):
    from mlbench.methods.transformation import cc

    ds = load_dataset(name)
    X = ds.X.toarray() if sp.issparse(ds.X) else np.asarray(ds.X)
    Y = np.asarray(ds.Y).astype(int)
    half = min(X.shape[0] // 2, rows)
    Y = Y[:, Y[:half].std(axis=0) > 0]
    Xtr, Xte, Ytr = X[:half], X[half:2 * half], Y[:half]
    order = list(range(Y.shape[1]))

    from mlbench.methods.components.fast_tree import EntropyTree

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

    out = _harness.compare_many(
        f"cc-tree {name} ({half} x {X.shape[1]}, L={Y.shape[1]})",
        {"mlbench": ours, "sorting per tree": before, "scikit-learn": theirs}, **timing)
    p = out.results
    same = (np.array_equal(p["mlbench"], p["sorting per tree"])
            and np.array_equal(p["mlbench"], p["scikit-learn"]))
    print(f"   same predictions {same}", flush=True)


def main():
    ap = _harness.parser(__doc__, repeats=3)
    ap.add_argument("--datasets", default="yeast,scene,enron,corel5k")
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--trees", action="store_true", help="chains of entropy trees (see above)")
    args = ap.parse_args()
    datasets, rows = ("emotions", 100) if args.quick else (args.datasets, args.rows)
    for name in filter(None, datasets.split(",")):
        (run_trees if args.trees else run)(name, rows, _harness.timing(args))


if __name__ == "__main__":
    main()
