"""Results files as a pandas DataFrame, for notebooks and scripts.

    import mlbench.results
    df = mlbench.results.read("results/papers/soshf.csv")     # or several files: a list
    df.groupby(["dataset", "method"])["macro_f1"].mean().unstack()

:func:`read` is the reader of ``mlbench report``, ``plot`` and ``check``
(:func:`mlbench.report.results.load_results`, which reads each file by the results file's line
rules, :func:`mlbench.results_file.read_results`); :mod:`mlbench.stats` and :mod:`mlbench.plots`
take the DataFrame it returns.
"""
from __future__ import annotations

import os


def read(paths, *, protocol: str | None = None):
    """The rows of one or more results CSVs as one tidy pandas DataFrame: one row per cell
    (dataset, method, split), the results file's columns (``status``, timings, sizes, ``params``,
    provenance), one float column per metric, and ``__file`` / ``__line``, where each row was read.

    Read as ``mlbench report`` reads them: a line that does not fit the header is left out and
    named in the notes; of a cell written twice (a rerun, a file given twice) the last ``ok`` row
    is kept, and a failed row that an ``ok`` rerun superseded is dropped; failed rows stay, with
    their ``status`` and ``error``.  Files of several protocols need ``protocol``, the one to keep.
    ``df.attrs`` holds ``files``, ``metrics`` (the metric columns), ``protocol`` and ``notes``
    (what reading found), which :mod:`mlbench.stats` and :mod:`mlbench.plots` carry on.  Stale
    rows are flagged where they are used (the tests and plots refuse them unless
    ``allow_stale=True``).  Example::

        df = mlbench.results.read(["a.csv", "b.csv"], protocol="quick")
        df[df.status != "ok"][["dataset", "method", "status", "error"]]
    """
    import pandas as pd

    from mlbench.report.results import load_results

    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    res = load_results(paths, protocol=protocol)
    parts = [f for f in (res.frame, res.failures) if len(f)]
    df = pd.concat(parts, ignore_index=True, sort=False) if len(parts) > 1 else parts[0].copy()
    order = {f: i for i, f in enumerate(res.files)}
    df = df.sort_values(["__file", "__line"], key=lambda c: c.map(order) if c.name == "__file"
                        else c, kind="stable").reset_index(drop=True)
    df.attrs.update(files=list(res.files), metrics=list(res.metrics), protocol=res.protocol,
                    notes=list(res.notes))
    return df
