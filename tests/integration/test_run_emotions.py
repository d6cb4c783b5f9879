"""The runner on real data: the embedded emotions (no network, no mirror) and, with the mirror, yeast
under the SOSHF protocol's preprocessing."""
import json

import pandas as pd
import pytest

from mlbench.experiment.runner import run_experiment
from mlbench.methods import registry
from mlbench.protocols import load_protocol


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("MLBENCH_DATA", str(tmp_path / "data"))
    return tmp_path


def _need(*names):
    known = {s.name for s in registry.all_methods()}
    missing = [n for n in names if n not in known]
    assert not missing, f"methods not registered: {missing}"


def test_quick_protocol_on_embedded_emotions(data_dir):
    _need("br-lr", "mlknn")
    proto = load_protocol("quick").with_overrides(repeats=2)
    out = data_dir / "quick.csv"
    rep = run_experiment(proto, methods=["br-lr", "mlknn"], out=out, jobs=2)
    assert rep.statuses == {"ok": 4}
    df = pd.read_csv(out)
    assert set(df.dataset) == {"emotions"} and len(df) == 4
    assert (df.n_train + df.n_test == 593).all() and (df.n_train == 296).all()
    assert (df.n_labels == 6).all() and (df.n_features == 72).all()
    assert df.macro_auc.between(0.7, 1.0).all() and df.hamming_loss.between(0.1, 0.35).all()
    # same seed, another file, one job: the same numbers
    run_experiment(proto, methods=["br-lr", "mlknn"], out=data_dir / "again.csv", jobs=1)
    again = pd.read_csv(data_dir / "again.csv")
    cols = ["method", "split", "macro_auc", "macro_f1", "ranking_loss"]
    key = ["method", "split"]
    pd.testing.assert_frame_equal(df[cols].sort_values(key).reset_index(drop=True),
                                  again[cols].sort_values(key).reset_index(drop=True))


@pytest.mark.mirror
def test_soshf_protocol_on_yeast_drops_imbalanced_labels(data_dir, monkeypatch):
    _need("br-lr")
    proto = load_protocol("soshf").with_overrides(repeats=1)
    out = data_dir / "soshf.csv"
    rep = run_experiment(proto, methods=["br-lr"], datasets=["yeast"], out=out)
    assert rep.statuses == {"ok": 1}
    row = pd.read_csv(out).iloc[0]
    kept = json.loads(row.extra)["preprocess"].get("labels_kept", list(range(14)))
    # yeast has labels far rarer than 1 in 51 rows, which the IR > 50 rule removes
    assert row.n_labels == len(kept) < 14
    assert 0.5 < row.macro_auc <= 1.0
