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

    Without RESULTS: every results/papers/*.csv of this checkout.

    Example: mlbench costs -o results/papers/COSTS.md
    """
    import os

    from mlbench.errors import MlbenchError
    from mlbench.experiment.costs import costs_markdown, shipped_results
    from mlbench.fileio import atomic_write_text

    paths = list(results) or shipped_results()
    if not paths:
        raise MlbenchError("no results CSV given and none in results/papers; name one")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(paths[0]))))
    text = costs_markdown(paths, root=root) + "\n"
    if out is None:
        click.echo(text, nl=False)
        return
    atomic_write_text(out, text, hint="choose another --out")
    click.echo(f"wrote {out}", err=True)
