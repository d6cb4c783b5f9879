"""How the bogatinovski2022 protocol's PCut changes the Clus methods (``pct``, ``rfpct``).

The protocol cuts every scoring method's label scores by MEKA's PCut1 at the training label
cardinality.  The study ran PCT and RFPCT in Clus, outside its Python script, and its code has no
thresholding for them: ``process_output/parseOutputClus.py`` reads Clus's prediction files as they
are, so the study may have scored Clus's own prediction, the majority class of a label at a leaf
(for RFPCT, the forest's vote: newer Clus versions average the trees' class distributions, a
score above 0.5; older ones take the majority of the trees' own majority predictions).  This
script refits the cells of ``results/papers/bogatinovski2022.csv`` with their recorded parameters
on the protocol's split, checks that the refit reproduces the CSV's Hamming loss under PCut, and
prints, per method and dataset, the number of distinct score rows on the test part (1: every row
gets one label set) and each measure under PCut / the 0.5 rule / the trees' majority vote, from
the same fitted model (a tie, in a leaf or among the trees, is negative, as Clus's first-class
rule makes it for labels declared {0, 1}).

    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python benchmarks/clus_threshold_diagnostic.py \
        pct,rfpct flags,emotions,foodtruck,birds,genbase,scene,yeast
"""
import sys

from _harness import refit_cell  # noqa: I001  (first: it sets the thread variables)
import numpy as np
import pandas as pd

from mlbench.methods.components.thresholds import pcut1_threshold
from mlbench.metrics import get_measure
from mlbench.protocols import load_protocol

MEASURES = ("hamming_loss", "micro_f1", "macro_f1", "example_f1", "subset_accuracy")


def _tree_vote(est, X):
    """The older Clus forest vote: each tree predicts a label when its leaf fraction is above 0.5,
    and the forest when more than half of the trees do (one tree: its own prediction)."""
    forest = getattr(est, "forest_", None)
    if forest is None:                                    # pct: one tree
        return (np.asarray(est.predict_proba(X)) > 0.5).astype(float)
    compact = forest.compact_
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float32)
    votes = sum((values[tree.apply(X)].toarray() > 0.5).astype(int)
                for tree, values in zip(compact.skeletons, compact.leaf_values))
    return (votes > len(compact.skeletons) / 2).astype(float)


def main(methods, datasets):
    proto = load_protocol("bogatinovski2022")
    res = pd.read_csv("results/papers/bogatinovski2022.csv")
    head = ["method", "dataset", "distinct score rows"] + [f"{m} PCut / 0.5 / vote" for m in MEASURES]
    print("| " + " | ".join(head) + " |\n" + "|---" * len(head) + "|")
    for method in methods:
        for name in datasets:
            row = res[(res.method == method) & (res.dataset == name) & (res.status == "ok")].iloc[0]
            cell = refit_cell(proto, row)
            S = np.asarray(cell.est.predict_proba(cell.test.X), dtype=float)
            Y_train = cell.pipe.train_.Y
            cardinality = float(np.asarray(Y_train.sum(axis=1)).mean())
            pcut = (S >= pcut1_threshold(S, cardinality)).astype(float)
            half = (S > 0.5).astype(float)         # the leaf's majority; a tie is negative
            vote = _tree_vote(cell.est, cell.test.X)
            scores = [[get_measure(m)(cell.Y, P) for P in (pcut, half, vote)] for m in MEASURES]
            assert np.isclose(scores[0][0], float(row.hamming_loss)), (method, name, scores[0][0])
            cells = [method, name, str(len(np.unique(S, axis=0)))]
            cells += [" / ".join(f"{v:.3f}" for v in values) for values in scores]
            print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1].split(","), sys.argv[2].split(","))
