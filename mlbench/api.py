"""mlbench's Python API: the few functions the command line is built on, for notebooks and scripts.

    import mlbench
    ds = mlbench.load_dataset("emotions")            # a registered name or a path (FILE.arff, ...)
    est = mlbench.make_method("br-lr")               # or "my_methods.py:MyClf(alpha=0.1)"
    df = mlbench.run("quick", methods=["br-lr", "mlknn"], datasets=["emotions"], out="r.csv")
    print(mlbench.build_report(df, metrics=["macro_f1"], fmt="markdown"))

``run`` appends to (and resumes) its results CSV exactly as ``mlbench run`` does and returns the
rows of the protocol's grid that are in it, as a DataFrame with the CSV's columns.  ``build_report``
takes CSV paths or such a DataFrame.
"""
from __future__ import annotations

import os

import pandas as pd

from mlbench.data import load_dataset


def list_methods(family: str | None = None, paper: str | None = None) -> list[str]:
    """Names of the registered methods (built-in and plug-in), optionally of one family or paper."""
    from mlbench.methods import registry

    return [s.name for s in registry.all_methods()
            if (family is None or s.family == family) and (paper is None or s.paper == paper)]


def make_method(name: str, random_state: int | None = None, **params):
    """A fresh estimator: a registered name or a user spec (``MODULE:CLASS``, ``FILE.py:CLASS(...)``)."""
    from mlbench.methods import registry

    return registry.make(name, random_state=random_state, **params)


def make_executor(kind: str = "local", *, jobs: int = 1, timeout: float | None = None,
                  cpu_time: float | None = None, max_memory=None, scheduler: str | None = None,
                  retries: int = 2):
    """The executor ``mlbench run --executor KIND`` uses: ``"local"`` (forked processes) or
    ``"dask"`` (``scheduler``'s cluster, else a LocalCluster of ``jobs`` workers); ``max_memory``
    in bytes or as text such as ``"4GB"``."""
    from mlbench.errors import ConfigError
    from mlbench.experiment.supervise import parse_size

    limit = parse_size(max_memory) if isinstance(max_memory, str) else max_memory
    if kind == "dask":
        from mlbench.experiment.dask_executor import DaskExecutor

        return DaskExecutor(address=scheduler, workers=jobs, timeout=timeout, max_memory=limit,
                            retries=retries, cpu_time=cpu_time)
    if kind == "local":
        from mlbench.experiment.executors import LocalExecutor

        return LocalExecutor(jobs=jobs, timeout=timeout, max_memory=limit, cpu_time=cpu_time)
    raise ConfigError(f"unknown executor {kind!r}: local or dask")


def run_grid(protocol: str = "quick", *, datasets=None, methods=None, out=None, jobs: int = 1,
             repeats: int | None = None, seed: int | None = None, executor="local",
             timeout: float | None = None, cpu_time: float | None = None, max_memory=None,
             scheduler: str | None = None, retries: int = 2, save_predictions: bool = False,
             progress=None, notice=None, dry_run: bool = False):
    """Run (or resume, or with ``dry_run`` only plan) a protocol's grid into ``out``; returns the
    runner's :class:`~mlbench.experiment.runner.RunReport`.  ``mlbench run`` is this call."""
    from mlbench.experiment.runner import run_experiment
    from mlbench.protocols import load_protocol

    proto = load_protocol(protocol).with_overrides(repeats=repeats, seed=seed)
    out = os.fspath(out or os.path.join("results", f"{proto.name}.csv"))
    methods = _expand(methods, [e.label for e in proto.methods if e.name != "all"]
                      + list_methods(), "methods")
    datasets = _expand(datasets, list(proto.datasets) + _registered_datasets(), "datasets")
    if isinstance(executor, str) and not dry_run:
        executor = make_executor(executor, jobs=jobs, timeout=timeout, cpu_time=cpu_time,
                                 max_memory=max_memory, scheduler=scheduler, retries=retries)
    return run_experiment(proto, datasets=datasets, methods=methods, out=out, jobs=jobs,
                          timeout=timeout, save_predictions=save_predictions, progress=progress,
                          executor=None if isinstance(executor, str) else executor,
                          notice=notice, dry_run=dry_run)


def _registered_datasets():
    from mlbench.data.registry import registry

    return list(registry())


def _expand(names, known, what):
    """Names with shell globs (``mldf-*``, ``rcv1subset?``) expanded against ``known``,
    case-insensitively, in ``known``'s order; a plain name takes ``known``'s spelling when it
    matches one in another case; paths, method specs and entry mappings pass as given."""
    import fnmatch

    from mlbench.errors import ConfigError

    if names is None or isinstance(names, str):
        return names
    lower = {k.lower(): k for k in reversed(list(known))}      # the first spelling wins
    out = []
    for name in names:
        if not isinstance(name, str) or "(" in name:      # an entry mapping, or a method spec
            out.append(name)
            continue
        if not any(ch in name for ch in "*?[") or ":" in name or "/" in name:
            out.append(lower.get(name.lower(), name) if ":" not in name and "/" not in name else name)
            continue
        hits = [k for k in dict.fromkeys(known) if fnmatch.fnmatchcase(k.lower(), name.lower())]
        if not hits:
            raise ConfigError(f"--{what} {name!r} matches no known name")
        out += [h for h in hits if h not in out]
    return out


def run(protocol: str = "quick", *, datasets: list[str] | None = None,
        methods: list | str | None = None, out: str | os.PathLike | None = None, jobs: int = 1,
        repeats: int | None = None, seed: int | None = None, executor="local",
        timeout: float | None = None, cpu_time: float | None = None, max_memory=None,
        scheduler: str | None = None, retries: int = 2,
        save_predictions: bool = False) -> pd.DataFrame:
    """Run (or resume) a protocol's grid into ``out`` (default ``results/<protocol>.csv``) with
    the command line's options and return that grid's rows of the results file.

    ``methods`` items are names, method specs (``"sklearn.neighbors:KNeighborsClassifier(
    n_neighbors=[5, 15])"``: a list is a grid of variants) or protocol entry mappings
    (``{"name": ..., "tune": {"n_neighbors": [5, 15]}}``); see docs/your-method.md.  Protocol
    entries that name no registered method, or a method without a parameter of their search grid,
    are skipped with a warning saying why."""
    import warnings

    report = run_grid(protocol, datasets=datasets, methods=methods, out=out, jobs=jobs,
                      repeats=repeats, seed=seed, executor=executor, timeout=timeout,
                      cpu_time=cpu_time, max_memory=max_memory, scheduler=scheduler, retries=retries,
                      save_predictions=save_predictions)
    if report.skipped_methods:
        warnings.warn("skipped method(s): " + "; ".join(
            f"{m} ({report.skipped_reasons.get(m, 'not registered')})"
            for m in report.skipped_methods), stacklevel=2)
    from mlbench.results_file import read_results

    df = read_results([report.out]).drop(columns=["__file", "__line"])
    proto_name = report.protocol.name
    keys = {(c.dataset, c.method, c.split) for c in report.cells}
    mask = pd.Series([(d, m, s) in keys for d, m, s in zip(df.dataset, df.method, df.split)],
                     index=df.index)
    return df[mask & (df.protocol == proto_name)].reset_index(drop=True)


def build_report(results, *, metrics: list[str] | None = None, stats: list[str] | None = None,
           style: str | None = None, fmt: str = "markdown", control: str | None = None,
           width: int | None = None) -> str:
    """A report (tables, tests, notes) of results CSV paths or a results DataFrame, as text."""
    from mlbench.report.build import make_report

    if isinstance(results, pd.DataFrame):
        paths = results            # its rows as they are (a protocol file resolves from here)
    else:
        paths = [results] if isinstance(results, (str, os.PathLike)) else list(results)
    text, _, _ = make_report(paths, metrics=tuple(metrics or ()), stats=tuple(stats or ()),
                             style=style, fmt=fmt, control=control, width=width)
    return text


__all__ = ["load_dataset", "list_methods", "make_method", "run", "run_grid", "make_executor",
           "build_report"]
