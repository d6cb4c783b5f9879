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
Fit times include the per-label F-measure thresholds (scoring the training part with every tree).
Last, the same comparison for ``rf-cost`` (scikit-learn's Bagging over ``DecisionTreeClassifier``
against :class:`~mlbench.methods.components.fast_tree.BaggedEntropyForest`) with
``--forest-estimators`` trees per label.

``--forests rf-adasyn,rf-cost`` instead times those forests (the protocol's 50 trees, the first
``--labels`` labels) three ways, CPU seconds of fit in the same run: scikit-learn's Bagging over
``DecisionTreeClassifier`` (``backend="sklearn"``), scikit-learn's Bagging over ``EntropyTree``
(the previous implementation: columns sorted again for every tree) and ``BaggedEntropyForest``
(columns sorted once per forest, or once for all labels when X is not resampled); all three must
give the same scores::

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_cocoa.py \
        --datasets yeast,rcv1subset1 --forests rf-adasyn,rf-cost --labels 4

Every time goes through benchmarks/_harness.py (the sides interleaved and repeated equally after a
warm-up, one thread; CPU and wall medians and their ratio).
"""
from __future__ import annotations

from unittest import mock

import _harness

import numpy as np
from sklearn.ensemble import BaggingClassifier

from mlbench.data.load import load_dataset
from mlbench.data.preprocess import Pipeline, take_rows
from mlbench.data.splits import make_splits
from mlbench.methods import registry
from mlbench.methods.transformation import imbalance
from mlbench.methods.components.fast_tree import EntropyTree
from mlbench.protocols import load_protocol


def first_split(name, protocol):
    """(train X, train Y, test X, test Y) of split 0 of ``name`` under ``protocol``."""
    ds = load_dataset(name)
    split = make_splits(ds, protocol.split, protocol=protocol.name, seed=protocol.seed)[0]
    pipe = Pipeline(protocol.preprocess).fit(take_rows(ds, split.training_part))
    test = pipe.transform(take_rows(ds, split.test))
    return pipe.train_.X, pipe.train_.Y, test.X, test.Y


def fitted(X, Y, method="cocoa", **kw):
    return registry.make(method, random_state=0, **kw).fit(X, Y)


class _PreviousForest(BaggingClassifier):
    """Bagging over EntropyTree: each member sorts its own columns (the implementation before
    BaggedEntropyForest); ``presorted`` is ignored."""

    def fit(self, X, y, presorted=None):
        return super().fit(X, y)


def _previous_forest(n_estimators, fraction, leaf, seed, backend):
    return _PreviousForest(EntropyTree(min_samples_leaf=leaf), n_estimators=n_estimators,
                           max_samples=fraction, max_features=fraction, bootstrap=False,
                           bootstrap_features=False, random_state=seed)


def forests(name, X, Y, Xt, methods, labels, timing):
    Y = Y[:, :labels]
    for method in methods:
        def previous(method=method):
            with mock.patch.object(imbalance, "paper_forest", _previous_forest):
                return fitted(X, Y, method)

        out = _harness.compare_many(
            f"{name} {method} ({X.shape[0]} x {X.shape[1]}, {Y.shape[1]} labels): fit",
            {"now": lambda method=method: fitted(X, Y, method), "before": previous,
             "sklearn": lambda method=method: fitted(X, Y, method, backend="sklearn")}, **timing)
        ref, prev, fast = (out.results[k] for k in ("sklearn", "before", "now"))
        s = [m.predict_proba(Xt) for m in (ref, prev, fast)]
        same = all(np.array_equal(s[0], o) for o in s[1:]) and all(
            np.array_equal(ref.threshold_, m.threshold_) for m in (prev, fast))
        print(f"   identical {same}", flush=True)


def main():
    ap = _harness.parser(__doc__, repeats=3)
    ap.add_argument("--datasets", default="yeast")
    ap.add_argument("--n-estimators", type=int, default=50)
    ap.add_argument("--reference-estimators", type=int, default=5)
    ap.add_argument("--n-couplings", type=int, default=10)
    ap.add_argument("--forest-estimators", type=int, default=10)
    ap.add_argument("--forests", default="", help="e.g. rf-adasyn,rf-cost: the forest timing")
    ap.add_argument("--labels", type=int, default=4, help="labels fitted by --forests")
    args = ap.parse_args()
    timing = _harness.timing(args)
    if args.quick:
        args.datasets, args.n_estimators, args.reference_estimators = "emotions", 2, 1
        args.n_couplings, args.forest_estimators, args.labels = 2, 2, 2
    protocol = load_protocol("soshf")
    if args.forests:
        for name in args.datasets.split(","):
            X, Y, Xt, _ = first_split(name, protocol)
            forests(name, X, Y, Xt, args.forests.split(","), args.labels, timing)
        return

    for name in args.datasets.split(","):
        X, Y, Xt, _ = first_split(name, protocol)
        kw = dict(n_estimators=args.reference_estimators, n_couplings=args.n_couplings)
        out = _harness.compare(
            f"{name} ({X.shape[0]} x {X.shape[1]}, L={Y.shape[1]}) cocoa, "
            f"{args.reference_estimators} members: fit",
            lambda: fitted(X, Y, backend="cython", **kw),
            lambda: fitted(X, Y, backend="sklearn", **kw), labels=("cython", "sklearn"), **timing)
        ref, fast = out.results["sklearn"], out.results["cython"]
        same = (np.array_equal(ref.predict_proba(Xt), fast.predict_proba(Xt))
                and np.array_equal(ref.threshold_, fast.threshold_)
                and np.array_equal(ref.predict(Xt), fast.predict(Xt)))
        print(f"   identical {same}", flush=True)
        full = _harness.measure(
            f"{name} cocoa, the protocol's {args.n_estimators} members: fit",
            lambda: fitted(X, Y, backend="cython", n_estimators=args.n_estimators,
                           n_couplings=args.n_couplings), label="cython", **timing)
        model = full.results["cython"]
        _harness.measure(f"{name} cocoa, {args.n_estimators} members: predict scores",
                         lambda: model.predict_proba(Xt), label="cython", **timing)
        kw = dict(n_estimators=args.forest_estimators)
        out = _harness.compare(
            f"{name} rf-cost, {args.forest_estimators} trees per label: fit",
            lambda: fitted(X, Y, "rf-cost", backend="cython", **kw),
            lambda: fitted(X, Y, "rf-cost", backend="sklearn", **kw),
            labels=("cython", "sklearn"), **timing)
        ref, fast = out.results["sklearn"], out.results["cython"]
        same = (np.array_equal(ref.predict_proba(Xt), fast.predict_proba(Xt))
                and np.array_equal(ref.threshold_, fast.threshold_))
        print(f"   identical {same}", flush=True)


if __name__ == "__main__":
    main()
