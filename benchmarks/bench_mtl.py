"""The MTL solver engine (FISTA + backtracking) against scikit-learn on the same l1 problem, and its
convergence on I-MTSL's Eq. 5.

1. l1-regularised logistic regression of every label of a dataset (mean log-loss + gamma ||w||_1,
   free intercepts): FISTA solves the L tasks as one matrix problem; scikit-learn's
   ``LogisticRegression(l1_ratio=1, solver="saga")`` fits them one by one with C = 1/(gamma n).
   Prints the objective each reaches (summed over labels), and, per tolerance, the CPU and wall
   seconds of both and their ratio (benchmarks/_harness.py: interleaved, equal repeats after a
   warm-up, one thread).
2. I-MTSL's Eq. 5 (at the scale of Eq. 8, the method's default) on the same data with the stable signed Laplacian of the labels: the relative
   objective gap (F_k - F*) / F* after k iterations, F* from a long run.

Usage::

    MLBENCH_MIRROR=/path/to/mirror python benchmarks/bench_mtl.py [--dataset yeast] [--gamma 0.01] \
        [--repeats 3]

Without the mirror (or with --synthetic) a synthetic problem of the same shape as yeast is used.
"""
import os
import warnings

import _harness

import numpy as np


def load(name, synthetic, quick=False):
    if quick:
        rng = np.random.default_rng(0)
        X = rng.standard_normal((100, 10))
        return "synthetic (quick)", X, (X[:, :3] + rng.standard_normal((100, 3)) > 0).astype(float)
    if not synthetic and os.environ.get("MLBENCH_MIRROR"):
        from mlbench.data import load_dataset
        from mlbench.data.preprocess import apply_steps

        ds = apply_steps(load_dataset(name), ["standardize"])
        X = ds.X.toarray() if hasattr(ds.X, "toarray") else np.asarray(ds.X)
        return name, X[: len(X) // 2], np.asarray(ds.Y[: len(X) // 2], dtype=float)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((1208, 103))
    Y = (X @ rng.standard_normal((103, 14)) * 0.2 + rng.standard_normal((1208, 14)) > 0.5).astype(float)
    return "synthetic", X, Y


def main():
    ap = _harness.parser(__doc__, repeats=3)
    ap.add_argument("--dataset", default="yeast")
    ap.add_argument("--gamma", type=float, default=0.01)
    ap.add_argument("--synthetic", action="store_true")
    args = ap.parse_args()

    from sklearn.linear_model import LogisticRegression

    from mlbench.methods.mtl.fista import fista
    from mlbench.methods.mtl.imtsl import fit_laplacian_l1
    from mlbench.methods.mtl.ising import signed_laplacian, stability_path
    from mlbench.methods.mtl.logistic import LogisticLoss
    from mlbench.methods.mtl.prox import soft_threshold

    timing = _harness.timing(args)
    name, X, Y = load(args.dataset, args.synthetic, args.quick)
    n, d = X.shape
    Q = Y.shape[1]
    gamma = args.gamma
    loss = LogisticLoss(X, Y)

    def objective(Wb):
        return loss(Wb, False) + gamma * np.abs(Wb[:-1]).sum()

    def prox(V, step):
        out = V.copy()
        out[:-1] = soft_threshold(V[:-1], step * gamma)
        return out

    print(f"{name}: n = {n}, d = {d}, labels = {Q}, gamma = {gamma} (one BLAS thread)")
    rows = []
    for tol in (1e-4, 1e-6):
        def ours():
            return fista(loss, prox, np.zeros((d + 1, Q)), max_iter=100000, tol=tol)

        def sk():
            coefs = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for q in range(Q):
                    m = LogisticRegression(C=1.0 / (gamma * n), l1_ratio=1.0, solver="saga",
                                           tol=tol, max_iter=100000).fit(X, Y[:, q])
                    coefs.append(np.append(m.coef_[0], m.intercept_[0]))
            return np.column_stack(coefs)

        out = _harness.compare(f"tol {tol:g}: FISTA matrix form against scikit-learn saga per label",
                               ours, sk, labels=("FISTA", "saga"), **timing)
        res = out.results["FISTA"]
        rows.append((f"FISTA matrix form, tol {tol:g}", objective(res.x), res.n_iter))
        rows.append((f"scikit-learn saga per label, tol {tol:g}", objective(out.results["saga"]), ""))
    best = min(r[1] for r in rows)
    print(f"{'solver':<38} {'objective':>14} {'gap':>9} {'iter':>6}")
    for label, obj, it in rows:
        print(f"{label:<38} {obj:14.8f} {(obj - best) / best:9.1e} {it!s:>6}")

    path = stability_path(Y, [2.0], 20, np.random.RandomState(0))
    lap = signed_laplacian(path.edges(0, 0.8))
    ref = fit_laplacian_l1(X, Y, lap, gamma, max_iter=20000, tol=1e-12)
    print(f"\nI-MTSL Eq. 5 at Eq. 8's scale (lambda = 2: {int(np.count_nonzero(np.triu(lap, 1)))} "
          f"stable edges), F* = {ref.objective:.8f} ({ref.n_iter} iterations)")
    out = _harness.measure("I-MTSL Eq. 5: 1000 iterations",
                           lambda: fit_laplacian_l1(X, Y, lap, gamma, max_iter=1000, tol=0,
                                                    record=True), label="fit", **timing)
    res = out.results["fit"]
    print("iteration  (F_k - F*) / F*")
    for k in (1, 5, 10, 20, 50, 100, 200, 500, 1000):
        print(f"{k:9d}  {(res.history[k - 1] - ref.objective) / ref.objective:.2e}")


if __name__ == "__main__":
    main()
