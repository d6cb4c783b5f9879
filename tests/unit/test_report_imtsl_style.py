"""The imtsl style: RP over the paper's methods only; the graph ablations (variants of imtsl in the
protocol) in the variants table."""
import numpy as np
import pandas as pd
import pytest

from mlbench.report.analysis import analyse
from mlbench.report.results import load_results
from mlbench.report.styles import build_tables
from mlbench.stats.rp import relative_performance

# accuracy offsets: imtsl best, br second, the empty graph far below imtsl, the random graph equal
OFFSETS = {"imtsl": 0.05, "br": 0.02, "cc": 0.0, "imtsl-empty": -0.10, "imtsl-random": 0.05}


def _analysis(tmp_path, methods):
    rng = np.random.default_rng(3)
    rows = []
    for i, d in enumerate(["d0", "d1", "d2"]):
        for s in range(6):
            for m in methods:
                v = 0.3 + 0.1 * i + OFFSETS[m] + 0.002 * rng.standard_normal()
                rows.append(dict(dataset=d, method=m, protocol="toy", split=f"r{s}", status="ok",
                                 n_train=80, n_test=20, accuracy=v))
    path = tmp_path / "toy.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return analyse(load_results([path]), control="imtsl", stats=["friedman", "ttest"],
                   variants={"imtsl-empty": "imtsl", "imtsl-random": "imtsl"})


def _row(t, label, group=None):
    return next(r for r in t.rows if r.label == label and (group is None or r.group == group))


def test_rp_ranks_the_papers_methods_only(tmp_path):
    with_ablation = build_tables(_analysis(tmp_path, list(OFFSETS)), "imtsl")
    without = build_tables(_analysis(tmp_path, ["imtsl", "br", "cc"]), "imtsl")
    rp = with_ablation[0]
    assert [r.label for r in rp.rows] == ["imtsl", "br", "cc"]
    for m in ("imtsl", "br", "cc"):
        assert _row(rp, m).cells[0].value == pytest.approx(_row(without[0], m).cells[0].value)
    assert _row(rp, "cc").cells[0].value == pytest.approx(1 / np.log2(3))   # third of three
    assert "variants" not in [t.key for t in without]                      # no ablation, no table


def test_ablation_table_gives_the_paired_difference_and_its_test(tmp_path):
    graph = next(t for t in build_tables(_analysis(tmp_path, list(OFFSETS)), "imtsl") if t.key == "variants")
    assert graph.title.startswith("What the learned graph adds")
    assert graph.columns == ["Variant", "d0", "d1", "d2", "#win/#tie/#loss"]   # one parent: no column
    empty = _row(graph, "imtsl-empty")
    assert empty.cells[0].value == pytest.approx(0.15, abs=0.01) and empty.cells[0].marker == "∗"
    assert empty.cells[-1].text == "3/0/0"
    assert _row(graph, "imtsl-random").cells[0].value == pytest.approx(0.0, abs=0.01)


def test_rp_matches_the_definition_on_the_means(tmp_path):
    a = _analysis(tmp_path, list(OFFSETS))
    ma = a.metrics[0]
    block = ma.mean.loc[["d0", "d1", "d2"], ["imtsl", "br", "cc"]].to_numpy(float)
    _, mean, _ = relative_performance(block)
    rp = build_tables(a, "imtsl")[0]
    assert [r.cells[0].value for r in rp.rows] == pytest.approx(list(mean))
