"""``mlbench info``: dataset statistics, one row per dataset (SOSHF Table 1 columns)."""
from __future__ import annotations

import click

FORMATS = ["terminal", "markdown", "csv", "latex", "json"]


@click.command("info")
@click.argument("names", nargs=-1, required=True)
@click.option("--protocol", "-p", default=None,
              help="Describe the data after this protocol's preprocessing (fitted on all rows).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="terminal", show_default=True)
@click.option("--mirror", default=None, metavar="DIR_OR_URL",
              help="Dataset mirror (directory or base URL); default $MLBENCH_MIRROR.")
@click.option("--data-dir", default=None, type=click.Path(file_okay=False),
              help="Data directory; default $MLBENCH_DATA or the user cache.")
def command(names, protocol, fmt, mirror, data_dir):
    """Statistics of datasets: cardinality, density, label sets, imbalance, sparsity ...

    Example: mlbench info emotions yeast --protocol soshf --format markdown
    """
    from mlbench.data import load_dataset
    from mlbench.data.stats import render, statistics

    steps = None
    if protocol:
        from mlbench.protocols import load_protocol

        steps = load_protocol(protocol).preprocess
    rows = []
    for name in names:
        ds = load_dataset(name, data_dir, mirror)
        if steps:
            from mlbench.data.preprocess import apply_steps

            ds = apply_steps(ds, steps)
        rows.append(statistics(ds))
    click.echo(render(rows, fmt))
