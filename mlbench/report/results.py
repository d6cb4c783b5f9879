"""Reading results CSVs for reports and checks.

A results CSV has one row per dataset x method x split (ARCHITECTURE.md, "Results CSV"): fixed
columns, then one column per metric.  :func:`load_results` merges several files, validates them
(one-line :class:`~mlbench.errors.DataError` for anything malformed) and keeps the rows a report
needs.  Rows whose status is not ``ok`` are kept aside as failures so the report can list the cells
they leave empty; nothing is dropped silently.

When the same (protocol, dataset, method, split) appears more than once (files merged twice, a
rerun), an ``ok`` row wins over a failed one and the last ``ok`` row wins among several; the number
of rows replaced this way is reported.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd

from mlbench.errors import ConfigError, DataError
from mlbench.experiment.columns import COLUMNS

#: the fixed (non-metric) columns of a results CSV: the runner's
FIXED_COLUMNS = COLUMNS
REQUIRED = ("dataset", "method", "split")
KEY = ("protocol", "dataset", "method", "split")

#: metric directions used only when the metric registry does not know a name (greater is better?)
FALLBACK_DIRECTIONS = {
    "hierarchical_f1": True, "hf1": True, "hierarchical_precision": True, "hp": True,
    "hierarchical_recall": True, "hr": True, "tree_error": False, "tree_induced_error": False, "te": False,
    "lca_f1": True, "zero_one_loss": False, "log_loss": False,
    # the runner's timing columns: never a default metric (FIXED_COLUMNS), but --metric fit_seconds
    # tabulates training times (and tests them) like any lower-is-better measure
    "fit_seconds": False, "predict_seconds": False, "cpu_seconds": False, "peak_memory_mb": False,
}


def metric_info(name):
    """``(greater_is_better, display name)`` of a metric; unknown names raise ConfigError."""
    from mlbench.metrics import get_measure

    try:
        m = get_measure(name)
        return m.greater_is_better, m.display or name
    except ConfigError:
        if name in FALLBACK_DIRECTIONS:
            return FALLBACK_DIRECTIONS[name], name
        raise


def _is_metric(name):
    try:
        metric_info(name)
        return True
    except ConfigError:
        return False


@functools.lru_cache(maxsize=32)
def _protocol_order(name, what):
    """Lower-cased dataset names or method labels (``what``) of the shipped protocol ``name``, in
    its order (empty if there is none)."""
    from mlbench.protocols import load_protocol, protocol_names

    if not name or name not in protocol_names():
        return {}
    p = load_protocol(name)
    names = p.datasets if what == "datasets" else [e.label for e in p.methods]
    return MappingProxyType({str(n).lower(): i for i, n in enumerate(names)})


def _in_protocol_order(seen, order):
    return sorted(seen, key=lambda x: (order.get(str(x).lower(), len(order)), seen.index(x)))


@dataclass
class Results:
    """Merged results: ``ok`` rows (``frame``), failed rows, metric columns and provenance notes."""

    frame: pd.DataFrame
    failures: pd.DataFrame
    metrics: list
    protocol: str | None
    files: list
    notes: list = field(default_factory=list)

    @property
    def methods(self):
        """Methods in the order of the shipped protocol's list, then in order of appearance."""
        seen = list(dict.fromkeys(pd.concat([self.frame["method"], self.failures["method"]])))
        return _in_protocol_order(seen, _protocol_order(self.protocol, "methods"))

    @property
    def datasets(self):
        """Datasets in the order of the shipped protocol's list (names compared case-insensitively),
        then in order of appearance."""
        seen = list(dict.fromkeys(pd.concat([self.frame["dataset"], self.failures["dataset"]])))
        return _in_protocol_order(seen, _protocol_order(self.protocol, "datasets"))

    def cells(self, metric):
        """Mean, std (ddof=1, 0 for one split) and split count per (dataset, method) for ``metric``."""
        ok = self.frame[np.isfinite(self.frame[metric])]
        g = ok.groupby(["dataset", "method"], sort=False)[metric]
        out = pd.DataFrame({"mean": g.mean(), "std": g.std(ddof=1).fillna(0.0), "n": g.size()})
        full = pd.MultiIndex.from_product([self.datasets, self.methods], names=["dataset", "method"])
        out = out.reindex(full)
        out["n"] = out["n"].fillna(0).astype(int)
        return out

    def per_split(self, metric, dataset):
        """Scores of every method on each split of ``dataset``: DataFrame (split x method)."""
        part = self.frame[(self.frame["dataset"] == dataset) & np.isfinite(self.frame[metric])]
        return part.pivot_table(index="split", columns="method", values=metric, aggfunc="last")

    def sizes(self, dataset):
        """Mean training and test set sizes on ``dataset`` (NaN when the CSV lacks them)."""
        part = self.frame[self.frame["dataset"] == dataset]
        return tuple(float(part[c].mean()) if c in part.columns else np.nan for c in ("n_train", "n_test"))

    def missing(self, metric):
        """Cells without a value for ``metric``: list of dicts (dataset, method, reason)."""
        cells = self.cells(metric)
        out = []
        for (dataset, method), row in cells.iterrows():
            if row["n"] > 0:
                continue
            failed = self.failures[(self.failures["dataset"] == dataset) & (self.failures["method"] == method)]
            if len(failed):
                statuses = ", ".join(f"{s} x{c}" for s, c in failed["status"].value_counts().items())
                errors = [e for e in failed.get("error", pd.Series(dtype=str)).astype(str) if e and e != "nan"]
                reason = f"{statuses}" + (f": {errors[0][:120]}" if errors else "")
            elif len(self.frame[(self.frame["dataset"] == dataset) & (self.frame["method"] == method)]):
                reason = f"no {metric} value"
            else:
                reason = "not run"
            out.append({"dataset": dataset, "method": method, "reason": reason})
        return out

    def partial(self, metric):
        """Cells with fewer splits than the most complete method on the same dataset."""
        cells = self.cells(metric)
        out = []
        for dataset in self.datasets:
            n = cells.loc[dataset, "n"]
            top = int(n.max())
            for method, count in n.items():
                if 0 < count < top:
                    out.append({"dataset": dataset, "method": method, "splits": int(count), "of": top})
        return out


def _read_one(path, notes):
    """One results CSV as a DataFrame, read by the results file's line rules
    (:func:`mlbench.results_file.read_results`): a refused line (unparsable, another width,
    another column layout, a torn last line) is left out with a note naming it, never an error for
    the whole file (a file with no readable row is)."""
    from mlbench.results_file import read_results

    if not os.path.isfile(path):
        raise DataError(f"results file {path} does not exist")
    problems = []
    try:
        df = read_results([path], problems)
    except ConfigError as exc:
        raise DataError(str(exc)) from None
    problems = [p.split(": ", 1)[1] for p in problems]
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise DataError(f"{path}: not a results CSV (missing column {', '.join(missing)})")
    if problems:
        notes.append(f"{path}: {len(problems)} unreadable line(s) left out ("
                     + "; ".join(problems[:3]) + ("; ..." if len(problems) > 3 else "") + ")")
    if df.empty:
        why = f" ({'; '.join(problems[:2])})" if problems else ""
        raise DataError(f"{path}: no readable result rows{why}")
    if df[list(REQUIRED)].isna().any().any():
        line = int(df["__line"][df[list(REQUIRED)].isna().any(axis=1)].iloc[0])
        raise DataError(f"{path}: line {line} lacks a dataset, method or split")
    return df


def load_results(paths, metrics=None, protocol=None):
    """Read, merge and validate results CSVs; ``metrics`` (default: every metric column) are checked."""
    if not paths:
        raise ConfigError("no results file given")
    notes = []
    frames = [_read_one(os.fspath(p), notes) for p in paths]
    return results_from_frame(pd.concat(frames, ignore_index=True, sort=False), metrics, protocol,
                              [os.fspath(p) for p in paths], notes)


def results_from_frame(df, metrics=None, protocol=None, files=(), notes=()):
    """:class:`Results` of the rows ``df`` (a results file's columns, ok and failed rows, as
    :func:`load_results` merges them or :func:`mlbench.results.read` returns them): the same
    validation, duplicate and failure rules.  ``files`` and ``notes`` are what the rows were read
    from and what reading them found."""
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise DataError(f"not a results frame (missing column {', '.join(missing)})")
    notes = list(notes)
    df = df.copy()
    if "__file" not in df.columns:
        df["__file"] = ", ".join(files) or "the results frame"
    if "protocol" not in df.columns:
        df["protocol"] = ""
    df["protocol"] = df["protocol"].fillna("").astype(str)
    if "status" not in df.columns:
        df["status"] = "ok"
    df["status"] = df["status"].fillna("ok").astype(str)
    protocols = sorted({p for p in df["protocol"] if p})
    if protocol is not None:
        df = df[df["protocol"] == protocol]
        if df.empty:
            raise DataError(f"no rows of protocol {protocol!r} (found: {', '.join(protocols) or 'none'})")
    elif len(protocols) > 1:
        files = ", ".join(sorted(set(df["__file"])))
        raise ConfigError(f"{files}: the results mix protocols {', '.join(protocols[:6])}"
                          f"{', ...' if len(protocols) > 6 else ''}; choose one with --protocol")
    chosen = protocol or (protocols[0] if protocols else None)

    metric_columns = [c for c in df.columns if c not in FIXED_COLUMNS and not c.startswith("__")
                      and not c.startswith("Unnamed")]
    if metrics:
        absent = [m for m in metrics if m not in df.columns]
        for m in absent:
            metric_info(m)  # unknown names fail here with a suggestion
        if absent:
            raise DataError(f"metric {absent[0]} is not a column of the results "
                            f"(columns: {', '.join(metric_columns) or 'none'})")
        metric_columns = list(dict.fromkeys(metrics))
    else:
        # columns the runner may add beyond the documented schema are not metrics: skip, and say so
        unknown = [c for c in metric_columns if not _is_metric(c)]
        if unknown:
            notes.append(f"columns that are not registered metrics were ignored: {', '.join(unknown)}")
        metric_columns = [c for c in metric_columns if c not in unknown]
    for m in metric_columns:
        metric_info(m)  # an unknown name fails before its values are looked at
        values = pd.to_numeric(df[m], errors="coerce")
        bad = values.isna() & df[m].notna() & (df[m].astype(str).str.lower() != "nan")
        if bad.any():    # one malformed row is left out with a note; it never spoils the others
            first = int(np.flatnonzero(bad.to_numpy())[0])
            notes.append(f"{df['__file'].iloc[first]}: {int(bad.sum())} row(s) left out: metric "
                         f"column {m} holds a non-number ({str(df[m].iloc[first])[:40]!r})")
            df, values = df[~bad.to_numpy()], values[~bad.to_numpy()]
        df[m] = values.astype(float)
    for c in ("n_train", "n_test"):
        if c in df.columns:
            df[c] = pd.to_numeric(df[c], errors="coerce")

    ok = df[df["status"] == "ok"]
    failed = df[df["status"] != "ok"]
    before = len(ok)
    ok = ok.drop_duplicates(subset=list(KEY), keep="last")
    if len(ok) < before:
        notes.append(f"{before - len(ok)} duplicate ok rows replaced by the last one")
    # a failure superseded by an ok row of the same split (a successful rerun) is not a failure
    ok_keys = set(map(tuple, ok[list(KEY)].to_numpy()))
    superseded = failed[list(KEY)].apply(tuple, axis=1).isin(ok_keys) if len(failed) else pd.Series([], dtype=bool)
    if len(failed) and superseded.any():
        notes.append(f"{int(superseded.sum())} failed rows superseded by an ok rerun")
        failed = failed[~superseded.to_numpy()]
    return Results(ok.reset_index(drop=True), failed.reset_index(drop=True), metric_columns, chosen,
                   list(files), notes)


def select(results, methods=None, datasets=None):
    """``results`` restricted to the methods and datasets matching the patterns (comma lists or
    lists; shell globs such as ``mldf-*``; case-insensitive).  A pattern that matches nothing is
    an error naming what there is."""
    import dataclasses
    import fnmatch

    def chosen(column, patterns, what):
        if not patterns:
            return None
        pats = [p.strip() for v in ([patterns] if isinstance(patterns, str) else patterns)
                for p in str(v).split(",") if p.strip()]
        names = list(dict.fromkeys(pd.concat([results.frame[column], results.failures[column]])))
        keep = set()
        for pat in pats:
            hit = [n for n in names if fnmatch.fnmatchcase(str(n).lower(), pat.lower())]
            if not hit:
                raise ConfigError(f"--{what} {pat!r} matches no {what[:-1]} of the results "
                                  f"(there are: {', '.join(map(str, names[:20]))}"
                                  f"{', ...' if len(names) > 20 else ''})")
            keep.update(hit)
        return keep

    m, d = chosen("method", methods, "methods"), chosen("dataset", datasets, "datasets")

    def cut(frame):
        mask = np.ones(len(frame), dtype=bool)
        if m is not None:
            mask &= frame["method"].isin(m).to_numpy()
        if d is not None:
            mask &= frame["dataset"].isin(d).to_numpy()
        return frame[mask]

    return dataclasses.replace(results, frame=cut(results.frame), failures=cut(results.failures))
