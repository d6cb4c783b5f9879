"""Issue #40 item 5: where MLDF and RF-PCT lose on corel16k (one holdout of the mldf protocol).

Three diagnostics, each on the training/test rows of one mldf-protocol split, with the seeds of that
split's cells in results/papers/mldf.csv:

* ``reference``: our rf-pct against scikit-learn's multi-output RandomForestClassifier (gini, the
  same 100 trees, sqrt(d) features, bootstrap, fully grown), an independent forest.
* ``ablate``: rf-pct with one change at a time (min_samples_leaf, max_features, ERF cut points,
  entropy splits, depth limits of the MLDF schedule), each scored under the pessimistic tie rule of
  the mldf protocol and under the half and MULAN conventions (mlbench.metrics.ranking), plus the share
  of tied (relevant, irrelevant) pairs and of exact-zero scores.
* ``layers``: MLDF's cascade without the confidence screen (G^t = H^t) grown layer by layer with the
  mldf cell's seeds (layers 1-2 are the cell's own: the screen starts at t = 3): per layer the
  out-of-fold and test measures of H^t, and how many label columns the macro-AUC screen
  (Algorithms 1-2) would copy from G^{t-1}.

    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python benchmarks/mldf_corel16k_gap.py reference|ablate|layers \
        [corel16k-s1] [holdout-r00] [layers]
"""
import json
import sys
import time

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.utils import check_random_state

from mlbench.data import load_dataset
from mlbench.data.splits import get_split
from mlbench.methods.trees.mldf import MLDF
from mlbench.methods.trees.mldf_cascade import _SEED_MAX, _stack
from mlbench.methods.trees.mldf_confidence import log_confidence, log_mean
from mlbench.methods.trees.mldf_measures import per_unit, worse_mask
from mlbench.methods.trees.pct import MultiLabelForest, fit_forest, forest_proba
from mlbench.metrics.evaluate import evaluate
from mlbench.protocols import load_protocol

MEASURES = ["one_error", "coverage_normalized", "ranking_loss", "average_precision", "macro_auc"]


def data(ds_name, split_id):
    proto = load_protocol("mldf")
    ds = load_dataset(ds_name)
    split = get_split(ds, proto.split, protocol="mldf", seed=proto.seed, split=split_id)
    X = ds.X.toarray() if hasattr(ds.X, "toarray") else np.asarray(ds.X)
    Y = np.asarray(ds.Y.toarray() if hasattr(ds.Y, "toarray") else ds.Y).astype(int)
    tr, te = split.training_part, split.test
    return X[tr].astype(np.float32), Y[tr], X[te].astype(np.float32), Y[te]


def cell_seed(ds_name, split_id, method):
    res = pd.read_csv("results/papers/mldf.csv")
    row = res[(res.method == method) & (res.dataset == ds_name) & (res.split == split_id)].iloc[0]
    return json.loads(row.params)["random_state"]


def score(Y, S, ties="pessimistic"):
    r = evaluate(Y, predictions=(S > 0.5).astype(int), scores=S, measures=MEASURES, ties=ties)
    return {k: round(float(v), 4) for k, v in r.items()}


def tied_pairs(Y, S):
    """Share of the (relevant, irrelevant) label pairs of the rows whose two scores are equal."""
    tied = total = 0
    for y, s in zip(Y, S):
        pos, neg = s[y == 1], s[y == 0]
        tied += int((pos[:, None] == neg[None, :]).sum())
        total += pos.size * neg.size
    return round(tied / total, 4)


def report(name, Y, S, seconds):
    print(f"{name}: {score(Y, S)}\n    ties half: {score(Y, S, 'half')}\n    ties mulan: "
          f"{score(Y, S, 'mulan')}; tied pairs "
          f"{tied_pairs(Y, S)}, zero scores {round(float((S == 0).mean()), 3)}; {seconds:.0f} CPU s",
          flush=True)


def reference(ds_name, split_id):
    Xtr, Ytr, Xte, Yte = data(ds_name, split_id)
    seed = cell_seed(ds_name, split_id, "rf-pct")
    t = time.process_time()
    S = MultiLabelForest(n_estimators=100, random_state=seed).fit(Xtr, Ytr).predict_proba(Xte)
    report("rf-pct (ours)", Yte, S, time.process_time() - t)
    t = time.process_time()
    rf = RandomForestClassifier(n_estimators=100, max_features="sqrt", random_state=seed).fit(Xtr, Ytr)
    S = np.column_stack([p[:, list(c).index(1)] if 1 in c else np.zeros(len(Xte))
                         for p, c in zip(rf.predict_proba(Xte), rf.classes_)])
    report("scikit-learn RandomForestClassifier (gini)", Yte, S, time.process_time() - t)


def ablate(ds_name, split_id):
    Xtr, Ytr, Xte, Yte = data(ds_name, split_id)
    seed = cell_seed(ds_name, split_id, "rf-pct")
    for kw in [{}, {"min_samples_leaf": 2}, {"min_samples_leaf": 5}, {"max_features": "log2"},
               {"max_features": 0.3}, {"randomization": "erf"}, {"split": "entropy"},
               {"max_depth": 6}, {"max_depth": 15}]:
        t = time.process_time()
        S = MultiLabelForest(n_estimators=100, random_state=seed, **kw).fit(Xtr, Ytr).predict_proba(Xte)
        report(f"rf-pct {kw}", Yte, S, time.process_time() - t)


def layers(ds_name, split_id, n_layers=7):
    Xtr, Ytr, Xte, Yte = data(ds_name, split_id)
    est = MLDF(measure="macro_auc", random_state=cell_seed(ds_name, split_id, "mldf"))
    rng = check_random_state(est.random_state)   # one seed draw per layer, as mldf_cascade.grow
    G = G_test = m_prev = None
    for t in range(1, int(n_layers) + 1):
        c0 = time.process_time()
        seeds = rng.randint(_SEED_MAX, size=est._n_forests() + 1)
        H = est._out_of_fold(_stack(Xtr, G), Ytr, t, seeds[:-1], seeds[-1])
        H_test = np.zeros(Yte.shape)
        for forest in est._forests(t, seeds[:-1]):
            fit_forest(forest, _stack(Xtr, G), Ytr)
            H_test += forest_proba(forest, _stack(Xte, G_test)) / est._n_forests()
        m_now = per_unit(H, Ytr, "macro_auc")
        screen = ""
        if t > 2:
            la = log_confidence(H, "macro_auc")
            worse = worse_mask(m_now, m_prev, "macro_auc")
            lt = log_mean(la[worse])
            screen = (f"\n    macro-AUC screen: {int(worse.sum())} labels worse, log theta {lt:.1f}, "
                      f"log alpha [{la.min():.0f}, {la.max():.0f}], copied {int((la < lt).sum())} "
                      f"of {la.size}")
        print(f"t={t} (trees, depth) {est._layer_size(t)}\n    out of fold {score(Ytr, H)}\n"
              f"    test {score(Yte, H_test)}{screen}\n    {time.process_time() - c0:.0f} CPU s",
              flush=True)
        G, G_test, m_prev = H, H_test, m_now


if __name__ == "__main__":
    what, *args = sys.argv[1:]
    {"reference": reference, "ablate": ablate, "layers": layers}[what](*args)
