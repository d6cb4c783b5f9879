"""Speed of mlbench's measures against scikit-learn's on the same matrices (ratios, same run).

    .venv/bin/python benchmarks/bench_metrics.py [--n 5000] [--labels 1000] [--repeats 3]

Truth: about 5 relevant labels per instance (like text data); scores: uniform, and rounded to two
decimals for the "tied" case.  The four label-ranking measures come from one kernel call
(mlbench._ext._ranking); scikit-learn needs three functions (it has no one-error), so the ranking row
compares one mlbench call with coverage_error + label_ranking_loss + label_ranking_average_precision
_score.  Every pair is also checked to give the same values (on the instances both count).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn import metrics as skm

from mlbench.metrics import get_measure
from mlbench.metrics.ranking import ranking_stats, ranking_stats_numpy


def best_time(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--labels", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n, L = args.n, args.labels
    Y = (rng.random((n, L)) < 5 / L).astype(np.int8)
    Y[np.arange(n), rng.integers(0, L, n)] = 1  # every instance has a relevant label
    rows = []
    for case, S in (("untied", rng.random((n, L))), ("tied", np.round(rng.random((n, L)), 2))):
        P = (S >= 0.5).astype(np.int8)
        t_ours, stats = best_time(lambda: ranking_stats(Y, S), args.repeats)
        t_np, stats_np = best_time(lambda: ranking_stats_numpy(Y, S), args.repeats)

        def sk_ranking():
            return (skm.coverage_error(Y, S), skm.label_ranking_loss(Y, S),
                    skm.label_ranking_average_precision_score(Y, S))

        t_sk, (cov, rl, lrap) = best_time(sk_ranking, args.repeats)
        assert np.isclose(stats.mean("coverage"), cov - 1)
        assert np.isclose(stats.mean("ranking_loss"), rl)
        assert np.isclose(stats.mean("average_precision"), lrap)
        assert np.allclose(stats.ranking_loss, stats_np.ranking_loss)
        rows.append((f"ranking x4 ({case})", t_ours, "sklearn x3", t_sk))
        rows.append((f"ranking x4 ({case})", t_ours, "mlbench NumPy", t_np))
        t_auc, auc = best_time(lambda: get_measure("macro_auc")(Y, S), args.repeats)
        t_skauc, skauc = best_time(lambda: skm.roc_auc_score(Y, S, average="macro"), args.repeats)
        assert np.isclose(auc, skauc)
        rows.append((f"macro_auc ({case})", t_auc, "roc_auc_score", t_skauc))
        if case == "untied":
            t_f1, f1 = best_time(lambda: get_measure("macro_f1")(Y, P), args.repeats)
            t_skf1, skf1 = best_time(lambda: skm.f1_score(Y, P, average="macro", zero_division=1),
                                     args.repeats)
            assert np.isclose(f1, skf1)
            rows.append(("macro_f1", t_f1, "f1_score", t_skf1))
    print(f"{n} instances x {L} labels, best of {args.repeats}")
    print(f"{'measure':28s} {'mlbench s':>10s}  {'against':16s} {'their s':>9s} {'speed-up':>9s}")
    for name, ours, other, theirs in rows:
        print(f"{name:28s} {ours:10.4f}  {other:16s} {theirs:9.4f} {theirs / ours:8.1f}x")


if __name__ == "__main__":
    main()
