"""Fit + predict CPU time and peak memory of the study's label-set methods (Bogatinovski et al.
2022: br, lp, rakel2, pst, eps, ssm) against scikit-learn / scikit-multilearn doing the
same algorithm with the same base learner.

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_study_sets.py \
        [--dataset bibtex] [--rows 600] [--methods br,lp,rakel2] [--C 8] [--gamma 0.0078125]

The first ``--rows`` rows (two thirds fit, the rest predicted), features min-max scaled as the
study protocol does.  The reference sides use scikit-learn's ``SVC(kernel="rbf")`` as mlbench
does: with Platt probabilities for ``br``, without them for ``lp`` and ``rakel2`` (their
predictions need none, and mlbench fits none there):

* ``br``: one scikit-learn ``SVC`` per label (labels constant in the fit part left out);
* ``lp``: scikit-multilearn's ``LabelPowerset``;
* ``rakel2``: with pruning 0 (no pruned sets, so the same algorithm), scikit-multilearn's
  ``MajorityVotingClassifier`` over ``LabelPowerset`` with mlbench's labelsets;
* ``pst``, ``eps``, ``ssm``, ``cc``, ``clr``, ``homer``, ``mbr``: no counterpart (measured alone).

The SVC methods (br, lp, rakel2, pst, cc, clr, homer, mbr) also run as ``per-fit kernel``: mlbench
with its shared Gram matrix turned off (``mlbench.methods.components.gram.MAX_BYTES = 0``), each
SVC computing its own kernel values as before that matrix existed; the line "same as per-fit
kernel" compares their outputs.  ``clr`` also runs as ``model per pair``: one scikit-learn SVC kept
per calibration and pair model, as before its models became one ``SupportSet``
(``mlbench.methods.components.gram``); ``lp``, ``rakel2`` and ``homer`` as ``libsvm predict``:
their label-powerset SVCs predicting through ``SVC.predict``, as before the one-against-one votes
were counted for blocks of rows (``mlbench.methods.components.ovo``).  ``--sparse`` keeps the
features CSR (the study protocol keeps a sparse dataset's), which is how the SVCs' support vectors
are stored.

CPU time goes through benchmarks/_harness.py (one thread, interleaved, repeated); peak memory is
the growth of the peak resident set of a fresh process that loads the data and runs one side,
measured as the runner measures a cell's (``mlbench.experiment.cell.PeakMemory``: the kernel's
counter reset, then VmHWM).  Before, it was the growth of ``ru_maxrss``, which a process started
by this script inherits from it: after the timing rounds, a side whose peak stayed below the
script's own printed 0 MB.
"""
from __future__ import annotations

import _harness

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import warnings

import contextlib

import numpy as np
import scipy.sparse as sp

from mlbench.data import load_dataset
from mlbench.experiment.cell import PeakMemory
from mlbench.methods import registry
from mlbench.methods.components import gram

SVC_METHODS = ("br", "lp", "rakel2", "pst", "cc", "clr", "homer", "mbr")

SEED = 0
# the reference sides' SVC(probability=True) warns on every fit under scikit-learn 1.9
warnings.filterwarnings("ignore", message="The `probability` parameter was deprecated")


def data(name, rows, sparse=False):
    ds = load_dataset(name)
    Y = np.asarray(ds.Y.toarray() if sp.issparse(ds.Y) else ds.Y, dtype=np.int8)[:rows]
    n = Y.shape[0] * 2 // 3
    if sparse:    # as the protocol's min_max step on CSR: only the division by the range
        from sklearn.utils.sparsefuncs import min_max_axis

        X = sp.csr_matrix(ds.X, dtype=np.float64)[:rows]
        lo, hi = min_max_axis(X[:n], axis=0)
        X = sp.csr_matrix(X @ sp.diags(1.0 / np.where(hi > lo, hi - lo, 1.0)))
    else:
        X = ds.X.toarray() if sp.issparse(ds.X) else np.asarray(ds.X, dtype=np.float64)
        X = X[:rows]
        lo, hi = X[:n].min(axis=0), X[:n].max(axis=0)
        X = (X - lo) / np.where(hi > lo, hi - lo, 1.0)
    keep = Y[:n].any(axis=0) & ~Y[:n].all(axis=0)
    return X[:n], Y[:n][:, keep], X[n:]


def sides(method, X, Y, Xt, a):
    """(mlbench fit + predict, reference fit + predict or None), functions of no arguments."""
    from sklearn.svm import SVC

    svc = dict(C=a.C, gamma=a.gamma)

    def ref_svc(probability=True):
        if probability:
            return SVC(probability=True, random_state=SEED, **svc)
        return SVC(**svc)

    if method == "br":
        def ours():
            return registry.make("br", random_state=SEED, **svc).fit(X, Y).predict(Xt)

        def theirs():
            return np.column_stack([ref_svc().fit(X, Y[:, l]).predict(Xt)
                                    for l in range(Y.shape[1])])
    elif method == "lp":
        from skmultilearn.problem_transform import LabelPowerset

        def ours():
            return registry.make("lp", random_state=SEED, **svc).fit(X, Y).predict(Xt)

        def theirs():
            return LabelPowerset(classifier=ref_svc(False),
                                 require_dense=[True, True]).fit(X, Y).predict(Xt)
    elif method == "rakel2":
        from skmultilearn.cluster import FixedLabelSpaceClusterer
        from skmultilearn.ensemble import MajorityVotingClassifier
        from skmultilearn.problem_transform import LabelPowerset

        def model():
            return registry.make("rakel2", random_state=SEED, pruning=0, **svc)

        labelsets = [list(s) for s in model().fit(X[:50], Y[:50]).labelsets_]  # same draw

        def ours():
            return model().fit(X, Y).predict(Xt)

        def theirs():
            return MajorityVotingClassifier(
                classifier=LabelPowerset(classifier=ref_svc(False), require_dense=[True, True]),
                clusterer=FixedLabelSpaceClusterer(clusters=labelsets),
                require_dense=[True, True]).fit(X, Y).predict(Xt)
    elif method in ("pst", "eps", "ssm", "cc", "clr", "homer", "mbr"):
        kw = svc if method in SVC_METHODS else {}
        kw = {**kw, "base": "svc"} if method in ("cc", "clr", "homer") else kw

        def ours():
            est = registry.make(method, random_state=SEED, **kw).fit(X, Y)
            return (est.predict_proba if hasattr(est, "predict_proba") else est.decision_function)(Xt)
        theirs = None
    else:
        raise SystemExit(f"unknown method {method!r}")
    return ours, theirs


@contextlib.contextmanager
def per_fit_kernel():
    """mlbench without its shared RBF Gram matrix: every SVC computes its own kernel values."""
    keep, gram.MAX_BYTES = gram.MAX_BYTES, 0
    try:
        yield
    finally:
        gram.MAX_BYTES = keep


def without_gram(fn):
    def run():
        with per_fit_kernel():
            return fn()
    return run


def model_per_pair(fn):
    """CLR keeping one scikit-learn SVC per calibration and pair model, as before its models
    became one SupportSet."""
    from mlbench.methods.transformation.clr import CalibratedLabelRanking

    def run():
        CalibratedLabelRanking._compact = False
        try:
            return fn()
        finally:
            CalibratedLabelRanking._compact = True
    return run


def libsvm_predict(fn):
    """The label-powerset models predicting with ``SVC.predict`` (libsvm, one row at a time), as
    before their votes were counted for blocks of rows (``mlbench.methods.components.ovo``)."""
    from mlbench.methods.components import ovo

    def run():
        keep, ovo.applies = ovo.applies, lambda est: False
        try:
            return fn()
        finally:
            ovo.applies = keep
    return run


def variants(method, ours):
    """mlbench's own earlier implementations of ``method``, by the side's label."""
    out = {}
    if method in SVC_METHODS:
        out["per-fit kernel"] = without_gram(ours)
    if method == "clr":
        out["model per pair"] = model_per_pair(ours)
    if method in ("lp", "rakel2", "homer"):
        out["libsvm predict"] = libsvm_predict(ours)
    return out


def peak(method, side, path, a):
    """Peak resident-set growth (MB) of one side in this fresh process."""
    with open(path, "rb") as f:
        X, Y, Xt = pickle.load(f)
    ours, theirs = sides(method, X, Y, Xt, a)
    with PeakMemory() as peak:
        {"mlbench": ours, **variants(method, ours)}.get(side, theirs)()
    print(json.dumps({"peak_mb": peak.mb}))


def main():
    ap = _harness.parser(__doc__, repeats=3, warmup=1)
    ap.add_argument("--dataset", default="bibtex")
    ap.add_argument("--rows", type=int, default=600)
    ap.add_argument("--methods", default="br,lp,rakel2,pst,eps,ssm,clr,homer,mbr")
    ap.add_argument("--C", type=float, default=8.0)
    ap.add_argument("--gamma", type=float, default=2.0 ** -7)
    ap.add_argument("--peak", nargs=3, metavar=("METHOD", "SIDE", "NPZ"), help=argparse.SUPPRESS)
    ap.add_argument("--memory-only", action="store_true", help="peak memory only, no timing")
    ap.add_argument("--sparse", action="store_true",
                    help="keep the features CSR, as the study protocol does with a sparse dataset")
    a = ap.parse_args()
    if a.quick:
        a.dataset, a.rows = "emotions", 150
    if a.peak:
        return peak(*a.peak, a)
    for method in a.methods.split(","):
        X, Y, Xt = data(a.dataset, a.rows, a.sparse)
        ours, theirs = sides(method, X, Y, Xt, a)
        print(f"\n{method} on {a.dataset}: X {X.shape}, L {Y.shape[1]}", flush=True)
        ref = "scikit-multilearn" if method in ("lp", "rakel2") else "scikit-learn"
        fns = {"mlbench": ours} if theirs is None else {"mlbench": ours, ref: theirs}
        fns.update(variants(method, ours))
        if not a.memory_only:
            out = _harness.compare_many(f"{method} fit+predict", fns, **_harness.timing(a))
            if theirs is not None:
                got = np.asarray(out.results["mlbench"])
                want = out.results[ref]
                want = want.toarray() if hasattr(want, "toarray") else np.asarray(want)
                print(f"   same outputs {np.mean(np.isclose(got, want)):.4%}"
                      + (" (a mean vote of exactly 1/2: RAkEL predicts the label, scikit-multilearn"
                         " rounds it to 0)" if method == "rakel2" else ""), flush=True)
            for variant in variants(method, ours):
                got, before = (np.asarray(out.results[k]) for k in ("mlbench", variant))
                print(f"   same as {variant}: largest difference "
                      f"{np.max(np.abs(got - before)):.3g}", flush=True)
        tmp = tempfile.NamedTemporaryFile(suffix=".pkl", delete=False)
        pickle.dump((X, Y, Xt), tmp)
        tmp.close()
        for side in fns:
            args = [sys.executable, __file__, "--peak", method, side, tmp.name,
                    f"--dataset={a.dataset}", f"--rows={a.rows}", f"--C={a.C}", f"--gamma={a.gamma}"]
            out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
            print(f"  peak memory {side:17s} {json.loads(out.splitlines()[-1])['peak_mb']:9.1f} MB",
                  flush=True)
        os.unlink(tmp.name)


if __name__ == "__main__":
    main()
