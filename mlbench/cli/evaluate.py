"""``mlbench evaluate``: score predictions made by any tool.

    mlbench evaluate --truth Y.csv --scores S.csv [--predictions P.csv] [--joint J.csv]
                     [--metric macro_f1 --metric macro_auc] [--format terminal|json]

Files are CSV, one row per instance, one column per label, header row optional (see
:mod:`mlbench.metrics.files`).  Without ``--predictions`` the predictions are ``scores >=
--threshold``.  Every applicable measure is printed unless ``--metric`` names some.
"""
from __future__ import annotations

import json
import math

import click


def _json_value(value):
    if math.isnan(value):
        return None
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def _print_table(results, Y, source):
    from rich.console import Console
    from rich.table import Table

    from mlbench.metrics import get_measure

    n, L = Y.shape
    table = Table(title=f"{source}: {n} instances x {L} labels")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("better")
    table.add_column("from")
    ranking_used = False
    for name, value in results.items():
        measure = get_measure(name)
        ranking_used |= measure.kind == "ranking"
        table.add_row(name, f"{value:.4f}", "higher" if measure.greater_is_better else "lower", measure.needs)
    if ranking_used:
        kept = int(((Y.sum(1) > 0) & (Y.sum(1) < L)).sum())
        table.caption = (f"ranking measures average over the {kept} of {n} instances with both "
                         "relevant and irrelevant labels")
    Console().print(table)


HELP = """Score predictions made by any tool.

Files are CSV: one row per instance, one column per label, header row optional (when both files
have one, columns are matched by name).  Without --predictions, predictions are scores >=
--threshold.  Prints every applicable measure unless --metric names some.

\b
Example:
  mlbench evaluate --truth Y.csv --scores S.csv --metric macro_f1,macro_auc --format json
"""


@click.command(help=HELP)
@click.option("--truth", metavar="Y.csv", help="0/1 truth matrix.")
@click.option("--saved", metavar="CELL.npz", help="A cell's saved predictions (run --save-predictions) "
              "to rescore, instead of --truth/--scores/--predictions.")
@click.option("--scores", metavar="S.csv", help="Score matrix (higher = more relevant).")
@click.option("--predictions", metavar="P.csv", help="0/1 prediction matrix.")
@click.option("--joint", metavar="J.csv", help="One column: log P(true label vector | x) per instance.")
@click.option("--threshold", type=float, default=0.5, show_default=True,
              help="Predictions = scores >= threshold when --predictions is not given.")
@click.option("--metric", "metrics", multiple=True, metavar="NAME",
              help="Measure to compute (repeat, or separate by commas); default: every applicable one.")
@click.option("--format", "fmt", type=click.Choice(["terminal", "json"]), default="terminal",
              show_default=True)
@click.option("--ties", type=click.Choice(["pessimistic", "half", "mulan"]), default="pessimistic",
              show_default=True, help="How the label-ranking measures order tied scores: worst rank, "
              "expected value over random orders, or MULAN's label-order rule.")
def command(truth, saved, scores, predictions, joint, threshold, metrics, fmt, ties):
    from mlbench.errors import ConfigError
    from mlbench.metrics.files import evaluate_files, evaluate_saved

    names = [name.strip() for item in metrics for name in item.split(",") if name.strip()] or None
    if bool(saved) == bool(truth):
        raise ConfigError("give --truth Y.csv (with --scores/--predictions) or --saved CELL.npz")
    if saved:
        if scores or predictions or joint:
            raise ConfigError("--saved holds the predictions and scores; drop --scores/--predictions/--joint")
        results, Y = evaluate_saved(saved, metrics=names, threshold=threshold, ties=ties)
        truth = saved
    else:
        results, Y = evaluate_files(truth, scores=scores, predictions=predictions, joint=joint,
                                    metrics=names, threshold=threshold, ties=ties)
    if fmt == "json":
        click.echo(json.dumps({name: _json_value(v) for name, v in results.items()}, indent=2))
    else:
        _print_table(results, Y, truth)
