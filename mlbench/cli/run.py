"""``mlbench run``: parse options, then :func:`mlbench.experiment.runner.run_experiment`."""
from __future__ import annotations

import click


class _Seconds(click.ParamType):
    """A finite, positive number of seconds, at most 30 days (``nan`` and ``inf`` are refused: a
    timeout that never fires is no timeout)."""

    name = "seconds"

    def convert(self, value, param, ctx):
        import math

        try:
            v = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(v) or not 0 < v <= 30 * 86400:
            self.fail(f"{value!r} must be a finite number of seconds in (0, 2592000]", param, ctx)
        return v


def _names(value):
    """Comma-separated names; a comma inside (), [], {} or quotes belongs to a name (a user
    method's parameters: ``mod:Clf(a=1, b=[1, 2])``)."""
    if value is None:
        return None
    items, depth, quote, current = [], 0, None, []
    for ch in value:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append("".join(current))
            current = []
            continue
        current.append(ch)
    items.append("".join(current))
    items = [v.strip() for v in items if v.strip()]
    return items or None


@click.command("run")
@click.option("--protocol", "-p", default="quick", show_default=True,
              help="Shipped protocol name or a path to a protocol YAML file.")
@click.option("--methods", "-m", default=None,
              help="'all' or comma-separated method names [default: the protocol's methods, "
                   "or every registered method].")
@click.option("--datasets", "-d", default=None,
              help="Comma-separated dataset names [default: the protocol's datasets].")
@click.option("--repeats", "-r", type=click.IntRange(1, 1000), default=None,
              help="Override the protocol's repeats (1-1000).")
@click.option("--seed", "-s", type=click.IntRange(0, 2**32 - 1), default=None,
              help="Override the protocol's base seed.")
@click.option("--jobs", "-j", type=click.IntRange(1, 1024), default=None,
              help="Cells run in parallel [default: the usable cores].  Results do not depend on it.")
@click.option("--out", "-o", type=click.Path(dir_okay=False), default=None,
              help="Results CSV [default: results/<protocol>.csv].")
@click.option("--timeout", type=_Seconds(), default=None,
              help="Wall-clock seconds per cell before it is stopped (status timeout).")
@click.option("--cpu-time", type=_Seconds(), default=None,
              help="CPU seconds per cell, all threads of all its processes counted, before it "
                   "is stopped (status timeout): a limit that a loaded machine does not shorten.")
@click.option("--save-predictions", is_flag=True,
              help="Keep each cell's predictions and scores in <out>.predictions/.")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local",
              show_default=True, help="Where cells run: forked local processes, or Dask tasks.")
@click.option("--scheduler", envvar="MLBENCH_SCHEDULER", default=None,
              help="Dask scheduler address (env MLBENCH_SCHEDULER) [default: a LocalCluster of "
                   "--jobs workers].")
@click.option("--max-memory", default=None,
              help="Private memory per cell, its own and that of every process it started, "
                   "e.g. 4GB; a cell above it is stopped (status memory).")
@click.option("--retries", type=click.IntRange(0, 100), default=2, show_default=True,
              help="Dask: resubmissions of a cell whose worker died, before status lost.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines and no summary table.")
@click.option("--mirror", default=None, metavar="DIR_OR_URL",
              help="Dataset mirror (directory or base URL); default $MLBENCH_MIRROR.")
@click.option("--data-dir", default=None, type=click.Path(file_okay=False),
              help="Where dataset files and caches go; default $MLBENCH_DATA or the user cache.")
@click.option("--dry-run", is_flag=True,
              help="Print the cells that would run, estimated core-hours and wall time, the "
                   "largest cells, each dataset's total and the costliest dataset x method "
                   "groups; run and write nothing.")
def command(protocol, methods, datasets, repeats, seed, jobs, out, timeout, cpu_time, save_predictions,
            executor, scheduler, max_memory, retries, quiet, mirror, data_dir, dry_run):
    """Run the experiment grid (datasets x methods x splits) and append to a results CSV.

    A rerun of the same command skips the cells already done, retries failed ones and reruns
    cells whose recorded provenance is no longer current: data, protocol (preprocessing, split
    rule), method code, parameters or metric conventions; it says how many and why.

    Example: mlbench run --protocol soshf --methods br-lr,mlknn --datasets emotions,yeast --jobs 2

    On Dask: mlbench run -p quick --executor dask --scheduler tcp://head:8786
    """
    import os

    from mlbench.api import run_grid
    from mlbench.experiment.progress import Progress

    # the same options as fetch's; the loader reads them from the environment, as every
    # executor's workers do
    if mirror:
        os.environ["MLBENCH_MIRROR"] = mirror
    if data_dir:
        os.environ["MLBENCH_DATA"] = data_dir
    from mlbench.experiment.summary import print_summary

    method_names = _names(methods)
    if method_names == ["all"]:
        method_names = "all"
    if jobs is None:
        jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    options = dict(datasets=_names(datasets), methods=method_names, out=out, jobs=jobs,
                   repeats=repeats, seed=seed)
    if dry_run:
        from mlbench.experiment.costs import plan_lines

        report = run_grid(protocol, dry_run=True, **options)
        for name, why in report.skipped_datasets.items():
            click.echo(f"skipped dataset {name}: {why}", err=True)
        for name, why in report.skipped_reasons.items():
            click.echo(f"skipped method {name}: {why}", err=True)
        click.echo("\n".join(plan_lines(report.todo, report.costs, jobs)))
        from mlbench.experiment.runner import rerun_notice

        line = rerun_notice(report.causes, report.out)
        if line:
            click.echo(line.replace("rerun", "would be rerun", 1), err=True)
        click.echo(f"{report.skipped} cell(s) already done in {report.out}", err=True)
        return
    progress = None if quiet else (lambda total, skipped, j: Progress(total, skipped, j))
    if out is None:                 # the same default as run_grid's, named for the messages below
        from mlbench.protocols import load_protocol

        out = options["out"] = os.path.join("results", f"{load_protocol(protocol).name}.csv")
    import signal

    def _terminate(signum, frame):
        # SIGTERM/SIGHUP end the run as Ctrl-C does: every running cell's processes are killed
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, _terminate) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        report = run_grid(protocol, executor=executor, timeout=timeout, cpu_time=cpu_time,
                          max_memory=max_memory, scheduler=scheduler, retries=retries,
                          save_predictions=save_predictions, progress=progress,
                          notice=lambda line: click.echo(line, err=True), **options)
    except KeyboardInterrupt:
        click.echo(f"mlbench: interrupted; finished cells are in {out}; run the same command "
                   "again to resume", err=True)
        raise SystemExit(130) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    for name, why in report.skipped_datasets.items():
        click.echo(f"skipped dataset {name}: {why}", err=True)
    for name, why in report.skipped_reasons.items():
        click.echo(f"skipped method {name}: {why}", err=True)
    if not quiet:
        print_summary(report.rows, report.protocol.metrics)
    if report.warned:
        click.echo(f"{report.warned} cell(s) raised warnings; their rows count them in the extra "
                   "column (extra.warnings)", err=True)
    failed = sum(v for k, v in report.statuses.items() if k != "ok")
    click.echo(f"{report.ran} cell(s) run, {report.skipped} already done, {failed} failed; "
               f"results in {out}", err=True)
    if not quiet:
        style = report.protocol.style
        click.echo(f"next: mlbench report {out}" + (f" --style {style}" if style not in ("plain", "")
                                                    else "")
                   + (f"   (run the same command again to retry the {failed} failed cell(s))"
                      if failed else ""), err=True)
