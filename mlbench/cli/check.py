"""``mlbench check``: the CI regression gate (exit 1 on a regression, 0 otherwise, 2 on bad input)."""
from __future__ import annotations

import os

import click


@click.command("check")
@click.argument("results", type=click.Path(dir_okay=False))
@click.option("--against", "reference", required=True, type=click.Path(dir_okay=False),
              help="Reference results CSV (e.g. results/reference/quick.csv).")
@click.option("--tolerance", "tolerances", multiple=True, default=("0.02",), show_default=True,
              help="Allowed absolute worsening of a cell mean in the metric's units: a number for "
                   "every metric, or METRIC=NUMBER (repeatable).")
@click.option("--metric", "metrics", multiple=True,
              help="Compare only these metrics (comma-separated or repeated).")
@click.option("--alpha", default=0.05, show_default=True, type=click.FloatRange(0, 1, min_open=True),
              help="Level of the paired split-level test a worse mean must also pass.")
@click.option("--strict", is_flag=True, help="Missing cells (not in the new results) fail too.")
@click.option("--junit", "junit", type=click.Path(dir_okay=False), default=None,
              help="Write a JUnit XML report (one testcase per cell and metric) to this file.")
@click.option("--annotations/--no-annotations", default=None,
              help="Print GitHub Actions ::error lines [default: when GITHUB_ACTIONS is set].")
@click.option("--allow-stale", is_flag=True,
              help="Compare rows computed from data, code or protocols that are no longer current "
                   "(each stale group is still named on stderr).")
@click.pass_context
def command(ctx, results, reference, tolerances, metrics, alpha, strict, junit, annotations,
            allow_stale):
    """Compare each (dataset, method, metric) of RESULTS with the reference.

    A cell regresses when its mean is worse than the reference by more than the tolerance and the
    paired t-test over the shared splits agrees (when there are two or more), or when it now has
    only failed rows.  Cells absent from RESULTS are listed as missing and fail only with --strict;
    improvements beyond the tolerance are listed too.  A reference of another protocol, split rule
    or seed is refused (exit 2).
    Exit status 1 on a regression, 0 otherwise, 2 on bad input.

    Example: mlbench check new.csv --against results/reference/quick.csv --junit check.xml
    """
    from mlbench.report.check import (annotation, check_comparable, compare, describe, junit_xml,
                                      parse_tolerances)
    from mlbench.report.results import load_results

    names = [m.strip().lower() for v in metrics for m in v.split(",") if m.strip()] or None
    default, per = parse_tolerances(tolerances)
    new = load_results([results], metrics=names)
    ref = load_results([reference], metrics=names)
    from mlbench.experiment.provenance import check_frame

    for res_, path in ((new, results), (ref, reference)):   # both sides must be current
        check_frame(res_.frame, allow_stale=allow_stale, what=path,
                    echo=lambda line: click.echo(line, err=True))
    for note in ref.notes + new.notes:
        if "left out" in note:                # rows the gate cannot see: say so before judging
            click.echo(f"note: {note}", err=True)
    check_comparable(new, ref, f"reference {reference}")
    res = compare(new, ref, default, names, per, alpha)
    for d in res.regressions + res.missing + res.improvements:
        click.echo(describe(d, per.get(d.metric, default)))
    click.echo(f"{res.compared} cells compared, {len(res.regressions)} regressions, "
               f"{len(res.missing)} missing{' (failing: --strict)' if strict and res.missing else ''}, "
               f"{len(res.improvements)} improvements beyond the tolerance, {res.new_cells} new cells")
    if junit:
        from mlbench.fileio import atomic_write_text

        atomic_write_text(junit, junit_xml(res, default, per, strict), hint="choose another --junit")
    if annotations is None:
        annotations = bool(os.environ.get("GITHUB_ACTIONS"))
    if annotations:
        for d in res.regressions + (res.missing if strict else []):
            click.echo(annotation(d, per.get(d.metric, default), results))
    if res.failed(strict):
        ctx.exit(1)
