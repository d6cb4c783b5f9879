"""Batched Algorithm 1 (HierCost's cost-sensitive LR) vs one scikit-learn LogisticRegression per class.

Both fit the same one-vs-rest problems (weighted examples, rho = 1 / (2 C), unpenalised intercept)
on ImCLEF07A-sized data (N x D, K classes; synthetic unless MLBENCH_MIRROR holds ImCLEF07A), and
the script prints the wall and CPU time ratio (benchmarks/_harness.py: interleaved, equal repeats
after a warm-up, one thread) and the largest objective gap (relative).

    .venv/bin/python benchmarks/bench_hiercost.py [--n 8000 --d 80 --k 63 --rho 1.0] [--repeats 3]
"""
from __future__ import annotations

import _harness

import numpy as np
from sklearn.linear_model import LogisticRegression

from mlbench.methods.hierarchical.solver import fit_cost_lr, objective


def data(n, d, k, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    lab = np.argmax(X @ rng.normal(size=(d, k)) + rng.gumbel(size=(n, k)) * 3, axis=1)
    Y = np.where(np.eye(k)[lab] == 1, 1.0, -1.0)
    C = rng.uniform(1.0, 3.0, size=(n, k))
    return X, Y, C


def main():
    ap = _harness.parser(__doc__, repeats=3)
    ap.add_argument("--n", type=int, default=8000)
    ap.add_argument("--d", type=int, default=80)
    ap.add_argument("--k", type=int, default=63)
    ap.add_argument("--rho", type=float, default=1.0)
    a = ap.parse_args()
    n, k = (400, 5) if a.quick else (a.n, a.k)
    X, Y, C = data(n, a.d, k)

    def ours():
        return fit_cost_lr(X, Y, C, a.rho, tol=1e-8, max_iter=3000)

    def theirs():
        ref_W, ref_b = np.empty((a.d, k)), np.empty(k)
        for j in range(k):
            lr = LogisticRegression(C=1 / (2 * a.rho), tol=1e-8, max_iter=3000)
            lr.fit(X, Y[:, j], sample_weight=C[:, j])
            ref_W[:, j], ref_b[j] = lr.coef_.ravel(), lr.intercept_[0]
        return ref_W, ref_b

    out = _harness.compare(f"N={n} D={a.d} K={k} rho={a.rho}: batched Algorithm 1 against "
                           f"scikit-learn's lbfgs per class", ours, theirs,
                           labels=("mlbench", "sklearn"), **_harness.timing(a))
    W, b, it = out.results["mlbench"]
    ref_W, ref_b = out.results["sklearn"]
    f_ours = objective(X, Y, C, W, b, a.rho)
    f_ref = objective(X, Y, C, ref_W, ref_b, a.rho)
    gap = np.max((f_ours - f_ref) / np.abs(f_ref))
    print(f"   median {int(np.median(it))} iterations; max relative objective gap {gap:.2e}")


if __name__ == "__main__":
    main()
