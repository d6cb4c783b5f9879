"""Benchmark of the MC kernels (Cython vs the NumPy references) and of mc's fit / predict times.

    .venv/bin/python benchmarks/bench_mc.py [--repeats 3] [--rows 500] [--labels 10] [--components 3] [--dataset emotions]

Prints, measured in the same run: the annealed MAP search (150 steps per row) and the component
log-likelihoods in Cython and in NumPy with their ratio, then mc's fit and predict seconds on a
dataset (``--dataset``, standardised, 90/10 split, read from MLBENCH_MIRROR through ``mlbench.data.load_dataset``; synthetic
data when the mirror is unset).  Both paths are checked equal.  Timing: benchmarks/_harness.py.
"""
from __future__ import annotations

import os

import _harness

import numpy as np

from mlbench.methods.probabilistic import _mixture


def random_mixture(K, n, L, rng):
    A = rng.randn(K, n, L) * 2
    D = rng.randn(K, n, L) * 2
    parent = np.full((K, L), -1, dtype=np.intp)
    for k in range(K):
        order = rng.permutation(L)
        for pos in range(1, L):
            parent[k, order[pos]] = order[rng.randint(pos)]
    return A, D, parent, np.log(rng.dirichlet(np.ones(K)))


def bench_kernels(n, L, K, timing, T=150):
    if _mixture._kernel is None:
        raise SystemExit("mlbench._ext._mc is not built (setup.py build_ext --inplace)")
    rng = np.random.RandomState(0)
    A, D, parent, log_lam = random_mixture(K, n, L, rng)
    Y0 = rng.randint(2, size=(n, L)).astype(np.int8)
    flips = rng.randint(L, size=(n, T))
    u = rng.random_sample((n, T))
    temps = _mixture.temperatures(T, 5.0)
    out = _harness.compare(
        f"anneal ({n} rows, L={L}, K={K}, {T} steps)",
        lambda: _mixture.anneal(A, D, parent, log_lam, Y0, flips, u, temps),
        lambda: _mixture.anneal_numpy(A, D, parent, log_lam, Y0, flips, u, temps),
        labels=("cython", "numpy"), **timing)
    (yc, sc), (yn, sn) = out.results["cython"], out.results["numpy"]
    assert np.array_equal(yc, yn) and np.allclose(sc, sn)
    out = _harness.compare(f"component log-likelihoods ({n} rows)",
                           lambda: _mixture.component_loglik(A, D, parent, Y0),
                           lambda: _mixture.component_loglik_numpy(A, D, parent, Y0),
                           labels=("cython", "numpy"), **timing)
    assert np.allclose(out.results["cython"], out.results["numpy"])


def bench_mc(dataset, timing):
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from mlbench.methods import make

    if os.environ.get("MLBENCH_MIRROR"):
        from mlbench.data import load_dataset

        d = load_dataset(dataset)
        X, Y, name = d.X, d.Y, dataset
    else:
        rng = np.random.RandomState(0)
        X = rng.randn(600, 20)
        Y = (X @ rng.randn(20, 6) + rng.randn(600, 6) > 0).astype(int)
        name = "synthetic 600 x 20, 6 labels (MLBENCH_MIRROR unset)"
    Xtr, Xte, Ytr, Yte = train_test_split(X, Y, test_size=0.1, random_state=0)
    # standardised with training statistics, as protocol mc does
    scaler = StandardScaler(with_mean=not hasattr(Xtr, "tocsr")).fit(Xtr)
    Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    for method in ("sc", "mc"):
        fit = _harness.measure(f"{method} on {name}: fit", lambda: make(method, random_state=0)
                               .fit(Xtr, Ytr), label="fit", **timing)
        est = fit.results["fit"]
        pred = _harness.measure(f"{method} on {name}: predict", lambda: est.predict(Xte),
                                label="predict", **timing)
        info = getattr(est, "fit_info_", {})
        print(f"   exact match {np.mean((pred.results['predict'] == Yte).all(axis=1)):.3f}  "
              f"components {info.get('n_components', 1)}")


def main():
    ap = _harness.parser(__doc__, repeats=3)
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--labels", type=int, default=10)
    ap.add_argument("--components", type=int, default=3)
    ap.add_argument("--dataset", default="emotions")
    args = ap.parse_args()
    timing = _harness.timing(args)
    bench_kernels(50 if args.quick else args.rows, args.labels, args.components, timing)
    if not args.quick:
        bench_mc(args.dataset, timing)


if __name__ == "__main__":
    main()
