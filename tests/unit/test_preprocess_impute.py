"""The ``impute`` and ``one_hot`` preprocessing steps (FunCat datasets: missing values, nominals)."""
import numpy as np
import pytest
import scipy.sparse as sp

from mlbench.data.dataset import Dataset
from mlbench.data.preprocess import Pipeline, parse_step, take_rows
from mlbench.errors import ConfigError

NAN = np.nan


def toy():
    """4 training rows then 3 test rows.  Column 0 numeric (train mean 2, test mean 30), column 1
    nominal {a, b, c} (mode 'c' = 2 in train, 'a' = 0 in test), column 2 numeric never observed in
    training, column 3 nominal {no, yes}."""
    X = np.array([
        [1.0, 2, NAN, 0],
        [NAN, 2, NAN, 1],
        [3.0, 0, NAN, 1],
        [2.0, NAN, NAN, 1],
        [NAN, 0, 5.0, 1],     # test rows from here
        [20.0, 0, NAN, NAN],
        [40.0, NAN, 7.0, 0],
    ])
    Y = np.array([[1, 0], [0, 1], [1, 1], [0, 1], [1, 0], [0, 1], [1, 0]], dtype=np.int8)
    return Dataset("toy", X, Y, ["num", "nom", "empty", "flag"], ["y0", "y1"],
                   nominal={1: ["a", "b", "c"], 3: ["no", "yes"]})


def parts(ds):
    return take_rows(ds, np.arange(4)), take_rows(ds, np.arange(4, 7))


def test_impute_fills_with_training_statistics_only():
    train, test = parts(toy())
    pipe = Pipeline(["impute"]).fit(train)
    tr, te = pipe.train_, pipe.transform(test)
    assert not np.isnan(tr.X).any() and not np.isnan(te.X).any()
    assert tr.X[1, 0] == pytest.approx(2.0)          # training mean of column 0
    assert te.X[0, 0] == pytest.approx(2.0)          # not the test mean (30) nor the overall mean
    assert tr.X[3, 1] == 2 and te.X[2, 1] == 2       # training mode 'c', not the test mode 'a'
    assert te.X[1, 3] == 1                           # mode of the binary nominal: 'yes' (3 of 4)
    assert np.all(tr.X[:, 2] == 0) and te.X[1, 2] == 0   # never observed in training: 0
    assert te.X[0, 2] == 5.0 and te.X[2, 2] == 7.0       # observed values are left alone
    assert np.array_equal(te.X[~np.isnan(test.X)], test.X[~np.isnan(test.X)])
    assert te.nominal == test.nominal and te.feature_names == test.feature_names


def test_impute_median_and_unchanged_without_missing():
    train, test = parts(toy())
    train.X[0, 0] = 100.0                            # column 0 in training: 100, nan, 3, 2
    te = Pipeline([{"step": "impute", "numeric": "median"}]).fit(train).transform(test)
    assert te.X[0, 0] == pytest.approx(3.0)
    full = np.nan_to_num(test.X)
    clean = Dataset("c", full, test.Y, test.feature_names, test.label_names, nominal=test.nominal)
    assert Pipeline(["impute"]).fit(train).transform(clean).X is full   # nothing to fill: no copy


def test_impute_on_csr_fills_stored_nans_only():
    train, test = parts(toy())
    for ds in (train, test):
        ds.X = sp.csr_matrix(ds.X)                   # NaNs stored, zeros implicit
    pipe = Pipeline(["impute"]).fit(train)
    te = pipe.transform(test)
    assert sp.issparse(te.X)
    dense = te.X.toarray()
    assert dense[0, 0] == pytest.approx(2.0) and dense[2, 1] == 2


def test_one_hot_expands_nominals_in_place_with_declared_values():
    train, test = parts(toy())
    pipe = Pipeline(["impute", "one_hot"]).fit(train)
    te = pipe.transform(test)
    assert te.feature_names == ["num", "nom=a", "nom=b", "nom=c", "empty", "flag=yes"]
    assert te.nominal == {}
    # test rows after imputation: nom = a, a, c (imputed); flag = yes, yes (imputed), no
    assert np.array_equal(te.X[:, 1:4], [[1, 0, 0], [1, 0, 0], [0, 0, 1]])
    assert np.array_equal(te.X[:, 5], [1, 1, 0])
    assert np.allclose(te.X[:, 0], [2.0, 20.0, 40.0])
    assert pipe.info()["n_features_encoded"] == 6
    # the same columns for every part, whatever values it holds (declared values fix them)
    assert pipe.train_.feature_names == te.feature_names


def test_one_hot_missing_value_is_all_zeros_and_csr():
    train, test = parts(toy())
    te = Pipeline(["one_hot"]).fit(train).transform(test)
    assert np.array_equal(te.X[2, 1:4], [0, 0, 0]) and te.X[1, 5] == 0
    test.X = sp.csr_matrix(np.nan_to_num(test.X, nan=0.0))
    te2 = Pipeline(["one_hot"]).fit(train).transform(test)
    assert sp.issparse(te2.X) and te2.X.shape == (3, 6)
    assert np.array_equal(te2.X.toarray()[:, 1:4], [[1, 0, 0], [1, 0, 0], [1, 0, 0]])


def test_standardize_after_impute_is_finite():
    train, test = parts(toy())
    te = Pipeline(["impute", "one_hot", "standardize"]).fit(train).transform(test)
    assert np.isfinite(te.X).all()


def test_bad_impute_parameters():
    with pytest.raises(ConfigError, match="numeric must be one of"):
        parse_step({"step": "impute", "numeric": "mode"})
    with pytest.raises(ConfigError, match="nominal must be one of"):
        parse_step({"step": "impute", "nominal": "mean"})
    with pytest.raises(ConfigError, match="unknown parameter"):
        parse_step({"step": "one_hot", "drop": True})
