"""Warnings raised inside a cell are counted into extra.warnings instead of printed."""
import json
import warnings

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.exceptions import ConvergenceWarning

from mlbench.data.dataset import Dataset
from mlbench.experiment import runner
from mlbench.experiment.cell import MAX_WARNING_KINDS, CapturedWarnings
from mlbench.methods import registry
from mlbench.methods.base import MultiLabelClassifier


class Noisy(MultiLabelClassifier):
    """Predicts the training frequencies; warns three times in fit and once per predict_proba."""

    def __init__(self, *, random_state=None):
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        for _ in range(3):  # the same warning from the same line: counted every time
            warnings.warn("solver did not converge\nincrease max_iter", ConvergenceWarning)
        self.freq_ = Y.mean(axis=0)
        return self

    def predict_proba(self, X):
        X = self._validate_predict(X)
        warnings.warn("predicting constants", UserWarning)
        return np.tile(self.freq_, (X.shape[0], 1))


def tiny(name):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    return Dataset(name, X, (X > 0).astype(np.int8), ["a", "b"], ["y0", "y1"], sha256="sha")


@pytest.fixture
def noisy(monkeypatch):
    registry.register("toy-noisy", Noisy, family="test", paper="platform")
    monkeypatch.setattr(runner, "_default_loader", tiny)
    yield
    registry._REGISTRY.pop("toy-noisy", None)


def test_run_counts_warnings_per_cell_and_prints_one_line(noisy, tmp_path, cli):
    proto, out = tmp_path / "w.yaml", tmp_path / "w.csv"
    proto.write_text(yaml.safe_dump({
        "name": "w", "split": {"scheme": "holdout", "repeats": 2}, "metrics": ["hamming_loss"],
        "datasets": ["tiny"], "methods": ["toy-noisy"]}))
    code, _, err = cli(["run", "-p", proto, "-o", out, "-j", 1, "-q"])
    assert code == 0, err
    assert "did not converge" not in err and "predicting constants" not in err
    assert "2 cell(s) raised warnings" in err
    rows = pd.read_csv(out)
    assert (rows.status == "ok").all()
    for extra in rows.extra:
        assert json.loads(extra)["warnings"] == {
            "ConvergenceWarning: solver did not converge": 3,
            "UserWarning: predicting constants": 2}  # predict and the scores each call it


def test_captured_warnings_caps_kinds_and_restores_filters():
    before = list(warnings.filters)
    with CapturedWarnings() as caught:
        for i in range(MAX_WARNING_KINDS + 3):
            warnings.warn(f"message {i}")
    assert len(caught.counts) == MAX_WARNING_KINDS + 1
    assert caught.counts["other"] == 3
    assert caught.counts["UserWarning: message 0"] == 1
    assert warnings.filters == before
    with pytest.warns(UserWarning, match="outside"):  # no longer captured
        warnings.warn("outside")
    assert "UserWarning: outside" not in caught.counts
