"""``mlbench explain``: what a fitted model learned; for I-MTSL, its stable signed label graph."""
from __future__ import annotations

import click

EXPLAINABLE = ("imtsl",)


@click.command("explain")
@click.argument("method")
@click.option("--dataset", "-d", required=True, help="Dataset name (see datasets.yaml).")
@click.option("--out", "-o", type=click.Path(dir_okay=False), default=None,
              help="PNG (or SVG, PDF) of the signed label graph and the heat map of its Laplacian, "
                   "written as a PDF beside it too; default imtsl-<dataset>-laplacian.png.")
@click.option("--protocol", "-p", default="imtsl", show_default=True,
              help="Protocol whose preprocessing and I-MTSL parameters are used.")
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="random_state of the fit.")
@click.option("--mirror", default=None, metavar="DIR_OR_URL",
              help="Dataset mirror (directory or base URL); default $MLBENCH_MIRROR.")
@click.option("--data-dir", default=None, type=click.Path(file_okay=False),
              help="Data directory; default $MLBENCH_DATA or the user cache.")
def command(method, dataset, out, protocol, seed, mirror, data_dir):
    """Fit METHOD on all rows of a dataset and show what it learned.

    For imtsl: the stable label graph drawn as a signed graph beside the heat map of its signed
    Laplacian (PNG), and the list of stable edges with their signs and selection frequencies.

    Example: mlbench explain imtsl --dataset yeast --out yeast-graph.png
    """
    from mlbench.errors import ConfigError

    if method not in EXPLAINABLE:
        raise ConfigError(f"explain supports {', '.join(EXPLAINABLE)}, not {method!r}")
    from mlbench.methods.mtl.explain import edge_lines, explain_imtsl, plot_laplacian
    from mlbench.report.figures import check_extension

    if out:
        check_extension(out, "--out")          # before the fit, not after it
    graph = explain_imtsl(dataset, protocol=protocol, seed=seed, data_dir=data_dir, mirror=mirror)
    paths = plot_laplacian(graph, out or f"imtsl-{graph.dataset}-laplacian.png")
    chosen = ", ".join(f"{k} = {graph.params[k]:g}" for k in ("lambda", "gamma") if k in graph.params)
    click.echo(f"{graph.dataset}: {len(graph.labels)} labels, {len(graph.edges)} stable edges "
               f"(selected in at least {graph.pi_thr:g} of {graph.n_subsamples} subsamples; {chosen})")
    for line in edge_lines(graph):
        click.echo(line)
    click.echo(f"signed graph and heat map: {', '.join(paths)}")
