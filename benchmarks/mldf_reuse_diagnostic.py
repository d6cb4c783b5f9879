"""MLDF feature-reuse diagnostic (issue #22): per layer, how many columns/rows the confidence screen
(Algorithms 1-2) copies from G^{t-1}, on the training rows (out of fold) and on the test rows, and the
test measure of H^t (the layer's own forests) against G^t (after the screen).  One cell of
results/papers/mldf.csv, refit as the single-measure MLDF with that cell's seed.

    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python benchmarks/mldf_reuse_diagnostic.py yeast holdout-r00 macro_auc [noreuse]
"""
import json
import sys

import numpy as np
import pandas as pd

from mlbench.data import load_dataset
from mlbench.data.splits import get_split
from mlbench.methods.trees import mldf_cascade
from mlbench.methods.trees.mldf import METRIC_COLUMNS, MLDF
from mlbench.methods.trees.mldf_confidence import log_confidence, log_mean
from mlbench.methods.trees.mldf_measures import aggregate, per_unit, worse_mask
from mlbench.methods.trees.pct import forest_proba
from mlbench.protocols import load_protocol

_step = mldf_cascade.Branch.step


def _logged_step(self, t, H, node, Y, feature_reuse, patience, reference="G"):
    """Branch.step, printing what Algorithm 2 sees at layer t (training rows, out of fold)."""
    if feature_reuse and t > 2:
        la = log_confidence(H, self.measure)
        worse = worse_mask(per_unit(H, Y, self.measure), self.m_prev, self.measure)
        lt = log_mean(la[worse])
        print(f"train t={t}: H measure {aggregate(per_unit(H, Y, self.measure)):.4f}, worse units "
              f"{int(worse.sum())}, log theta {lt:.1f}, log alpha [{la.min():.1f}, {la.max():.1f}], "
              f"copied {int((la < lt).sum())} of {la.size}", flush=True)
    return _step(self, t, H, node, Y, feature_reuse, patience, reference)


def main(ds_name, split_id, measure, mode="reuse"):
    mldf_cascade.Branch.step = _logged_step
    proto = load_protocol("mldf")
    ds = load_dataset(ds_name)
    split = get_split(ds, proto.split, protocol="mldf", seed=proto.seed, split=split_id)
    res = pd.read_csv("results/papers/mldf.csv")
    row = res[(res.method == "mldf") & (res.dataset == ds_name) & (res.split == split_id)].iloc[0]
    X = ds.X.toarray() if hasattr(ds.X, "toarray") else np.asarray(ds.X)
    Y = np.asarray(ds.Y.toarray() if hasattr(ds.Y, "toarray") else ds.Y)
    tr, te = split.training_part, split.test
    model = MLDF(measure=measure, random_state=json.loads(row.params)["random_state"],
                 feature_reuse=mode != "noreuse").fit(X[tr], Y[tr])
    print("fit:", model.fit_info_, "| CSV value:", row[METRIC_COLUMNS[measure][0]], flush=True)
    G = None
    for t, layer in enumerate(model.layers_, 1):
        Z = X[te] if G is None else np.hstack([X[te], G])
        H = np.mean([forest_proba(f, Z) for f in layer["forests"]], axis=0)
        lt = layer["log_threshold"]
        la = log_confidence(H, measure)
        G_new = mldf_cascade.reuse(H, G, la, lt, measure)
        copied = int((la < lt).sum()) if np.isfinite(lt) else 0
        print(f"test t={t}: H {aggregate(per_unit(H, Y[te], measure)):.4f}, "
              f"G {aggregate(per_unit(G_new, Y[te], measure)):.4f}, copied {copied}", flush=True)
        G = G_new


if __name__ == "__main__":
    main(*sys.argv[1:])
