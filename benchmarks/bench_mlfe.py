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
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LassoLars

from mlbench.data import load_dataset
from mlbench.methods.embedding.mlfe import (LAMBDA_RATIO, _lasso_cd, lasso_kkt_violations,
                                            sparse_reconstruction)


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


def cpu(fn):
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


def bench(name, n_rows):
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
    now, t_now = cpu(lambda: sparse_reconstruction(X, mean=mu, scale=sd, rows=rows))
    before, t_before = cpu(lambda: _sklearn_rows(Z, lams, rows, 500, True))
    exact, t_exact = cpu(lambda: _sklearn_rows(Z, lams, rows, 100000, False))
    bad = {k: int(lasso_kkt_violations(Z, W, lams)[rows].sum())
           for k, W in (("now", now), ("before", before), ("sklearn", exact))}
    n = len(rows)
    print(f"{name:12s} {m:6d} x {d:5d} {n:5d} {1000 * t_now / n:8.1f} {1000 * t_before / n:8.1f} "
          f"{1000 * t_exact / n:8.1f} {t_before / t_now:8.1f}x {t_exact / t_now:8.1f}x "
          f"{bad['now']:6d} {bad['before']:6d} {bad['sklearn']:6d}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="cal500,yeast,scene,image,enron,corel16k-s1")
    ap.add_argument("--rows", type=int, default=64)
    args = ap.parse_args()
    print(f"{'':33s} {'CPU ms per row':>26s} {'ratio':>19s} {'rows breaking the KKT':>22s}")
    print(f"{'dataset':12s} {'dictionary':>14s} {'rows':>5s} {'now':>8s} {'before':>8s} {'sklearn':>8s} "
          f"{'vs before':>9s} {'vs sklearn':>9s} {'now':>6s} {'before':>6s} {'sklearn':>6s}")
    for name in filter(None, args.datasets.split(",")):
        bench(name, args.rows)


if __name__ == "__main__":
    main()
