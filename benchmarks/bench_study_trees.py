"""Fit CPU time and peak memory of the study's tree/ensemble methods against scikit-learn doing the
same algorithm (Bogatinovski et al. 2022: rfpct, pct, rfdtbr, ebrj48, eccj48, ada300, cdn), and of
the J48 base learner (``j48``).

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_study_trees.py \
        [--dataset bibtex] [--methods rfpct,ebrj48] [--trees 10] [--members 2] [--rounds 50] \
        [--j48-labels 40]

The dataset's first two thirds fit, the rest predicts (cdn's fit includes its Gibbs prediction of
that part: its cost is there).  The scikit-learn sides:

* ``rfpct`` / ``pct``: ``RandomForestRegressor`` / ``DecisionTreeRegressor`` on the 0/1 labels with
  the same parameters and seeds (mlbench grows the same trees with :mod:`fast_pct`);
* ``rfdtbr``: one ``RandomForestClassifier(criterion="entropy")`` per label, seeded as mlbench's BR;
* ``ebrj48``: per bag, one ``DecisionTreeClassifier(criterion="entropy")`` per label (scikit-learn
  has no C4.5: its nearest tree, grown without pruning, where mlbench grows and prunes J48);
* ``eccj48``: per bag, scikit-learn's ``ClassifierChain`` of those trees in the chain's order;
* ``j48``: one tree per label on the first ``--j48-labels`` labels: mlbench's J48 (Weka's
  defaults), the ``c45`` stand-in it replaced in the study's methods (mlbench's Cython
  :class:`~mlbench.methods.components.fast_tree.EntropyTree`) and scikit-learn's
  ``DecisionTreeClassifier(criterion="entropy")`` (timed only; peak memory: J48 and scikit-learn);
* ``ada300``: scikit-learn's ``AdaBoostClassifier`` of entropy stumps on the expanded
  (example, label) pairs - dense N L x (d + L), so it runs on the first ``--ada-rows`` rows and
  ``--ada-labels`` labels only (both sides on the same subset);
* ``cdn``: no counterpart (measured alone).

Ensemble sizes are reduced (``--trees``, ``--members``, ``--rounds``) so that scikit-learn's side
finishes on a shared machine; times scale linearly in them.  CPU time goes through
benchmarks/_harness.py (one thread, interleaved, repeated); peak memory is the growth of the
resident set (Linux's VmHWM, reset before the fit) while a fresh process, given the arrays, fits
one side.
"""
from __future__ import annotations

import _harness

import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.sparse as sp

from mlbench.data import load_dataset
from mlbench.methods import registry
from mlbench.methods.components.binary import draw_seeds

SEED = 0
_MAX = np.iinfo(np.int32).max


def data(name, rows=None, labels=None):
    ds = load_dataset(name)
    X = ds.X.toarray() if sp.issparse(ds.X) else np.asarray(ds.X, dtype=np.float64)
    Y = np.asarray(ds.Y.toarray() if sp.issparse(ds.Y) else ds.Y, dtype=np.int8)
    if rows:
        X, Y = X[:rows], Y[:rows]
    if labels:
        Y = Y[:, :labels]
        keep = Y.any(axis=0) & ~Y.all(axis=0)
        Y = Y[:, keep]
    n = X.shape[0] * 2 // 3
    return X[:n], Y[:n], X[n:]


def sides(method, X, Y, Xt, a):
    """(mlbench fit, scikit-learn fit or None) for ``method``, each a function of no arguments."""
    from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier, RandomForestRegressor
    from sklearn.multioutput import ClassifierChain
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    L = Y.shape[1]
    if method == "rfpct":
        ours = lambda: registry.make("rfpct", n_estimators=a.trees, random_state=SEED).fit(X, Y)
        seed = np.random.RandomState(SEED).randint(_MAX)
        k = int(np.ceil(np.log2(X.shape[1])))
        theirs = lambda: RandomForestRegressor(n_estimators=a.trees, max_features=k,
                                               min_samples_leaf=2, random_state=seed).fit(
            X.astype(np.float32), Y.astype(np.float64))
    elif method == "pct":
        ours = lambda: registry.make("pct", random_state=SEED).fit(X, Y)
        theirs = lambda: DecisionTreeRegressor(min_samples_leaf=2, random_state=SEED).fit(
            X.astype(np.float32), Y.astype(np.float64))
    elif method == "rfdtbr":
        ours = lambda: registry.make("rfdtbr", n_estimators=a.trees, random_state=SEED).fit(X, Y)
        k = int(np.log2(X.shape[1])) + 1
        seeds = draw_seeds(SEED, L)
        theirs = lambda: [RandomForestClassifier(n_estimators=a.trees, criterion="entropy",
                                                 max_features=k, random_state=seeds[l]).fit(X, Y[:, l])
                          for l in range(L) if 0 < Y[:, l].sum() < len(Y)]
    elif method == "ebrj48":
        ours = lambda: registry.make("ebrj48", n_estimators=a.members, random_state=SEED).fit(X, Y)
        seeds = draw_seeds(SEED, 2 * a.members)

        def theirs():
            out = []
            for m in range(a.members):
                rows = np.random.RandomState(seeds[2 * m]).randint(len(X), size=len(X))
                ls = draw_seeds(seeds[2 * m + 1], L)
                out += [DecisionTreeClassifier(criterion="entropy", random_state=ls[l]).fit(
                    X[rows], Y[rows, l]) for l in range(L) if 0 < Y[rows, l].sum() < len(rows)]
            return out
    elif method == "eccj48":
        ours = lambda: registry.make("eccj48", n_estimators=a.members, random_state=SEED).fit(X, Y)
        seeds = draw_seeds(SEED, 2 * a.members)

        def theirs():
            out = []
            for m in range(a.members):
                rows = np.random.RandomState(seeds[2 * m]).randint(len(X), size=len(X))
                order = np.random.RandomState(seeds[2 * m + 1]).permutation(L)
                out.append(ClassifierChain(DecisionTreeClassifier(criterion="entropy",
                                                                  random_state=0),
                                           order=order).fit(X[rows], Y[rows]))
            return out
    elif method == "ada300":
        ours = lambda: registry.make("ada300", n_estimators=a.rounds).fit(X, Y)

        def theirs():
            E = np.hstack([np.repeat(X, L, axis=0), np.tile(np.eye(L), (len(X), 1))])
            return AdaBoostClassifier(DecisionTreeClassifier(max_depth=1, criterion="entropy"),
                                      n_estimators=a.rounds, random_state=0).fit(E, Y.ravel())
    elif method == "j48":
        return j48_sides(X, Y, a)["mlbench J48"], j48_sides(X, Y, a)["scikit-learn"]
    elif method == "cdn":
        def ours():
            m = registry.make("cdn", random_state=SEED).fit(X, Y)
            return m.predict_proba(Xt)
        theirs = None
    else:
        raise SystemExit(f"unknown method {method!r}")
    return ours, theirs


def j48_sides(X, Y, a):
    """label -> fit of one tree per label (the labels with both classes among the first
    ``a.j48_labels``) by J48, the c45 EntropyTree and scikit-learn's entropy tree."""
    from sklearn.tree import DecisionTreeClassifier

    from mlbench.methods.components.fast_tree import EntropyTree
    from mlbench.methods.components.j48 import J48

    labels = [l for l in range(min(a.j48_labels, Y.shape[1])) if 0 < Y[:, l].sum() < len(Y)]
    Xs = sp.csr_matrix(X)

    def per_label(make, Xin):
        return lambda: [make().fit(Xin, Y[:, l]) for l in labels]

    return {"mlbench J48": per_label(J48, Xs),
            "c45 EntropyTree": per_label(lambda: EntropyTree(random_state=SEED), X),
            "scikit-learn": per_label(
                lambda: DecisionTreeClassifier(criterion="entropy", random_state=SEED), X)}


def _status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def peak(method, side, path, a):
    """Peak resident-set growth (MB) of fitting one side in this fresh process, on the arrays the
    parent saved to ``path``: the kernel's high-water mark (VmHWM) is reset after loading them
    (``/proc/self/clear_refs``), so the peak is the fit's, over the resident size before it."""
    with np.load(path) as f:
        X, Y, Xt = f["X"], f["Y"], f["Xt"]
    ours, theirs = sides(method, X, Y, Xt, a)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _status_kb("VmRSS")
    (ours if side == "mlbench" else theirs)()
    print(json.dumps({"peak_mb": (_status_kb("VmHWM") - before) / 1024.0}))


def _data_for(method, a):
    if method == "ada300":
        return data(a.dataset, rows=a.ada_rows, labels=a.ada_labels)
    return data(a.dataset)


def main():
    ap = _harness.parser(__doc__, repeats=1, warmup=0)
    ap.add_argument("--dataset", default="bibtex")
    ap.add_argument("--methods", default="pct,rfpct,ebrj48,eccj48,rfdtbr,ada300,cdn")
    ap.add_argument("--trees", type=int, default=10)
    ap.add_argument("--members", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--ada-rows", type=int, default=450)
    ap.add_argument("--ada-labels", type=int, default=40)
    ap.add_argument("--j48-labels", type=int, default=40)
    ap.add_argument("--peak", nargs=3, metavar=("METHOD", "SIDE", "NPZ"), help=argparse_hidden())
    ap.add_argument("--memory-only", action="store_true", help="peak memory only, no timing")
    a = ap.parse_args()
    if a.quick:
        a.dataset, a.trees, a.members, a.rounds, a.ada_rows = "emotions", 3, 1, 5, 100
    if a.peak:
        return peak(*a.peak, a)
    for method in a.methods.split(","):
        X, Y, Xt = _data_for(method, a)
        ours, theirs = sides(method, X, Y, Xt, a)
        print(f"\n{method} on {a.dataset}: X {X.shape}, L {Y.shape[1]}", flush=True)
        fns = {"mlbench": ours} if theirs is None else {"mlbench": ours, "scikit-learn": theirs}
        if not a.memory_only:
            timed = j48_sides(X, Y, a) if method == "j48" else fns
            _harness.compare_many(f"{method} fit", timed, **_harness.timing(a))
        tmp = tempfile.NamedTemporaryFile(suffix=".npz", delete=False)
        np.savez(tmp, X=X, Y=Y, Xt=Xt)
        tmp.close()
        for side in fns:
            args = [sys.executable, __file__, "--peak", method, side, tmp.name] + [
                f"--{k.replace('_', '-')}={v}" for k, v in vars(a).items()
                if k in ("dataset", "trees", "members", "rounds", "ada_rows", "ada_labels",
                         "j48_labels")]
            if a.quick:
                args.append("--quick")
            out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
            print(f"  peak memory {side:13s} {json.loads(out.splitlines()[-1])['peak_mb']:9.1f} MB",
                  flush=True)
        os.unlink(tmp.name)


def argparse_hidden():
    import argparse
    return argparse.SUPPRESS


if __name__ == "__main__":
    main()
