"""Why ``cdn`` (MEKA's dependency network) ranks among the last of the bogatinovski2022 grid.

``cdn`` trains one J48 tree per label on (x, the other labels) and predicts by Gibbs sampling from
all-zero labels, the state MEKA's evaluation gives every test row.  This script refits the ``cdn``
cells of ``results/papers/bogatinovski2022.csv`` with their recorded parameters on the protocol's
split, checks that the refit reproduces the CSV's Hamming loss, and prints, per dataset:

- how the label trees use the other labels: the share of trees whose root tests a label, and the
  share of all internal nodes that test one;
- the collected scores: the share exactly 0 and at their largest value, (Ic - 1) / Ic (MEKA
  collects Ic - 1 iterations and divides by Ic), and the share of test rows whose
  every collected sample is all-zero (J48's pure leaves give probabilities of exactly 0, so the
  all-zero start can be absorbing); the predicted label cardinality against the training one;
- MEKA's PCut1 threshold and the Hamming loss and example accuracy at it and at 0.5;
- the same sampler started from all ones and from the true test labels (a diagnostic, not a
  method): the mean absolute difference of the scores from the all-zero start's, which is 0 up to
  sampling noise when the chain has forgotten its start within ``n_iterations - n_collection``;
- BR with the same J48 trees on x alone (no label inputs), for scale.

    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python benchmarks/cdn_gibbs_diagnostic.py emotions,scene,yeast
"""
import sys

from _harness import refit_cell  # noqa: I001  (first: it sets the thread variables)
import numpy as np
import pandas as pd

from mlbench.methods import registry
from mlbench.methods.components.thresholds import pcut1_threshold
from mlbench.metrics import get_measure
from mlbench.protocols import load_protocol


def _dense(a):
    return np.asarray(a.toarray() if hasattr(a, "toarray") else a, dtype=float)


def _label_tests(estimators, n_features):
    """Over the fitted J48 trees (constant labels skipped): the share whose root tests a label
    column (index >= n_features), and the share of all internal nodes that test one."""
    trees = [e for e in estimators if hasattr(e, "feature_")]
    roots = [t.feature_[0] >= n_features for t in trees if t.left_[0] >= 0]
    nodes = np.concatenate([t.feature_[t.left_ >= 0] for t in trees])
    return np.mean(roots) if roots else 0.0, np.mean(nodes >= n_features) if nodes.size else 0.0


def main(datasets):
    proto = load_protocol("bogatinovski2022")
    res = pd.read_csv("results/papers/bogatinovski2022.csv")
    hamming, accuracy = get_measure("hamming_loss"), get_measure("accuracy")
    head = ["dataset", "roots / nodes testing a label", "scores = 0", "scores at (Ic-1)/Ic",
            "rows all-zero", "cardinality train / predicted",
            "PCut1 t", "Hamming PCut1 / 0.5", "accuracy PCut1 / 0.5",
            "|ones start - zeros start|", "|true start - zeros start|",
            "accuracy from true labels", "J48 BR Hamming / accuracy (0.5)",
            "labels most off from zeros (train freq, score from zeros / from true)"]
    print("| " + " | ".join(head) + " |\n" + "|---" * len(head) + "|")
    for name in datasets:
        row = res[(res.method == "cdn") & (res.dataset == name) & (res.status == "ok")].iloc[0]
        cell = refit_cell(proto, row)
        est, pipe, test, Y = cell.est, cell.pipe, cell.test, cell.Y
        S = est.predict_proba(test.X)
        t = pcut1_threshold(S, est.train_cardinality_)
        P = (S >= t).astype(float)
        assert np.isclose(hamming(Y, P), float(row.hamming_loss)), (name, hamming(Y, P))
        P5 = (S >= 0.5).astype(float)
        ones = est._gibbs(test.X, np.ones_like(Y))
        true = est._gibbs(test.X, Y)
        Ptrue = (true >= pcut1_threshold(true, est.train_cardinality_)).astype(float)
        br = registry.make("br", base="j48", random_state=0).fit(pipe.train_.X, pipe.train_.Y)
        Pbr = (br.predict_proba(test.X) >= 0.5).astype(float)
        roots, nodes = _label_tests(est.estimators_, test.X.shape[1])
        top = (est.n_collection - 1) / est.n_collection
        cells = [name, f"{roots:.2f} / {nodes:.2f}", f"{np.mean(S == 0):.3f}",
                 f"{np.mean(np.isclose(S, top)):.3f}",
                 f"{np.mean((S == 0).all(axis=1)):.3f}",
                 f"{est.train_cardinality_:.2f} / {P.sum(axis=1).mean():.2f}", f"{t:.3f}",
                 f"{hamming(Y, P):.4f} / {hamming(Y, P5):.4f}",
                 f"{accuracy(Y, P):.4f} / {accuracy(Y, P5):.4f}",
                 f"{np.abs(ones - S).mean():.3f}", f"{np.abs(true - S).mean():.3f}",
                 f"{accuracy(Y, Ptrue):.4f}",
                 f"{hamming(Y, Pbr):.4f} / {accuracy(Y, Pbr):.4f}"]
        gap = np.abs(true - S).mean(axis=0)
        freq = _dense(pipe.train_.Y).mean(axis=0)
        cells.append(", ".join(f"{j}: {freq[j]:.2f}, {S[:, j].mean():.2f} / {true[:, j].mean():.2f}"
                               for j in np.argsort(-gap)[:2] if gap[j] > 0.05) or "-")
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1].split(","))
