"""``mlbench costs``: the cost table (seconds and memory per method and dataset) of results files."""
from __future__ import annotations

import click


@click.command("costs")
@click.argument("results", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "-o", type=click.Path(dir_okay=False), default=None,
              help="Write the Markdown here [default: print it].")
def command(results, out):
    """Median CPU seconds per cell (wall seconds where a row has none) and peak memory, per
    method and dataset, from results CSVs.

    Without RESULTS: every results/papers/*.csv of the source checkout mlbench runs from (an
    installed mlbench has none: name the files).  A timing or memory column a file lacks (or
    leaves empty) is noted under its table and on stderr; the figures use the columns there are.

    Example: mlbench costs -o results/papers/COSTS.md
    """
    from mlbench.cli import write_or_print
    from mlbench.errors import MlbenchError
    from mlbench.experiment.costs import NO_SHIPPED, checkout_root, costs_markdown, shipped_results
    from mlbench.protocols import results_root

    paths = list(results) or shipped_results()
    if not paths:
        where = "none in results/papers" if checkout_root() else NO_SHIPPED
        raise MlbenchError(f"no results CSV given and {where}; name one")
    root = results_root(paths[0])            # files named as from their checkout's root
    notes = []
    text = costs_markdown(paths, root=root, notes=notes) + "\n"
    for note in notes:   # a column a file lacks: the table says so too
        click.echo(f"note: {note}", err=True)
    write_or_print(text, out)
