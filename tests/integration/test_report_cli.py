"""``mlbench report`` end to end through the CLI entry point (exit codes, files, errors)."""
import json

import numpy as np
import pandas as pd
import pytest


# toy results: 3 datasets x 3 methods x 4 splits, protocol "soshf" (whose defaults the report reads)
ROWS = [dict(dataset=d, method=m, protocol="soshf", split=f"r{s}", repeat=s, status="ok", n_train=60,
             n_test=60, macro_f1=0.3 + 0.1 * i - 0.04 * j + 0.002 * ((s * 7 + j) % 5),
             macro_auc=0.6 + 0.1 * i - 0.03 * j + 0.002 * ((s * 3 + j) % 5))
        for i, d in enumerate(["emotions", "yeast", "scene"]) for j, m in enumerate(["br-svm", "mlknn", "rakel"])
        for s in range(4)]


@pytest.fixture
def results(tmp_path):
    path = tmp_path / "results.csv"
    pd.DataFrame(ROWS).to_csv(path, index=False)
    return path


def test_defaults_come_from_the_protocol(results, cli):
    code, out, err = cli(["report", results])
    assert code == 0, err
    # soshf protocol: style soshf, metrics macro_f1 and macro_auc, one table each
    assert "Mean rank" in out and "Macro-F1" in out and "Macro-AUC" in out
    assert "Friedman test over datasets" in out
    assert "control: br-svm (best average rank on macro_f1" in out


@pytest.mark.parametrize("style, fmt", list(zip(
    ["soshf", "mldf", "mc", "imtsl", "hiercost", "plain"],
    ["latex", "markdown", "terminal", "html", "csv", "json"])))
def test_every_style_and_format(results, cli, style, fmt):
    code, out, err = cli(["report", results, "--style", style, "--format", fmt, "--control", "mlknn"])
    assert code == 0, err
    assert out.strip()


def test_merge_several_files_and_out(results, tmp_path, cli):
    df = pd.read_csv(results)
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    df[df.dataset == "emotions"].to_csv(a, index=False)
    df[df.dataset != "emotions"].to_csv(b, index=False)
    out_file = tmp_path / "r.json"
    code, _, err = cli(["report", a, b, "--format", "json", "--out", out_file, "--stats", "all",
                         "--metric", "macro_f1"])
    assert code == 0, err
    doc = json.loads(out_file.read_text())
    # the soshf protocol's dataset order (cal500, emotions, medical, enron, scene, yeast, ...), not the files'
    assert doc["metrics"]["macro_f1"]["datasets"] == ["emotions", "scene", "yeast"]
    assert list(doc["metrics"]) == ["macro_f1"]
    assert doc["metrics"]["macro_f1"]["friedman"]["n_datasets"] == 3


def test_cd_diagram_files(results, tmp_path, cli):
    png = tmp_path / "cd.png"
    code, _, err = cli(["report", results, "--cd-diagram", png, "--metric", "macro_f1"])
    assert code == 0, err
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "cd.pdf").read_bytes()[:4] == b"%PDF"       # a PDF beside it, for a paper
    assert f"wrote {tmp_path / 'cd.pdf'}" in err
    svg = tmp_path / "cd.svg"
    code, _, err = cli(["report", results, "--cd-diagram", svg, "--cd-test", "bonferroni-dunn"])
    assert code == 0, err
    assert {p.name for p in tmp_path.glob("cd-*")} == {
        f"cd-{m}.{ext}" for m in ("macro_f1", "macro_auc") for ext in ("svg", "pdf")}


@pytest.mark.parametrize("argv, message", [
    (["--metric", "macro_f2"], "unknown metric 'macro_f2'"),
    (["--control", "nope"], "control method 'nope' is not in the results"),
    (["--alpha", "2"], "--alpha must lie in (0, 1)"),
    (["--cd-diagram", "x.gif"], "must end in .png, .svg or .pdf"),
])
def test_bad_options_exit_2(results, cli, argv, message):
    code, out, err = cli(["report", results] + argv)
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_malformed_csv_exits_2(tmp_path, cli):
    bad = tmp_path / "bad.csv"
    bad.write_text("dataset,method\nx,y\n")
    code, _, err = cli(["report", bad])
    assert code == 2 and "missing column split" in err and err.count("\n") == 1


def test_one_method_exits_2(results, tmp_path, cli):
    one = tmp_path / "one.csv"
    df = pd.read_csv(results)
    df[df.method == "mlknn"].to_csv(one, index=False)
    code, _, err = cli(["report", one])
    assert code == 2 and "compares methods" in err


def test_explicit_friedman_on_one_dataset_exits_0_with_per_split_tests(results, tmp_path, cli):
    """Issue 20: one dataset (the quick run) is compared by per-split paired tests, with a note
    that Friedman and the CD diagram need two datasets; exit 0."""
    one = tmp_path / "one.csv"
    df = pd.read_csv(results)
    df[df.dataset == "yeast"].to_csv(one, index=False)
    cd = tmp_path / "cd.png"
    code, out, err = cli(["report", one, "--stats", "friedman", "--cd-diagram", str(cd),
                          "--format", "markdown"])
    assert code == 0, err
    assert "friedman compares methods over datasets and needs at least two" in out
    assert "no CD diagram" in out and not cd.exists()
    assert "corrected resampled t-test" in out
    assert "Wilcoxon signed-rank over the splits" in out and "p (Wilcoxon)" in out
    # without the explicit request the per-dataset tables still print, with a note
    code, out, err = cli(["report", one, "--style", "mc", "--stats", "ttest"])
    assert code == 0, err
    assert "#win/#tie/#loss" in out


def test_missing_results_are_listed(results, tmp_path, cli):
    df = pd.read_csv(results)
    df.loc[(df.dataset == "scene") & (df.method == "rakel"), "status"] = "timeout"
    df.loc[(df.dataset == "scene") & (df.method == "rakel"), "macro_f1"] = np.nan
    path = tmp_path / "gap.csv"
    df.to_csv(path, index=False)
    code, out, err = cli(["report", path, "--style", "plain", "--metric", "macro_f1"])
    assert code == 0, err
    assert "missing: rakel has no value on 1 of" in out and "(scene: timeout x4)" in out


def test_fit_seconds_is_a_lower_is_better_metric_on_request_only(tmp_path, cli):
    df = pd.DataFrame(ROWS)
    df["fit_seconds"] = [1.0 + 2.0 * (r["method"] == "rakel") for r in ROWS]  # rakel is slowest
    path = tmp_path / "timed.csv"
    df.to_csv(path, index=False)
    code, out, err = cli(["report", path, "--metric", "fit_seconds", "--format", "json", "--style", "plain"])
    assert code == 0, err
    ranks = json.loads(out)["metrics"]["fit_seconds"]["ranks"]
    assert all(row["rakel"] == 3.0 for row in ranks.values())
    code, out, err = cli(["report", path, "--format", "json"])  # not a default metric
    assert code == 0, err
    assert "fit_seconds" not in json.loads(out)["metrics"]


def test_plain_style_prints_no_std_for_single_split_results(tmp_path, cli):
    df = pd.DataFrame([r for r in ROWS if r["split"] == "r0"])
    path = tmp_path / "one.csv"
    df.to_csv(path, index=False)
    code, out, err = cli(["report", path, "--style", "plain", "--format", "markdown"])
    assert code == 0, err
    assert "one split per dataset" in out and "±" not in out


def test_metric_lists_any_case_and_unwritable_out(results, tmp_path, cli):
    code, out, err = cli(["report", results, "--metric", "Macro_F1,MACRO_AUC", "--format", "csv"])
    assert code == 0, err
    assert "soshf:macro_f1" in out and "soshf:macro_auc" in out
    code, _, err = cli(["report", results, "--out", str(tmp_path / "no" / "dir" / "r.md")])
    assert code == 2 and err.startswith("mlbench: error: cannot write") and err.count("\n") == 1


@pytest.mark.parametrize("width", [80, 100, 120])
def test_terminal_tables_fit_the_width_and_show_every_method(tmp_path, cli, width, monkeypatch):
    """Issue 20: 59 methods on one dataset (the quick run's shape) and 40 methods on 12 datasets."""
    rows = [dict(dataset="emotions", method=f"method-with-a-long-name-{i:02d}", protocol="x",
                 split=f"r{s}", status="ok", macro_f1=0.5 + 0.001 * i + 0.01 * s)
            for i in range(59) for s in range(3)]
    rows += [dict(dataset=f"dataset-{d:02d}", method=f"m{i:02d}", protocol="x", split=f"r{s}",
                  status="ok", macro_f1=0.4 + 0.002 * i + 0.01 * d + 0.001 * s)
             for d in range(12) for i in range(40) for s in range(2)]
    one, many = tmp_path / "one.csv", tmp_path / "many.csv"
    df = pd.DataFrame(rows)
    df[df.dataset == "emotions"].to_csv(one, index=False)
    df[df.dataset != "emotions"].to_csv(many, index=False)
    monkeypatch.setenv("COLUMNS", str(width))
    for path, names in ((one, [f"method-with-a-long-name-{i:02d}" for i in range(59)]),
                        (many, [f"dataset-{d:02d}" for d in range(12)] + [f"m{i:02d}" for i in range(40)])):
        code, out, err = cli(["report", path])
        assert code == 0, err
        assert max(len(line) for line in out.splitlines()) <= width
        for name in names:                     # shown in full or abbreviated in the legend
            assert name in out or name[:20] in out, name
    code, out, _ = cli(["report", many, "--width", "60"])
    assert max(len(line) for line in out.splitlines()) <= 60 and "(columns" in out


def test_method_and_dataset_filters_take_globs_any_case(results, cli, tmp_path):
    code, out, err = cli(["report", results, "--methods", "ML*,rakel", "--datasets", "Y*",
                          "--format", "csv"])
    assert code == 0, err
    rows = pd.read_csv(__import__("io").StringIO(out))
    shown = set(rows.row) | set(rows.column)
    assert "rakel" in shown and "scene" not in shown
    code, _, err = cli(["report", results, "--methods", "nothing*"])
    assert code == 2 and "matches no method" in err
    code, _, err = cli(["report", results, "--cd-diagram", str(tmp_path / "no" / "cd.png")])
    assert code == 2 and err.startswith("mlbench: error: cannot write") and err.count("\n") == 1


def test_run_takes_mirror_and_data_dir(tmp_path, cli, monkeypatch):
    monkeypatch.delenv("MLBENCH_DATA", raising=False)
    code, _, err = cli(["run", "-p", "quick", "-m", "br-lr", "-d", "emotions", "--repeats", "1",
                        "--data-dir", str(tmp_path / "dd"), "-q", "-j", "1", "-o", str(tmp_path / "r.csv")])
    assert code == 0, err
    assert (tmp_path / "dd" / "emotions.npz").exists()
