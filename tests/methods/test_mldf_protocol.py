"""The mldf protocol: each measure reported from the model trained for it (measure_from)."""
import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mlbench.errors import ConfigError
from mlbench.protocols import load_protocol, parse_protocol
from mlbench.protocols.measure_from import apply, combine, parse_measure_from

METRICS = ["hamming_loss", "ranking_loss"]
MAPPING = {"hamming_loss": "m-hl", "ranking_loss": "m-rl"}


def _frame():
    rows = []
    for split in (0, 1):
        for method, hl, rl, layers in (("m-hl", 0.1, 0.5, 3), ("m-rl", 0.4, 0.2, 7),
                                       ("other", 0.3, 0.3, None)):
            rows.append(dict(protocol="p", dataset="d", method=method, split=split, status="ok",
                             fit_seconds=1.0 + split, extra=json.dumps({"layers": layers}),
                             params="{}", hamming_loss=hl + split, ranking_loss=rl + split))
    return pd.DataFrame(rows)


def test_combine_takes_each_metric_from_its_model():
    out = combine(_frame(), "m", MAPPING, METRICS).sort_values("split")
    assert list(out["method"]) == ["m", "m"]
    np.testing.assert_allclose(out["hamming_loss"], [0.1, 1.1])
    np.testing.assert_allclose(out["ranking_loss"], [0.2, 1.2])
    np.testing.assert_allclose(out["fit_seconds"], [2.0, 4.0])  # both models' fits
    extra = json.loads(out["extra"].iloc[0])
    assert extra["layers"] == {"hamming_loss": 3, "ranking_loss": 7}


def test_apply_replaces_source_rows_and_notes_it():
    failures = pd.DataFrame([dict(protocol="p", dataset="e", method="m-rl", split=0,
                                  status="error", error="boom")])
    res = SimpleNamespace(frame=_frame(), failures=failures, metrics=METRICS, protocol="p", notes=[])
    apply(res, {"m": MAPPING})
    assert set(res.frame["method"]) == {"m", "other"}
    assert list(res.failures["method"]) == ["m"]
    assert "reported from the model trained for it" in res.notes[0]


def test_apply_without_mapping_changes_nothing():
    res = SimpleNamespace(frame=_frame(), failures=pd.DataFrame(columns=["method"]),
                          metrics=METRICS, protocol=None, notes=[])
    assert apply(res) is res and len(res.frame) == 6


def test_parse_rejects_unknown_metric_method_and_clash():
    labels = ["m-hl", "m-rl"]
    with pytest.raises(ConfigError, match="not one of the protocol's metrics"):
        parse_measure_from({"m": {"f1": "m-hl"}}, METRICS, labels)
    with pytest.raises(ConfigError, match="not one of the protocol's methods"):
        parse_measure_from({"m": {"hamming_loss": "x"}}, METRICS, labels)
    with pytest.raises(ConfigError, match="already a method"):
        parse_measure_from({"m-hl": {"hamming_loss": "m-hl"}}, METRICS, labels)
    with pytest.raises(ConfigError):
        parse_protocol({"name": "x", "split": {"scheme": "holdout", "repeats": 1},
                        "metrics": METRICS, "methods": labels, "measure_from": ["m-hl"]})


def test_shipped_mldf_protocol_fits_one_multi_measure_model_per_split():
    p = load_protocol("mldf")
    p.check_names()
    assert p.measure_from == {} and p.control == "mldf"
    (entry,) = [e for e in p.methods if e.label == "mldf"]
    from mlbench.methods import registry
    est = registry.make(entry.name, **entry.params)
    measures = {"coverage" if m == "coverage_normalized" else m for m in p.metrics}
    assert set(est.measures) == measures


def test_note_names_the_per_measure_layers():
    frame = pd.DataFrame([dict(protocol="p", dataset="d", method="m", split=s, status="ok",
                               extra=json.dumps({"layers": {"hamming_loss": 2 + s,
                                                            "ranking_loss": 5}}))
                          for s in (0, 1)])
    res = SimpleNamespace(frame=frame, failures=pd.DataFrame(columns=["method"]), metrics=METRICS,
                          protocol=None, notes=[])
    apply(res)
    assert len(res.notes) == 1
    assert "m: each measure is reported from the model grown for it" in res.notes[0]
    assert "d: hamming_loss 2.5, ranking_loss 5.0" in res.notes[0]


def test_cell_computes_each_measure_from_its_own_cascade():
    from mlbench.data.dataset import Dataset
    from mlbench.data.splits import SplitScheme, get_split
    from mlbench.experiment.cell import method_seed, run_cell
    from mlbench.experiment.grid import CellSpec
    from mlbench.methods.trees.mldf import MLDF
    from mlbench.metrics import get_measure
    from sklearn.datasets import make_multilabel_classification

    X, Y = make_multilabel_classification(n_samples=80, n_features=6, n_classes=4, n_labels=2,
                                          random_state=3)
    ds = Dataset("toy", X.astype(float), Y.astype(np.int8), [f"x{i}" for i in range(6)],
                 [f"y{j}" for j in range(4)], sha256="toy")
    small = dict(max_layers=4, n_folds=3, n_estimators_start=4, n_estimators_step=2,
                 n_estimators_max=6, measures=["hamming_loss", "coverage", "macro_auc"])
    metrics = ("hamming_loss", "coverage_normalized", "macro_auc")
    scheme = SplitScheme(scheme="holdout", train_fraction=0.5, repeats=1)
    spec = CellSpec(protocol="mldf", dataset="toy", method="mldf", method_name="mldf",
                    split="holdout-r00", repeat=0, fold=None, seed=0, scheme=scheme,
                    method_params=small, metrics=metrics)
    row = run_cell(spec, ds)
    assert row["status"] == "ok", row["error"]
    split = get_split(ds, scheme, protocol="mldf", seed=0, split="holdout-r00")
    tr, te = split.training_part, split.test
    for metric in metrics:
        measure = "coverage" if metric == "coverage_normalized" else metric
        single = {k: v for k, v in small.items() if k != "measures"}
        est = MLDF(measure=measure, random_state=method_seed(spec), **single).fit(X[tr], Y[tr])
        m = get_measure(metric)
        out = est.predict(X[te]) if m.needs == "predictions" else est.predict_proba(X[te])
        assert row[metric] == pytest.approx(m(Y[te], out), abs=1e-12)
        assert json.loads(row["extra"])["layers"][metric] == est.fit_info_["layers"]
