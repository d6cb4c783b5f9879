"""``mlbench plot``: box plots of split scores, rank heat maps, score-vs-time Pareto plots, CD diagrams."""
from __future__ import annotations

import click


@click.command("plot")
@click.argument("results", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--kind", "kinds", default="all", show_default=True,
              help="box, heatmap, pareto, cd, bayes or all (comma-separated).")
@click.option("--metric", "metrics", multiple=True,
              help="Metrics (comma-separated or repeated; default: the protocol's, as mlbench report).")
@click.option("--out", "-o", "out_dir", default="plots", show_default=True, type=click.Path(file_okay=False),
              help="Folder for the pictures (KIND-METRIC.png, KIND-METRIC.pdf).")
@click.option("--format", "fmt", default="png,pdf", show_default=True,
              help="png, svg and/or pdf, comma-separated: each picture in every format given.")
@click.option("--protocol", default=None,
              help="Use only rows of this protocol (a name, or a protocol YAML file, which also gives "
                   "the main methods and variants).")
@click.option("--methods", "-m", default=None, help="Only these methods (comma list or globs, any case).")
@click.option("--datasets", "-d", default=None, help="Only these datasets (comma list or globs, any case).")
def command(results, kinds, metrics, out_dir, fmt, protocol, methods, datasets):
    """Draw the results as pictures (matplotlib; no display needed).

    Example: mlbench plot results/soshf.csv --kind box,heatmap --metric macro_f1 -o plots/
    """
    from mlbench.report.plots import plot

    names = [m.strip().lower() for v in metrics for m in v.split(",") if m.strip()] or None
    kinds = [k.strip().lower() for k in kinds.split(",") if k.strip()]
    for path in plot(list(results), kinds, names, out_dir, fmt, protocol, methods, datasets):
        click.echo(f"wrote {path}")
