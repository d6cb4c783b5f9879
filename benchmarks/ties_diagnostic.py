"""Ties in the label-ranking measures (issue #40): one method's cells of a paper results CSV refit
with their recorded parameters and seeds, scored under each tie convention, and with the scores a
reference implementation would hand to the measures.

For ``rakel`` the score variants are the mean vote over the labelsets holding the label (ours, and
MULAN's ``RAkEL``: it passes the vote fractions as the confidences of its ``MultiLabelOutput``; the
mean LP confidence it also computes is left unused) and the raw vote count (MEKA's ``RAkEL``: its
``distributionForInstance`` adds 1 per vote and does not divide).  For ``ecc`` they are the mean
vote of the chains (MEKA) and their mean confidence (MULAN's default, thresholded at 0.5 too).  Prints one line per cell, score
variant and convention, and checks that the refit reproduces the CSV's (pessimistic) values.

    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python benchmarks/ties_diagnostic.py mldf rakel cal500,corel16k-s1 holdout-r00,holdout-r01
    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python benchmarks/ties_diagnostic.py soshf ecc emotions,scene,yeast holdout-r00,holdout-r01
"""
import copy
import json
import sys

import numpy as np
import pandas as pd

from mlbench.data import load_dataset
from mlbench.data.preprocess import Pipeline, take_rows
from mlbench.data.splits import get_split
from mlbench.methods import registry
from mlbench.methods.components.binary import scores_kind
from mlbench.metrics import get_measure
from mlbench.metrics.ranking import TIES, tie_share
from mlbench.protocols import load_protocol


def score_variants(method, est, X):
    """{variant name: ((n, L) scores, (n, L) 0/1 predictions)} as a reference implementation of
    ``method`` would hand them to the measures; the first is what the CSV recorded."""
    S, P = est.predict_proba(X), est.predict(X)
    if method == "rakel":
        return {"mean vote (ours, MULAN)": (S, P), "vote count (MEKA)": (S * est.n_votes_, P)}
    if method == "ecc" and scores_kind(est.base, est.base_params) == "proba":
        # the chains are fitted alike; only the aggregation differs (an SVM chain has no
        # confidence but its vote: MULAN's mean confidence is then the mean vote)
        other = "proba" if est.aggregate == "vote" else "vote"
        names = {"vote": "mean vote (MEKA)", "proba": "mean confidence (MULAN default)"}
        est_other = _with_aggregate(est, other)
        return {names[est.aggregate]: (S, P),
                names[other]: (est_other.predict_proba(X), est_other.predict(X))}
    return {"ours": (S, P)}


def _with_aggregate(est, aggregate):
    other = copy.copy(est)
    other.aggregate = aggregate
    return other


def main(protocol, method, datasets, splits):
    proto = load_protocol(protocol)
    res = pd.read_csv(f"results/papers/{proto.name}.csv")
    ranking = [m for m in proto.metrics if get_measure(m).kind == "ranking"]
    others = [m for m in proto.metrics if m not in ranking]
    print("| dataset | split | scores | ties | tie share | " + " | ".join(ranking + others) + " |")
    print("|---" * (5 + len(ranking) + len(others)) + "|")
    for name in datasets:
        ds = load_dataset(name)
        for split_id in splits:
            row = res[(res.method == method) & (res.dataset == name) & (res.split == split_id)
                      & (res.status == "ok")].iloc[0]
            split = get_split(ds, proto.split, protocol=proto.name, seed=proto.seed, split=split_id)
            pipe = Pipeline(proto.preprocess).fit(take_rows(ds, split.training_part))
            test = pipe.transform(take_rows(ds, split.test))
            params = json.loads(row.params)
            entry = next(e for e in proto.methods if e.label == method)
            est = registry.make(entry.name, **params).fit(pipe.train_.X, pipe.train_.Y)
            Y = np.asarray(test.Y.toarray() if hasattr(test.Y, "toarray") else test.Y)
            for k, (variant, (S, P)) in enumerate(score_variants(method, est, test.X).items()):
                inputs = {"scores": S, "predictions": P}
                fixed = [get_measure(m)(Y, inputs[get_measure(m).needs]) for m in others]
                share = tie_share(Y, S)
                for ties in TIES if ranking else ["-"]:
                    values = [get_measure(m)(Y, S, ties=ties) for m in ranking] + fixed
                    if k == 0 and ties in ("pessimistic", "-"):   # the refit reproduces the CSV
                        csv = [float(row[m]) for m in ranking + others]
                        assert np.allclose(values, csv), (name, split_id, values, csv)
                    print(f"| {name} | {split_id} | {variant} | {ties} | {share:.3f} | "
                          + " | ".join(f"{v:.4f}" for v in values) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4].split(","))
