"""``mlbench methods``: the registered methods with family, paper, description and parameters."""
from __future__ import annotations

import json

import click


def method_records(family=None, paper=None):
    """One dict per registered method (filtered), JSON-able."""
    from mlbench.methods import registry

    out = []
    for spec in registry.all_methods():
        if family and spec.family != family:
            continue
        if paper and spec.paper != paper:
            continue
        try:
            params = spec.default_params()
        except Exception as exc:  # a broken registration should not hide the others
            params = {"<error>": f"{type(exc).__name__}: {exc}"}
        params.pop("random_state", None)
        out.append({"name": spec.name, "family": spec.family, "paper": spec.paper,
                    "description": spec.description,
                    "parameters": json.loads(json.dumps(params, default=repr)),
                    "grid": json.loads(json.dumps(spec.grid, default=repr))})
    return out


@click.command("methods")
@click.option("--family", "-f", default=None, help="Only this family (e.g. transformation).")
@click.option("--paper", "-p", default=None, help="Only methods from this paper key (e.g. soshf).")
@click.option("--format", "fmt", type=click.Choice(["terminal", "json"]), default="terminal",
              show_default=True)
def command(family, paper, fmt):
    """List the registered methods with their parameters and source paper.

    Example: mlbench methods --family transformation --format json
    """
    from mlbench.errors import ConfigError
    from mlbench.methods.registry import PAPERS, all_methods

    if paper and paper not in PAPERS:
        raise ConfigError(f"unknown paper {paper!r}; choose one of {', '.join(PAPERS)}")
    families = sorted({s.family for s in all_methods()})
    if family and family not in families:
        raise ConfigError(f"unknown family {family!r}; choose one of {', '.join(families) or '(none)'}")
    records = method_records(family, paper)
    if fmt == "json":
        click.echo(json.dumps(records, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(records)} method(s)", title_justify="left", show_lines=False)
    for col in ("name", "family", "paper", "description", "parameters"):
        table.add_column(col, overflow="fold")
    for r in records:
        params = ", ".join(f"{k}={v!r}" for k, v in r["parameters"].items())
        table.add_row(r["name"], r["family"], r["paper"], r["description"], params)
    Console().print(table)
