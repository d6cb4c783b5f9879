"""Reading results CSVs: validation, merging, duplicates, missing and incomplete cells."""
import numpy as np
import pandas as pd
import pytest

from mlbench.errors import ConfigError, DataError
from mlbench.report.results import load_results, metric_info

# toy results: 2 datasets x 3 methods x 3 splits; "c" failed on one split of "d2" and never ran on "d1"
ROWS = [dict(dataset=d, method=m, protocol="toy", split=f"r{s}", status="ok", error="", n_train=50,
             n_test=50, macro_f1=0.5 + 0.1 * j + 0.01 * s, hamming_loss=0.2 - 0.01 * j)
        for d in ("d1", "d2") for j, m in enumerate(("a", "b", "c")) for s in range(3)
        if not (m == "c" and (d == "d1" or s == 2))]
ROWS.append(dict(dataset="d2", method="c", protocol="toy", split="r2", status="timeout", error="over 60 s"))


@pytest.fixture
def toy(tmp_path):
    path = tmp_path / "toy.csv"
    pd.DataFrame(ROWS).to_csv(path, index=False)
    return path


def test_load_and_cells(toy):
    res = load_results([toy])
    assert res.metrics == ["macro_f1", "hamming_loss"] and res.protocol == "toy"
    assert res.methods == ["a", "b", "c"] and res.datasets == ["d1", "d2"]
    cells = res.cells("macro_f1")
    assert cells.loc[("d1", "a"), "mean"] == pytest.approx(0.51)
    assert cells.loc[("d1", "a"), "std"] == pytest.approx(0.01)
    assert cells.loc[("d2", "c"), "n"] == 2 and cells.loc[("d1", "c"), "n"] == 0
    assert np.isnan(cells.loc[("d1", "c"), "mean"])


def test_missing_and_partial_cells_are_reported(toy):
    res = load_results([toy])
    assert res.missing("macro_f1") == [{"dataset": "d1", "method": "c", "reason": "not run"}]
    assert res.partial("macro_f1") == [{"dataset": "d2", "method": "c", "splits": 2, "of": 3}]
    assert len(res.failures) == 1


def test_failed_only_cell_names_its_error(tmp_path):
    rows = [r for r in ROWS if not (r["dataset"] == "d2" and r["method"] == "c" and r["status"] == "ok")]
    path = tmp_path / "f.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    missing = load_results([path]).missing("macro_f1")
    assert {"dataset": "d2", "method": "c", "reason": "timeout x1: over 60 s"} in missing


def test_merge_files_and_duplicates(toy, tmp_path):
    other = tmp_path / "more.csv"
    pd.DataFrame([dict(ROWS[0], macro_f1=0.9)]).to_csv(other, index=False)
    res = load_results([toy, other])
    assert res.cells("macro_f1").loc[("d1", "a"), "mean"] == pytest.approx((0.9 + 0.51 + 0.52) / 3)
    assert any("duplicate" in n for n in res.notes)


def test_ok_rerun_supersedes_failure(toy, tmp_path):
    other = tmp_path / "rerun.csv"
    pd.DataFrame([dict(ROWS[0], dataset="d2", method="c", split="r2", macro_f1=0.7)]).to_csv(other, index=False)
    res = load_results([toy, other])
    assert len(res.failures) == 0 and res.partial("macro_f1") == []


@pytest.mark.parametrize("content, message", [
    ("", "not a results CSV"),
    ("dataset,method\nx,y\n", "missing column split"),
    ('dataset,method,split,macro_f1\nd,m,"r0,0.5\n', "no readable result rows \\(line 2: unexpected end of data"),
    ("dataset,method,split,macro_f1\nd,,r0,0.5\n", "line 2"),
])
def test_malformed_csv_is_one_line_error(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(DataError, match=message) as err:
        load_results([path])
    assert "\n" not in str(err.value)


def test_a_malformed_row_is_left_out_with_a_note_and_spoils_nothing(tmp_path):
    """Issue 18: one bad row (a non-number, a stray quote, a bare CR, a short row) is reported with
    its line and the rows after it are read as usual."""
    path = tmp_path / "r.csv"
    path.write_bytes(b"dataset,method,split,macro_f1\nd,a,r0,0.5\nd,b,r0,abc\nd,c,\"r0,0.5\n"
                     b"d,e,r0\r,0.4\nd,f\nd,g,r0,0.7\nd,h,r0,0.8")
    res = load_results([path])
    assert sorted(res.frame.method) == ["a", "g", "h"]
    notes = " ".join(res.notes)
    assert "line 4" in notes and "line 5" in notes and "line 6" in notes
    assert "macro_f1 holds a non-number ('abc')" in notes


def test_missing_file_and_unknown_metric(toy, tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        load_results([tmp_path / "nope.csv"])
    with pytest.raises(ConfigError, match="unknown metric 'macro_f2'"):
        load_results([toy], metrics=["macro_f2"])


def test_mixed_protocols_need_a_choice(toy, tmp_path):
    other = tmp_path / "p2.csv"
    pd.DataFrame([dict(ROWS[0], protocol="other")]).to_csv(other, index=False)
    with pytest.raises(ConfigError, match="mix protocols"):
        load_results([toy, other])
    assert load_results([toy, other], protocol="other").methods == ["a"]


def test_metric_directions():
    assert metric_info("hamming_loss")[0] is False
    assert metric_info("macro_f1")[0] is True
    assert metric_info("tree_induced_error")[0] is False  # fallback table


def test_unknown_extra_columns_are_ignored_with_a_note(tmp_path):
    path = tmp_path / "extra.csv"
    pd.DataFrame([dict(r, host="node1", cpu_model="x86") for r in ROWS]).to_csv(path, index=False)
    res = load_results([path])
    assert res.metrics == ["macro_f1", "hamming_loss"]
    assert any("host, cpu_model" in n for n in res.notes)
    with pytest.raises(ConfigError, match="unknown metric 'host'"):
        load_results([path], metrics=["host"])


def test_rows_follow_the_shipped_protocols_order(tmp_path):
    # mc.yaml lists emotions, yeast, scene and br-lr, mlknn, ..., sc, mc; the file has them reversed
    rows = [dict(dataset=d, method=m, protocol="mc", split="f0", status="ok", micro_f1=0.5)
            for d in ("scene", "Yeast", "emotions", "zzz") for m in ("mc", "sc", "mlknn", "br-lr", "mine")]
    path = tmp_path / "mc.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    res = load_results([path])
    assert res.datasets == ["emotions", "Yeast", "scene", "zzz"]  # unknown names last, as they came
    assert res.methods == ["br-lr", "mlknn", "sc", "mc", "mine"]
