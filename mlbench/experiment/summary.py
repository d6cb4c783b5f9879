"""The end-of-run summary: one method x metric table of means over the ``ok`` splits, a row group
per dataset, fitted to the terminal like every report table.

Datasets and methods are sorted by name (case-insensitive), not in the order the cells finished,
and every dataset shares the table's columns, so two runs of the same grid print the same summary.
"""
from __future__ import annotations

import pandas as pd


def _by_name(names):
    return sorted(names, key=lambda n: (str(n).lower(), str(n)))


def summary_frames(rows, metrics):
    """``{dataset: DataFrame}`` indexed by method, one column per metric plus ``splits`` (ok count)
    and ``failed`` (rows of another status); datasets and methods sorted by name."""
    if not rows:
        return {}
    df = pd.DataFrame(rows)
    for m in metrics:
        df[m] = pd.to_numeric(df.get(m), errors="coerce")
    out = {}
    for dataset in _by_name(df["dataset"].unique()):
        part = df[df["dataset"] == dataset]
        ok = part[part["status"] == "ok"]
        methods = _by_name(part["method"].unique())
        table = ok.groupby("method")[list(metrics)].mean().reindex(methods)
        table["splits"] = ok.groupby("method").size().reindex(methods).fillna(0).astype(int)
        table["failed"] = (part[part["status"] != "ok"].groupby("method").size()
                           .reindex(methods).fillna(0).astype(int))
        out[dataset] = table
    return out


def summary_tables(rows, metrics):
    """The summary as a report :class:`~mlbench.report.table.Table` (empty list without rows)."""
    from mlbench.metrics import get_measure
    from mlbench.report.table import Cell, Row, Table

    frames = summary_frames(rows, metrics)
    if not frames:
        return []
    columns = ["method"] + [f"{m} {'↑' if get_measure(m).greater_is_better else '↓'}"
                            for m in metrics] + ["splits", "failed"]
    t = Table("summary", "mean over splits, per dataset", columns)
    for dataset, frame in frames.items():
        for method, rec in frame.iterrows():
            cells = [Cell("" if pd.isna(rec[m]) else f"{rec[m]:.4f}") for m in metrics]
            cells += [Cell(str(int(rec["splits"]))), Cell(str(int(rec["failed"])))]
            t.rows.append(Row(str(method), cells, group=str(dataset)))
    return [t]


def print_summary(rows, metrics, width=None):
    """Print the summary table fitted to the terminal (``$COLUMNS``, else 80 off a terminal):
    paged by column groups as reports are (:func:`mlbench.report.formats.fit_width`)."""
    import shutil

    import click

    from mlbench.report.formats import render

    tables = summary_tables(rows, metrics)
    if tables:
        width = width or shutil.get_terminal_size((80, 24)).columns
        click.echo(render(tables, "terminal", width=width), nl=False)
