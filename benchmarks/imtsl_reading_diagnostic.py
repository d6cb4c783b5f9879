"""Which reading of I-MTSL's loss scale lets the imtsl-paper grids act?  (issue 40, item 4)

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/imtsl_reading_diagnostic.py scene holdout-r00

Rebuilds the imtsl-paper split and preprocessing and fits, on the same rows, I-MTSL and the
baselines under three settings:

* ``mix``: Eq. 2 at the summed loss, Eq. 5 at the mean loss, grid ten values in [0, 5] (the
  imtsl-paper protocol before issue 40);
* ``mean``: both equations at the mean loss, the same [0, 5] grid;
* ``mean-log``: both at the mean loss, ten log-spaced values in [1e-4, 10] (the protocol after).

For I-MTSL it prints the selected lambda and gamma, the learned graph's positive and negative
edges, the spectrum of its signed Laplacian, the share of test entries predicted positive (against
the true share) and test accuracy; for the baselines the selected value(s) and accuracy.  It also
prints the largest |gradient| of the mean log-loss at W = 0, the scale the log grid is set from.
A third argument restricts the readings (e.g. ``mix,mean``; add ``imtsl-only`` to skip the baselines).
"""
from __future__ import annotations

import sys

import numpy as np

from mlbench.data.load import load_dataset
from mlbench.data.preprocess import Pipeline, take_rows
from mlbench.data.splits import make_splits
from mlbench.methods import registry
from mlbench.metrics import get_measure
from mlbench.protocols import load_protocol

OLD = [float(v) for v in np.linspace(0.0, 5.0, 10)]
LOG = [float(f"{v:.3g}") for v in np.logspace(-4, 1, 10)]
name, split_id = sys.argv[1], sys.argv[2]
only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
P = load_protocol("imtsl-paper")
ds = load_dataset(name)
split = [s for s in make_splits(ds, P.split, protocol=P.name, seed=P.seed) if s.id == split_id][0]
pipe = Pipeline(P.preprocess).fit(take_rows(ds, split.training_part))
test = pipe.transform(take_rows(ds, split.test))
fit_part = pipe.transform(take_rows(ds, split.train))
valid = pipe.transform(take_rows(ds, split.valid))
acc = get_measure("accuracy")
X, Y = np.asarray(fit_part.X.todense() if hasattr(fit_part.X, "todense") else fit_part.X), np.asarray(fit_part.Y)
G = X.T @ (Y - Y.mean(axis=0)) / X.shape[0]          # mean-loss gradient at W = 0, b at its optimum
print(f"{name} {split_id}: n_fit {X.shape[0]}, d {X.shape[1]}, Q {Y.shape[1]}; max |grad| at W=0 "
      f"{np.abs(G).max():.3f}, median over labels of max_j |grad| {np.median(np.abs(G).max(axis=0)):.3f}")
print("log grid", LOG)
Ytrue = np.asarray(test.Y)


def run(method, params, keys):
    est = registry.get(method).cls(**dict(registry.get(method).params, **params, random_state=0))
    est.fit(fit_part.X, fit_part.Y, validation=(valid.X, valid.Y))
    P_ = np.asarray(est.predict(test.X))
    fi = est.fit_info_
    sel = " ".join(f"{k}={fi[k]:.4g}" for k in keys if k in fi)
    return est, P_, f"{sel}  accuracy {acc(Ytrue, P_):.4f}  pos.pred {P_.mean():.3f} (true {Ytrue.mean():.3f})"


settings = {"mix": ("sum", OLD), "mean": ("mean", OLD), "mean-log": ("mean", LOG)}
for reading, (sloss, grid) in settings.items():
    if only and reading not in only:
        continue
    est, P_, line = run("imtsl", {"objective": "eq5", "structure_loss": sloss, "lambdas": grid,
                                  "gammas": grid, "n_subsamples": 20, "max_iter": 5000, "tol": 1e-5},
                        ["lambda", "gamma"])
    E = est.signed_edges_
    ev = np.linalg.eigvalsh(est.laplacian_)
    print(f"[{reading}] imtsl: {line}  edges +{int((np.triu(E) > 0).sum())} -{int((np.triu(E) < 0).sum())}"
          f"  Lbar eig min {ev.min():.3g} max {ev.max():.3g}")
    if reading == "mix" or (only and "imtsl-only" in only):
        continue
    for method, params, keys in [
            ("imtsl-empty", {"objective": "eq5", "gammas": grid}, ["gamma"]),
            ("cmtl", {"rho1s": grid, "rho2s": grid}, ["rho1", "rho2"]),
            ("trace", {"lambdas": grid}, ["lambda"]),
            ("mtl-feat", {"gammas": grid, "variant": "l21"}, ["gamma"]),
            ("br-lr-holdout", {"lambdas": grid, "scale": "mean"}, ["lambda"])]:
        params = dict(params, max_iter=5000 if method != "br-lr-holdout" else 1000)
        if method != "br-lr-holdout":
            params["tol"] = 1e-5
        print(f"[{reading}] {method}: {run(method, params, keys)[2]}", flush=True)
