"""Batched Algorithm 1 (HierCost's cost-sensitive LR) vs one scikit-learn LogisticRegression per class.

Both fit the same one-vs-rest problems (weighted examples, rho = 1 / (2 C), unpenalised intercept)
on ImCLEF07A-sized data (N x D, K classes; synthetic unless MLBENCH_MIRROR holds ImCLEF07A), and
the script prints the wall and CPU time ratio and the largest objective gap (relative).

    .venv/bin/python benchmarks/bench_hiercost.py [--n 8000 --d 80 --k 63 --rho 1.0]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from mlbench.methods.hierarchical.solver import fit_cost_lr, objective


def data(n, d, k, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    lab = np.argmax(X @ rng.normal(size=(d, k)) + rng.gumbel(size=(n, k)) * 3, axis=1)
    Y = np.where(np.eye(k)[lab] == 1, 1.0, -1.0)
    C = rng.uniform(1.0, 3.0, size=(n, k))
    return X, Y, C


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=8000)
    ap.add_argument("--d", type=int, default=80)
    ap.add_argument("--k", type=int, default=63)
    ap.add_argument("--rho", type=float, default=1.0)
    a = ap.parse_args()
    X, Y, C = data(a.n, a.d, a.k)
    with threadpool_limits(1):
        t0, c0 = time.perf_counter(), time.process_time()
        W, b, it = fit_cost_lr(X, Y, C, a.rho, tol=1e-8, max_iter=3000)
        ours = (time.perf_counter() - t0, time.process_time() - c0)
        t0, c0 = time.perf_counter(), time.process_time()
        ref_W, ref_b = np.empty_like(W), np.empty_like(b)
        for j in range(a.k):
            lr = LogisticRegression(C=1 / (2 * a.rho), tol=1e-8, max_iter=3000)
            lr.fit(X, Y[:, j], sample_weight=C[:, j])
            ref_W[:, j], ref_b[j] = lr.coef_.ravel(), lr.intercept_[0]
        theirs = (time.perf_counter() - t0, time.process_time() - c0)
    f_ours = objective(X, Y, C, W, b, a.rho)
    f_ref = objective(X, Y, C, ref_W, ref_b, a.rho)
    gap = np.max((f_ours - f_ref) / np.abs(f_ref))
    print(f"N={a.n} D={a.d} K={a.k} rho={a.rho}: batched Algorithm 1 {ours[0]:.2f}s wall "
          f"({ours[1]:.2f}s CPU, median {int(np.median(it))} iterations); sklearn lbfgs per class "
          f"{theirs[0]:.2f}s wall ({theirs[1]:.2f}s CPU); ratio sklearn/ours wall "
          f"{theirs[0] / ours[0]:.2f}, CPU {theirs[1] / ours[1]:.2f}; max relative objective gap "
          f"{gap:.2e}")


if __name__ == "__main__":
    main()
