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


def test_shipped_mldf_protocol_reports_each_measure_from_its_variant():
    p = load_protocol("mldf")
    p.check_names()
    mapping = p.measure_from["mldf"]
    assert set(mapping) == set(p.metrics)
    assert mapping["coverage_normalized"] == "mldf-cov" and mapping["macro_auc"] == "mldf-auc"
    assert p.control == "mldf"
