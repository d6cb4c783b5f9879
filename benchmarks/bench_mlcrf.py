"""Benchmark of mlcrf's pseudo-likelihood fit: the current fit (L-BFGS preconditioned by the
Hessian's diagonal, its two-loop recursion in the fused kernel ``mlbench/_ext/_lbfgs.pyx``, edge
terms per label over its positive rows, edge weights stored pair-major) against its previous
versions ("previous": ``mlcrf.py`` as of commit ``PREVIOUS_COMMIT``, read from git, whose edge
weights were feature-major; dense edge products over all pairs; the plain, unpreconditioned loop)
and scipy's L-BFGS-B on the dense objective (the obvious peer).

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_mlcrf.py [--datasets enron] [--C 0.01] [--max-iter 500]

For each dataset: the mc protocol's first 10-fold training part (its own split), preprocessed as
the protocol does (standardised with the part's own statistics; the rcv1 subsets keep their ten
most common labels and stay sparse), and one fit of the penalised pseudo-likelihood at ``--C``
from zero by each variant, all with the same stopping rules (L-BFGS-B's defaults) and iteration
cap.  Printed per variant: CPU seconds, iterations, whether a stopping rule was met, the final
objective, and the CPU ratio against the current fit.  A fit stopped by the cap ends at a higher
objective: its time is a lower bound of what convergence would take.

Each dataset starts with an untimed 3-iteration fit, so that no variant pays the process's
warm-up (measured: the first fit of a process took up to twice as long as the same fit repeated);
``--warmup`` (default 0 here) adds whole untimed fits of every variant.  Every time goes through
benchmarks/_harness.py: the variants interleaved and repeated equally (``--repeats``, default 3; 15
for ``--objective`` and ``--two-loop``), one thread, CPU and wall medians and their ratio.

``--objective``: instead, one objective-and-gradient evaluation at a random point (milliseconds),
current against previous, and whether the two give the same value and the same
gradient bit for bit (the previous one's edge part transposed to the current layout).

``--whole``: instead, the whole ``mlcrf`` fit of an mc cell (``C="cv"``: the internal 3-fold
walk over the C grid, then the final fit) on that training part: current; previous; and with the
dense products; whether they choose the same C, and how far apart their test-fold predictions and
held-out losses are (L-BFGS's dot products run over the parameters in another order when the
layout changes, so it takes a slightly different path to the same tolerance).

``--two-loop``: instead, one L-BFGS direction (ten stored pairs, the preconditioned form) at the
size of the dataset's parameter vector, by the kernel and by the NumPy recursion: milliseconds per
direction and their largest difference relative to the direction's largest entry.
"""
from __future__ import annotations

import subprocess
import types
from pathlib import Path
from unittest import mock

import _harness

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize

from mlbench.data import load_dataset
from mlbench.data.preprocess import Pipeline, take_rows
from mlbench.data.splits import make_splits
from mlbench.methods.probabilistic import _lbfgs, mlcrf
from mlbench.methods.probabilistic.mlcrf import (PairwiseCRF, fit_pseudo_likelihood, pair_index,
                                                 pseudo_loglik_and_grad, unpack, used_features)
from mlbench.protocols import load_protocol

#: the commit whose ``mlcrf.py`` is "previous": edge weights feature-major, before the pair-major
#: layout
PREVIOUS_COMMIT = "8608d31"
#: where the modules that the previous mlcrf.py imports are now
MOVED = {"mlbench.methods.probabilistic._logistic": "mlbench.methods.components.logistic"}


def previous_mlcrf():
    """``mlcrf.py`` as of ``PREVIOUS_COMMIT``, read from git and loaded as a module of its own (its
    registration skipped), or None where there is no git history."""
    root = Path(__file__).resolve().parent.parent
    try:
        src = subprocess.run(["git", "show", f"{PREVIOUS_COMMIT}:mlbench/methods/probabilistic/mlcrf.py"],
                             cwd=root, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        print(f"no git history with commit {PREVIOUS_COMMIT}: the previous implementation is left out")
        return None
    # modules that moved since that commit are read from where they are now
    for before, now in MOVED.items():
        src = src.replace(f"from {before} import", f"from {now} import")
    module = types.ModuleType("mlcrf_previous")
    with mock.patch("mlbench.methods.registry.register", lambda *a, **k: None):
        exec(compile(src, f"mlcrf.py@{PREVIOUS_COMMIT}", "exec"), module.__dict__)
    return module


def training_part(name, test=False):
    """The mc protocol's first training fold of ``name``, preprocessed as the protocol does (and
    its test fold, if ``test``)."""
    ds = load_dataset(name)
    mc = load_protocol("mc")
    split = make_splits(ds, mc.split, protocol=mc.name, seed=mc.seed)[0]
    pipe = Pipeline(mc.preprocess).fit(take_rows(ds, split.train))
    parts = [pipe.train_] + ([pipe.transform(take_rows(ds, split.test))] if test else [])
    out = []
    for part in parts:
        X = sp.csr_matrix(part.X) if sp.issparse(part.X) else np.asarray(part.X, dtype=float)
        out += [X, np.asarray(part.Y).astype(int)]
    return out


def lbfgsb(X, Y, C, max_iter):
    """scipy's L-BFGS-B on the same objective and parameters (the used features only)."""
    L = Y.shape[1]
    I, J = pair_index(L)
    Xu = X[:, used_features(X)]
    theta0 = np.zeros(Xu.shape[1] * (L + len(I)) + L + len(I))
    args = (Xu, Y, I, J, np.full(L, 1.0 / C), np.full(len(I), 1.0 / C), 1.0)
    res = minimize(pseudo_loglik_and_grad, theta0, args=args, jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iter})
    return res.fun, res.nit, res.success


def run(name, C, max_iter, timing, skip=()):
    X, Y = training_part(name)
    prev = previous_mlcrf()

    def ours(precondition, edge_blocks, fit=fit_pseudo_likelihood):
        theta, res = fit(X, Y, C, max_iter=max_iter, precondition=precondition, edge_blocks=edge_blocks)
        return res.fun, res.nit, res.success

    fit_pseudo_likelihood(X, Y, C, max_iter=3)       # untimed: no variant pays the warm-up
    variants = {"current": lambda: ours(True, True)}
    if prev is not None:
        variants["previous"] = lambda: ours(True, True, prev.fit_pseudo_likelihood)
    variants.update({"dense edge products": lambda: ours(True, False),
                     "plain loop": lambda: ours(False, False),
                     "scipy L-BFGS-B": lambda: lbfgsb(X, Y, C, max_iter)})
    card = Y.sum(axis=1).mean()
    out = _harness.compare_many(
        f"{name}: {X.shape[0]} rows x {X.shape[1]} features{' (sparse)' if sp.issparse(X) else ''}, "
        f"{Y.shape[1]} labels ({card:.2f} per row), C = {C}, cap {max_iter}: one fit",
        {k: v for k, v in variants.items() if k not in skip}, **timing)
    for label, (f, nit, ok) in out.results.items():
        print(f"   {label:19s} {nit:4d} iterations  {'converged' if ok else 'capped   '}  "
              f"objective {f:.4f}")


def run_whole(name, timing, skip=()):
    X, Y, Xt, Yt = training_part(name, test=True)
    prev = previous_mlcrf()
    PairwiseCRF(C=1.0, max_iter=3).fit(X, Y)         # untimed: no variant pays the warm-up

    def dense():
        with mock.patch.object(mlcrf, "label_blocks", lambda *a: None):
            return PairwiseCRF(random_state=0).fit(X, Y)

    variants = {"current": lambda: PairwiseCRF(random_state=0).fit(X, Y)}
    if prev is not None:
        variants["previous"] = lambda: prev.PairwiseCRF(random_state=0).fit(X, Y)
    variants["dense edge products"] = dense
    out = _harness.compare_many(
        f"{name}: whole mlcrf fit (C='cv'), {X.shape[0]} rows x {X.shape[1]} features, "
        f"{Y.shape[1]} labels", {k: v for k, v in variants.items() if k not in skip}, **timing)
    P0 = out.results["current"].predict(Xt)
    print(f"   predictions of the {Xt.shape[0]}-row test fold:")
    for label, m in out.results.items():
        info, P = m.fit_info_, m.predict(Xt)
        losses = ", ".join(f"{v:.4f}" for v in info["cv_loss"])
        print(f"   {label:19s} C = {info['C']:g}  held-out losses [{losses}]  final fit "
              f"{info['lbfgs_iterations']} iterations  test label flips vs current "
              f"{int((np.asarray(P) != np.asarray(P0)).sum())} of {P0.size}")


def run_objective(name, timing):
    X, Y = training_part(name)
    prev = previous_mlcrf()
    if prev is None:
        return
    L = Y.shape[1]
    I, J = pair_index(L)
    X = X[:, used_features(X)]
    m, P = X.shape[1], len(I)
    theta = np.random.RandomState(0).normal(scale=0.01, size=m * L + L + m * P + P)
    Wt, b, U, c = unpack(theta, L, m)
    theta_prev = np.concatenate([Wt.ravel(), b, U.T.ravel(), c])   # the previous layout
    reg = (np.full(L, 100.0), np.full(P, 100.0), 1.0)
    args = {label: (X, Y, I, J, *reg, module.label_blocks(X, Y, I, J))
            for label, module in (("current", mlcrf), ("previous", prev))}
    out = _harness.compare(
        f"{name}: objective and gradient over {theta.size:,} parameters "
        f"({'label blocks' if args['current'][-1] is not None else 'dense edge products'})",
        lambda: mlcrf.pseudo_loglik_and_grad(theta, *args["current"]),
        lambda: prev.pseudo_loglik_and_grad(theta_prev, *args["previous"]),
        labels=("current", "previous"), **timing)
    (f_cur, g_cur), (f_prev, g_prev) = out.results["current"], out.results["previous"]
    gW, gb, gU, gc = prev.unpack(g_prev, L, m)
    g_prev = np.concatenate([gW.ravel(), gb, gU.T.ravel(), gc])
    same = f_cur == f_prev and np.array_equal(g_cur, g_prev)
    print(f"   bit-identical: {same}")


def run_two_loop(name, timing, memory=10):
    X, Y = training_part(name)
    L = Y.shape[1]
    n = len(used_features(X)) * (L + L * (L - 1) // 2) + L + L * (L - 1) // 2
    rng = np.random.RandomState(0)
    S = rng.randn(memory + 1, n)
    Yd = S * rng.rand(memory + 1, n) + 0.1 * rng.randn(memory + 1, n)
    sy = np.einsum("ij,ij->i", S, Yd)
    order = np.arange(1, memory + 1, dtype=np.intp)            # a ring that has wrapped once
    g, d_inv = rng.randn(n), rng.rand(n) + 0.5
    out = _harness.compare(
        f"{name}: one L-BFGS direction over {n:,} parameters, {memory} pairs",
        lambda: _lbfgs.two_loop(g, S, Yd, sy, order, d_inv, np.empty(n)),
        lambda: _lbfgs.two_loop_numpy(g, S, Yd, sy, order, d_inv, np.empty(n)),
        labels=("kernel", "numpy"), **timing)
    d_k, d_n = out.results["kernel"], out.results["numpy"]
    print(f"   largest relative difference {np.abs(d_k - d_n).max() / np.abs(d_n).max():.1e}")


if __name__ == "__main__":
    ap = _harness.parser(__doc__, repeats=None, warmup=0)
    ap.add_argument("--datasets", default="enron")
    ap.add_argument("--C", type=float, default=0.01)
    ap.add_argument("--max-iter", type=int, default=500)
    ap.add_argument("--skip", default="", help="comma list of variants to leave out, e.g. 'plain loop'")
    ap.add_argument("--whole", action="store_true", help="time the whole mlcrf fit of a cell instead")
    ap.add_argument("--two-loop", action="store_true", help="time one L-BFGS direction, kernel against NumPy")
    ap.add_argument("--objective", action="store_true", help="time one objective and gradient, against previous")
    a = ap.parse_args()
    if a.repeats is None:
        a.repeats = 15 if a.two_loop or a.objective else 3
    if a.quick:
        a.datasets, a.max_iter = "emotions", 5
    timing = _harness.timing(a)
    for name in a.datasets.split(","):
        skip = [s.strip() for s in a.skip.split(",") if s.strip()]
        if a.two_loop:
            run_two_loop(name, timing)
        elif a.objective:
            run_objective(name, timing)
        elif a.whole:
            run_whole(name, timing, skip=skip)
        else:
            run(name, a.C, a.max_iter, timing, skip=skip)
