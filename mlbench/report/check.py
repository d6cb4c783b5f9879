"""The regression gate: compare results with a reference, cell by cell.

For every (dataset, method, metric) of the reference, the new results' cell is

* **worse** (a regression) when its mean is worse than the reference mean by more than the metric's
  tolerance (absolute, in the metric's units, in its bad direction) *and*, when the two share at
  least two splits, a one-sided paired t-test over the shared splits says so (p < ``alpha``): a
  shift within the split-to-split noise of a noisy method is not a regression.  Identical
  differences on every split (a deterministic shift) count as significant;
* **failed** (a regression) when the new results hold only failed rows for that cell: a gate must
  not pass because a method stopped producing numbers;
* **missing** when the new results have no row of that cell at all (not run, e.g. a smaller run):
  reported, and a failure only with ``strict``;
* an **improvement** when better by more than the tolerance.

Cells only in the new results are counted as new, never failures.

Like is compared with like: :func:`check_comparable` refuses a reference of another protocol, split
rule (split scheme, or other training / test sizes on a shared split) or base seed, whose cells
were measured on other splits.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mlbench.errors import ConfigError
from mlbench.report.results import metric_info


@dataclass(frozen=True)
class Difference:
    dataset: str
    method: str
    metric: str
    reference: float
    value: float          # NaN when missing or failed
    worse_by: float       # > 0 means worse (NaN when missing or failed)
    kind: str = "worse"   # worse | failed | missing | better
    p: float = float("nan")   # the paired test's p-value (NaN: fewer than two shared splits)

    @property
    def missing(self):
        return not np.isfinite(self.value)


@dataclass
class CheckResult:
    regressions: list = field(default_factory=list)   # worse and failed
    missing: list = field(default_factory=list)
    improvements: list = field(default_factory=list)
    compared: int = 0
    new_cells: int = 0
    cases: list = field(default_factory=list)         # every compared Difference (for JUnit)

    def failed(self, strict=False):
        return bool(self.regressions or (strict and self.missing))


def parse_tolerances(values, default=0.02):
    """``--tolerance`` values: a number (every metric) or ``METRIC=NUMBER``; -> (default, {metric: tol})."""
    per = {}
    for v in values or ():
        name, _, num = str(v).rpartition("=")
        try:
            tol = float(num)
        except ValueError:
            raise ConfigError(f"--tolerance: cannot read {v!r} (a number, or METRIC=NUMBER)") from None
        if not np.isfinite(tol) or tol < 0:
            raise ConfigError(f"--tolerance must be non-negative (got {v})")
        if name:
            metric_info(name)            # unknown metric: an error with a suggestion
            per[name] = tol
        else:
            default = tol
    return default, per


def _scheme(split):
    """The split scheme a split name was written by (``holdout-r03`` -> ``holdout``, ``kfold-r00-f02``
    -> ``kfold``; a name without a dash is its own scheme)."""
    return str(split).split("-", 1)[0]


def _seeds(results):
    frame = pd.concat([results.frame, results.failures])
    if "seed" not in frame.columns:
        return set()
    return {str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)
            for v in frame["seed"].dropna().unique()}


def _show(name):
    """A name from a results file as a message shows it: quoted with escapes unless it is plain."""
    import re

    text = str(name)
    return text if re.fullmatch(r"[\w.+-]{1,80}", text) else repr(text[:80])


def check_comparable(results, reference, name="the reference"):
    """Raise :class:`ConfigError` (one line) when ``reference`` was run under another protocol,
    split rule or base seed than ``results``: its numbers come from other splits."""
    why = None
    if results.protocol and reference.protocol and results.protocol != reference.protocol:
        why = f"protocol {reference.protocol!r}, the results {results.protocol!r}"
    if why is None:
        a, b = _seeds(reference), _seeds(results)
        if a and b and a != b:
            why = (f"seed {', '.join(map(_show, sorted(a)))}, the results "
                   f"{', '.join(map(_show, sorted(b)))}")
    if why is None:
        a = {_scheme(x) for x in reference.frame["split"]}
        b = {_scheme(x) for x in results.frame["split"]}
        if a and b and a != b:
            why = (f"split scheme {', '.join(map(_show, sorted(a)))}, the results "
                   f"{', '.join(map(_show, sorted(b)))}")
    if why is None and all(c in f.columns for f in (results.frame, reference.frame)
                           for c in ("n_train", "n_test")):
        key = ["dataset", "split"]
        sizes = [f.groupby(key)[["n_train", "n_test"]].first() for f in (reference.frame, results.frame)]
        both = sizes[0].merge(sizes[1], left_index=True, right_index=True,
                              suffixes=("_ref", "_new")).dropna()
        differ = both[(both["n_train_ref"] != both["n_train_new"])
                      | (both["n_test_ref"] != both["n_test_new"])]
        if len(differ):
            (d, sp), r = next(iter(differ.iterrows()))
            why = (f"{_show(d)} {_show(sp)} with {int(r.n_train_ref)} training / "
                   f"{int(r.n_test_ref)} test rows, the results {int(r.n_train_new)} / "
                   f"{int(r.n_test_new)} (another split rule)")
    if why is not None:
        raise ConfigError(f"{name} is not comparable: it has {why}; check against a reference of the "
                          "same protocol, splits and seed")


def _split_test(results, reference, metric, dataset, method, greater):
    """One-sided paired t-test p-value that the new splits are worse (NaN: < 2 shared splits)."""
    from scipy import stats

    new = results.per_split(metric, dataset)
    ref = reference.per_split(metric, dataset)
    if method not in new.columns or method not in ref.columns:
        return float("nan")
    both = new[[method]].merge(ref[[method]], left_index=True, right_index=True,
                               suffixes=("_new", "_ref")).dropna()
    if len(both) < 2:
        return float("nan")
    a, b = both.iloc[:, 0].to_numpy(), both.iloc[:, 1].to_numpy()
    d = (b - a) if greater else (a - b)               # > 0: worse
    if np.allclose(d, d[0]):
        return 0.0 if d[0] > 0 else 1.0               # a deterministic shift
    return float(stats.ttest_1samp(d, 0.0, alternative="greater").pvalue)


def compare(results, reference, tolerance=0.02, metrics=None, tolerances=None, alpha=0.05):
    """A :class:`CheckResult` of ``results`` against ``reference``."""
    if not tolerance >= 0:
        raise ConfigError(f"--tolerance must be non-negative (got {tolerance})")
    tolerances = tolerances or {}
    names = list(metrics or [m for m in reference.metrics if m in results.metrics])
    if not names:
        raise ConfigError("the results and the reference share no metric column")
    failed_cells = set()
    if len(results.failures):
        failed_cells = set(map(tuple, results.failures[["dataset", "method"]].to_numpy()))
    out = CheckResult()
    for metric in names:
        greater, _ = metric_info(metric)
        tol = tolerances.get(metric, tolerance)
        ref = reference.cells(metric)["mean"]
        new = results.cells(metric)["mean"] if metric in results.metrics else None
        for (dataset, method), r in ref.items():
            if not np.isfinite(r):
                continue
            out.compared += 1
            v = new.get((dataset, method), np.nan) if new is not None else np.nan
            if not np.isfinite(v):
                kind = "failed" if (dataset, method) in failed_cells else "missing"
                d = Difference(dataset, method, metric, float(r), np.nan, np.nan, kind)
                (out.regressions if kind == "failed" else out.missing).append(d)
                out.cases.append(d)
                continue
            worse = (r - v) if greater else (v - r)
            p = _split_test(results, reference, metric, dataset, method, greater) \
                if worse > tol + 1e-12 else float("nan")
            if worse > tol + 1e-12 and not (np.isfinite(p) and p >= alpha):
                d = Difference(dataset, method, metric, float(r), float(v), float(worse), "worse", p)
                out.regressions.append(d)
            else:
                kind = "better" if -worse > tol + 1e-12 else "same"
                d = Difference(dataset, method, metric, float(r), float(v), float(worse), kind, p)
                if kind == "better":
                    out.improvements.append(d)
            out.cases.append(d)
        if new is not None:
            out.new_cells += int(sum(1 for key, v in new.items() if np.isfinite(v) and
                                     not np.isfinite(ref.get(key, np.nan))))
    if out.compared == 0:
        raise ConfigError("the reference has no value to compare with (no ok row with a number)")
    return out


def describe(d, tol):
    """One line for a difference, as ``mlbench check`` prints it (names without control
    sequences: they come from results files)."""
    from mlbench.report.formats import plain

    where = plain(f"{d.dataset} / {d.method} / {d.metric}")
    if d.kind == "failed":
        return f"FAILED   {where}: reference {d.reference:.4f}, only failed rows now"
    if d.kind == "missing":
        return f"MISSING  {where}: reference {d.reference:.4f}, not in the new results"
    test = f", paired t-test p = {d.p:.3g}" if np.isfinite(d.p) else ""
    if d.kind == "better":
        return (f"BETTER   {where}: {d.value:.4f} vs reference {d.reference:.4f} "
                f"(better by {-d.worse_by:.4f} > {tol:g})")
    return (f"WORSE    {where}: {d.value:.4f} vs reference {d.reference:.4f} "
            f"(worse by {d.worse_by:.4f} > {tol:g}{test})")


def junit_xml(result, tolerance, tolerances, strict=False):
    """JUnit XML: one testcase per compared (dataset, method, metric); a regression is a
    ``failure``, a missing cell ``skipped`` (a ``failure`` with ``strict``)."""
    from xml.sax.saxutils import escape, quoteattr

    from mlbench.report.formats import plain

    cases = []
    for d in result.cases:
        tol = tolerances.get(d.metric, tolerance)
        name = quoteattr(plain(f"{d.dataset} / {d.method} / {d.metric}"))
        body = ""
        if d.kind in ("worse", "failed") or (d.kind == "missing" and strict):
            body = f"<failure message={quoteattr(describe(d, tol))}/>"
        elif d.kind == "missing":
            body = f"<skipped message={quoteattr(describe(d, tol))}/>"
        cases.append(f'  <testcase classname="mlbench.check.{escape(plain(d.dataset))}" name={name}>'
                     f"{body}</testcase>")
    failures = sum(1 for d in result.cases
                   if d.kind in ("worse", "failed") or (d.kind == "missing" and strict))
    skipped = sum(1 for d in result.cases if d.kind == "missing" and not strict)
    return ('<?xml version="1.0" encoding="utf-8"?>\n'
            f'<testsuite name="mlbench check" tests="{len(result.cases)}" failures="{failures}" '
            f'skipped="{skipped}" errors="0">\n' + "\n".join(cases) + "\n</testsuite>\n")


def annotation(d, tol, path):
    """A GitHub Actions workflow command for a regression (shown on the run's summary page)."""
    text = describe(d, tol).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return f"::error file={path},title=mlbench check {d.kind}::{text}"
