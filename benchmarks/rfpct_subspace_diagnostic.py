"""How ``rfpct``'s feature subset per node changes its scores on the study's datasets.

``rfpct`` follows Clus's default for random forests, ``SelectRandomSubspaces = 0``: ceil(log2 d)
candidate features at each node, drawn without regard to whether they vary there (Clus's
``selectRandomSubspaces`` draws exactly that many and the node becomes a leaf when none of them
splits it).  The study's code has no Clus settings file for RFPCT.  On genbase and medical, whose
features are sparse binary indicators (1,186 and 1,449 of them), most of the 11 features drawn at a
node are constant there, and the forest is far weaker than the study's RFPCT scores
(``benchmarks/study_scores_diagnostic.py``).  This script refits the committed ``rfpct`` cells of
``results/papers/bogatinovski2022.csv`` on the protocol's split, checks that the default reproduces
the CSV's Hamming loss, and prints the test scores under PCut (the protocol's threshold) with
ceil(log2 d), ceil(sqrt d) and all d features per node (bagged PCTs), the same seed otherwise.

    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python benchmarks/rfpct_subspace_diagnostic.py \
        genbase,medical,emotions,scene,yeast
"""
import json
import sys

from _harness import refit_cell  # noqa: I001  (first: it sets the thread variables)
import numpy as np
import pandas as pd

from mlbench.methods import registry
from mlbench.methods.tuning import pcut
from mlbench.metrics import get_measure
from mlbench.protocols import load_protocol

#: besides the registered ceil(log2 d) of the committed cell
OTHER_SUBSETS = ("sqrt", 1.0)
MEASURES = ("accuracy", "hamming_loss", "micro_f1", "macro_f1")


def main(datasets):
    proto = load_protocol("bogatinovski2022")
    res = pd.read_csv("results/papers/bogatinovski2022.csv")
    head = ["dataset", "features"] + [f"{m}: log2 / sqrt / all" for m in MEASURES]
    print("| " + " | ".join(head) + " |\n" + "|---" * len(head) + "|")
    for name in datasets:
        row = res[(res.method == "rfpct") & (res.dataset == name) & (res.status == "ok")].iloc[0]
        cell = refit_cell(proto, row)                 # the committed cell: Clus's default subset
        params = {k: v for k, v in json.loads(row.params).items() if k != "search"}
        cardinality = float(np.asarray(cell.pipe.train_.Y.sum(axis=1)).mean())
        fitted = [cell.est] + [registry.make("rfpct", **{**params, "max_features": subset})
                               .fit(cell.pipe.train_.X, cell.pipe.train_.Y)
                               for subset in OTHER_SUBSETS]
        scores = []
        for est in fitted:
            P = pcut(est.predict_proba(cell.test.X), cardinality)
            scores.append([get_measure(m)(cell.Y, P) for m in MEASURES])
        assert np.isclose(scores[0][1], float(row.hamming_loss)), (name, scores[0][1])
        cells = [name, str(cell.pipe.train_.X.shape[1])]
        cells += [" / ".join(f"{s[i]:.3f}" for s in scores) for i in range(len(MEASURES))]
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1].split(","))
