"""The bogatinovski2022 protocol end to end on the embedded emotions with two built-in methods:
dry-run, run (searched, budget recorded), the skipped methods' one-line reasons, and the report
style's tables at 120 columns."""
import json
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from mlbench.protocols import HERE


@pytest.fixture
def protocol(tmp_path, monkeypatch):
    """The shipped protocol on emotions with mlknn, rfpct (10 trees), the registered ``rakel``
    (RAkEL-o, which has no C/gamma for the study's grid) and a name not registered."""
    monkeypatch.setenv("MLBENCH_DATA", str(tmp_path / "data"))
    data = yaml.safe_load((HERE / "bogatinovski2022.yaml").read_text())
    keep = {"mlknn", "rfpct"}
    data["methods"] = [m for m in data["methods"] if m.get("id", m["name"]) in keep]
    data["methods"] += [{"name": "rakel", "search": {"C": [1.0], "gamma": [0.5]}},
                        {"name": "not-written-yet", "search": {}}]
    for m in data["methods"]:
        if m["name"] == "rfpct":
            m["params"] = {"n_estimators": 10}
    data["datasets"] = ["emotions"]
    data["name"] = "study-smoke"        # not the shipped protocol's name: its rows are its own
    data["search"]["budget"] = 20
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _mlbench(*args, cwd, columns=120):
    import os

    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run([sys.executable, "-m", "mlbench", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_protocol_dry_run_run_and_report(protocol, tmp_path):
    out = tmp_path / "study.csv"
    dry = _mlbench("run", "--protocol", str(protocol), "--dry-run", "-o", str(out), cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr
    assert "2 cell(s) to run" in dry.stdout
    assert "skipped method not-written-yet: 'not-written-yet' is not registered yet" in dry.stderr
    assert ("skipped method rakel: registered 'rakel' has no parameter 'C', 'gamma' of the protocol's "
            "search grid") in dry.stderr
    assert not out.exists()

    run = _mlbench("run", "--protocol", str(protocol), "-o", str(out), "-j", "2", "-q",
                   cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    df = pd.read_csv(out)
    assert sorted(df.method) == ["mlknn", "rfpct"] and (df.status == "ok").all()
    assert (df.n_test == 270).all() and (df.n_train == 323).all()
    for _, row in df.iterrows():
        params, extra = json.loads(row.params), json.loads(row.extra)
        assert params["search"]["budget_seconds"] == 20 and params["search"]["cv"] == 3
        assert extra["search"]["budget_seconds"] == 20
        if row.method == "mlknn":
            assert params["search"]["grid"] == {"k": [6, 8, 10, 12, 14, 16, 18, 20]}
            assert extra["search"]["chosen"]["k"] in range(6, 21, 2)
            assert extra["search"]["scored"] >= 1
    assert df.micro_auc_pr.between(0.3, 1).all() and df.hamming_loss.between(0, 0.4).all()

    rep = _mlbench("report", str(out), cwd=tmp_path)
    assert rep.returncode == 0, rep.stderr
    text = rep.stdout
    for title in ("Hamming loss ↓: test value per dataset", "Mean rank of each method on each "
                  "measure", "Mean rank per measure family", "Critical differences",
                  "Friedman test over datasets"):
        assert title in text, title
    assert "Top 5: on how many of the 18 predictive measures" in text
    assert max(len(line) for line in text.splitlines()) <= 120
