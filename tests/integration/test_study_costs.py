"""benchmarks/study_costs.py measures a cell of the bogatinovski2022 protocol in fresh processes
and prints its table (a small dataset, so the whole training part is reached)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "study_costs.py"


@pytest.mark.slow
def test_study_costs_measures_a_cell_and_resumes(tmp_path):
    out = tmp_path / "costs.jsonl"
    args = [sys.executable, str(SCRIPT), "--datasets", "emotions", "--methods", "mlknn",
            "--cap", "120", "--cell-budget", "240", "--json", str(out)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    cell = json.loads(out.read_text())
    assert cell["search_fold"]["rows"] < 1000 and cell["steps"][-1]["rows"] == cell["n_train"]
    assert cell["search_fold"]["params"] == {"k": 14}          # the grid's middle value
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("mlknn"))
    assert line.rstrip().endswith("measured")
    again = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0 and "mlknn emotions" not in again.stderr   # nothing re-measured
    assert len(out.read_text().splitlines()) == 1
