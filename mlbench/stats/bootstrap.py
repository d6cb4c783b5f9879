"""Bootstrap over the test rows of one split: confidence intervals of a measure and of the paired
difference between two methods, for protocols with one fixed train/test split (HierCost's).

Each replicate draws the test rows with replacement (Efron & Tibshirani 1993, ch. 6 and 13) and
recomputes the measure on the drawn rows; the 95% interval is the percentile interval (2.5th and
97.5th percentiles of the replicates).  The resamples are seeded by (protocol seed, dataset, split)
only, so every method of a split is scored on the same B resamples: the difference of two methods'
replicate values is then exactly the paired bootstrap distribution of their difference, and the
report can build its interval from the two results rows alone.

**Intervals.**  A measure whose value jumps at the edges of its definition is biased under
resampling: with MULAN's empty-label rule a label that neither occurs nor is predicted scores 1, so
a resample that happens to miss a rare label's few rows lifts macro-F1 (on ImCLEF07D the replicates
of flat LR average 0.476 where the test set gives 0.419), and the paired differences of two methods
shrink towards 0 the same way.  The plain percentile interval then sits off-centre and the mean of
the replicates is not the estimate.  Reports therefore quote the point value on the whole test
set (and the point difference of two methods) with the *bias-corrected* percentile interval
(:func:`bc_interval`; Efron 1987, Efron & Tibshirani 1993 ch. 14, BCa with acceleration 0): the
percentiles are shifted by the share of replicates below the point value, so the interval is
centred on the point value's position in the bootstrap distribution.  When every replicate lies
on one side of the point value the correction is undefined and no interval is given
(:func:`bc_interval` returns None), which says that the resampling distribution cannot describe that
value; :func:`replicate_bias` gives the size of the shift.

A results row keeps its replicates in ``extra["bootstrap"]`` as float16 values, base64-encoded
(2 bytes a replicate: 3 significant digits, ample for an interval of F1 values); see
:func:`encode` / :func:`decode`.
"""
from __future__ import annotations

import base64
import math
import zlib

import numpy as np

#: replicates per measure unless the protocol says otherwise
DEFAULT_REPLICATES = 1000


def stored_error(value):
    """How far a replicate equal to ``value`` may lie from it once stored: half the float16 spacing
    at ``value`` (2.4e-4 for values in [0.5, 1)).  A measure of few test rows takes few distinct
    values, many equal to the point value before rounding: :func:`bc_interval` counts replicates
    within this distance of the point as ties."""
    return float(np.spacing(np.float16(min(abs(float(value)), 65000.0)))) / 2.0


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


def _norm_cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _norm_ppf(p):
    from scipy.special import ndtri

    return float(ndtri(p))


def bc_interval(values, point, level=0.95, acceleration=0.0, tie=0.0):
    """The bias-corrected (and, with ``acceleration``, accelerated) percentile interval of bootstrap
    ``values`` around the estimate ``point`` on the whole sample: (low, high), or None when the
    correction is undefined (no finite replicate, or every replicate on one side of ``point``).

    z0 = Phi^-1(share of replicates below ``point``, ties -- replicates within ``tie`` of it --
    counted half); the interval's ends are the
    replicates' quantiles at Phi(z0 + (z0 + z_a) / (1 - acc (z0 + z_a))) for z_a = Phi^-1(alpha/2) and
    Phi^-1(1 - alpha/2) (Efron & Tibshirani 1993, eq. 14.10; acc = 0 is the BC interval)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0 or not np.isfinite(point):
        return None
    ties = np.count_nonzero(np.abs(v - point) <= tie)
    below = (np.count_nonzero(v < point - tie) + 0.5 * ties) / v.size
    if below <= 0.0 or below >= 1.0:
        return None
    z0 = _norm_ppf(below)
    ends = []
    for q in ((1.0 - level) / 2.0, (1.0 + level) / 2.0):
        z = z0 + _norm_ppf(q)
        ends.append(float(np.quantile(v, _norm_cdf(z0 + z / (1.0 - acceleration * z)))))
    return ends[0], ends[1]


def replicate_bias(values, point):
    """Mean of the replicates minus the whole-sample value: the bootstrap's estimate of the bias."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    return float(v.mean() - point) if v.size and np.isfinite(point) else float("nan")


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
    from mlbench.results_file import json_object

    return json_object(row.get("extra") if hasattr(row, "get") else None)


def _point(row, metric):
    try:
        return float(row[metric])
    except (KeyError, TypeError, ValueError):
        return float("nan")


def row_interval(row, metric, level=0.95):
    """The bias-corrected interval of ``metric`` around the row's own value, from its stored
    replicates: (low, high); None when the row stored none or the correction is undefined
    (:func:`bc_interval`)."""
    values = row_replicates(_extra(row), metric)
    point = _point(row, metric)
    return None if values is None else bc_interval(values, point, level,
                                                   tie=stored_error(point))


def paired_interval(row_a, row_b, metric, level=0.95):
    """(difference, low, high) for two results rows of the same split (their replicates share the
    resamples): the point difference ``a - b`` of the rows' values and the bias-corrected interval
    of the replicates' differences around it.  None when either row lacks replicates; (difference,
    nan, nan) when the interval is undefined (:func:`bc_interval`)."""
    a = row_replicates(_extra(row_a), metric)
    b = row_replicates(_extra(row_b), metric)
    if a is None or b is None or a.size != b.size:
        return None
    pa, pb = _point(row_a, metric), _point(row_b, metric)
    point = pa - pb
    if np.array_equal(a, b) and point == 0:
        return 0.0, 0.0, 0.0
    ci = bc_interval(a - b, point, level, tie=stored_error(pa) + stored_error(pb))
    return (point,) + (ci if ci is not None else (float("nan"), float("nan")))
