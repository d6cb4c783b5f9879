"""Table styles and formats: layout, markers, best-value highlighting, machine-readable output."""
import csv
import io
import json

import numpy as np
import pandas as pd
import pytest

from mlbench.errors import ConfigError
from mlbench.report.analysis import analyse
from mlbench.report.export import analysis_to_dict
from mlbench.report.formats import FORMATS, latex_escape, render
from mlbench.report.results import load_results
from mlbench.report.styles import STYLES, build_tables

# toy results: 4 datasets x 4 methods x 5 splits.  "ctl" beats "weak" clearly on every dataset, ties
# with "peer" (same scores + noise) and loses to "strong" on "d0" only; "gone" failed on "d3".
OFFSETS = {"ctl": 0.0, "peer": 0.0, "weak": -0.08, "strong": 0.0}


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("styles")
    rng = np.random.default_rng(7)
    rows = []
    for i, d in enumerate(["d0", "d1", "d2", "d3"]):
        for s in range(5):
            for m, off in OFFSETS.items():
                bump = 0.06 if (m == "strong" and d == "d0") else 0.0
                v = 0.4 + 0.1 * i + off + bump + 0.003 * rng.standard_normal()
                rows.append(dict(dataset=d, method=m, protocol="toy", split=f"r{s}", status="ok",
                                 n_train=80, n_test=20, macro_f1=v, hamming_loss=0.5 - v / 2))
        rows.append(dict(dataset=d, method="gone", protocol="toy", split="r0",
                         status="error" if d == "d3" else "ok", error="MemoryError" if d == "d3" else "",
                         macro_f1=np.nan if d == "d3" else 0.1, hamming_loss=np.nan if d == "d3" else 0.9))
    path = tmp_path / "toy.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return analyse(load_results([path]), control="ctl", stats=["friedman", "wilcoxon", "ttest", "bayes"],
                   bayes_samples=2000)


def _table(tables, key):
    return next(t for t in tables if t.key == key)


def _row(table, label):
    return next(r for r in table.rows if r.label == label)


def test_mc_markers_and_win_tie_loss(toy):
    t = _table(build_tables(toy, "mc"), "mc:macro_f1")
    assert t.columns == ["Method", "d0", "d1", "d2", "d3", "#win/#tie/#loss"]
    weak = _row(t, "weak")
    assert [c.marker for c in weak.cells[:4]] == ["∗"] * 4 and weak.cells[-1].text == "4/0/0"
    strong = _row(t, "strong")
    assert strong.cells[0].marker == "⊛" and strong.cells[-1].text.endswith("/1")
    assert _row(t, "ctl (control)").cells[-1].text == "—"
    # "gone" has one split per dataset: no test, nothing counted, and the failure is listed
    assert _row(t, "gone").cells[-1].text == "0/0/0" and _row(t, "gone").cells[3].text == "—"
    assert any(n.startswith("missing: gone has no value on 1 of 4 datasets (d3: error x1: MemoryError)")
               for n in t.notes)
    # best per dataset column: "strong" on d0
    assert strong.cells[0].best and not weak.cells[0].best


def test_mc_direction_for_losses(toy):
    t = _table(build_tables(toy, "mc"), "mc:hamming_loss")
    assert [c.marker for c in _row(t, "weak").cells[:4]] == ["∗"] * 4
    assert _row(t, "strong").cells[0].best  # lowest loss is best


def test_mldf_groups_and_markers(toy):
    t = build_tables(toy, "mldf")[0]
    assert t.columns[0] == "Dataset" and "ctl (control)" in t.columns
    groups = list(dict.fromkeys(r.group for r in t.rows))
    assert groups == ["Macro-F1 ↑", "Hamming loss ↓"]
    j = t.columns.index("weak") - 1
    row = next(r for r in t.rows if r.label == "d1" and r.group == "Macro-F1 ↑")
    assert row.cells[j].marker == "•" and "±" in row.cells[j].text
    j = t.columns.index("strong") - 1
    row = next(r for r in t.rows if r.label == "d0" and r.group == "Macro-F1 ↑")
    assert row.cells[j].marker == "◦" and row.cells[j].best


def test_soshf_rank_column_and_markers(toy):
    ma = toy.metrics[0]
    t = _table(build_tables(toy, "soshf"), "soshf:macro_f1")
    assert t.columns[-1] == "Mean rank" and t.columns[1:5] == ["d0", "d1", "d2", "d3"]
    weak = _row(t, "weak").cells[-1]
    assert weak.text == f"({ma.average_rank('weak'):.2f})"
    # "gone" lacks d3: it is left out of the tests over datasets and shows no rank
    assert _row(t, "gone").cells[-1].text == "—" and "gone" not in ma.block_methods
    assert ma.friedman.n_datasets == 4
    # with 4 datasets the Wilcoxon test cannot reach 0.05 after Bonferroni: open triangle
    assert weak.marker.strip()[-1] == "△"
    assert weak.marker.strip()[0] in "●○"


def test_imtsl_rp_table(toy):
    t = build_tables(toy, "imtsl")[0]
    assert t.columns == ["Method", "Macro-F1", "Hamming loss"]
    weak = _row(t, "weak").cells[0]
    assert weak.value == pytest.approx(1 / np.log2(4))  # always last of the four compared
    assert _row(t, "gone").cells[0].text == "—"
    assert any(c.best for c in (r.cells[0] for r in t.rows))


def test_hiercost_layout(toy):
    t = build_tables(toy, "hiercost")[0]
    assert [r.group for r in t.rows][:5] == ["d0"] * 5
    ctl_d1 = next(r for r in t.rows if r.group == "d1" and r.label == "ctl (control)")
    # on d1 the strongest rival ties with the control: no dagger
    assert ctl_d1.cells[0].marker == ""
    assert "paired t-test" in " ".join(t.notes)


def test_plain_has_rank_row(toy):
    t = _table(build_tables(toy, "plain"), "plain:macro_f1")
    assert t.rows[-1].label.startswith("Avg. rank")


def test_stats_section(toy):
    keys = [t.key for t in build_tables(toy, "plain")]
    assert {"stats:friedman", "stats:mean-ranks", "stats:wilcoxon", "stats:per-dataset", "stats:bayes"} <= set(keys)


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_style_in_every_format(toy, style, fmt):
    tables = build_tables(toy, style)
    text = render(tables, fmt, payload=analysis_to_dict(toy, style) if fmt == "json" else None)
    assert text.strip()
    if fmt == "json":
        doc = json.loads(text)
        assert doc["control"] == "ctl" and len(doc["tables"]) == len(tables)
    elif fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        assert rows and set(rows[0]) == {"table", "group", "row", "column", "text", "value", "std", "marker", "best"}
    elif fmt == "markdown":
        assert "**" in text  # best values in bold
    elif fmt == "latex":
        assert "\\textbf{" in text and "\\begin{tabular}" in text
    elif fmt == "html":
        assert "<b>" in text and text.startswith("<!DOCTYPE html>")


def test_terminal_colour_highlights_best(toy):
    tables = build_tables(toy, "plain")
    coloured = render(tables, "terminal", colour=True)
    plain = render(tables, "terminal", colour=False)
    assert "\x1b[" in coloured and "\x1b[" not in plain


def test_json_carries_the_numbers(toy):
    doc = json.loads(render(build_tables(toy, "soshf"), "json", payload=analysis_to_dict(toy, "soshf")))
    m = doc["metrics"]["macro_f1"]
    ma = toy.metrics[0]
    assert m["friedman"]["chi2"] == pytest.approx(ma.friedman.chi2)
    assert m["friedman"]["average_ranks"]["weak"] == pytest.approx(ma.average_rank("weak"))
    assert m["nemenyi"]["cd"] == pytest.approx(ma.nemenyi.cd)
    assert m["mean"]["d0"]["strong"] == pytest.approx(ma.mean.loc["d0", "strong"])
    assert m["std"]["d0"]["strong"] == pytest.approx(ma.std.loc["d0", "strong"])
    assert m["win_tie_loss"]["weak"] == [4, 0, 0]
    assert m["markers"]["weak"] == {"mean_ranks": ma.mean_rank_marker("weak"), "wilcoxon": 0}
    assert {"dataset": "d3", "method": "gone", "reason": "error x1: MemoryError"} in m["missing"]
    assert m["wilcoxon_vs_control"]["weak"]["r_plus"] == 10.0
    assert set(m["bayes_vs_control"]["weak"]) >= {"p_control_better", "p_rope", "p_control_worse"}
    assert m["mean"]["d3"]["gone"] is None


def test_latex_escaping():
    assert latex_escape("a_b & 50% ●") == r"a\_b \& 50\% $\bullet$"


def test_unknown_style(toy):
    with pytest.raises(ConfigError, match="did you mean 'soshf'"):
        build_tables(toy, "sosh")
