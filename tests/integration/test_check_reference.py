"""The quick reference run in results/reference/: a valid results file, reportable in every style,
and (slow, needs the mirror) reproduced by rerunning the command in its sidecar within tolerance."""
import shlex
from pathlib import Path

import pytest

from mlbench.report.formats import FORMATS
from mlbench.report.styles import STYLES

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "results" / "reference" / "quick.csv"
SIDECAR = REFERENCE.with_suffix(".csv.cmd")


def sidecar_command():
    """The ``mlbench run ...`` line of the sidecar, as an argument list without the program name."""
    lines = [ln for ln in SIDECAR.read_text().splitlines() if ln.strip().startswith("mlbench run")]
    assert len(lines) == 1, "the sidecar must hold exactly one 'mlbench run' line"
    return shlex.split(lines[0])[1:]


def test_reference_checks_against_itself(cli):
    code, out, err = cli(["check", REFERENCE, "--against", REFERENCE])
    assert code == 0, err
    assert "0 regressions" in out


def test_sidecar_names_the_reference():
    argv = sidecar_command()
    assert argv[argv.index("--out") + 1] == "results/reference/quick.csv"


@pytest.mark.parametrize("style, fmt", list(zip(STYLES, FORMATS)))
def test_report_on_the_reference(cli, style, fmt):
    code, out, err = cli(["report", REFERENCE, "--style", style, "--format", fmt, "--stats", "all"])
    assert code == 0, err
    assert "br-lr" in out and "mlknn" in out


@pytest.mark.slow
@pytest.mark.mirror
def test_rerun_matches_reference(tmp_path, cli):
    argv = sidecar_command()
    argv[argv.index("--out") + 1] = str(tmp_path / "quick.csv")
    code, _, err = cli(argv + ["--quiet"])
    assert code == 0, err
    code, out, err = cli(["check", tmp_path / "quick.csv", "--against", REFERENCE])
    assert code == 0, out + err
