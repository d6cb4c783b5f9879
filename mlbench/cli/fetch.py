"""``mlbench fetch``: download (or take from the mirror), verify, parse once and cache datasets."""
from __future__ import annotations

import time

import click


@click.command("fetch")
@click.argument("names", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Every dataset of datasets.yaml.")
@click.option("--mirror", default=None, metavar="DIR_OR_URL",
              help="Dataset mirror (directory or base URL); default $MLBENCH_MIRROR.")
@click.option("--data-dir", default=None, type=click.Path(file_okay=False),
              help="Where files and the .npz cache go; default $MLBENCH_DATA or the user cache.")
@click.option("--refresh", is_flag=True, help="Parse again even when a cache exists.")
def command(names, all_, mirror, data_dir, refresh):
    """Download, verify (sha256), parse and cache datasets.

    Example: MLBENCH_MIRROR=/data/mirror mlbench fetch emotions yeast scene
    """
    from mlbench.data import fetch, load
    from mlbench.data.registry import get_entry, registry
    from mlbench.errors import ConfigError, MlbenchError

    if all_ == bool(names):
        raise ConfigError("give dataset names or --all (not both)")
    entries = list(registry().values()) if all_ else [get_entry(n) for n in names]
    root = fetch.data_dir(data_dir)
    failures = 0
    for entry in entries:
        if not entry.fetchable:
            src = f"; source: {entry.source}" if entry.source else ""
            click.echo(f"{entry.name:<16} unverified: no pinned, readable file{src}")
            continue
        t0 = time.perf_counter()
        try:
            ds = load.load_dataset(entry.name, root, mirror, refresh=refresh)
        except fetch.NetworkOnlyError as exc:
            if not all_:
                raise
            click.echo(f"{entry.name:<16} skipped: {exc}")
            continue
        except MlbenchError as exc:
            if not all_:
                raise
            failures += 1
            click.echo(f"{entry.name:<16} failed: {exc}")
            continue
        status = "verified" if entry.pinned else "unverified (no pinned sha256)"
        kind = "CSR" if ds.is_sparse else "dense"
        click.echo(f"{entry.name:<16} {status}: {ds.n_instances} x {ds.n_features} ({kind}), "
                   f"{ds.n_labels} labels, {time.perf_counter() - t0:.2f}s")
    if failures:
        raise MlbenchError(f"{failures} of {len(entries)} datasets failed")
