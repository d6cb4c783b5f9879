"""``mlbench check``: the CI regression gate (exit 1 on a regression, 0 otherwise, 2 on bad input)."""
from __future__ import annotations

import click


@click.command("check")
@click.argument("results", type=click.Path(dir_okay=False))
@click.option("--against", "reference", required=True, type=click.Path(dir_okay=False),
              help="Reference results CSV (e.g. results/reference/quick.csv).")
@click.option("--tolerance", default=0.02, show_default=True, type=float,
              help="Allowed absolute worsening of a cell mean, in the metric's units.")
@click.option("--metric", "metrics", multiple=True, help="Compare only these metrics (repeatable).")
@click.pass_context
def command(ctx, results, reference, tolerance, metrics):
    """Compare each (dataset, method, metric) mean of RESULTS with the reference.

    Exit status 1 when a mean is worse than the reference by more than the tolerance (or missing),
    0 otherwise, 2 on bad input.

    Example: mlbench check new.csv --against results/reference/quick.csv --tolerance 0.02
    """
    from mlbench.report.check import compare
    from mlbench.report.results import load_results

    new = load_results([results], metrics=list(metrics) or None)
    ref = load_results([reference], metrics=list(metrics) or None)
    regressions, improvements, compared, new_cells = compare(new, ref, tolerance, metrics or None)
    for d in regressions:
        if d.missing:
            click.echo(f"MISSING  {d.dataset} / {d.method} / {d.metric}: reference {d.reference:.4f}, "
                       "no value now")
        else:
            click.echo(f"WORSE    {d.dataset} / {d.method} / {d.metric}: {d.value:.4f} vs reference "
                       f"{d.reference:.4f} (worse by {d.worse_by:.4f} > {tolerance:g})")
    click.echo(f"{compared} cells compared, {len(regressions)} regressions, {len(improvements)} improvements "
               f"beyond {tolerance:g}, {new_cells} new cells")
    if regressions:
        ctx.exit(1)
