"""Dataset statistics, the columns of Table 1 of the SOSHF paper (and the usual MULAN ones).

For n instances, d features and L labels with 0/1 label matrix Y (Tsoumakas, Katakis & Vlahavas,
"Mining multi-label data", 2009):

- ``cardinality`` = (1/n) sum_i |Y_i|, the mean number of labels per instance;
- ``density`` = cardinality / L;
- ``distinct`` = the number of distinct label sets (rows of Y), ``pdl`` = distinct / n (the
  proportion of distinct label sets);
- imbalance ratio of label l: IR_l = |majority class| / |minority class| =
  max(pos_l, neg_l) / min(pos_l, neg_l), as SOSHF and Zhang, Li & Liu (2015) define it; a label
  with no positive (or no negative) instance has IR = inf.  ``ir_min``, ``ir_max`` and ``ir_mean``
  are over the labels; ``ir_mean`` is inf as soon as one label's IR is;
- ``sparsity`` = the fraction of feature-matrix entries equal to 0 (a missing value is not 0);
- ``feature_type`` = numeric, nominal (every feature nominal) or mixed;
- hierarchical data add ``depth`` (longest root-to-node path, in edges), ``nodes`` and ``leaves``.
"""
from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import scipy.sparse as sp

from mlbench.data.dataset import Dataset

COLUMNS = [
    ("name", "dataset"), ("domain", "domain"), ("instances", "instances"),
    ("features", "features"), ("labels", "labels"), ("feature_type", "feature type"),
    ("cardinality", "cardinality"), ("density", "density"), ("distinct", "distinct sets"),
    ("pdl", "PDL"), ("ir_min", "IR min"), ("ir_max", "IR max"), ("ir_mean", "IR mean"),
    ("sparsity", "sparsity"), ("depth", "depth"), ("nodes", "nodes"), ("leaves", "leaves"),
]


def imbalance_ratios(Y) -> np.ndarray:
    """IR_l = max(pos, neg) / min(pos, neg) per label (inf when min is 0)."""
    Y = np.asarray(Y) != 0
    pos = Y.sum(axis=0).astype(np.float64)
    neg = Y.shape[0] - pos
    hi, lo = np.maximum(pos, neg), np.minimum(pos, neg)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(lo > 0, hi / np.where(lo > 0, lo, 1), np.inf)


def distinct_labelsets(Y) -> int:
    Y = np.ascontiguousarray(np.asarray(Y) != 0)
    if Y.shape[0] == 0:
        return 0
    packed = np.packbits(Y, axis=1)
    return int(np.unique(packed, axis=0).shape[0])


def sparsity(X) -> float:
    size = X.shape[0] * X.shape[1]
    if size == 0:
        return math.nan
    nnz = X.count_nonzero() if sp.issparse(X) else int(np.count_nonzero(X))
    return 1.0 - nnz / size


def feature_type(ds: Dataset) -> str:
    if not ds.nominal:
        return "numeric"
    return "nominal" if len(ds.nominal) == ds.n_features else "mixed"


def statistics(ds: Dataset) -> dict:
    """Every statistic of ``ds`` (see the module docstring)."""
    Y = np.asarray(ds.Y)
    n, L = Y.shape
    card = float(Y.sum() / n) if n else math.nan
    ir = imbalance_ratios(Y)
    out = {
        "name": ds.name, "domain": ds.domain, "instances": n, "features": ds.n_features,
        "labels": L, "feature_type": feature_type(ds), "cardinality": card,
        "density": card / L if L else math.nan, "distinct": distinct_labelsets(Y),
        "pdl": distinct_labelsets(Y) / n if n else math.nan,
        "ir_min": float(ir.min()) if L else math.nan, "ir_max": float(ir.max()) if L else math.nan,
        "ir_mean": float(ir.mean()) if L else math.nan, "sparsity": sparsity(ds.X),
    }
    if ds.hierarchy is not None:
        out.update(depth=ds.hierarchy.max_depth, nodes=len(ds.hierarchy),
                   leaves=len(ds.hierarchy.leaves))
    return out


def _cell(value, fmt):
    if isinstance(value, float):
        if math.isinf(value):
            return "inf"
        if math.isnan(value):
            return ""
        return f"{value:.4g}" if fmt != "csv" else repr(value)
    return "" if value is None else str(value)


def render(rows: list[dict], fmt: str = "terminal") -> str:
    """The statistics of several datasets as one table (terminal, markdown, csv, latex or json)."""
    keys = [(k, h) for k, h in COLUMNS if any(k in r for r in rows)]
    if fmt == "json":
        def clean(v):
            return "inf" if isinstance(v, float) and math.isinf(v) else \
                (None if isinstance(v, float) and math.isnan(v) else v)
        return json.dumps([{k: clean(r.get(k)) for k, _ in keys} for r in rows], indent=2)
    table = [[_cell(r.get(k), fmt) for k, _ in keys] for r in rows]
    heads = [h for _, h in keys]
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow([k for k, _ in keys])
        w.writerows(table)
        return buf.getvalue().rstrip("\n")
    if fmt == "markdown":
        lines = ["| " + " | ".join(heads) + " |", "|" + "|".join("---" for _ in heads) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in table]
        return "\n".join(lines)
    if fmt == "latex":
        def esc(s):
            return s.replace("\\", "\\textbackslash{}").replace("_", "\\_").replace("&", "\\&") \
                .replace("%", "\\%").replace("#", "\\#")
        lines = ["\\begin{tabular}{l" + "r" * (len(heads) - 1) + "}", "\\hline",
                 " & ".join(map(esc, heads)) + " \\\\", "\\hline"]
        lines += [" & ".join(map(esc, row)) + " \\\\" for row in table]
        lines += ["\\hline", "\\end{tabular}"]
        return "\n".join(lines)
    if fmt == "terminal":
        from rich.console import Console
        from rich.table import Table

        t = Table(show_header=True, header_style="bold")
        for k, h in keys:
            t.add_column(h, justify="left" if k in ("name", "domain", "feature_type") else "right")
        for row in table:
            t.add_row(*row)
        console = Console(file=io.StringIO(), width=240, force_terminal=False, color_system=None)
        console.print(t)
        return console.file.getvalue().rstrip("\n")
    raise ValueError(f"unknown format {fmt!r}")
