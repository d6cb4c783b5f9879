"""Why ``ada300`` (MULAN's AdaBoost.MH) ranks near the bottom of the bogatinovski2022 grid: its
scores are additive in the example and the label.

MULAN's ``AdaBoostMH`` boosts Weka's ``DecisionStump`` over (example, label) pairs in which the
label is one more nominal attribute (``IncludeLabelsClassifier``). A stump tests one attribute, so
each round's vote depends on the features *or* on the label, never on both, and the boosted score
is S(x, l) = F(x) + G(l). Every example therefore gets the same label ranking (the order of G),
and the example's features only move all of its labels up or down together. This script refits the
``ada300`` cells of ``results/papers/bogatinovski2022.csv`` with their recorded parameters on the
protocol's split, checks that the refit reproduces the CSV's micro AUC, and prints for each
dataset:

- the largest deviation of S(x, l) - S(x, 0) from its mean over the test rows (0 up to rounding:
  the additive form), and the number of distinct label orders among the test rows;
- one-error and ranking loss of ada300 and of the constant ranking by training label frequency;
- with ``--sklearn``, the micro AUC of scikit-learn's SAMME over depth-1 entropy trees on the same
  (example, label one-hot) pairs, an independent implementation of the same model.

    PYTHONPATH=$PWD OMP_NUM_THREADS=1 \
        python benchmarks/ada300_ranking_diagnostic.py emotions,scene,yeast --sklearn
"""
import sys

from _harness import refit_cell  # noqa: I001  (first: it sets the thread variables)
import numpy as np
import pandas as pd

from mlbench.metrics import get_measure
from mlbench.protocols import load_protocol


def _dense(a):
    return np.asarray(a.toarray() if hasattr(a, "toarray") else a, dtype=float)


def _pairs(X, L):
    """(example, label) pairs with the label one-hot, MULAN's IncludeLabels transformation."""
    n = X.shape[0]
    return np.hstack([np.repeat(X, L, axis=0), np.tile(np.eye(L), (n, 1))])


def main(datasets, sklearn=False):
    proto = load_protocol("bogatinovski2022")
    res = pd.read_csv("results/papers/bogatinovski2022.csv")
    one_error, ranking_loss, auc = (get_measure(m) for m in ("one_error", "ranking_loss",
                                                              "micro_auc"))
    head = ["dataset", "largest deviation from F(x) + G(l)", "label orders", "one-error ada300",
            "one-error by frequency", "ranking loss ada300", "ranking loss by frequency",
            "micro AUC"]
    if sklearn:
        head.append("micro AUC scikit-learn SAMME")
    print("| " + " | ".join(head) + " |\n" + "|---" * len(head) + "|")
    for name in datasets:
        row = res[(res.method == "ada300") & (res.dataset == name) & (res.status == "ok")].iloc[0]
        cell = refit_cell(proto, row)
        est, pipe, test, Y = cell.est, cell.pipe, cell.test, cell.Y
        S = est.decision_scores(test.X)
        assert np.isclose(auc(Y, S), float(row.micro_auc)), (name, auc(Y, S), row.micro_auc)
        G = S - S[:, :1]
        deviation = np.abs(G - G.mean(axis=0)).max()
        orders = len({tuple(np.argsort(-s, kind="stable")) for s in S})
        freq = np.broadcast_to(_dense(pipe.train_.Y).mean(axis=0), S.shape)
        cells = [name, f"{deviation:.1e}", str(orders),
                 f"{one_error(Y, S):.4f}", f"{one_error(Y, freq):.4f}",
                 f"{ranking_loss(Y, S):.4f}", f"{ranking_loss(Y, freq):.4f}", f"{auc(Y, S):.4f}"]
        if sklearn:
            from sklearn.ensemble import AdaBoostClassifier
            from sklearn.tree import DecisionTreeClassifier

            L = Y.shape[1]
            Xtr, Xte = _dense(pipe.train_.X), _dense(test.X)
            model = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1, criterion="entropy"),
                                       n_estimators=est.n_estimators, random_state=0)
            model.fit(_pairs(Xtr, L), _dense(pipe.train_.Y).ravel())
            cells.append(f"{auc(Y, model.decision_function(_pairs(Xte, L)).reshape(-1, L)):.4f}")
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1].split(","), sklearn="--sklearn" in sys.argv[2:])
