"""Benchmark of COCOA: fit time with the Cython tree builder against scikit-learn's trees, same run.

    MLBENCH_MIRROR=/work/shared/datasets .venv/bin/python benchmarks/bench_cocoa.py \
        [--datasets yeast] [--n-estimators 50] [--reference-estimators 5] [--n-couplings 10]

For each data set, on split 0 of the soshf protocol (50/50 holdout, the protocol's preprocessing
fitted on the training half): fits COCOA with ``backend="sklearn"`` (the reference: one
``DecisionTreeClassifier(criterion="entropy")`` per ensemble member) and ``backend="cython"``
(:mod:`mlbench._ext._cocoa`, the same trees grown from presorted columns) with
``--reference-estimators`` members per ensemble, so the ratio compares equal work, and checks that
both give the same test scores, thresholds and predictions (bit for bit).  Then it fits the
protocol's COCOA (``--n-estimators`` members, Cython only) and prints its fit and predict time.
Times include the per-label F-measure thresholds (scoring the training part with every tree).
Last, the same comparison for ``rf-cost`` (scikit-learn's Bagging over ``DecisionTreeClassifier``
against :class:`~mlbench.methods.transformation.fast_tree.BaggedEntropyForest`) with
``--forest-estimators`` trees per label.

``--forests rf-adasyn,rf-cost`` instead times those forests (the protocol's 50 trees, the first
``--labels`` labels) three ways, CPU seconds of fit in the same run: scikit-learn's Bagging over
``DecisionTreeClassifier`` (``backend="sklearn"``), scikit-learn's Bagging over ``EntropyTree``
(the previous implementation: columns sorted again for every tree) and ``BaggedEntropyForest``
(columns sorted once per forest, or once for all labels when X is not resampled); all three must
give the same scores::

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_cocoa.py \
        --datasets yeast,rcv1subset1 --forests rf-adasyn,rf-cost --labels 4
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.ensemble import BaggingClassifier

from mlbench.data.load import load_dataset
from mlbench.data.preprocess import Pipeline, take_rows
from mlbench.data.splits import make_splits
from mlbench.methods import registry
from mlbench.methods.transformation import imbalance
from mlbench.methods.transformation.fast_tree import EntropyTree
from mlbench.protocols import load_protocol


def first_split(name, protocol):
    """(train X, train Y, test X, test Y) of split 0 of ``name`` under ``protocol``."""
    ds = load_dataset(name)
    split = make_splits(ds, protocol.split, protocol=protocol.name, seed=protocol.seed)[0]
    pipe = Pipeline(protocol.preprocess).fit(take_rows(ds, split.training_part))
    test = pipe.transform(take_rows(ds, split.test))
    return pipe.train_.X, pipe.train_.Y, test.X, test.Y


def timed(X, Y, Xt, method="cocoa", **kw):
    t = time.perf_counter()
    model = registry.make(method, random_state=0, **kw).fit(X, Y)
    fit = time.perf_counter() - t
    t = time.perf_counter()
    scores = model.predict_proba(Xt)
    return model, scores, fit, time.perf_counter() - t


class _PreviousForest(BaggingClassifier):
    """Bagging over EntropyTree: each member sorts its own columns (the implementation before
    BaggedEntropyForest); ``presorted`` is ignored."""

    def fit(self, X, y, presorted=None):
        return super().fit(X, y)


def cpu_fit(X, Y, method, **kw):
    t = time.process_time()
    model = registry.make(method, random_state=0, **kw).fit(X, Y)
    return model, time.process_time() - t


def forests(name, X, Y, Xt, methods, labels):
    Y = Y[:, :labels]
    for method in methods:
        ref, t_ref = cpu_fit(X, Y, method, backend="sklearn")
        fast, t_fast = cpu_fit(X, Y, method)
        real = imbalance.paper_forest
        try:
            imbalance.paper_forest = lambda n_estimators, fraction, leaf, seed, backend: (
                _PreviousForest(EntropyTree(min_samples_leaf=leaf), n_estimators=n_estimators,
                                max_samples=fraction, max_features=fraction, bootstrap=False,
                                bootstrap_features=False, random_state=seed))
            prev, t_prev = cpu_fit(X, Y, method)
        finally:
            imbalance.paper_forest = real
        s = [m.predict_proba(Xt) for m in (ref, prev, fast)]
        same = all(np.array_equal(s[0], o) for o in s[1:]) and all(
            np.array_equal(ref.threshold_, m.threshold_) for m in (prev, fast))
        print(f"{name:11s} {method:9s} {X.shape[0]:5d} {X.shape[1]:5d} {Y.shape[1]:3d} "
              f"{t_ref:10.1f} {t_prev:10.1f} {t_fast:8.1f} {t_prev / t_fast:8.2f}x "
              f"{t_ref / t_fast:8.2f}x {str(same):>9s}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="yeast")
    ap.add_argument("--n-estimators", type=int, default=50)
    ap.add_argument("--reference-estimators", type=int, default=5)
    ap.add_argument("--n-couplings", type=int, default=10)
    ap.add_argument("--forest-estimators", type=int, default=10)
    ap.add_argument("--forests", default="", help="e.g. rf-adasyn,rf-cost: the forest timing")
    ap.add_argument("--labels", type=int, default=4, help="labels fitted by --forests")
    args = ap.parse_args()
    protocol = load_protocol("soshf")
    if args.forests:
        print(f"{'dataset':11s} {'method':9s} {'n':>5s} {'p':>5s} {'L':>3s} {'sklearn s':>10s} "
              f"{'before s':>10s} {'now s':>8s} {'vs before':>9s} {'vs sklearn':>9s} "
              f"{'identical':>9s}  (CPU seconds of fit)")
        for name in args.datasets.split(","):
            X, Y, Xt, _ = first_split(name, protocol)
            forests(name, X, Y, Xt, args.forests.split(","), args.labels)
        return

    print(f"{'dataset':9s} {'n':>5s} {'p':>5s} {'L':>3s} {'members':>7s} {'sklearn s':>9s} "
          f"{'cython s':>8s} {'ratio':>6s} {'identical':>9s} {'full fit s':>10s} {'predict s':>9s}")
    for name in args.datasets.split(","):
        X, Y, Xt, _ = first_split(name, protocol)
        for backend in ("sklearn", "cython"):  # warm-up: first-call imports and caches, untimed
            timed(X[:60], Y[:60], Xt[:5], backend=backend, n_estimators=1, n_couplings=1)
        kw = dict(n_estimators=args.reference_estimators, n_couplings=args.n_couplings)
        ref, s_ref, t_ref, _ = timed(X, Y, Xt, backend="sklearn", **kw)
        fast, s_fast, t_fast, _ = timed(X, Y, Xt, backend="cython", **kw)
        same = (np.array_equal(s_ref, s_fast) and np.array_equal(ref.threshold_, fast.threshold_)
                and np.array_equal(ref.predict(Xt), fast.predict(Xt)))
        _, _, t_full, t_pred = timed(X, Y, Xt, backend="cython", n_estimators=args.n_estimators,
                                     n_couplings=args.n_couplings)
        print(f"{name:9s} {X.shape[0]:5d} {X.shape[1]:5d} {Y.shape[1]:3d} "
              f"{args.reference_estimators:7d} {t_ref:9.1f} {t_fast:8.1f} {t_ref / t_fast:6.1f} "
              f"{str(same):>9s} {t_full:10.1f} {t_pred:9.2f}", flush=True)
        kw = dict(n_estimators=args.forest_estimators)
        ref, s_ref, t_ref, _ = timed(X, Y, Xt, "rf-cost", backend="sklearn", **kw)
        fast, s_fast, t_fast, _ = timed(X, Y, Xt, "rf-cost", backend="cython", **kw)
        same = (np.array_equal(s_ref, s_fast) and np.array_equal(ref.threshold_, fast.threshold_))
        print(f"{'':9s} rf-cost, {args.forest_estimators} trees per label: sklearn {t_ref:.1f} s, "
              f"cython {t_fast:.1f} s, ratio {t_ref / t_fast:.1f}, identical {same}", flush=True)


if __name__ == "__main__":
    main()
