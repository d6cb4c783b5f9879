"""The ``mlbench`` command line.

Commands live one per module in this package and are imported lazily, so ``mlbench --help`` and a
simple ``mlbench info`` stay fast.  A command module defines ``command`` (a :class:`click.Command`)
and only parses arguments; the work is done by the library.

Every :class:`mlbench.errors.MlbenchError` raised below a command becomes one line on stderr and exit
status 2; a traceback is a bug.
"""
from __future__ import annotations

import importlib
import importlib.util      # a submodule: `import importlib` alone does not load it
import sys

import click

from mlbench import __version__
from mlbench.errors import MlbenchError

#: command name -> module (``mlbench.cli.<module>``) that defines ``command``
COMMANDS = {
    "fetch": "fetch",
    "datasets": "datasets",
    "info": "info",
    "methods": "methods",
    "run": "run",
    "evaluate": "evaluate",
    "report": "report",
    "plot": "plot",
    "check": "check",
    "explain": "explain",
    "costs": "costs",
    "reproduction": "reproduction",
    "protocol": "protocol",
}

HELP = {
    "fetch": "Download, verify, parse and cache datasets.",
    "datasets": "Every registered dataset: cached, in the mirror, fetchable or why not.",
    "info": "Dataset statistics (cardinality, density, imbalance ...).",
    "methods": "List the registered methods with their parameters and source paper.",
    "run": "Run the experiment grid and append to a results CSV.",
    "evaluate": "Score predictions made by any tool.",
    "report": "Paper-style tables, significance tests and CD diagrams.",
    "plot": "Pictures: box plots of split scores, rank heat map, Pareto plot, CD diagram.",
    "check": "Regression gate: compare results with a reference.",
    "explain": "Show what a fitted model learned (e.g. I-MTSL's label graph).",
    "costs": "Seconds and memory per method and dataset, from results files.",
    "reproduction": "Write REPRODUCTION.md: our paper tables, claims tested, deviations.",
    "protocol": "Start a protocol of your own from a shipped one (protocol new NAME --from P).",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported only when invoked."""

    def list_commands(self, ctx):
        return [name for name in COMMANDS if self._available(name)]

    @staticmethod
    def _available(name):
        return importlib.util.find_spec(f"mlbench.cli.{COMMANDS[name]}") is not None

    def get_command(self, ctx, name):
        if name not in COMMANDS or not self._available(name):
            return None
        module = importlib.import_module(f"mlbench.cli.{COMMANDS[name]}")
        return module.command

    def format_commands(self, ctx, formatter):
        rows = [(name, HELP[name]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mlbench")
@click.option("--registry", "registries", multiple=True, envvar="MLBENCH_REGISTRY",
              type=click.Path(dir_okay=False), help="A datasets file of your own (the schema of "
              "datasets.yaml, every file pinned by sha256), added to the registry (repeatable; env "
              "MLBENCH_REGISTRY, ':'-separated).")
def cli(registries):
    """Benchmark multi-label classification methods the way the field's papers do."""
    if not registries:      # `mlbench CMD --help` passes here too: import the data layer only if used
        return
    from mlbench.data.registry import add_registry_file

    for value in registries:
        for path in str(value).split(":"):
            if path:
                add_registry_file(path)


def write_or_print(text, out):
    """A command's text: written to ``out`` (its ``--out``, atomically; ``wrote OUT`` on stderr),
    else printed."""
    if not out:
        click.echo(text, nl=False)
        return
    from mlbench.fileio import atomic_write_text

    atomic_write_text(out, text, hint="choose another --out")
    click.echo(f"wrote {out}", err=True)


def main(argv=None):
    """Console entry point: run the CLI, turning user errors into one line and exit status 2."""
    try:
        return cli.main(args=argv, prog_name="mlbench", standalone_mode=False) or 0
    except MlbenchError as exc:
        click.echo(f"mlbench: error: {exc}", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("mlbench: aborted", err=True)
        sys.exit(130)
    except click.UsageError as exc:       # a bad option or argument: one line, and where to look
        where = f"mlbench {exc.ctx.info_name}" if exc.ctx and exc.ctx.parent else "mlbench"
        click.echo(f"mlbench: error: {exc.format_message()} (see '{where} --help')", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2 if exc.exit_code in (1, 2) else exc.exit_code)
    except KeyboardInterrupt:
        click.echo("mlbench: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:      # stdout closed by a reader (| head): not ours to report as a file
        raise
    except OSError as exc:   # a last resort: every writer already reports its own errors
        import errno

        from mlbench.fileio import shown

        code = errno.errorcode.get(exc.errno, "") if exc.errno else ""
        where = f"{shown(exc.filename)}: " if exc.filename else ""
        click.echo(f"mlbench: error: {where}{' '.join(str(exc.strerror or exc).split())}"
                   + (f" ({code})" if code else ""), err=True)
        sys.exit(2)
