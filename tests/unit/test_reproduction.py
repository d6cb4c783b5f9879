"""REPRODUCTION.md is generated (``mlbench reproduction``) and must match results/papers."""
from pathlib import Path

import pandas as pd
import pytest

from mlbench.errors import ConfigError
from mlbench.report.reproduction import _test, render

ROOT = Path(__file__).resolve().parents[2]


def test_reproduction_md_is_current():
    current = (ROOT / "REPRODUCTION.md").read_text(encoding="utf-8")
    assert render("results/papers/claims.yaml", ROOT) == current, (
        "REPRODUCTION.md is stale: run `mlbench reproduction --out REPRODUCTION.md`")


def _rows(a, b):
    """Two methods, one dataset, three splits; ``a`` and ``b`` are their macro-AUCs."""
    return pd.DataFrame([{"dataset": "d", "split": f"s{i}", "method": m, "macro_auc": v}
                         for i in range(3) for m, v in (("a", a[i]), ("b", b[i]))])


def test_claim_tests_decide_both_ways():
    claim = {"test": "better_than", "method": "a", "versus": ["b"], "metrics": ["macro_auc"]}
    assert _test(claim, _rows([0.9, 0.91, 0.92], [0.5, 0.52, 0.5]))[0]
    assert not _test(claim, _rows([0.9, 0.5, 0.92], [0.5, 0.9, 0.5]))[0]   # not significant
    first = {"test": "rank_first", "method": "b", "metrics": ["macro_auc"]}
    assert not _test(first, _rows([0.9, 0.91, 0.92], [0.5, 0.52, 0.5]))[0]
    worse = {"test": "never_worse", "method": "b", "metrics": ["macro_auc"]}
    assert not _test(worse, _rows([0.9, 0.91, 0.92], [0.5, 0.52, 0.5]))[0]
    with pytest.raises(ConfigError):
        _test({**claim, "test": "nope"}, _rows([1, 1, 1], [0, 0, 0]))


def test_bad_claims_file_is_a_one_line_error(tmp_path):
    bad = tmp_path / "claims.yaml"
    bad.write_text("papers: {x: {title: t, run: r, report: r}}\n")
    with pytest.raises(ConfigError, match="paper x: missing csv"):
        render(bad, tmp_path)


def test_one_split_claims_use_the_paired_bootstrap():
    import json

    import numpy as np

    from mlbench.stats.bootstrap import encode

    rng = np.random.RandomState(0)
    base = rng.normal(0.5, 0.02, 1000)

    def row(method, shift, noise):
        reps = base + shift + rng.normal(0, noise, 1000)
        extra = {"bootstrap": {"B": 1000, "replicates": {"micro_f1": encode(reps)}}}
        return {"dataset": "d", "split": "given-r00", "method": method, "micro_f1": 0.5 + shift,
                "extra": json.dumps(extra)}

    claim = {"test": "better_than", "method": "a", "versus": ["b"], "metrics": ["micro_f1"]}
    clear = pd.DataFrame([row("a", 0.03, 0.002), row("b", 0.0, 0.002)])
    holds, why = _test(claim, clear)
    assert holds and "bootstrap 95% interval" in why
    close = pd.DataFrame([row("a", 0.001, 0.01), row("b", 0.0, 0.01)])
    assert not _test(claim, close)[0]                 # the interval holds 0
    bare = clear.drop(columns="extra")
    assert "means only" in _test(claim, bare)[1]


def test_a_claim_can_be_limited_to_the_papers_datasets(tmp_path):
    rows = _rows([0.9, 0.91, 0.92], [0.5, 0.52, 0.5])
    other = _rows([0.5, 0.52, 0.5], [0.9, 0.91, 0.92]).assign(dataset="standin")
    df = pd.concat([rows, other], ignore_index=True)
    claim = {"test": "better_than", "method": "a", "versus": ["b"], "metrics": ["macro_auc"]}
    assert not _test(claim, df)[0]                             # the stand-in decides against
    assert _test({**claim, "datasets": ["d"]}, df)[0]          # the paper's dataset alone
    assert "none of the datasets" in _test({**claim, "datasets": ["x"]}, df)[1]
    from mlbench.report.reproduction import load_claims

    bad = tmp_path / "claims.yaml"
    bad.write_text("papers: {x: {title: t, csv: c, run: r, report: r, claims: [{text: t, "
                   "test: better_than, method: a, metrics: [m], datasets: d}]}}\n")
    with pytest.raises(ConfigError, match="'datasets' must be a non-empty list"):
        load_claims(bad)


def test_a_partial_grid_names_the_cells_not_run_yet(tmp_path):
    """The cells of the protocol's grid (its datasets x the methods it runs, within the claims
    file's methods) that have no ok row are named per dataset; a complete grid adds no line."""
    from mlbench.report.reproduction import still_to_run

    proto = tmp_path / "p.yaml"
    proto.write_text("name: p\ndatasets: [d1, d2, d3]\nsplit: {scheme: holdout}\n"
                     "metrics: [hamming_loss]\nmethods: [br, cc, mlknn]\n")
    spec = {"protocol": str(proto), "methods": ["br", "cc"]}
    rows = pd.DataFrame({"dataset": ["d1", "d1", "d2"], "method": ["br", "cc", "cc"]})
    assert still_to_run(spec, rows) == [
        "- not run yet: 3 of 6 dataset x method cells: d2 (br); d3 (all); "
        "`mlbench run --protocol p --dry-run` estimates them and the run command runs them"]
    full = pd.DataFrame({"dataset": [d for d in ("d1", "d2", "d3") for _ in "ab"],
                         "method": ["br", "cc"] * 3})
    assert still_to_run(spec, full) == [] and still_to_run({}, rows) == []
    spec["methods"] = ["br", "cc", "mlknn"]                        # the most: what ran is named
    assert still_to_run(spec, rows)[0].startswith(
        "- not run yet: 6 of 9 dataset x method cells: d1 (mlknn); d2 (all but cc); d3 (all); ")


def test_the_rows_flags_name_degenerate_outputs_and_grid_ends():
    from mlbench.report.reproduction import _flags

    clean = _rows([0.9, 0.91, 0.92], [0.5, 0.52, 0.5]).assign(params="", extra="")
    assert _flags(clean)[2].startswith("- nothing: ")
    flagged = clean.copy()
    flagged.loc[0, "extra"] = '{"degenerate": "the same label set predicted for every test row"}'
    flagged.loc[1, ["params", "extra"]] = ['{"Cs": [1, 10, 100]}', '{"C": 100}']
    assert _flags(flagged)[2:4] == [
        "- a: the same label set predicted for every test row on d (1 of 3 splits): its outputs "
        "there do not depend on the features",
        "- b: internal CV chose the largest C of its grid (100) for d 100% of its choices; the best "
        "C may lie above the grid (widen Cs)"]
