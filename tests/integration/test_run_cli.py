"""``mlbench run`` through the command line, with the toy dataset and methods of test_run."""
import os
import sys

import pandas as pd
import pytest
import yaml

from mlbench.experiment import runner

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_run as t  # noqa: E402

toys = t.toys


@pytest.fixture
def toy_loader(monkeypatch):
    monkeypatch.setattr(runner, "_default_loader", t.loader)


def write_protocol(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump({
        "name": "cli", "split": {"scheme": "holdout", "repeats": 2}, "metrics": ["macro_f1"],
        "datasets": ["toy"], "methods": ["toy-mean"], "preprocess": ["standardize"]}))
    return str(path)


def test_run_command_writes_results_and_summary(toys, toy_loader, tmp_path, cli):
    out = tmp_path / "res.csv"
    argv = ["run", "--protocol", write_protocol(tmp_path), "--out", str(out), "--repeats", "3",
            "--seed", "5", "--methods", "toy-mean,toy-broken"]
    code, stdout, stderr = cli(argv)
    assert code == 0, stderr
    df = pd.read_csv(out)
    assert len(df) == 6 and set(df.seed) == {5}
    assert "mean over splits" in stdout and "toy-mean" in stdout
    assert "[6/6]" in stderr and "6 cell(s) run, 0 already done, 3 failed" in stderr
    code, stdout, stderr = cli(argv + ["--quiet"])
    assert code == 0 and "3 cell(s) run, 3 already done" in stderr  # only the failures again
    assert len(pd.read_csv(out)) == 6


def test_run_command_defaults_and_out_path(toys, toy_loader, tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, stderr = cli(["run", "--protocol", write_protocol(tmp_path), "-d", "toy2", "-q"])
    assert code == 0, stderr
    df = pd.read_csv(tmp_path / "results" / "cli.csv")
    assert set(df.dataset) == {"toy2"} and len(df) == 2


def test_run_command_bad_input_is_one_line_exit_2(toys, toy_loader, tmp_path, cli):
    proto = write_protocol(tmp_path)
    for argv, text in [
        (["run", "--protocol", "nope"], "unknown protocol"),
        (["run", "--protocol", proto, "--methods", "toy-maen"], "did you mean 'toy-mean'"),
        (["run", "--protocol", proto, "--repeats", "0"], "--repeats"),
        (["run", "--protocol", proto, "--jobs", "0", "-o", str(tmp_path / "x.csv")], "--jobs"),
        (["run", "--protocol", proto, "--timeout", "-1", "-o", str(tmp_path / "x.csv")], "--timeout"),
        # issue 18: options that would disable a limit or never end
        (["run", "--protocol", proto, "--timeout", "nan"], "--timeout"),
        (["run", "--protocol", proto, "--timeout", "inf"], "--timeout"),
        (["run", "--protocol", proto, "--max-memory", "inf"], "--max-memory"),
        (["run", "--protocol", proto, "--max-memory", "nan"], "--max-memory"),
        (["run", "--protocol", proto, "--repeats", "100000000"], "--repeats"),
        (["run", "--protocol", proto, "--retries", "-1"], "--retries"),
        (["run", "--protocol", proto, "--seed", "-1"], "--seed"),
        (["run", "--protocol", proto, "--bogus"], "see 'mlbench run --help'"),
    ]:
        code, _, err = cli(argv)
        assert code == 2 and err.startswith("mlbench: error:") and text in err, (argv, err)
        assert err.count("\n") == 1


def test_run_names_take_globs_and_any_case(toys, toy_loader, tmp_path, cli):
    out = tmp_path / "g.csv"
    code, _, err = cli(["run", "--protocol", write_protocol(tmp_path), "--methods", "TOY-M*",
                        "--datasets", "TOY", "-o", str(out), "-q", "-j", "1"])
    assert code == 0, err
    df = pd.read_csv(out)
    assert set(df.method) == {"toy-mean"} and set(df.dataset) == {"toy"}
    code, _, err = cli(["run", "--protocol", write_protocol(tmp_path), "--methods", "zz*",
                        "-o", str(out)])
    assert code == 2 and "matches no known name" in err
