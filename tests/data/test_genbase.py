"""genbase (issue 22): YES/NO nominal features keep their declared order; the protein id is dropped
by the registry entry's ``drop_features``."""
import io
import os
from pathlib import Path

import numpy as np
import pytest
import yaml

from mlbench.data.arff import parse_arff
from mlbench.data.dataset import Dataset
from mlbench.errors import DataError

ROOT = Path(__file__).resolve().parents[2]
GENBASE = ("raw.githubusercontent.com/tsoumakas/mulan/43f6389095ad71984264db4387a8074b22bc7d4a/"
           "data/multi-label/genbase/genbase-train.arff")


@pytest.mark.parametrize("decl", [b"{YES,NO}", b"{NO,YES}", b"{YES, NO}"])
def test_nominal_value_is_its_declared_position(decl):
    import arff

    text = b"@relation r\n@attribute p " + decl + b"\n@data\nYES\nNO\nYES\n"
    values = [v.strip() for v in decl[1:-1].decode().split(",")]
    X = parse_arff(text).X[:, 0]
    assert X.tolist() == [values.index(v) for v in ("YES", "NO", "YES")]
    ref = arff.load(io.StringIO(text.decode()), encode_nominal=True)["data"]
    assert X.tolist() == [row[0] for row in ref]


@pytest.mark.mirror
def test_genbase_file_decoded_as_declared():
    mirror = os.environ.get("MLBENCH_MIRROR")
    if not mirror or not (Path(mirror) / GENBASE).is_file():
        pytest.skip("MLBENCH_MIRROR is not set to the dataset mirror directory")
    import arff

    text = (Path(mirror) / GENBASE).read_bytes()
    d = parse_arff(text, GENBASE)
    assert d.attributes[1].values == ["YES", "NO"]
    ref = arff.load(io.StringIO(text.decode()), encode_nominal=True)["data"]
    X = np.asarray(d.X)
    np.testing.assert_array_equal(X, np.array(ref, dtype=float))
    # the raw text of row 1, feature PS00010 ... : "NO" everywhere is index 1
    row = text.split(b"@data\n", 1)[1].split(b"\n", 1)[0].split(b",")
    assert [X[0, j] for j in range(1, 6)] == [["YES", "NO"].index(v.decode()) for v in row[1:6]]


def test_registry_entry_drops_the_protein_id():
    entry = yaml.safe_load((ROOT / "datasets.yaml").read_text())["datasets"]["genbase"]
    assert entry["drop_features"] == ["protein"]


def test_without_features_renumbers_nominal_columns():
    ds = Dataset("g", np.array([[3.0, 0, 1], [5.0, 1, 0]]), np.zeros((2, 1), np.int8),
                 ["protein", "PS1", "PS2"], ["L"],
                 nominal={0: ["P1", "P2", "P3", "P4", "P5", "P6"], 1: ["YES", "NO"],
                          2: ["YES", "NO"]})
    out = ds.without_features(["protein"])
    assert out.feature_names == ["PS1", "PS2"] and out.X.tolist() == [[0, 1], [1, 0]]
    assert out.nominal == {0: ["YES", "NO"], 1: ["YES", "NO"]}
    assert ds.without_features([]) is ds
    with pytest.raises(DataError, match="drop_features names no feature 'id'"):
        ds.without_features(["id"])


@pytest.mark.mirror
def test_loaded_genbase_has_no_protein_column(tmp_path):
    mirror = os.environ.get("MLBENCH_MIRROR")
    if not mirror or not (Path(mirror) / GENBASE).is_file():
        pytest.skip("MLBENCH_MIRROR is not set to the dataset mirror directory")
    from mlbench.data import load_dataset

    for _ in range(2):                       # parsed, then from the cache: dropped both times
        ds = load_dataset("genbase", data_dir=tmp_path, mirror=mirror)
        assert "protein" not in ds.feature_names and ds.n_features == 1185


def test_dropped_features_change_only_that_datasets_fingerprint():
    from mlbench.data.splits import SplitScheme
    from mlbench.experiment.grid import _dropped, data_spec

    scheme = SplitScheme(scheme="holdout", train_fraction=0.5, repeats=2)
    assert _dropped("genbase") == ("protein",) and _dropped("emotions") == ()
    assert data_spec([], scheme, "genbase", ("protein",)) != data_spec([], scheme, "genbase")
    assert data_spec([], scheme, "emotions", _dropped("emotions")) == data_spec([], scheme, "emotions")
