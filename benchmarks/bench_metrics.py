"""Speed of mlbench's measures against scikit-learn's on the same matrices (ratios, same run).

    .venv/bin/python benchmarks/bench_metrics.py [--n 5000] [--labels 1000] [--repeats 5]

Truth: about 5 relevant labels per instance (like text data); scores: uniform, and rounded to two
decimals for the "tied" case.  The four label-ranking measures come from one kernel call
(mlbench._ext._ranking); scikit-learn needs three functions (it has no one-error), so the ranking row
compares one mlbench call with coverage_error + label_ranking_loss + label_ranking_average_precision
_score.  Every pair is also checked to give the same values (on the instances both count).
Timing: benchmarks/_harness.py (interleaved, equal repeats after a warm-up, one thread).
"""
from __future__ import annotations

import _harness

import numpy as np
from sklearn import metrics as skm

from mlbench.metrics import get_measure
from mlbench.metrics.ranking import ranking_stats, ranking_stats_numpy


def main():
    ap = _harness.parser(__doc__)
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--labels", type=int, default=1000)
    args = ap.parse_args()
    timing = _harness.timing(args)
    rng = np.random.default_rng(0)
    n, L = (200, 50) if args.quick else (args.n, args.labels)
    Y = (rng.random((n, L)) < 5 / L).astype(np.int8)
    Y[np.arange(n), rng.integers(0, L, n)] = 1  # every instance has a relevant label
    print(f"{n} instances x {L} labels")
    for case, S in (("untied", rng.random((n, L))), ("tied", np.round(rng.random((n, L)), 2))):
        P = (S >= 0.5).astype(np.int8)

        def sk_ranking():
            return (skm.coverage_error(Y, S), skm.label_ranking_loss(Y, S),
                    skm.label_ranking_average_precision_score(Y, S))

        out = _harness.compare_many(
            f"4 ranking measures ({case}): one kernel call against scikit-learn's 3 functions",
            {"mlbench": lambda: ranking_stats(Y, S), "sklearn x3": sk_ranking,
             "mlbench NumPy": lambda: ranking_stats_numpy(Y, S)}, **timing)
        stats, (cov, rl, lrap) = out.results["mlbench"], out.results["sklearn x3"]
        assert np.isclose(stats.mean("coverage"), cov - 1)
        assert np.isclose(stats.mean("ranking_loss"), rl)
        assert np.isclose(stats.mean("average_precision"), lrap)
        assert np.allclose(stats.ranking_loss, out.results["mlbench NumPy"].ranking_loss)
        out = _harness.compare(f"macro_auc ({case})", lambda: get_measure("macro_auc")(Y, S),
                               lambda: skm.roc_auc_score(Y, S, average="macro"),
                               labels=("mlbench", "roc_auc_score"), **timing)
        assert np.isclose(out.results["mlbench"], out.results["roc_auc_score"])
        if case == "untied":
            out = _harness.compare(
                "macro_f1", lambda: get_measure("macro_f1")(Y, P),
                lambda: skm.f1_score(Y, P, average="macro", zero_division=1),
                labels=("mlbench", "f1_score"), **timing)
            assert np.isclose(out.results["mlbench"], out.results["f1_score"])


if __name__ == "__main__":
    main()
