import numpy as np
import pytest
import scipy.sparse as sp

from mlbench.data.dataset import Dataset
from mlbench.data.preprocess import Pipeline, apply_steps, parse_step, take_rows
from mlbench.errors import ConfigError


def toy():
    """6 training rows then 4 test rows; column 2 is nominal {0,1}, column 3 a numeric 0/1 column
    that is 'on' only in the test rows, label 2 is rare in training."""
    X = np.array([
        [1.0, 10.0, 0, 0],
        [2.0, 20.0, 1, 0],
        [3.0, 30.0, 0, 0],
        [4.0, 40.0, 0, 0],
        [5.0, 50.0, 1, 0],
        [6.0, 60.0, 0, 0],
        [100.0, 0.0, 1, 1],
        [200.0, 0.0, 0, 1],
        [300.0, 0.0, 1, 1],
        [400.0, 0.0, 0, 1],
    ])
    Y = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0],
                  [1, 0, 1], [0, 1, 1], [1, 1, 1], [0, 0, 1]], dtype=np.int8)
    return Dataset("toy", X, Y, ["a", "b", "nom", "bin"], ["y0", "y1", "rare"],
                   nominal={2: ["0", "1"]}, parts={"train": np.arange(6), "test": np.arange(6, 10)})


def split(ds):
    return take_rows(ds, np.arange(6)), take_rows(ds, np.arange(6, 10))


def test_standardize_uses_training_statistics_and_skips_nominal():
    train, test = split(toy())
    pipe = Pipeline(["standardize"]).fit(train)
    tr, te = pipe.train_, pipe.transform(test)
    assert np.allclose(tr.X[:, :2].mean(axis=0), 0) and np.allclose(tr.X[:, :2].std(axis=0), 1)
    mu, sd = train.X[:, 0].mean(), train.X[:, 0].std()
    assert np.allclose(te.X[:, 0], (test.X[:, 0] - mu) / sd)   # test scaled with train stats
    assert np.array_equal(te.X[:, 2], test.X[:, 2])            # nominal untouched
    assert np.allclose(te.X[:, 3], 1.0)                        # constant in train: centred only


def test_standardize_on_csr_scales_without_densifying():
    train, test = split(toy())
    train.X, test.X = sp.csr_matrix(train.X), sp.csr_matrix(test.X)
    pipe = Pipeline(["standardize"]).fit(train)
    te = pipe.transform(test)
    assert sp.issparse(te.X)
    assert np.allclose(te.X.toarray()[:, 0], test.X.toarray()[:, 0] / train.X.toarray()[:, 0].std())


def test_drop_rare_binary_features_fitted_on_train_only():
    train, test = split(toy())
    pipe = Pipeline([{"step": "drop_rare_binary_features", "min_fraction": 0.2}]).fit(train)
    te = pipe.transform(test)
    # 'bin' is never on in the training rows, so it goes even though every test row has it
    assert te.feature_names == ["a", "b", "nom"]
    assert te.nominal == {2: ["0", "1"]}
    assert pipe.info()["features_dropped"] == 1
    # a higher threshold also drops the nominal (on in 2 of 6 rows) but never numeric columns
    pipe = Pipeline([{"step": "drop_rare_binary_features", "min_fraction": 0.5}]).fit(train)
    assert pipe.train_.feature_names == ["a", "b"]


def test_min_feature_frequency_on_csr():
    train, test = split(toy())
    train.X = sp.csr_matrix(train.X)
    test.X = sp.csr_matrix(test.X)
    pipe = Pipeline([{"step": "min_feature_frequency", "min_fraction": 0.5}]).fit(train)
    te = pipe.transform(test)
    assert sp.isspmatrix_csr(te.X) or sp.issparse(te.X)
    assert te.feature_names == ["a", "b"]  # 'nom' nonzero in 2/6 rows, 'bin' in 0/6


def test_labels_dropped_on_train_are_dropped_on_test():
    train, test = split(toy())
    pipe = Pipeline([{"step": "drop_imbalanced_labels", "max_ratio": 50}]).fit(train)
    te = pipe.transform(test)
    assert te.label_names == ["y0", "y1"] and te.Y.shape == (4, 2)
    assert np.array_equal(te.Y, test.Y[:, :2])
    assert pipe.info()["labels_kept"] == [0, 1]
    # y0 and y1 have ratio 2 (4 vs 2): kept at max_ratio 2, dropped at 1.5
    assert Pipeline([{"step": "drop_imbalanced_labels", "max_ratio": 2}]).fit(train).labels_kept_.tolist() == [0, 1]
    assert Pipeline([{"step": "drop_imbalanced_labels", "max_ratio": 1.5}]).fit(train).labels_kept_.tolist() == []


def test_top_k_labels_keeps_most_frequent_in_original_order():
    train, _ = split(toy())
    pipe = Pipeline([{"step": "top_k_labels", "k": 1}]).fit(train)
    assert pipe.labels_kept_.tolist() == [0]  # y0 and y1 both 4 positives: the earlier wins
    assert Pipeline([{"step": "top_k_labels", "k": 2}]).fit(train).train_.label_names == ["y0", "y1"]


def test_label_selection_on_all_rows_reads_the_whole_datasets_labels():
    ds = toy()
    train, test = split(ds)
    # 'rare' has no positive training row (infinite ratio) but 4 of 10 overall (ratio 1.5)
    spec = [{"step": "drop_imbalanced_labels", "max_ratio": 2, "rows": "all"}]
    pipe = Pipeline(spec).fit(train, full=ds)
    assert pipe.labels_kept_.tolist() == [0, 1, 2]
    assert pipe.transform(test).label_names == ["y0", "y1", "rare"]
    assert pipe.train_.Y.shape == (6, 3)
    # the training part alone (the default rows, or rows: all without the whole dataset)
    assert Pipeline([{"step": "drop_imbalanced_labels", "max_ratio": 2}]).fit(
        train, full=ds).labels_kept_.tolist() == [0, 1]
    assert Pipeline(spec).fit(train).labels_kept_.tolist() == [0, 1]
    # a selection on all rows sees only the labels the earlier steps kept: the first drops 'rare'
    # on the training part, so the second (which would keep 'rare' on all rows) keeps y0 and y1
    pipe = Pipeline([{"step": "drop_imbalanced_labels", "max_ratio": 50},
                     {**spec[0], "max_ratio": 50}]).fit(train, full=ds)
    assert pipe.labels_kept_.tolist() == [0, 1]
    assert pipe.transform(test).label_names == ["y0", "y1"]
    with pytest.raises(ConfigError, match="rows must be training or all"):
        parse_step({"step": "top_k_labels", "k": 1, "rows": "test"})


def test_ltc_rows_have_unit_norm_and_idf_from_train():
    train, test = split(toy())
    pipe = Pipeline(["ltc"]).fit(train)
    te = pipe.transform(test)
    # rows 0 and 2 have a weighted term (the nominal), rows 1 and 3 none: unit norm or zero
    assert np.allclose(np.linalg.norm(te.X, axis=1), [1.0, 0.0, 1.0, 0.0])
    # 'bin' never occurs in training: weight 0; 'a' and 'b' occur everywhere: idf 0 as well
    assert np.allclose(te.X[:, 3], 0) and np.allclose(te.X[:, :2], 0)
    sparse = Pipeline(["ltc"]).fit(take_rows(train, np.arange(6)))
    train.X = sp.csr_matrix(train.X)
    assert np.allclose(Pipeline(["ltc"]).fit(train).train_.X.toarray(), sparse.train_.X)


def test_only_restricts_a_step_to_named_datasets():
    train, _ = split(toy())
    spec = [{"step": "top_k_labels", "k": 1, "only": ["other"]}]
    assert Pipeline(spec).fit(train).train_.n_labels == 3
    spec = [{"step": "top_k_labels", "k": 1, "only": ["toy"]}]
    assert Pipeline(spec).fit(train).train_.n_labels == 1


def test_apply_steps_fits_on_all_rows_and_keeps_parts():
    ds = toy()
    out = apply_steps(ds, ["standardize"])
    assert np.allclose(out.X[:, 0].mean(), 0)
    assert set(out.parts) == {"train", "test"}


def test_bad_steps_are_config_errors():
    with pytest.raises(ConfigError, match="did you mean 'standardize'"):
        parse_step("standardise")
    with pytest.raises(ConfigError, match="unknown parameter"):
        parse_step({"step": "top_k_labels", "kk": 3})
    with pytest.raises(ConfigError):
        parse_step(3)
    with pytest.raises(ConfigError):
        parse_step({"step": "ltc", "only": "emotions"})
