"""``mlbench reproduction``: write REPRODUCTION.md from the paper results and the claims file."""
from __future__ import annotations

import click


@click.command("reproduction")
@click.option("--claims", default="results/papers/claims.yaml", show_default=True,
              help="Claims and deviations file (relative to --root).")
@click.option("--root", default=".", show_default=True, type=click.Path(file_okay=False),
              help="Repository root holding results/papers.")
@click.option("--out", default=None, type=click.Path(dir_okay=False),
              help="Write to FILE instead of stdout (e.g. REPRODUCTION.md).")
@click.option("--allow-stale", is_flag=True,
              help="Report rows computed from data, code or protocols that are no longer current "
                   "(each stale group is still named on stderr).")
def command(claims, root, out, allow_stale):
    """The reproduction report: per paper, our tables, the claims tested, known deviations."""
    from mlbench.cli import write_or_print
    from mlbench.report.reproduction import render

    text = render(claims, root, allow_stale=allow_stale,
                  echo=lambda line: click.echo(line, err=True))
    write_or_print(text, out)
