"""``mlbench datasets``: every dataset mlbench knows, with where it stands on this machine."""
from __future__ import annotations

import click


def status(entry, root, mirror):
    """(status, why) of a registry entry: cached / in mirror / fetchable / network-only /
    unavailable (with the reason)."""
    from pathlib import Path

    from mlbench.data import cache, fetch

    if not entry.fetchable:
        why = [entry.note or "no pinned file"] + ([f"source: {entry.source}"] if entry.source else [])
        return "unavailable", "; ".join(why)
    if cache.cache_path(root, entry.name).is_file():
        return "cached", ""
    if mirror and "://" not in mirror:
        here = [(Path(mirror) / fetch.relative_path(f.url)).is_file() for f in entry.files]
        if all(here):
            return "in mirror", ""
    if entry.network_only:
        return "network-only", "too large for offline mirrors; fetched from its URL"
    return "fetchable", "downloaded and verified on first use"


@click.command("datasets")
@click.option("--paper", default=None,
              help="Only the datasets of this paper (soshf, mldf, mc, imtsl, hiercost, bogatinovski2022).")
@click.option("--format", "fmt", type=click.Choice(["terminal", "csv"]), default="terminal", show_default=True)
@click.option("--mirror", default=None, metavar="DIR_OR_URL", help="Dataset mirror; default $MLBENCH_MIRROR.")
@click.option("--data-dir", default=None, type=click.Path(file_okay=False),
              help="Data directory; default $MLBENCH_DATA or the user cache directory.")
def command(paper, fmt, mirror, data_dir):
    """List every registered dataset: status, size (instances x features, labels), papers.

    Status: cached (parsed here), in mirror, fetchable (pinned URL and sha256), network-only (pinned
    but too large for offline mirrors), unavailable (no pinned file: the reason and the source).
    """
    import csv
    import io
    import shutil

    from mlbench.data import fetch
    from mlbench.data.registry import registry
    from mlbench.errors import ConfigError
    from mlbench.methods.registry import PAPERS

    if paper and paper not in PAPERS:
        raise ConfigError(f"unknown paper {paper!r}; choose one of {', '.join(PAPERS)}")
    root, mirror = fetch.data_dir(data_dir), fetch.mirror_location(mirror)
    rows = []
    for name, e in registry().items():
        if paper and paper not in e.papers:
            continue
        st, why = status(e, root, mirror)
        pub = e.published or {}
        size = f"{pub.get('instances', '?')} x {pub.get('features', '?')}"
        rows.append([name, st, size, str(pub.get("labels", "?")), ",".join(e.papers) or "-", why])
    header = ["dataset", "status", "instances x features", "labels", "papers", "note"]
    if fmt == "csv":
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows([header] + rows)
        click.echo(buf.getvalue(), nl=False)
        return
    width = shutil.get_terminal_size((100, 24)).columns
    fixed = [max(len(str(r[j])) for r in rows + [header]) for j in range(5)]
    # a narrow terminal shortens the papers column before the note falls under 10 characters
    fixed[4] = max(len(header[4]), min(fixed[4], width - sum(fixed[:4]) - 2 * 5 - 10))
    room = max(10, width - sum(fixed) - 2 * 5)

    def cut(text, n):
        return text if len(text) <= n else text[:n - 1] + "…"

    for r in [header] + rows:
        click.echo("  ".join(cut(str(v), fixed[j]).ljust(fixed[j]) for j, v in enumerate(r[:5]))
                   + "  " + cut(r[5], room))
