"""Provenance that decides (issue 41): a row records what it was computed from; ``run`` reruns
the cells whose recorded identity is no longer current and says why; reports refuse stale rows;
the results file refuses lines laid out otherwise than its header; a rewritten dataset cache is
rebuilt."""
import json

import numpy as np
import pandas as pd
import pytest
import yaml

from mlbench.experiment.provenance import StaleResultsError, algorithm_identity
from mlbench.experiment.runner import run_experiment
from mlbench.protocols import load_protocol

CLF = '''
import numpy as np


class Freq:
    """Predicts each label's training frequency."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, Y):
        self.freq_ = np.asarray(Y).mean(axis=0)
        return self

    def predict_proba(self, X):
        return np.tile(self.freq_, (X.shape[0], 1))

    def predict(self, X):
        return (self.predict_proba(X) >= 0.5).astype(int)
'''


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("MLBENCH_DATA", str(tmp_path / "data"))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    data = pd.DataFrame(X, columns=["a", "b", "c"])
    data["y0"] = (X[:, 0] > 0).astype(int)
    data["y1"] = (X[:, 1] > 0).astype(int)
    data.to_csv(tmp_path / "toy.csv", index=False)
    (tmp_path / "freq.py").write_text(CLF)
    (tmp_path / "p.yaml").write_text(yaml.safe_dump({
        "name": "prov", "split": {"scheme": "holdout", "repeats": 2}, "metrics": ["hamming_loss"],
        "methods": ["mlknn"]}))
    return tmp_path


def run(env, notes, methods=("mlknn",)):
    return run_experiment(load_protocol(str(env / "p.yaml")), datasets=[f"{env}/toy.csv@2"],
                          methods=list(methods), out=env / "r.csv", notice=notes.append)


def test_rows_record_their_provenance(env):
    run(env, [])
    df = pd.read_csv(env / "r.csv", dtype=str)
    assert (df.algorithm == "mlknn@1").all() and (df.conventions == "v1").all()
    for c in ("dataset_sha256", "data_content", "protocol_spec", "params"):
        assert df[c].notna().all() and df[c].nunique() == 1


def test_edited_data_file_reruns_its_cells_and_says_so(env):
    run(env, [])
    notes = []
    assert run(env, notes).ran == 0 and notes == []
    df = pd.read_csv(env / "toy.csv")
    df.loc[3, "y0"] = 1 - df.loc[3, "y0"]
    df.to_csv(env / "toy.csv", index=False)
    rep = run(env, notes)
    assert (rep.ran, rep.changed) == (2, 2)
    assert notes == ["2 cell(s) rerun because what they were computed from changed: "
                     "2 data changed"]


def test_edited_method_source_reruns_its_cells(env):
    spec = f"{env}/freq.py:Freq"
    run(env, [], methods=[spec])
    before = algorithm_identity(spec)
    assert before.startswith("Freq@src-")
    (env / "freq.py").write_text(CLF.replace("training frequency", "training frequency (v2)"))
    assert algorithm_identity(spec) != before
    notes = []
    rep = run(env, notes, methods=[spec])
    assert (rep.ran, rep.changed) == (2, 2) and notes[-1].endswith("2 method changed")


def test_builtin_algorithm_identity_is_its_declared_version(monkeypatch):
    from mlbench.methods.knn.mlknn import MLkNN

    assert algorithm_identity("mlknn") == "mlknn@1"
    monkeypatch.setattr(MLkNN, "algorithm_version", 2, raising=False)
    assert algorithm_identity("mlknn") == "mlknn@2"


@pytest.fixture
def emotions_run(tmp_path, monkeypatch, cli):
    monkeypatch.setenv("MLBENCH_DATA", str(tmp_path / "data"))
    out = tmp_path / "r.csv"
    code, _, err = cli(["run", "-p", "quick", "-d", "emotions", "-m", "mlknn,br-lr,cc", "-o", out,
                        "-q"])
    assert code == 0, err
    return out


def test_report_check_and_api_refuse_a_stale_row(emotions_run, cli):
    from mlbench.report.build import make_report

    out = emotions_run
    code, _, err = cli(["report", out])
    assert code == 0, err
    df = pd.read_csv(out, dtype=str, keep_default_na=False)
    df.loc[df.method == "mlknn", "algorithm"] = "mlknn@0"     # computed by an older mlknn
    df.to_csv(out, index=False)
    code, _, err = cli(["report", out])
    lines = err.strip().splitlines()
    assert code == 2
    assert lines[0].startswith("stale: emotions mlknn: 3 row(s) computed from something no "
                               "longer current (method changed)")
    assert "3 row(s) of 1 (dataset, method) group(s) are stale" in lines[-1]
    assert "--allow-stale" in lines[-1] and "Traceback" not in err
    code, text, err = cli(["report", out, "--allow-stale"])
    assert code == 0 and "stale: emotions mlknn" in err and "mlknn" in text
    code, _, err = cli(["check", out, "--against", out])
    assert code == 2 and "stale: emotions mlknn" in err
    with pytest.raises(StaleResultsError):
        make_report([out], echo=lambda line: None)
    # the other method's rows are current; choosing them reports without complaint
    code, _, err = cli(["report", out, "-m", "br-lr,cc"])
    assert code == 0, err


def test_changed_parameters_make_rows_stale(emotions_run, cli):
    out = emotions_run
    df = pd.read_csv(out, dtype=str, keep_default_na=False)
    params = [json.dumps({**json.loads(p), "k": 3}) for p in df.params[df.method == "mlknn"]]
    df.loc[df.method == "mlknn", "params"] = params
    df.to_csv(out, index=False)
    code, _, err = cli(["report", out])
    assert code == 2 and "(parameters changed)" in err


def test_reproduction_refuses_stale_rows(emotions_run, tmp_path, cli):
    papers = tmp_path / "results" / "papers"
    papers.mkdir(parents=True)
    df = pd.read_csv(emotions_run, dtype=str, keep_default_na=False)
    df.loc[df.method == "br-lr", "conventions"] = "v0"
    df.to_csv(papers / "quick.csv", index=False)
    (papers / "claims.yaml").write_text(yaml.safe_dump({"papers": {"demo": {
        "title": "t", "csv": "results/papers/quick.csv", "run": "r", "report": "r"}}}))
    code, _, err = cli(["reproduction", "--root", tmp_path])
    assert code == 2 and "stale: emotions br-lr: 3 row(s)" in err and "metric conventions" in err
    code, text, _ = cli(["reproduction", "--root", tmp_path, "--allow-stale"])
    assert code == 0 and "## demo" in text


def test_upgrade_backfills_current_rows_and_leaves_changed_ones(emotions_run, capsys):
    from mlbench.experiment.upgrade import main

    out = emotions_run
    df = pd.read_csv(out, dtype=str, keep_default_na=False)
    full = df.copy()
    df = df.drop(columns=["data_content", "protocol_spec", "algorithm", "conventions"])
    df.loc[df.method == "mlknn", "n_features"] = "71"        # computed on other features
    df.to_csv(out, index=False)
    capsys.readouterr()
    assert main([str(out)]) == 0
    err = capsys.readouterr().out
    assert "emotions mlknn: 3 row(s) left unverified (its sizes" in err
    assert "provenance recorded in 6 row(s); 3 row(s) left unverified" in err
    after = pd.read_csv(out, dtype=str, keep_default_na=False).set_index(["method", "split"])
    full = full.set_index(["method", "split"])
    for c in ("data_content", "protocol_spec", "algorithm", "conventions"):
        assert (after.loc["br-lr", c] == full.loc["br-lr", c]).all()
        assert (after.loc["mlknn", c] == "").all()


def test_rewritten_dataset_cache_is_rebuilt_with_a_note(tmp_path, capsys):
    from mlbench.data import cache, load_dataset

    root = tmp_path / "data"
    ds = load_dataset("emotions", data_dir=root)
    path = cache.cache_path(root, "emotions")
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["Y"] = np.ones_like(arrays["Y"])                     # a valid .npz, edited labels
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)
    capsys.readouterr()
    again = load_dataset("emotions", data_dir=root)
    err = capsys.readouterr().err
    assert "discarding an unusable dataset cache" in err and "content hash" in err
    assert np.array_equal(again.Y, ds.Y)
    assert load_dataset("emotions", data_dir=root).Y.sum() == ds.Y.sum()   # rebuilt: no note
    assert capsys.readouterr().err == ""


HEADER = ("dataset,method,protocol,split,seed,status,macro_f1,micro_f1\n")


def test_an_appended_header_with_swapped_columns_is_refused(tmp_path, cli):
    from mlbench.report.results import load_results
    from mlbench.results_file import read_results

    path = tmp_path / "r.csv"
    path.write_text(HEADER + "d,a,p,s0,0,ok,0.1,0.9\nd,b,p,s0,0,ok,0.2,0.8\n"
                    "dataset,method,protocol,split,seed,status,micro_f1,macro_f1\n"
                    "d,c,p,s0,0,ok,0.7,0.3\n" + HEADER.replace("\n", "") + "\n"
                    "d,e,p,s0,0,ok,0.5,0.5\n")
    problems = []
    df = read_results([path], problems)
    assert sorted(df.method) == ["a", "b", "e"]
    assert problems == [
        f"{path}: line 4: a second header with another column layout (expected the header's 8 "
        f"columns in line 1's order); the lines under it are refused",
        f"{path}: line 5: written under the header of line 4, not line 1's; refused",
        f"{path}: line 6: a repeated header, skipped"]
    res = load_results([path])
    assert res.frame.set_index("method").loc["a", "macro_f1"] == 0.1
    assert any("line 5: written under the header of line 4" in n for n in res.notes)


def test_a_row_whose_fields_do_not_fit_their_columns_is_refused(tmp_path):
    from mlbench.results_file import read_rows

    path = tmp_path / "r.csv"
    path.write_text(HEADER + "d,a,p,s0,0,ok,0.1,0.9\nd,b,p,s0,ok,0,0.2,0.8\n"
                    "d,c,s0,p,0,ok,0.1,0.9\nd,d,p,s0,x,ok,0.1,0.9\n")
    problems = []
    _, rows, refused = read_rows(str(path), problems)
    assert [r["method"] for r in rows] == ["a", "c"] and refused == 2
    assert problems[0].startswith("line 3: status '0' is not one of ok, error")
    assert problems[1].startswith("line 5: column seed holds 'x', not a number")


def test_reproduction_names_the_lines_it_left_out(tmp_path):
    from mlbench.report.reproduction import _paper

    csv = tmp_path / "r.csv"
    csv.write_text(HEADER + "d,a,p,s0,0,ok,0.1,0.9\nd,b,p,s0,0,ok,0.2\n")
    spec = {"title": "t", "csv": "r.csv", "run": "r", "report": "r"}
    text = "\n".join(_paper("demo", spec, tmp_path))
    assert "1 line(s) of `r.csv` left out: line 3: 7 fields (expected the header's 8 columns)" \
        in text


def test_a_report_left_with_one_method_names_the_lines_it_dropped(tmp_path, cli):
    path = tmp_path / "r.csv"
    path.write_text(HEADER + "d,a,p,s0,0,ok,0.1,0.9\n"
                    "dataset,method,protocol,split,seed,status,micro_f1,macro_f1\n"
                    "d,b,p,s0,0,ok,0.7,0.3\n")
    code, _, err = cli(["report", path])
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "the results hold 1 (a)" in err and "line 4: written under the header of line 3" in err
