"""The end-of-run summary: per dataset, a method x metric table of means over the ``ok`` splits."""
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


def print_summary(rows, metrics, console=None):
    """Print the summary tables with rich (plain text when not on a terminal)."""
    from rich.console import Console
    from rich.table import Table

    from mlbench.metrics import get_measure

    # off a terminal rich would wrap to 80 columns; a log file is better served by full rows
    console = console or Console(width=None if Console().is_terminal else 200)
    for dataset, frame in summary_frames(rows, metrics).items():
        table = Table(title=f"{dataset}: mean over splits", title_justify="left")
        table.add_column("method")
        for m in metrics:
            arrow = "↑" if get_measure(m).greater_is_better else "↓"
            table.add_column(f"{m} {arrow}", justify="right")
        table.add_column("splits", justify="right")
        table.add_column("failed", justify="right")
        for method, rec in frame.iterrows():
            cells = ["" if pd.isna(rec[m]) else f"{rec[m]:.4f}" for m in metrics]
            table.add_row(str(method), *cells, str(int(rec["splits"])), str(int(rec["failed"])))
        console.print(table)
