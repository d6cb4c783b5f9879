"""Scheme ``given`` with a validation fraction: a dataset's own valid part wins over a random draw."""
import numpy as np

from mlbench.data.dataset import Dataset
from mlbench.data.splits import SplitScheme, get_split, make_splits

TRAIN, VALID, TEST = np.arange(0, 50), np.arange(50, 70), np.arange(70, 101)


def toy(parts):
    rng = np.random.default_rng(0)
    return Dataset("toy", rng.normal(size=(101, 3)), (rng.random((101, 2)) < 0.3).astype(np.int8),
                   ["a", "b", "c"], ["l0", "l1"], parts=parts)


def test_given_valid_part_is_the_validation_part():
    ds = toy({"train": TRAIN, "valid": VALID, "test": TEST})
    scheme = SplitScheme("given", repeats=2, validation_fraction=0.2)
    splits = make_splits(ds, scheme, protocol="p", seed=0)
    for s in splits:
        assert np.array_equal(s.train, TRAIN)          # nothing drawn out of the train part
        assert np.array_equal(s.valid, VALID)
        assert np.array_equal(s.test, TEST)
        assert np.array_equal(s.training_part, np.arange(70))
    assert [s.id for s in splits] == ["given-r00", "given-r01"]
    assert np.array_equal(get_split(ds, scheme, protocol="p", seed=3, split="given-r01").valid, VALID)


def test_without_a_valid_part_a_random_fraction_is_drawn():
    ds = toy({"train": np.arange(70), "test": TEST})
    (s,) = make_splits(ds, SplitScheme("given", validation_fraction=0.2), protocol="p", seed=0)
    assert s.valid.size == 14 and s.train.size == 56
    assert np.array_equal(np.union1d(s.train, s.valid), np.arange(70))
    assert not np.array_equal(s.valid, np.arange(56, 70))   # drawn at random, not the last rows


def test_without_a_validation_fraction_the_valid_part_joins_training():
    ds = toy({"train": TRAIN, "valid": VALID, "test": TEST})
    (s,) = make_splits(ds, SplitScheme("given"), protocol="p", seed=0)
    assert np.array_equal(s.train, np.arange(70)) and s.valid.size == 0
