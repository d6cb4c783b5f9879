"""The quick reference run in results/reference/: a valid results file, reportable in every style,
and (slow, needs the mirror) reproduced by rerunning the command in its sidecar within tolerance."""
import os
import shlex
from pathlib import Path

import pytest

from mlbench.cli import main
from mlbench.report.formats import FORMATS
from mlbench.report.styles import STYLES

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "results" / "reference" / "quick.csv"
SIDECAR = REFERENCE.with_suffix(".csv.cmd")


def run(argv, capsys):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def sidecar_command():
    """The ``mlbench run ...`` line of the sidecar, as an argument list without the program name."""
    lines = [ln for ln in SIDECAR.read_text().splitlines() if ln.strip().startswith("mlbench run")]
    assert len(lines) == 1, "the sidecar must hold exactly one 'mlbench run' line"
    return shlex.split(lines[0])[1:]


def test_reference_checks_against_itself(capsys):
    code, out, err = run(["check", REFERENCE, "--against", REFERENCE], capsys)
    assert code == 0, err
    assert "0 regressions" in out


def test_sidecar_names_the_reference():
    argv = sidecar_command()
    assert argv[argv.index("--out") + 1] == "results/reference/quick.csv"


@pytest.mark.parametrize("style, fmt", list(zip(STYLES, FORMATS)))
def test_report_on_the_reference(capsys, style, fmt):
    code, out, err = run(["report", REFERENCE, "--style", style, "--format", fmt, "--stats", "all"], capsys)
    assert code == 0, err
    assert "br-lr" in out and "mlknn" in out


@pytest.mark.slow
@pytest.mark.mirror
def test_rerun_matches_reference(tmp_path, capsys):
    if not os.environ.get("MLBENCH_MIRROR"):
        pytest.skip("MLBENCH_MIRROR is not set: the reference run needs yeast and scene from the mirror")
    argv = sidecar_command()
    argv[argv.index("--out") + 1] = str(tmp_path / "quick.csv")
    code, _, err = run(argv + ["--quiet"], capsys)
    assert code == 0, err
    code, out, err = run(["check", tmp_path / "quick.csv", "--against", REFERENCE], capsys)
    assert code == 0, out + err
