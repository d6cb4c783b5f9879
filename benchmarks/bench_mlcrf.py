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
warm-up (measured: the first fit of a process took up to twice as long as the same fit repeated).

``--objective``: instead, one objective-and-gradient evaluation at a random point (median of 15,
milliseconds), current against previous, and whether the two give the same value and the same
gradient bit for bit (the previous one's edge part transposed to the current layout).

``--whole``: instead, the whole ``mlcrf`` fit of an mc cell (``C="cv"``: the internal 3-fold
walk over the C grid, then the final fit) on that training part: current; previous; and with the
dense products; whether they choose the same C, and how far apart their test-fold predictions and
held-out losses are (L-BFGS's dot products run over the parameters in another order when the
layout changes, so it takes a slightly different path to the same tolerance).

``--two-loop``: instead, one L-BFGS direction (ten stored pairs, the preconditioned form) at the
size of the dataset's parameter vector, by the kernel and by the NumPy recursion: milliseconds per
direction (median of 15) and their largest difference relative to the direction's largest entry.
"""
from __future__ import annotations

import argparse
import subprocess
import time
import types
from pathlib import Path
from unittest import mock

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


def run(name, C, max_iter, skip=()):
    X, Y = training_part(name)
    rows = {}
    prev = previous_mlcrf()

    def ours(precondition, edge_blocks, fit=fit_pseudo_likelihood):
        theta, res = fit(X, Y, C, max_iter=max_iter, precondition=precondition, edge_blocks=edge_blocks)
        return res.fun, res.nit, res.success

    fit_pseudo_likelihood(X, Y, C, max_iter=3)       # untimed: no variant pays the warm-up
    variants = [("current", lambda: ours(True, True))]
    if prev is not None:
        variants.append(("previous", lambda: ours(True, True, prev.fit_pseudo_likelihood)))
    variants += [("dense edge products", lambda: ours(True, False)),
                 ("plain loop", lambda: ours(False, False)),
                 ("scipy L-BFGS-B", lambda: lbfgsb(X, Y, C, max_iter))]
    for label, fn in variants:
        if label in skip:
            continue
        t = time.process_time()
        f, nit, ok = fn()
        rows[label] = (time.process_time() - t, nit, ok, f)
    base = rows["current"][0]
    card = Y.sum(axis=1).mean()
    print(f"{name}: {X.shape[0]} rows x {X.shape[1]} features{' (sparse)' if sp.issparse(X) else ''}, "
          f"{Y.shape[1]} labels ({card:.2f} per row), C = {C}, cap {max_iter}")
    for label, (cpu, nit, ok, f) in rows.items():
        print(f"  {label:19s} {cpu:8.2f} CPU s  {nit:4d} iterations  {'converged' if ok else 'capped   '}  "
              f"objective {f:.4f}  CPU ratio {cpu / base:5.2f}x")


def run_whole(name, skip=()):
    X, Y, Xt, Yt = training_part(name, test=True)
    blocks = mlcrf.label_blocks
    prev = previous_mlcrf()
    PairwiseCRF(C=1.0, max_iter=3).fit(X, Y)         # untimed: no variant pays the warm-up
    out = {}
    for label in ("current", "previous", "dense edge products"):
        if label in skip or (label == "previous" and prev is None):
            continue
        if label == "dense edge products":
            mlcrf.label_blocks = lambda *a: None
        try:
            model = prev.PairwiseCRF if label == "previous" else PairwiseCRF
            t = time.process_time()
            m = model(random_state=0).fit(X, Y)
            cpu = time.process_time() - t
        finally:
            mlcrf.label_blocks = blocks
        out[label] = (cpu, m.fit_info_, m.predict(Xt))
    base, _, P0 = out["current"]
    print(f"{name}: whole mlcrf fit (C='cv'), {X.shape[0]} rows x {X.shape[1]} features, {Y.shape[1]} labels; "
          f"predictions of the {Xt.shape[0]}-row test fold")
    for label, (cpu, info, P) in out.items():
        losses = ", ".join(f"{v:.4f}" for v in info["cv_loss"])
        print(f"  {label:19s} {cpu:8.2f} CPU s  C = {info['C']:g}  held-out losses [{losses}]  "
              f"final fit {info['lbfgs_iterations']} iterations  test label flips vs current "
              f"{int((np.asarray(P) != np.asarray(P0)).sum())} of {P0.size}  CPU ratio {cpu / base:5.2f}x")


def run_objective(name, reps=15):
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
    out = {}
    for label, module, th in (("current", mlcrf, theta), ("previous", prev, theta_prev)):
        args = (X, Y, I, J, *reg, module.label_blocks(X, Y, I, J))
        module.pseudo_loglik_and_grad(th, *args)
        times = []
        for _ in range(reps):
            t = time.process_time()
            f, g = module.pseudo_loglik_and_grad(th, *args)
            times.append(time.process_time() - t)
        out[label] = (1e3 * float(np.median(times)), f, g)
    gW, gb, gU, gc = prev.unpack(out["previous"][2], L, m)
    g_prev = np.concatenate([gW.ravel(), gb, gU.T.ravel(), gc])
    same = out["current"][1] == out["previous"][1] and np.array_equal(out["current"][2], g_prev)
    print(f"{name}: objective and gradient over {theta.size:,} parameters "
          f"({'label blocks' if args[-1] is not None else 'dense edge products'}): current "
          f"{out['current'][0]:.1f} ms, previous {out['previous'][0]:.1f} ms, ratio "
          f"{out['previous'][0] / out['current'][0]:.2f}x, bit-identical: {same}")


def run_two_loop(name, memory=10, reps=15):
    X, Y = training_part(name)
    L = Y.shape[1]
    n = len(used_features(X)) * (L + L * (L - 1) // 2) + L + L * (L - 1) // 2
    rng = np.random.RandomState(0)
    S = rng.randn(memory + 1, n)
    Yd = S * rng.rand(memory + 1, n) + 0.1 * rng.randn(memory + 1, n)
    sy = np.einsum("ij,ij->i", S, Yd)
    order = np.arange(1, memory + 1, dtype=np.intp)            # a ring that has wrapped once
    g, d_inv = rng.randn(n), rng.rand(n) + 0.5
    out = {}
    for label, fn in (("kernel", _lbfgs.two_loop), ("numpy", _lbfgs.two_loop_numpy)):
        times = []
        for _ in range(reps):
            t = time.process_time()
            d = fn(g, S, Yd, sy, order, d_inv, np.empty(n))
            times.append(time.process_time() - t)
        out[label] = (1e3 * float(np.median(times)), d)
    diff = np.abs(out["kernel"][1] - out["numpy"][1]).max() / np.abs(out["numpy"][1]).max()
    print(f"{name}: one direction over {n:,} parameters, {memory} pairs: kernel {out['kernel'][0]:.1f} ms, "
          f"numpy {out['numpy'][0]:.1f} ms, ratio {out['numpy'][0] / out['kernel'][0]:.2f}x, "
          f"largest relative difference {diff:.1e}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="enron")
    ap.add_argument("--C", type=float, default=0.01)
    ap.add_argument("--max-iter", type=int, default=500)
    ap.add_argument("--skip", default="", help="comma list of variants to leave out, e.g. 'plain loop'")
    ap.add_argument("--whole", action="store_true", help="time the whole mlcrf fit of a cell instead")
    ap.add_argument("--two-loop", action="store_true", help="time one L-BFGS direction, kernel against NumPy")
    ap.add_argument("--objective", action="store_true", help="time one objective and gradient, against previous")
    a = ap.parse_args()
    for name in a.datasets.split(","):
        skip = [s.strip() for s in a.skip.split(",") if s.strip()]
        if a.two_loop:
            run_two_loop(name)
        elif a.objective:
            run_objective(name)
        elif a.whole:
            run_whole(name, skip=skip)
        else:
            run(name, a.C, a.max_iter, skip=skip)
