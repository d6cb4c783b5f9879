"""The FunCat datasets under the hiercost protocol (mirror): given valid part, no missing value left."""
import numpy as np
import pytest

from mlbench.data import load_dataset
from mlbench.data.preprocess import Pipeline, take_rows
from mlbench.data.splits import make_splits
from mlbench.protocols import load_protocol

PROTOCOL = load_protocol("hiercost")
FUNCAT = [d for d in PROTOCOL.datasets if d.endswith("_FUN")]


def test_the_protocol_lists_the_funcat_datasets():
    assert len(FUNCAT) == 9 and "expr_FUN" not in FUNCAT    # expr_FUN has no train part in the mirror


@pytest.mark.mirror
@pytest.mark.parametrize("name", FUNCAT)
def test_funcat_split_and_preprocessing(name, mirror):
    ds = load_dataset(name, None, mirror)
    (split,) = make_splits(ds, PROTOCOL.split, protocol=PROTOCOL.name, seed=PROTOCOL.seed)
    assert np.array_equal(split.valid, ds.parts["valid"])
    assert np.array_equal(split.train, ds.parts["train"])
    pipe = Pipeline(PROTOCOL.preprocess).fit(take_rows(ds, split.training_part))
    test = pipe.transform(take_rows(ds, split.test))
    assert np.isfinite(pipe.train_.X).all() and np.isfinite(test.X).all()
    assert test.nominal == {} and test.X.shape[1] == pipe.train_.X.shape[1] >= ds.n_features
    assert test.hierarchy is not None and test.n_labels == len(test.hierarchy.labels)


@pytest.mark.mirror
def test_info_with_the_protocol(cli):
    code, out, err = cli(["info", "church_FUN", "spo_FUN", "--protocol", "hiercost"])
    assert code == 0, err
    assert "church_FUN" in out and "spo_FUN" in out
