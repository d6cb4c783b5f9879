"""``mlbench report``: paper-style tables, significance tests and CD diagrams from results CSVs."""
from __future__ import annotations

import sys

import click

from mlbench.report.formats import FORMATS
from mlbench.report.styles import STYLES

STATS_CHOICES = ("friedman", "wilcoxon", "ttest", "corrected-ttest", "bayes", "all")


@click.command("report")
@click.argument("results", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--metric", "metrics", multiple=True,
              help="Metric columns, comma-separated or repeated, any case (default: the protocol's).")
@click.option("--stats", "stats", multiple=True, type=click.Choice(STATS_CHOICES),
              help="Statistics to report (repeatable; default: the protocol's).")
@click.option("--control", default=None, help="Control method (default: the protocol's proposed method).")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="Significance level.")
@click.option("--style", type=click.Choice(STYLES), default=None, help="Table layout (default: the protocol's).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="terminal", show_default=True)
@click.option("--out", "-o", type=click.Path(dir_okay=False), default=None, help="Write to FILE instead of stdout.")
@click.option("--cd-diagram", type=click.Path(dir_okay=False), default=None,
              help="Draw a critical-difference diagram (FILE.png, FILE.svg or FILE.pdf; one per "
                   "metric), and the same as a PDF beside it for a paper.")
@click.option("--cd-test", type=click.Choice(["nemenyi", "bonferroni-dunn"]), default="nemenyi",
              show_default=True, help="Post-hoc test of the CD diagram.")
@click.option("--protocol", default=None, help="Use only rows of this protocol (when files mix several); a "
              "protocol YAML file also gives the main methods and variants.")
@click.option("--rope", default=None, type=float, help="Half-width of the rope of --stats bayes (default 0.01).")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of --stats bayes sampling.")
@click.option("--methods", "-m", default=None,
              help="Only these methods: comma-separated names or globs (mldf-*), any case.")
@click.option("--datasets", "-d", default=None,
              help="Only these datasets: comma-separated names or globs, any case.")
@click.option("--width", type=click.IntRange(40, 1000), default=None,
              help="Terminal table width [default: $COLUMNS or the terminal's, else 200].")
@click.option("--allow-stale", is_flag=True,
              help="Report rows computed from data, code or protocols that are no longer current "
                   "(each stale group is still named on stderr).")
def command(results, metrics, stats, control, alpha, style, fmt, out, cd_diagram, cd_test, protocol, rope,
            seed, methods, datasets, width, allow_stale):
    """Tables and tests from one or more RESULTS CSVs (merged, e.g. one per dataset).

    Example: mlbench report results/soshf.csv --style soshf --stats all --format latex --out t.tex
    --cd-diagram cd.png
    """
    from mlbench.cli import write_or_print
    from mlbench.report.build import make_report

    metrics = [m.strip().lower() for v in metrics for m in v.split(",") if m.strip()]
    colour = fmt == "terminal" and out is None and sys.stdout.isatty()
    text, _, diagrams = make_report(list(results), metrics=metrics, stats=stats, control=control, alpha=alpha,
                                    style=style, fmt=fmt, protocol=protocol, cd_diagram=cd_diagram,
                                    cd_test=cd_test, rope=rope, seed=seed, colour=colour, width=width,
                                    methods=methods, datasets=datasets, allow_stale=allow_stale,
                                    echo=lambda line: click.echo(line, err=True))
    write_or_print(text, out)
    for path in diagrams:
        click.echo(f"wrote {path}", err=True)
