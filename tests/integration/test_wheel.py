"""The installed wheel works outside the checkout (the smoke test CI runs: tests/wheel_smoke.py).

Builds the sdist and wheel (compiling every Cython kernel: minutes on two cores), installs the wheel
into a fresh virtual environment and runs the CLI from another directory.  Needs PyPI; slow.
"""
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "wheel_smoke.py"


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_built_wheel_installs_and_runs_from_elsewhere():
    proc = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for done in ("python -m build", "mlbench --help", "run --help", "methods", "report",
                 "wheel smoke: passed"):
        assert done in proc.stdout, proc.stdout
