"""The end-of-run summary: per dataset, a method x metric table of means over the ``ok`` splits,
fitted to the terminal like every report table."""
from __future__ import annotations

import pandas as pd


def summary_frames(rows, metrics):
    """``{dataset: DataFrame}`` indexed by method, one column per metric plus ``splits`` (ok count)
    and ``failed`` (rows of another status)."""
    if not rows:
        return {}
    df = pd.DataFrame(rows)
    for m in metrics:
        df[m] = pd.to_numeric(df.get(m), errors="coerce")
    out = {}
    for dataset, part in df.groupby("dataset", sort=False):
        ok = part[part["status"] == "ok"]
        methods = list(dict.fromkeys(part["method"]))
        table = ok.groupby("method")[list(metrics)].mean().reindex(methods)
        table["splits"] = ok.groupby("method").size().reindex(methods).fillna(0).astype(int)
        table["failed"] = (part[part["status"] != "ok"].groupby("method").size()
                           .reindex(methods).fillna(0).astype(int))
        out[dataset] = table
    return out


def summary_tables(rows, metrics):
    """The summary as report :class:`~mlbench.report.table.Table` objects (one per dataset)."""
    from mlbench.metrics import get_measure
    from mlbench.report.table import Cell, Row, Table

    tables = []
    for dataset, frame in summary_frames(rows, metrics).items():
        columns = ["method"] + [f"{m} {'↑' if get_measure(m).greater_is_better else '↓'}"
                                for m in metrics] + ["splits", "failed"]
        t = Table(f"summary:{dataset}", f"{dataset}: mean over splits", columns)
        for method, rec in frame.iterrows():
            cells = [Cell("" if pd.isna(rec[m]) else f"{rec[m]:.4f}") for m in metrics]
            cells += [Cell(str(int(rec["splits"]))), Cell(str(int(rec["failed"])))]
            t.rows.append(Row(str(method), cells))
        tables.append(t)
    return tables


def print_summary(rows, metrics, width=None):
    """Print the summary tables fitted to the terminal (``$COLUMNS``, else 80 off a terminal):
    turned or paged by column groups as reports are (:func:`mlbench.report.formats.fit_width`)."""
    import shutil

    import click

    from mlbench.report.formats import render

    tables = summary_tables(rows, metrics)
    if tables:
        width = width or shutil.get_terminal_size((80, 24)).columns
        click.echo(render(tables, "terminal", width=width), nl=False)
