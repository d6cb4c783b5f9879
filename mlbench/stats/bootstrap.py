"""Bootstrap over the test rows of one split: confidence intervals of a measure and of the paired
difference between two methods, for protocols with one fixed train/test split (HierCost's).

Each replicate draws the test rows with replacement (Efron & Tibshirani 1993, ch. 6 and 13) and
recomputes the measure on the drawn rows; the 95% interval is the percentile interval (2.5th and
97.5th percentiles of the replicates).  The resamples are seeded by (protocol seed, dataset, split)
only, so every method of a split is scored on the same B resamples: the difference of two methods'
replicate values is then exactly the paired bootstrap distribution of their difference, and the
report can build its interval from the two results rows alone.

A results row keeps its replicates in ``extra["bootstrap"]`` as float16 values, base64-encoded
(2 bytes a replicate: 3 significant digits, ample for an interval of F1 values); see
:func:`encode` / :func:`decode`.
"""
from __future__ import annotations

import base64
import zlib

import numpy as np

#: replicates per measure unless the protocol says otherwise
DEFAULT_REPLICATES = 1000


def resample_seed(seed, dataset, split):
    """The seed of a split's resamples: the same for every method of that split."""
    return zlib.crc32(f"bootstrap/{seed}/{dataset}/{split}".encode()) & 0x7FFFFFFF


def replicates(measure, n_rows, B, seed):
    """``measure(rows)`` on each of ``B`` resamples (with replacement) of ``range(n_rows)``."""
    rng = np.random.RandomState(seed)
    out = np.empty(int(B))
    for b in range(int(B)):
        out[b] = measure(rng.randint(n_rows, size=n_rows))
    return out


def percentile_interval(values, level=0.95):
    """The percentile interval of bootstrap ``values`` (NaNs ignored): (low, high)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return float("nan"), float("nan")
    a = (1.0 - level) / 2.0
    return float(np.quantile(v, a)), float(np.quantile(v, 1.0 - a))


def encode(values):
    """float16 little-endian bytes of ``values``, base64 text (what a results row stores)."""
    return base64.b64encode(np.asarray(values, dtype="<f2").tobytes()).decode("ascii")


def decode(text):
    """The values :func:`encode` stored (float64); a malformed text gives an empty array."""
    try:
        raw = base64.b64decode(str(text), validate=True)
    except (ValueError, TypeError):
        return np.empty(0)
    if len(raw) % 2:
        return np.empty(0)
    return np.frombuffer(raw, dtype="<f2").astype(np.float64)


def row_replicates(extra, metric):
    """The replicate values of ``metric`` stored in a results row's parsed ``extra`` (or None)."""
    boot = extra.get("bootstrap") if isinstance(extra, dict) else None
    if not isinstance(boot, dict) or not isinstance(boot.get("replicates"), dict):
        return None
    text = boot["replicates"].get(metric)
    values = decode(text) if isinstance(text, str) else np.empty(0)
    return values if values.size else None


def _extra(row):
    import json

    value = row.get("extra") if hasattr(row, "get") else None
    if isinstance(value, dict):
        return value
    try:
        parsed = json.loads(value) if isinstance(value, str) else None
    except (ValueError, RecursionError):   # RecursionError: hostile, deeply nested JSON
        return None
    return parsed if isinstance(parsed, dict) else None


def row_interval(row, metric, level=0.95):
    """The percentile interval of ``metric`` from a results row's stored replicates, or None."""
    values = row_replicates(_extra(row), metric)
    return None if values is None else percentile_interval(values, level)


def paired_interval(row_a, row_b, metric, level=0.95):
    """(mean, low, high) of the bootstrap distribution of ``a - b`` for two results rows of the
    same split (their replicates share the resamples), or None when either row lacks them."""
    a = row_replicates(_extra(row_a), metric)
    b = row_replicates(_extra(row_b), metric)
    if a is None or b is None or a.size != b.size:
        return None
    d = a - b
    lo, hi = percentile_interval(d, level)
    return float(np.nanmean(d)), lo, hi
