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


def _detail(name):
    """The page of one method: paper, description, class and its docstring, parameters with
    their defaults, tuning grid, and the measured cost of its cells in the shipped results."""
    import inspect
    import shutil
    import textwrap

    from mlbench.experiment.costs import NO_SHIPPED, CostModel, checkout_root, shipped_results
    from mlbench.methods import registry
    from mlbench.methods.registry import PAPERS

    spec = registry.get(name)
    width = min(100, shutil.get_terminal_size((100, 24)).columns)
    wrap = lambda text, indent="  ": textwrap.fill(  # noqa: E731
        " ".join(str(text).split()), width, initial_indent=indent, subsequent_indent=indent)
    lines = [spec.name, "=" * len(spec.name),
             wrap(f"family {spec.family}; paper: {PAPERS.get(spec.paper, spec.paper)}", ""),
             wrap(spec.description, ""), "",
             f"class {spec.cls.__module__}.{spec.cls.__name__}"]
    doc = inspect.getdoc(spec.cls) or ""
    doc_lines = doc.splitlines()
    lines += ["  " + line[:width - 2] for line in doc_lines[:40]]
    if len(doc_lines) > 40:
        lines.append(f"  ... ({len(doc_lines) - 40} more lines: help({spec.cls.__name__}))")
    params = spec.default_params()
    params.pop("random_state", None)
    lines += ["", "parameters (registered defaults):"]
    lines += [wrap(f"{k} = {v!r}", "  ") for k, v in sorted(params.items())] or ["  (none)"]
    if spec.grid:
        lines += ["", "tuning grid:"] + [wrap(f"{k}: {v!r}", "  ") for k, v in spec.grid.items()]
    if checkout_root() is None:
        lines += ["", f"measured cost: not shown ({NO_SHIPPED})"]
    else:
        lines += _measured_costs(CostModel.from_csvs(shipped_results()).rows, spec.name)
    return "\n".join(lines)


def _measured_costs(rows, name):
    """Lines of the median seconds per cell of method ``name`` in ``rows`` (the cost model's ok
    rows), one per dataset and protocol, sorted by dataset, with the training rows x features x
    labels of its cells."""
    from mlbench.experiment.costs import cell_seconds

    mine = rows[rows["method"] == name]
    if not len(mine):
        return []
    mine = mine.assign(seconds=cell_seconds(mine))
    g = mine.groupby(["dataset", "protocol"]).agg(
        seconds=("seconds", "median"), n_train=("n_train", "median"), n_features=("n_features", "median"),
        n_labels=("n_labels", "median"), cells=("seconds", "size"))
    g = g.sort_index(key=lambda ix: ix.str.lower())
    w = max(len(f"{d} ({p})") for d, p in g.index)
    out = ["", "measured cost in results/papers (median seconds per cell; training rows x features x "
               "labels; cells):"]
    for (d, p), r in g.iterrows():
        out.append(f"  {f'{d} ({p})':<{w}}  {r.seconds:>10,.2f} s   {int(r.n_train):>6} x "
                   f"{int(r.n_features):>6} x {int(r.n_labels):>4}   {int(r.cells):>3}")
    return out


@click.command("methods")
@click.argument("name", required=False)
@click.option("--family", "-f", default=None, help="Only this family (e.g. transformation).")
@click.option("--paper", "-p", default=None, help="Only methods from this paper key (e.g. soshf).")
@click.option("--format", "fmt", type=click.Choice(["terminal", "json"]), default="terminal",
              show_default=True)
def command(name, family, paper, fmt):
    """List the registered methods, one line each; NAME shows one method's page.

    Example: mlbench methods --family transformation; mlbench methods mc
    """
    import shutil

    from mlbench.errors import ConfigError
    from mlbench.methods.registry import PAPERS, method_index

    if name:
        from mlbench.methods import registry

        spec = registry.get(name)          # an unknown name: a suggestion, exit 2; a user spec: loaded
        records = [r for r in method_records() if r["name"] == name] or [{
            "name": spec.name, "family": spec.family, "paper": spec.paper,
            "description": spec.description,
            "parameters": json.loads(json.dumps(spec.default_params(), default=repr)),
            "grid": spec.grid}]
        if fmt == "json":
            click.echo(json.dumps(records[0], indent=2))
        else:
            click.echo(_detail(name))
        return
    if paper and paper not in PAPERS:
        raise ConfigError(f"unknown paper {paper!r}; choose one of {', '.join(PAPERS)}")
    index = method_index()             # the table needs no estimator class: nothing heavy imported
    families = sorted({r["family"] for r in index})
    if family and family not in families:
        raise ConfigError(f"unknown family {family!r}; choose one of {', '.join(families) or '(none)'}")
    if fmt == "json":
        click.echo(json.dumps(method_records(family, paper), indent=2))
        return
    records = [r for r in index if (not family or r["family"] == family)
               and (not paper or r["paper"] == paper)]
    width = shutil.get_terminal_size((100, 24)).columns
    w_name = max(len(r["name"]) for r in records) if records else 4
    w_fam = max(len(r["family"]) for r in records) if records else 6
    w_pap = max(len(r["paper"]) for r in records) if records else 5
    room = max(10, width - w_name - w_fam - w_pap - 6)
    click.echo(f"{len(records)} method(s); 'mlbench methods NAME' shows one in full")
    for r in records:
        desc = r["description"] if len(r["description"]) <= room else r["description"][:room - 1] + "…"
        click.echo(f"{r['name']:<{w_name}}  {r['family']:<{w_fam}}  {r['paper']:<{w_pap}}  {desc}")
