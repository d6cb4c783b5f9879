"""Every benchmark script runs (``--quick``: tiny data, one round) and times through the harness.
Benchmarks are measurements, never asserted: this only checks that the scripts work."""
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPTS = sorted(BENCH.glob("bench_*.py"))


def test_every_benchmark_script_uses_the_harness():
    assert SCRIPTS and [s.name for s in SCRIPTS if "import _harness" not in s.read_text()] == []


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_benchmark_runs_quick(script, tmp_path):
    done = subprocess.run([sys.executable, str(script), "--quick"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "== " in done.stdout and "interleaved round" in done.stdout
