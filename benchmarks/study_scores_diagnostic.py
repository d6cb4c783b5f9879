"""The study's own per-dataset scores against ours: which ranking rule gives its conclusion, and where
our methods differ from its runs.

Bogatinovski et al. (2022) name RFPCT, RFDTBR, ECCJ48, EBRJ48 and AdaBoost.MH the best methods
"across the spectrum of performance measures".  The scores behind that sentence are in the study's
repository (bogatinovskijasmin/Multi-label-Classification-Comprehensive-Study), in the meta-learning
part: ``Explaining the performance of multilabel classification methods with data set
properties/various_experimental_scenarios_meta-learning_for_MLC/Supervised/metaDataset.csv``, one
row per dataset and measure (column ``metric``, 18 measures, 40 datasets) with one column per
method.  This script reads that file and ``results/papers/bogatinovski2022.csv`` and prints, with the
code that decides the claim in REPRODUCTION.md (``best_overall`` of ``mlbench.report.reproduction``):

1. the study's scores on all its datasets and methods, under ``rule: mean_rank`` (the mean of the
   per-measure average ranks) and ``rule: top_k`` (the number of measures on which a method has one
   of the five best average ranks): which of the two gives the study's five;
2. the study's scores restricted to the datasets where our grid is complete and to our methods, and
   our scores on the same block: what the smaller dataset set alone changes, and what our runs
   change;
3. per method, our score minus the study's on the same dataset and measure, signed so that a
   positive difference means ours is better, over the bounded measures (all but coverage): the
   median and mean, and the datasets on which our accuracy is more than 0.2 below the study's.

The splits differ (the study's are not public), so single differences are noisy; the point is the
direction and size per method.  Nothing here feeds back into any setting.

    git clone https://github.com/bogatinovskijasmin/Multi-label-Classification-Comprehensive-Study study
    python benchmarks/study_scores_diagnostic.py "study/Explaining the performance of multilabel \\
        classification methods with data set properties/various_experimental_scenarios_meta-learning_for_MLC/Supervised/metaDataset.csv"
"""
import argparse

import pandas as pd

from mlbench.metrics import get_measure
from mlbench.report.reproduction import _test

#: the study's measure names -> our results columns
MEASURES = {
    "ACCURACY_example_based": "accuracy", "PRECISION_example_based": "example_precision",
    "RECALL_example_based": "example_recall", "F1_example_based": "example_f1",
    "SUBSET_ACCURACY": "subset_accuracy", "HAMMING_LOSS_example_based": "hamming_loss",
    "MICRO_PRECISION": "micro_precision", "MICRO_RECALL": "micro_recall", "MICRO_F1": "micro_f1",
    "MACRO_PRECISION": "macro_precision", "MACRO_RECALL": "macro_recall", "MACRO_F1": "macro_f1",
    "ONE_ERROR": "one_error", "COVARAGE": "coverage", "LABEL_RANKING_LOSS": "ranking_loss",
    "LABEL_RANKING_AVERAGE_PRECISION": "average_precision", "AUCROC_MICRO": "micro_auc",
    "AUPRC_MICRO": "micro_auc_pr"}
#: the study's method columns whose lower-case name is not ours
METHOD_NAMES = {"PSt": "pst", "Ada300": "ada300", "RAkEL2": "rakel2", "MLARM": "mlaram",
                "MLkNN": "mlknn"}
DATASET_NAMES = {"tmc2007_500": "tmc2007-500-mldr"}
CLAIMED = ["rfpct", "rfdtbr", "eccj48", "ebrj48", "ada300"]


def study_frame(path):
    """The study's table as results rows: dataset, split "study", method, one column per measure."""
    raw = pd.read_csv(path)
    first = list(raw.columns).index("MLkNN")
    methods = list(raw.columns[first:list(raw.columns).index("metric")])
    long = raw.melt(id_vars=["index", "metric"], value_vars=methods, var_name="method")
    long["method"] = long["method"].map(lambda m: METHOD_NAMES.get(m, m.lower()))
    long["metric"] = long["metric"].map(MEASURES)
    long["dataset"] = long["index"].map(lambda d: DATASET_NAMES.get(d, d))
    wide = long.pivot_table(index=["dataset", "method"], columns="metric", values="value")
    return wide.reset_index().assign(split="study")


def complete_datasets(ours):
    methods = ours.method.nunique()
    n = ours.groupby("dataset").method.nunique()
    return sorted(n[n == methods].index)


def rankings(frame, label):
    print(f"\n{label}")
    for rule in ("mean_rank", "top_k"):
        holds, why = _test({"test": "best_overall", "method": CLAIMED, "rule": rule,
                            "metrics": list(MEASURES.values())}, frame)
        print(f"  rule {rule}: the study's five {'ARE' if holds else 'are NOT'} the five best; {why}")


def differences(study, ours):
    both = ours.merge(study, on=["dataset", "method"], suffixes=("_ours", "_study"))
    rows = []
    for metric in MEASURES.values():
        if metric == "coverage":                  # unbounded: not comparable across datasets
            continue
        d = both[f"{metric}_ours"] - both[f"{metric}_study"]
        rows.append(pd.DataFrame({"method": both.method, "dataset": both.dataset,
                                  "gain": d if get_measure(metric).greater_is_better else -d}))
    gains = pd.concat(rows)
    acc = both.assign(gap=both.accuracy_ours - both.accuracy_study)
    print("\nOurs minus the study's, same dataset and measure (positive: ours better), over "
          f"{both.dataset.nunique()} datasets and 17 bounded measures:")
    print(f"  {'method':8s} {'median':>7s} {'mean':>7s}  accuracy more than 0.2 below the study's")
    for method, g in sorted(gains.groupby("method"), key=lambda t: t[1].gain.median()):
        low = acc[(acc.method == method) & (acc.gap < -0.2)].sort_values("gap")
        listed = ", ".join(f"{r.dataset} {r.accuracy_ours:.3f} vs {r.accuracy_study:.3f}"
                           for r in low.itertuples()) or "-"
        print(f"  {method:8s} {g.gain.median():+7.3f} {g.gain.mean():+7.3f}  {listed}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("study_csv", help="metaDataset.csv of the study's repository")
    ap.add_argument("--results", default="results/papers/bogatinovski2022.csv")
    args = ap.parse_args()
    study = study_frame(args.study_csv)
    ours = pd.read_csv(args.results)
    ours = ours[ours.status == "ok"]
    done = complete_datasets(ours)
    methods = sorted(ours.method.unique())
    print(f"the study's table: {study.dataset.nunique()} datasets, {study.method.nunique()} "
          f"methods; our complete datasets ({len(done)}): {', '.join(done)}")
    rankings(study, "1. the study's scores, all its datasets and methods")
    rankings(study[study.method != "tremlcnew"],
             "   the same without TREMLCnew (a later variant of TREMLC in the table)")
    block = study[study.dataset.isin(done) & study.method.isin(methods)]
    rankings(block, f"2. the study's scores on our {len(done)} complete datasets and "
                    f"{block.method.nunique()} methods")
    mine = ours[ours.dataset.isin(done)]
    rankings(mine, "   our scores on the same datasets and methods")
    differences(study, mine[["dataset", "method"] + list(MEASURES.values())])


if __name__ == "__main__":
    main()
