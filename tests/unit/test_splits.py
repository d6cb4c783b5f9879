import numpy as np
import pytest

from mlbench.data.dataset import Dataset
from mlbench.data.splits import (SplitScheme, get_split, iterative_stratification, load_splits,
                                 make_splits, parse_split_id, save_splits)
from mlbench.errors import ConfigError, DataError
from mlbench.seeds import derive_rng


def toy(name="toy", n=101, L=5, parts=None, seed=0):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, L)) < np.linspace(0.05, 0.5, L)).astype(np.int8)
    return Dataset(name, rng.normal(size=(n, 3)), Y, ["a", "b", "c"], [f"l{i}" for i in range(L)],
                   parts=parts or {})


def test_holdout_is_deterministic_disjoint_and_complete():
    ds = toy()
    scheme = SplitScheme("holdout", train_fraction=0.5, repeats=4)
    a = make_splits(ds, scheme, protocol="p", seed=0)
    b = make_splits(ds, scheme, protocol="p", seed=0)
    assert [s.id for s in a] == ["holdout-r00", "holdout-r01", "holdout-r02", "holdout-r03"]
    for s, t in zip(a, b):
        assert np.array_equal(s.train, t.train) and np.array_equal(s.test, t.test)
        assert np.intersect1d(s.train, s.test).size == 0
        assert np.array_equal(np.union1d(s.train, s.test), np.arange(ds.n_instances))
        assert s.train.size == round(0.5 * 101)
    assert not np.array_equal(a[0].train, a[1].train)  # repeats differ


def test_split_depends_on_seed_protocol_and_dataset_name_only():
    scheme = SplitScheme("holdout", repeats=2)
    base = make_splits(toy(), scheme, protocol="p", seed=0)[1].train
    assert not np.array_equal(base, make_splits(toy(), scheme, protocol="p", seed=1)[1].train)
    assert not np.array_equal(base, make_splits(toy(), scheme, protocol="q", seed=0)[1].train)
    assert not np.array_equal(base, make_splits(toy("other"), scheme, protocol="p", seed=0)[1].train)
    # a repeat computed on its own equals the same repeat computed among the others
    alone = get_split(toy(), SplitScheme("holdout", repeats=5), protocol="p", seed=0, split="holdout-r01")
    assert np.array_equal(alone.train, base)


def test_kfold_partitions_rows_with_kfold_sizes():
    ds = toy(n=53)
    splits = make_splits(ds, SplitScheme("kfold", folds=5, repeats=2), protocol="p", seed=3)
    assert len(splits) == 10 and splits[7].id == "kfold-r01-f02"
    for r in range(2):
        tests = [s.test for s in splits if s.repeat == r]
        assert sorted(t.size for t in tests) == [10, 10, 11, 11, 11]
        assert np.array_equal(np.sort(np.concatenate(tests)), np.arange(53))
        for s in splits[r * 5:(r + 1) * 5]:
            assert np.intersect1d(s.train, s.test).size == 0 and s.train.size + s.test.size == 53


def test_iterative_stratification_balances_labels_better_than_shuffling():
    ds = toy(n=300, L=6, seed=1)
    folds = iterative_stratification(ds.Y, 5, derive_rng(0, "x"))
    assert np.bincount(folds).tolist() == [60] * 5 or np.ptp(np.bincount(folds)) <= 2
    per_fold = np.array([ds.Y[folds == f].sum(axis=0) for f in range(5)])
    ideal = ds.Y.sum(axis=0) / 5
    assert np.abs(per_fold - ideal).max() <= 1.0
    scheme = SplitScheme("kfold", folds=5, stratify="iterative")
    splits = make_splits(ds, scheme, protocol="p", seed=0)
    assert np.array_equal(np.sort(np.concatenate([s.test for s in splits])), np.arange(300))


def test_given_split_and_validation_part():
    parts = {"train": np.arange(0, 70), "test": np.arange(70, 101)}
    ds = toy(parts=parts)
    (s,) = make_splits(ds, SplitScheme("given", validation_fraction=0.2), protocol="p", seed=0)
    assert s.id == "given-r00"
    assert np.array_equal(s.test, np.arange(70, 101))
    assert s.valid.size == 14 and s.train.size == 56
    assert np.intersect1d(s.valid, s.train).size == 0
    assert np.array_equal(s.training_part, np.arange(70))
    with pytest.raises(DataError, match="no given train/test"):
        make_splits(toy(), SplitScheme("given"), protocol="p", seed=0)


def test_scheme_validation_and_ids():
    for bad in (SplitScheme("bootstrap"), SplitScheme(train_fraction=1.0), SplitScheme(repeats=0),
                SplitScheme("kfold", folds=1), SplitScheme(validation_fraction=1.0),
                SplitScheme("given", stratify="iterative")):
        with pytest.raises(ConfigError):
            bad.check()
    assert parse_split_id("kfold-r12-f03") == (12, 3)
    assert parse_split_id("holdout-r100") == (100, None)
    with pytest.raises(ConfigError):
        parse_split_id("nonsense")


def test_save_and_load_roundtrip(tmp_path):
    splits = make_splits(toy(), SplitScheme("kfold", folds=3, validation_fraction=0.1), protocol="p", seed=0)
    save_splits(tmp_path / "s.npz", splits, meta={"seed": 0})
    back, meta = load_splits(tmp_path / "s.npz")
    assert meta == {"seed": 0}
    assert [s.id for s in back] == [s.id for s in splits]
    for a, b in zip(splits, back):
        assert (a.repeat, a.fold) == (b.repeat, b.fold)
        for part in ("train", "test", "valid"):
            assert np.array_equal(getattr(a, part), getattr(b, part))
