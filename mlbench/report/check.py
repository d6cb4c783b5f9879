"""The regression gate: compare results with a reference, cell mean by cell mean.

For every (dataset, method, metric) of the reference, the mean over ``ok`` splits in the new results
is compared with the reference mean; it regresses when it is worse by more than ``tolerance``
(absolute, in the metric's units) in the metric's bad direction (lower for greater-is-better
metrics, higher for losses).  A reference cell with no value in the new results (the method failed or
was not run) is a regression too: a gate must not pass because a method stopped producing numbers.
Improvements and cells only in the new results are reported, never failures.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mlbench.errors import ConfigError
from mlbench.report.results import metric_info


@dataclass(frozen=True)
class Difference:
    dataset: str
    method: str
    metric: str
    reference: float
    value: float          # NaN when missing
    worse_by: float       # > 0 means worse (NaN when missing)

    @property
    def missing(self):
        return not np.isfinite(self.value)


def compare(results, reference, tolerance=0.02, metrics=None):
    """``(regressions, improvements, compared_count, new_cells)`` of ``results`` against ``reference``."""
    if not tolerance >= 0:
        raise ConfigError(f"--tolerance must be non-negative (got {tolerance})")
    names = list(metrics or [m for m in reference.metrics if m in results.metrics])
    if not names:
        raise ConfigError("the results and the reference share no metric column")
    regressions, improvements, compared, new_cells = [], [], 0, 0
    for metric in names:
        greater, _ = metric_info(metric)
        ref = reference.cells(metric)["mean"]
        new = results.cells(metric)["mean"] if metric in results.metrics else None
        for (dataset, method), r in ref.items():
            if not np.isfinite(r):
                continue
            compared += 1
            v = new.get((dataset, method), np.nan) if new is not None else np.nan
            if not np.isfinite(v):
                regressions.append(Difference(dataset, method, metric, float(r), np.nan, np.nan))
                continue
            worse = (r - v) if greater else (v - r)
            d = Difference(dataset, method, metric, float(r), float(v), float(worse))
            if worse > tolerance + 1e-12:
                regressions.append(d)
            elif -worse > tolerance + 1e-12:
                improvements.append(d)
        if new is not None:
            new_cells += int(sum(1 for key, v in new.items() if np.isfinite(v) and
                                 not np.isfinite(ref.get(key, np.nan))))
    return regressions, improvements, compared, new_cells
