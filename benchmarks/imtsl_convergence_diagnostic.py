"""Does an imtsl-paper cell change when its final FISTA fit runs past the protocol's 5000-iteration cap?

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/imtsl_convergence_diagnostic.py genbase holdout-r00

Rebuilds the cell's split and preprocessing, takes its recorded parameters with lambda and gamma
fixed at the values the cell selected (so no search is run), and fits I-MTSL with max_iter 5000
(the protocol's) and 50000; prints the test accuracy (mlbench's measure), convergence and
objective of each, and the largest coefficient change.  The accuracy can differ from the recorded
one: with one lambda the stability selection draws its subsamples differently.
"""
from __future__ import annotations

import inspect
import json
import sys
import time

import numpy as np
import pandas as pd

from mlbench.data.load import load_dataset
from mlbench.data.preprocess import Pipeline, take_rows
from mlbench.data.splits import make_splits
from mlbench.methods import registry
from mlbench.metrics import get_measure
from mlbench.protocols import load_protocol
name, split_id = sys.argv[1], sys.argv[2]
P = load_protocol("imtsl-paper")
df = pd.read_csv(sys.argv[3] if len(sys.argv) > 3 else "results/papers/imtsl.csv", low_memory=False)
row = df[(df.protocol == "imtsl-paper") & (df.dataset == name) & (df.method == "imtsl") & (df.split == split_id)].iloc[-1]
params, extra = json.loads(row.params), json.loads(row.extra)
ds = load_dataset(name)
split = [s for s in make_splits(ds, P.split, protocol=P.name, seed=P.seed) if s.id == split_id][0]
pipe = Pipeline(P.preprocess).fit(take_rows(ds, split.training_part))
test = pipe.transform(take_rows(ds, split.test))
fit_part = pipe.transform(take_rows(ds, split.train)); valid = pipe.transform(take_rows(ds, split.valid))
print(name, split_id, "recorded accuracy", row.accuracy, "lambda", extra["lambda"], "gamma", extra["gamma"], "converged", extra["converged"], "n_iter", extra["n_iter"])
for cap in (5000, 50000):
    p = dict(params, lambdas=[extra["lambda"]], gammas=[extra["gamma"]], max_iter=cap)
    est = registry.get("imtsl").cls(**p)
    t = time.process_time()
    kw = {"validation": (valid.X, valid.Y)} if split.valid.size and "validation" in inspect.signature(est.fit).parameters else {}
    est.fit(*(fit_part.X, fit_part.Y) if kw else (pipe.train_.X, pipe.train_.Y), **kw)
    acc = get_measure("accuracy")(np.asarray(test.Y), np.asarray(est.predict(test.X)))
    fi = est.fit_info_
    print(f"cap {cap}: accuracy {acc:.4f} converged {fi.get('converged')} n_iter {fi.get('n_iter')} rel_change {fi.get('rel_change')} objective {fi.get('objective')} cpu {time.process_time()-t:.0f}s", flush=True)
    if cap == 5000: W0 = est.coef_.copy()
    else: print("max |coef change|", float(np.abs(est.coef_ - W0).max()), "max |coef|", float(np.abs(W0).max()))
