"""HierCost protocol plumbing: the given valid part tunes rho, the refit uses train + valid, and
missing feature values are imputed before the methods see them."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from mlbench.data.dataset import Dataset
from mlbench.data.hierarchy import Hierarchy
from mlbench.errors import DataError
from mlbench.experiment.runner import run_experiment
from mlbench.methods import registry
from mlbench.protocols import parse_protocol

H = Hierarchy([("a", "a1"), ("a", "a2"), ("b", "b1"), ("b", "b2")]).with_labels(["a1", "a2", "b1"])


def blobs(n=150, seed=0):
    rng = np.random.default_rng(seed)
    lab = rng.integers(0, 3, n)
    X = np.array([[3, 0, 0], [0, 3, 0], [0, 0, 3]], dtype=float)[lab] + rng.normal(size=(n, 3))
    return X, np.eye(3, dtype=np.int8)[lab]


def toy(name):
    """150 rows: 80 train, 30 valid (only 'withvalid'), 40 test; 10% of X missing."""
    X, Y = blobs()
    X[np.random.default_rng(1).random(X.shape) < 0.1] = np.nan
    parts = ({"train": np.arange(80), "valid": np.arange(80, 110), "test": np.arange(110, 150)}
             if name == "withvalid" else {"train": np.arange(110), "test": np.arange(110, 150)})
    return Dataset(name, X, Y, ["f0", "f1", "f2"], ["a1", "a2", "b1"], parts=parts, hierarchy=H,
                   sha256=name)


def loader(name):
    if name not in ("withvalid", "novalid"):
        raise DataError(f"no dataset {name}")
    return toy(name)


def test_refit_uses_training_and_validation_rows():
    X, Y = blobs()
    tight = dict(tol=1e-10, max_iter=5000, random_state=0)
    est = registry.make("lr", rhos=[0.1, 1000.0], **tight)
    est.fit(X[:80], Y[:80], validation=(X[80:110], Y[80:110]), hierarchy=H)
    assert est.fit_info_["n_validation"] == 30
    # the same rho without tuning on the 110 rows gives the same model (up to the solver's tolerance;
    # the refit starts warm from the tuned model), while the 80 training rows alone give another
    ref = registry.make("lr", rhos=[est.rho_], **tight).fit(X[:110], Y[:110], hierarchy=H)
    only = registry.make("lr", rhos=[est.rho_], **tight).fit(X[:80], Y[:80], hierarchy=H)
    assert ref.fit_info_["n_validation"] == 0
    M, R, O = (e.decision_function(X[110:]) for e in (est, ref, only))
    assert np.abs(M - R).max() < 0.01 < 0.1 < np.abs(M - O).max()


def test_protocol_tunes_on_the_given_valid_part_else_a_random_fraction(tmp_path):
    protocol = parse_protocol({
        "name": "hc", "paper": "hiercost",
        "split": {"scheme": "given", "repeats": 1, "validation_fraction": 0.2},
        "preprocess": ["impute", "one_hot", "standardize", "terminal_labels"],
        "metrics": ["micro_f1", "macro_f1", "h_f1", "tree_error"],
        "datasets": ["withvalid", "novalid"],
        "methods": [{"name": "lr", "params": {"rhos": [0.1, 10.0], "max_iter": 200}}]})
    out = tmp_path / "r.csv"
    rep = run_experiment(protocol, out=out, loader=loader)
    assert rep.statuses == {"ok": 2}
    df = pd.read_csv(out).set_index("dataset")
    extra = {d: json.loads(df.loc[d, "extra"]) for d in df.index}
    assert extra["withvalid"]["n_validation"] == 30       # the dataset's own valid rows
    assert extra["novalid"]["n_validation"] == 22         # 20% of its 110 training rows
    assert (df.n_train == 110).all() and (df.n_test == 40).all()
    assert (df.micro_f1 > 0.7).all()
