"""imtsl-paper before and after issue 40 (item 4), on the same splits.

    git show 02feab4:results/papers/imtsl.csv > /tmp/imtsl-before.csv
    .venv/bin/python benchmarks/imtsl_before_after.py /tmp/imtsl-before.csv results/papers/imtsl.csv

"Before" is the mixed reading (Eq. 2 summed, Eq. 5 mean, every penalty on [0, 5]), "after" the
mean reading of both with log-spaced grids; a protocol's splits derive from its name, so both runs
see the same rows.  Rows of the second file are "after" only if they were run on the log grid.  For every dataset with all ten splits in both files it prints, per method, the
mean test accuracy before and after, the selected penalties (most frequent value over the splits)
and, for I-MTSL, the mean number of positive and negative edges of the final graph; then the share
of method pairs among cmtl, trace, mtl-feat and imtsl-empty whose ten accuracies are identical to 4
decimals (the collapse to one unpenalised model).
"""
from __future__ import annotations

import itertools
import json
import sys
from collections import Counter

import pandas as pd

KEYS = ("lambda", "gamma", "rho1", "rho2")
before, after = (pd.read_csv(p, low_memory=False) for p in sys.argv[1:3])
before, after = (d[(d.protocol == "imtsl-paper") & (d.status == "ok")] for d in (before, after))
after = after[after.params.str.contains("0.000359")]     # rows run on the log grid (issue 40)


def summary(rows):
    extra = [json.loads(e) for e in rows.extra]
    sel = {k: Counter(e[k] for e in extra if k in e).most_common(1)[0][0] for k in KEYS if k in extra[0]}
    edges = (sum(e.get("n_edges_pos", 0) for e in extra) / len(extra), sum(e.get("n_edges_neg", 0) for e in extra) / len(extra))
    return rows.accuracy.mean(), sel, edges


for ds in after.dataset.unique():
    print(f"== {ds}")
    accs = {}
    for m in sorted(after[after.dataset == ds].method.unique()):
        b = before[(before.dataset == ds) & (before.method == m)].sort_values("split")
        a = after[(after.dataset == ds) & (after.method == m)].sort_values("split")
        if len(a) < 10 or len(b) < 10:
            continue
        (ab, sb, eb), (aa, sa, ea) = summary(b), summary(a)
        accs[m] = (b.accuracy.round(4).tolist(), a.accuracy.round(4).tolist())
        graph = f"  edges +{eb[0]:.1f}/-{eb[1]:.1f} -> +{ea[0]:.1f}/-{ea[1]:.1f}" if m in ("imtsl", "imtsl-random") else ""
        print(f"{m:13s} accuracy {ab:.4f} -> {aa:.4f}   selected {sb} -> {sa}{graph}")
    group = [m for m in ("cmtl", "trace", "mtl-feat", "imtsl-empty") if m in accs]
    for when, i in (("before", 0), ("after", 1)):
        same = [f"{p}={q}" for p, q in itertools.combinations(group, 2) if accs[p][i] == accs[q][i]]
        print(f"identical to 4 decimals on all 10 splits, {when}: {', '.join(same) or 'none'}")
