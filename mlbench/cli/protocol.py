"""``mlbench protocol new NAME --from PROTOCOL``: a commented starting point for a protocol of your own."""
from __future__ import annotations

import click

HEADER = """\
# Protocol {name}: written by `mlbench protocol new {name} --from {base}`; edit and run with
#   mlbench run --protocol {path}
# Keys: name, paper, description, split {{scheme: holdout|kfold|given, train_fraction, repeats,
# folds, validation_fraction, stratify, test_sizes}}, seed, preprocess (steps, e.g. standardize),
# metrics, datasets (registered names or paths: FILE.arff, FILE.arff@N, FILE.csv@N), methods
# (names, {{name, id, params, search}}, or MODULE:CLASS / FILE.py:CLASS), control, stats, style,
# notes, bootstrap, ties (pessimistic|half|mulan: how the ranking measures order tied scores),
# search {{cv, rows, budget, metric, threshold}} (random search of every method).
# The rest of this file is the protocol {base} as shipped.
"""


@click.group("protocol")
def command():
    """Protocols of your own: start one from a shipped protocol."""


@command.command("new")
@click.argument("name")
@click.option("--from", "base", default="quick", show_default=True,
              help="The shipped protocol to start from (e.g. soshf, mldf, mc, imtsl, hiercost).")
@click.option("--out", "-o", type=click.Path(dir_okay=False), default=None,
              help="Where to write it [default: NAME.yaml].")
def new(name, base, out):
    """Write NAME.yaml, a copy of a shipped protocol renamed NAME with a commented header."""
    import os
    import re

    from mlbench.errors import ConfigError
    from mlbench.protocols import _resolve, load_protocol
    from mlbench.fileio import atomic_write_text
    from mlbench.safety import check_name

    check_name(name, "protocol name")
    source = _resolve(base)
    load_protocol(str(source))                     # an unknown base: one line with a suggestion
    out = out or f"{name}.yaml"
    if os.path.exists(out):
        raise ConfigError(f"{out} exists; choose another --out or remove it first")
    text = source.read_text(encoding="utf-8")
    text, n = re.subn(r"(?m)^name:\s*\S+\s*$", f"name: {name}", text, count=1)
    if n != 1:
        raise ConfigError(f"protocol {base}: no top-level name line to replace")
    atomic_write_text(out, HEADER.format(name=name, base=base, path=out) + text,
                      hint="choose another --out")
    load_protocol(out)                             # what we wrote loads
    click.echo(f"wrote {out}; run it with: mlbench run --protocol {out}")
