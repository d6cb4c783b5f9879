"""`mlbench --help`, every command's --help and `mlbench methods` start light: no method family's
dependencies loaded."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mlbench

HEAVY = ("sklearn", "imblearn", "networkx", "pandas", "statsmodels", "matplotlib", "dask", "torch")

PROBE = """
import json, sys
from mlbench.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    assert not exc.code, exc.code
print(json.dumps(sorted(sys.modules)))
"""


@pytest.mark.parametrize("argv", [["--help"], ["methods"], ["methods", "--paper", "soshf"],
                                  ["run", "--help"]])
def test_cli_start_imports_no_heavy_dependency(argv):
    env = dict(os.environ, PYTHONPATH=str(Path(mlbench.__file__).parents[1]))
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    modules = json.loads(proc.stdout.splitlines()[-1])
    loaded = sorted({m.split(".")[0] for m in modules} & set(HEAVY))
    assert not loaded, f"mlbench {' '.join(argv)} imported {loaded}"
    if argv == ["methods"]:
        assert "br-lr" in proc.stdout and "sf-h-cs" in proc.stdout


EVERY_HELP = """
import json, sys
from mlbench.cli import COMMANDS, main
for name in COMMANDS:
    try:
        main([name, "--help"])
    except SystemExit as exc:
        assert not exc.code, (name, exc.code)
print(json.dumps(sorted(sys.modules)))
"""


def test_every_commands_help_imports_no_heavy_dependency():
    """A command module imports its library inside the command: its --help loads none of it."""
    env = dict(os.environ, PYTHONPATH=str(Path(mlbench.__file__).parents[1]))
    proc = subprocess.run([sys.executable, "-c", EVERY_HELP], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    modules = json.loads(proc.stdout.splitlines()[-1])
    loaded = sorted({m.split(".")[0] for m in modules} & set(HEAVY))
    assert not loaded, f"the commands' --help imported {loaded}"
