"""Benchmark of MLFE's step 1 (each training row rebuilt from all the others by the lasso).

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_mlfe.py [--datasets corel16k-s1,enron] [--rows 64]

For each dataset the dictionary is the first half of the rows (the size of an MLDF training set),
standardised as MLFE does; the first ``--rows`` of them are solved by

* ``now``: :func:`mlbench.methods.embedding.mlfe.sparse_reconstruction` (the exact LARS kernel
  :mod:`mlbench._ext._lars`, its optimality check, coordinate descent for the rows it hands back);
* ``before``: what MLFE did until this kernel, one scikit-learn ``LassoLars`` per row with its
  default ``max_iter=500``, coordinate descent where it warned;
* ``sklearn``: ``LassoLars`` without the step cap, warnings ignored (the obvious peer).

Printed: CPU milliseconds per row and the ratios, then for each implementation how many rows break
the lasso's optimality conditions (``|z_j . r_i| <= lam_i``, ``= lam_i`` on the support, 1e-6
relative): the 500-step cap stops rows short of ``lam_i`` without a warning.

``--msvr``: step 3 instead, on the first ``--rows`` rows (default 2000), over the protocol's whole
tuning grid as MLFE runs it: :func:`msvr` (two triangular solves with the Cholesky factor of
``K + I / beta1`` per step; the factors included) against the two forms before it: ``inverse``, one
product with the dense ``(K + I / beta1)^-1`` per step (the inverses by Cholesky and ``potri``,
included), and ``eigen``, B kept in K's eigenbasis, two products with Q per step (the
eigendecomposition included).  Printed: CPU seconds, ratios, steps, and against each earlier form
the largest relative difference of the objectives and how many outputs change sign over the 60
solutions.

Every time goes through benchmarks/_harness.py (the sides interleaved and repeated equally after a
warm-up, one thread; CPU and wall medians and their ratio).
"""
from __future__ import annotations

import warnings

import _harness

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LassoLars

from mlbench.data import load_dataset
from mlbench.methods.embedding import mlfe
from mlbench.methods.embedding.mlfe import (LAMBDA_RATIO, _lasso_cd, lasso_kkt_violations,
                                            sparse_reconstruction)


def _msvr_before(K, U, beta1, beta2, beta3, eps=1e-3, tol=1e-5, max_iter=500, start=None,
                 eig=None):
    """msvr as it was before the dense inverse (``eigen`` of ``--msvr``): B kept in K's eigenbasis,
    two products with Q per step."""
    m, q = U.shape
    lam, Q = eig
    inv = (1.0 / (np.maximum(lam, 0.0) + 1.0 / beta1))[:, None]
    lam = lam[:, None]
    c = Q.sum(axis=0)
    Ht1 = inv[:, 0] * c
    S = np.sign(U)
    Z = mlfe._rank_weights(S)
    if start is None:
        Bt, b = np.zeros((m, q)), U.mean(axis=0)
    else:
        Bt, b = Q.T @ start[0], start[1]
    KB = Q @ (lam * Bt)
    quad = float(np.sum(lam * Bt * Bt))
    value, r = mlfe._objective(U, S, Z, KB + b, quad, beta1, beta2, beta3, eps)
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        P = KB + b
        d = np.where(r > eps, beta1 * (r - eps) / np.where(r > 0, r, 1.0), 0.0)
        G = beta2 * S * (S * P < 0) + beta3 * Z
        HRt = inv * (Q.T @ (P + (d[:, None] / beta1) * (U - P) + G / beta1))
        b_new = (c @ HRt) / (c @ Ht1)
        step = HRt - np.outer(Ht1, b_new) - Bt
        K_step = Q @ (lam * step)
        q1, q2 = float(np.sum(lam * Bt * step)), float(np.sum(lam * step * step))
        eta = 1.0
        while True:
            b_try, KB_try = b + eta * (b_new - b), KB + eta * K_step
            quad_try = quad + 2.0 * eta * q1 + eta * eta * q2
            new_value, new_r = mlfe._objective(U, S, Z, KB_try + b_try, quad_try, beta1, beta2,
                                               beta3, eps)
            if new_value <= value or eta < 1e-10:
                break
            eta /= 2.0
        if new_value > value:
            break
        decrease = value - new_value
        Bt, b, KB, quad, value, r = Bt + eta * step, b_try, KB_try, quad_try, new_value, new_r
        if decrease <= tol * max(abs(value), 1e-12):
            break
    return Q @ Bt, b, n_iter


def _inverse(part, beta1, cache):
    """The dense ``(K + I / beta1)^-1`` as MLFE formed it before the Cholesky solves (``potrf`` +
    ``potri``), kept per beta1 like the factors."""
    if beta1 not in cache:
        A = part.K.copy()
        A[np.diag_indices(len(A))] += 1.0 / beta1
        c, info = la.lapack.dpotrf(A, lower=True, overwrite_a=True)
        c, info = la.lapack.dpotri(c, lower=True, overwrite_c=True)
        lower = np.tril(c)
        cache[beta1] = lower + np.tril(lower, -1).T
    return cache[beta1]


def bench_msvr(name, n_rows, timing):
    """The protocol's whole tuning grid (60 triples, beta1 fastest, each solve warm-started from
    the previous one, as MLFE.fit runs it) on one part: now (the Cholesky factors included)
    against the dense inverses (their computation included) and K's eigenbasis (the
    eigendecomposition included)."""
    ds = load_dataset(name)
    X = sp.csr_matrix(ds.X, dtype=float)[:n_rows]
    Y = ds.Y[:n_rows]
    Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y, dtype=float)
    Xd = X.toarray()
    mu, sd = Xd.mean(axis=0), Xd.std(axis=0)
    sd[sd == 0] = 1.0
    part = mlfe._Part(X, 2.0 * Y - 1, 1.0, 2.0, mu, sd)  # as MLFE.fit builds it (sparse step 1)
    grid = mlfe.MLFE()._check_params()
    distinct = len({g[0] for g in grid})

    def run(form):
        out, start, inverses = [], None, {}
        eig = la.eigh(part.K) if form == "eigen" else None
        for betas in grid:
            if form == "now":
                B, b, n = part.msvr(betas, distinct, start=start)
            elif form == "inverse":
                H = _inverse(part, betas[0], inverses)
                B, b, n = mlfe._mm_steps(part.K, part.U, *betas, 1e-3, 1e-5, 500, start,
                                         lambda R: H @ R)
            else:
                B, b, n = _msvr_before(part.K, part.U, *betas, start=start, eig=eig)
            start = (B, b)
            out.append((B, b, n))
        return out

    out = _harness.compare_many(
        f"{name} msvr, {X.shape[0]} rows x {Y.shape[1]} labels, the {len(grid)}-triple grid",
        {form: (lambda f=form: run(f)) for form in ("now", "inverse", "eigen")}, **timing)
    new = out.results["now"]
    for form in ("inverse", "eigen"):
        old = out.results[form]
        diff, flips = 0.0, 0
        for betas, (B0, b0, _), (B1, b1, _) in zip(grid, old, new):
            v0 = mlfe.msvr_objective(part.K, part.U, B0, b0, *betas, 1e-3)[0]
            v1 = mlfe.msvr_objective(part.K, part.U, B1, b1, *betas, 1e-3)[0]
            diff = max(diff, abs(v1 - v0) / abs(v0))
            flips += int((np.sign(part.K @ B0 + b0) != np.sign(part.K @ B1 + b1)).sum())
        print(f"   {form}: {sum(n for _, _, n in old)} steps, largest relative objective "
              f"difference {diff:.1e}, {flips} sign flips")
    print(f"   now: {sum(n for _, _, n in new)} steps", flush=True)


def _sklearn_rows(Z, lams, rows, cap, fallback):
    m, d = Z.shape
    W = np.zeros((m, m))
    for i in rows:
        others = np.delete(np.arange(m), i)
        with warnings.catch_warnings():
            warnings.simplefilter("error" if fallback else "ignore", ConvergenceWarning)
            try:
                W[i, others] = LassoLars(alpha=lams[i] / d, fit_intercept=False,
                                         max_iter=cap).fit(Z[others].T, Z[i]).coef_
            except (ValueError, ConvergenceWarning, FloatingPointError, np.linalg.LinAlgError):
                if not fallback:
                    raise
                W[i, others] = _lasso_cd(Z[others].T, Z[i], lams[i])
    return W


def bench(name, n_rows, timing):
    ds = load_dataset(name)
    X = sp.csr_matrix(ds.X, dtype=float)
    X = X[: X.shape[0] // 2]
    m, d = X.shape
    Xd = X.toarray()
    mu, sd = Xd.mean(axis=0), Xd.std(axis=0)
    sd[sd == 0] = 1.0
    Z = (Xd - mu) / sd
    A = np.abs(Z @ Z.T)
    np.fill_diagonal(A, 0.0)
    lams = np.zeros(m)
    rows = np.arange(min(n_rows, m))
    lams[rows] = LAMBDA_RATIO * A.max(axis=1)[rows]
    out = _harness.compare_many(
        f"{name} step 1, dictionary {m} x {d}, {len(rows)} rows",
        {"now": lambda: sparse_reconstruction(X, mean=mu, scale=sd, rows=rows),
         "before": lambda: _sklearn_rows(Z, lams, rows, 500, True),
         "sklearn": lambda: _sklearn_rows(Z, lams, rows, 100000, False)}, **timing)
    bad = {k: int(lasso_kkt_violations(Z, W, lams)[rows].sum()) for k, W in out.results.items()}
    print(f"   rows breaking the lasso's optimality conditions: now {bad['now']}, before "
          f"{bad['before']}, sklearn {bad['sklearn']}", flush=True)


def main():
    ap = _harness.parser(__doc__, repeats=3)
    ap.add_argument("--datasets", default="cal500,yeast,scene,image,enron,corel16k-s1")
    ap.add_argument("--rows", type=int, default=None)
    ap.add_argument("--msvr", action="store_true", help="time step 3 instead of step 1")
    args = ap.parse_args()
    timing = _harness.timing(args)
    if args.quick:
        args.datasets, args.rows = "emotions", 8
    for name in filter(None, args.datasets.split(",")):
        if args.msvr:
            bench_msvr(name, args.rows or 2000, timing)
        else:
            bench(name, args.rows or 64, timing)


if __name__ == "__main__":
    main()
