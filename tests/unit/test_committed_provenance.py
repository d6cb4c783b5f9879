"""The committed grids carry no stale row: every ``ok`` row of ``results/papers/*.csv`` and
``results/reference/quick.csv`` records its provenance, and it is what the current code, protocols
and data give (:mod:`mlbench.experiment.provenance`).  The data hashes are checked only where the
datasets can be loaded locally (``MLBENCH_MIRROR`` set); the algorithm versions, parameters,
protocol specs and metric conventions always are.

A failure names the rows: rerun them (``mlbench run`` with the paper's command reruns exactly the
stale cells), or, after merging rows written by an older mlbench, record what can be verified with
``python -m mlbench.experiment.upgrade FILE``.
"""
import os
from pathlib import Path

import pytest

from mlbench.experiment.provenance import NEW_COLUMNS, stale_rows
from mlbench.results_file import read_results

ROOT = Path(__file__).resolve().parents[2]
GRIDS = sorted((ROOT / "results" / "papers").glob("*.csv")) + [ROOT / "results" / "reference" / "quick.csv"]


def _ok_rows(path):
    problems = []
    df = read_results([path], problems)
    assert problems == []
    return df[df.status == "ok"]


def _stale(ok, check_data):
    diffs, _, notes = stale_rows(ok, check_data=check_data)
    stale = [(int(line), d, m, fields) for line, d, m, fields
             in zip(ok["__line"], ok["dataset"], ok["method"], diffs) if fields]
    return stale, notes


@pytest.mark.slow
@pytest.mark.parametrize("path", GRIDS, ids=lambda p: p.name)
def test_committed_grid_rows_are_current(path):
    """Algorithm versions, parameters, protocol specs, metric conventions (no data needed)."""
    ok = _ok_rows(path)
    missing = ok[ok[list(NEW_COLUMNS)].isna().any(axis=1)]
    assert missing.empty, (f"{len(missing)} row(s) without provenance, e.g. line "
                           f"{missing['__line'].iloc[0]} ({missing['dataset'].iloc[0]} "
                           f"{missing['method'].iloc[0]})")
    stale, _ = _stale(ok, check_data=False)
    assert stale == [], f"{len(stale)} stale row(s), e.g. {stale[:3]}"


@pytest.mark.slow
@pytest.mark.parametrize("path", GRIDS, ids=lambda p: p.name)
def test_committed_grid_data_hashes_are_current(path):
    if not os.environ.get("MLBENCH_MIRROR"):
        pytest.skip("the datasets' hashes need the datasets: MLBENCH_MIRROR is unset")
    stale, notes = _stale(_ok_rows(path), check_data=True)
    assert stale == [], f"{len(stale)} stale row(s), e.g. {stale[:3]}"
    assert not [n for n in notes if n.startswith("data of")], notes
