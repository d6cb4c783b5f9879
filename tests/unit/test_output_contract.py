"""Issue 41, item 2: one output contract, enforced in the runner for built-in and user methods.

Every case goes through the real runner (``mlbench.api.run_grid``) on the embedded emotions with
one 50/50 split and no preprocessing, so the test can refit the same method on the same rows and
compare the row's measures with scikit-learn's own metrics on the method's raw output.
"""
import json
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn import metrics as skm

import mlbench
from mlbench.api import run_grid
from mlbench.experiment.outputs import (OutputContractError, degenerate, normalise_predictions,
                                        normalise_scores)
from mlbench.testing import check_method

METHODS = '''
import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import MultiOutputClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def logistic():
    return make_pipeline(StandardScaler(), LogisticRegression())


class Base:
    """One logistic regression per label (lbfgs on standardized X: fast and deterministic)."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, Y):
        Y = np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y)
        self.model_ = MultiOutputClassifier(logistic()).fit(X, Y)
        return self

    def proba(self, X):
        return np.column_stack([p[:, 1] for p in self.model_.predict_proba(X)])

    def margins(self, X):
        return np.column_stack([e.decision_function(X) for e in self.model_.estimators_])

    def predict(self, X):
        return (self.proba(X) > 0.5).astype(int)


# --- broken outputs: each must fail its cell with the reason --------------------------------
class FloatPredict(Base):
    def predict(self, X):
        return self.proba(X)


class NaNScores(Base):
    def decision_function(self, X):
        s = self.margins(X)
        s[3, 2] = np.nan
        return s


class InfScores(Base):
    def decision_function(self, X):
        s = self.margins(X)
        s[0, 0] = np.inf
        return s


class ProbaAboveOne(Base):
    def predict_proba(self, X):
        return self.margins(X)            # margins declared as probabilities


class WrongShape(Base):
    def predict(self, X):
        return Base.predict(self, X)[:, :3]


class StringPredict(Base):
    def predict(self, X):
        return Base.predict(self, X).astype(str)


class NaNJoint(Base):
    """NaN log-probabilities: the measure that needs them refuses them."""

    def predict_proba(self, X):
        return self.proba(X)

    def joint_log_proba(self, X, Y):
        return np.full(X.shape[0], np.nan)


# --- other libraries' conventions: understood, scored like scikit-learn scores them -------
class SparseOutputs(Base):
    """scikit-multilearn: sparse predict and predict_proba."""

    def predict(self, X):
        return sp.csc_matrix(Base.predict(self, X))

    def predict_proba(self, X):
        return sp.lil_matrix(self.proba(X))


class ListOfPairs(Base):
    """scikit-learn's MultiOutputClassifier: a list of (n, 2) arrays, classes_ per label."""

    def predict_proba(self, X):
        return self.model_.predict_proba(X)

    @property
    def classes_(self):
        return self.model_.classes_


class DecisionOnly(Base):
    def decision_function(self, X):
        return self.margins(X)


# --- outputs that keep the contract but ignore the input: recorded and reported --------------
class Silent(Base):
    """What a search stopped at its grid's corner gave (rakel2 at C = 2^-5): no label, one score."""

    def predict(self, X):
        return np.zeros((X.shape[0], len(self.model_.estimators_)), dtype=int)

    def decision_function(self, X):
        return np.zeros(self.predict(X).shape)


class OneLabelPairs(Base):
    """One label: scikit-learn's binary (n, 2) predict_proba and (n,) predict."""

    def fit(self, X, Y):
        self.model_ = logistic().fit(X, np.asarray(Y).ravel())
        return self

    def predict(self, X):
        return self.model_.predict(X)

    def predict_proba(self, X):
        return self.model_.predict_proba(X)
'''

PROTOCOL = """name: contract
split: {scheme: holdout, train_fraction: 0.5, repeats: 1}
seed: 0
metrics: [hamming_loss, micro_f1, macro_f1, macro_auc, micro_auc, ranking_loss, average_precision,
          coverage, cll_loss]
datasets: [emotions]
"""


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.delitem(sys.modules, "contract_methods", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "contract_methods.py").write_text(METHODS)
    (tmp_path / "contract.yaml").write_text(PROTOCOL)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _run(work, methods, dataset="emotions"):
    out = work / "out.csv"
    run_grid(str(work / "contract.yaml"), datasets=[dataset], methods=methods, out=out,
             save_predictions=True)
    df = pd.read_csv(out)
    return df.set_index("method")


@pytest.mark.slow
def test_broken_outputs_fail_their_cell_with_the_reason(work):
    cases = {
        "FloatPredict": "predict gave 0.",                       # a probability where 0/1 belong
        "NaNScores": "decision_function gave nan at row 3, label 2: scores must be finite",
        "InfScores": "decision_function gave inf at row 0, label 0: scores must be finite",
        "ProbaAboveOne": "probabilities must lie in [0, 1]",
        "WrongShape": "predict has shape (",
        "StringPredict": "predict has dtype <U",
        "NaNJoint": "measure cll_loss failed on its output",
    }
    df = _run(work, [f"contract_methods.py:{c}" for c in cases] + ["br-lr"])
    for cls, reason in cases.items():
        row = df.loc[f"contract_methods.py:{cls}"]
        assert row.status == "error", cls
        assert f"contract_methods.py:{cls}: " in row.error and reason in row.error, row.error
        assert "\n" not in row.error
    assert df.loc["br-lr"].status == "ok"


def _refit(work, cls, dataset):
    """The method refitted on the cell's training rows, the test rows' X, and the saved arrays."""
    import contract_methods

    (saved,) = (work / "out.csv.predictions").glob(f"*{cls}*.npz")
    arrays = np.load(saved)
    data = mlbench.load_dataset(dataset)
    test = arrays["test_rows"]
    train = np.setdiff1d(np.arange(data.n_instances), test)
    X = data.X.toarray() if sp.issparse(data.X) else np.asarray(data.X)
    Y = data.Y.toarray() if sp.issparse(data.Y) else np.asarray(data.Y)
    est = getattr(contract_methods, cls)().fit(X[train], Y[train])
    np.testing.assert_array_equal(arrays["Y_true"], Y[test])
    return est, X[test], arrays


def _dense(a):
    return a.toarray() if sp.issparse(a) else np.asarray(a)


@pytest.mark.slow
def test_other_libraries_conventions_score_as_scikit_learn_scores_them(work):
    df = _run(work, ["contract_methods.py:SparseOutputs", "contract_methods.py:ListOfPairs",
                     "contract_methods.py:DecisionOnly"])
    for cls in ("SparseOutputs", "ListOfPairs", "DecisionOnly"):
        row = df.loc[f"contract_methods.py:{cls}"]
        assert row.status == "ok", row.error
        est, X, arrays = _refit(work, cls, "emotions")
        Y, P = arrays["Y_true"], _dense(est.predict(X))
        if cls == "ListOfPairs":
            S = np.column_stack([p[:, list(c).index(1)] for p, c in
                                 zip(est.predict_proba(X), est.classes_)])
        elif cls == "SparseOutputs":
            S = _dense(est.predict_proba(X))
        else:
            S = est.decision_function(X)
        np.testing.assert_array_equal(arrays["predictions"], P)
        np.testing.assert_array_equal(arrays["scores"], S)
        # emotions' test part: every instance has a relevant and an irrelevant label, every
        # label both classes, so scikit-learn's conventions and mlbench's coincide
        assert (Y.any(1) & ~Y.all(1)).all() and (Y.any(0) & ~Y.all(0)).all()
        expected = {
            "hamming_loss": skm.hamming_loss(Y, P),
            "micro_f1": skm.f1_score(Y, P, average="micro"),
            "macro_f1": skm.f1_score(Y, P, average="macro"),
            "macro_auc": skm.roc_auc_score(Y, S, average="macro"),
            "micro_auc": skm.roc_auc_score(Y, S, average="micro"),
            "ranking_loss": skm.label_ranking_loss(Y, S),
            "average_precision": skm.label_ranking_average_precision_score(Y, S),
            "coverage": skm.coverage_error(Y, S) - 1,      # scikit-learn counts the rank itself
        }
        for measure, value in expected.items():
            assert row[measure] == pytest.approx(value, abs=1e-12), (cls, measure)
        assert "the method gives no joint" in row.extra


def test_one_label_binary_pairs_and_undefined_ranking_measures(work):
    data = mlbench.load_dataset("emotions")
    X = data.X.toarray() if sp.issparse(data.X) else np.asarray(data.X)
    Y = data.Y.toarray() if sp.issparse(data.Y) else np.asarray(data.Y)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["y"] = Y[:, 0].astype(int)
    frame.to_csv(work / "one.csv", index=False)
    df = _run(work, ["contract_methods.py:OneLabelPairs"], dataset="./one.csv@1")
    row = df.loc["contract_methods.py:OneLabelPairs"]
    assert row.status == "ok", row.error
    est, Xt, arrays = _refit_one(work, frame)
    Yt = arrays["Y_true"][:, 0]
    assert row.macro_f1 == pytest.approx(skm.f1_score(Yt, est.predict(Xt)), abs=1e-12)
    assert row.macro_auc == pytest.approx(skm.roc_auc_score(Yt, est.predict_proba(Xt)[:, 1]),
                                          abs=1e-12)
    # with one label no instance can rank a relevant above an irrelevant one: documented NaN
    undefined = json.loads(row.extra)["undefined"]
    assert np.isnan(row.ranking_loss) and "no test instance has both" in undefined["ranking_loss"]


def _refit_one(work, frame):
    import contract_methods

    (saved,) = (work / "out.csv.predictions").glob("*OneLabelPairs*.npz")
    arrays = np.load(saved)
    test = arrays["test_rows"]
    train = np.setdiff1d(np.arange(len(frame)), test)
    X, y = frame.drop(columns="y").to_numpy(), frame["y"].to_numpy()
    np.testing.assert_array_equal(arrays["Y_true"][:, 0], y[test])
    return contract_methods.OneLabelPairs().fit(X[train], y[train]), X[test], arrays


@pytest.mark.slow
def test_scikit_multilearn_binary_relevance_runs_and_scores_like_scikit_learn(work):
    skml = pytest.importorskip("skmultilearn.problem_transform",
                               reason="scikit-multilearn is not installed")
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    (work / "skml_methods.py").write_text(
        "from skmultilearn.problem_transform import BinaryRelevance\n"
        "from sklearn.linear_model import LogisticRegression\n"
        "from sklearn.pipeline import make_pipeline\n"
        "from sklearn.preprocessing import StandardScaler\n\n\n"
        "class BR(BinaryRelevance):\n"
        "    def __init__(self, classifier=make_pipeline(StandardScaler(), LogisticRegression()),\n"
        "                 require_dense=(True, True)):\n"
        "        super().__init__(classifier=classifier, require_dense=list(require_dense))\n")
    sys.modules.pop("skml_methods", None)
    df = _run(work, ["skml_methods.py:BR"])
    row = df.loc["skml_methods.py:BR"]
    assert row.status == "ok", row.error
    (saved,) = (work / "out.csv.predictions").glob("*BR*.npz")
    arrays = np.load(saved)
    data = mlbench.load_dataset("emotions")
    X, Y = _dense(data.X), _dense(data.Y)
    test = arrays["test_rows"]
    train = np.setdiff1d(np.arange(data.n_instances), test)
    br = skml.BinaryRelevance(make_pipeline(StandardScaler(), LogisticRegression()),
                              require_dense=[True, True])
    br.fit(X[train], Y[train])
    P, S = br.predict(X[test]), br.predict_proba(X[test])
    assert sp.issparse(P) and sp.issparse(S)        # the convention under test
    Yt = Y[test]
    assert row.macro_f1 == pytest.approx(skm.f1_score(Yt, P.toarray(), average="macro"), abs=1e-12)
    assert row.macro_auc == pytest.approx(skm.roc_auc_score(Yt, S.toarray(), average="macro"),
                                          abs=1e-12)


# --- the shared implementation, directly --------------------------------------------------
def test_normalise_predictions_accepts_01_bool_sparse_and_refuses_the_rest():
    P = np.array([[0, 1], [1, 0], [1, 1]])
    for form in (P, P.astype(bool), P.astype(float), sp.csr_matrix(P)):
        np.testing.assert_array_equal(normalise_predictions(form, 3, 2, "m"), P)
    np.testing.assert_array_equal(normalise_predictions(np.array([0, 1, 1]), 3, 1, "m"),
                                  [[0], [1], [1]])
    with pytest.raises(OutputContractError, match=r"m: predict gave 0\.5 at row 1, label 0"):
        normalise_predictions(np.array([[0, 1], [0.5, 0], [1, 1]]), 3, 2, "m")
    with pytest.raises(OutputContractError, match=r"m: predict gave nan"):
        normalise_predictions(np.array([[0, 1], [np.nan, 0], [1, 1]]), 3, 2, "m")
    with pytest.raises(OutputContractError, match=r"shape \(2, 3\), expected \(3, 2\)"):
        normalise_predictions(P.T, 3, 2, "m")          # transposed: not silently reshaped
    with pytest.raises(OutputContractError, match="shape"):
        normalise_predictions(np.array([0, 1, 1]), 3, 2, "m")


def test_normalise_scores_conventions_and_violations():
    S = np.array([[0.1, 0.9], [0.8, 0.3], [0.5, 0.5]])
    pairs = [np.column_stack([1 - S[:, j], S[:, j]]) for j in range(2)]
    np.testing.assert_array_equal(normalise_scores(pairs, 3, 2, "m", True), S)
    # classes_ order decides the column (here class 1 comes first)
    flipped = [p[:, ::-1] for p in pairs]
    np.testing.assert_array_equal(
        normalise_scores(flipped, 3, 2, "m", True, classes=[np.array([1, 0])] * 2), S)
    # a label seen with one class in training: (n, 1) read through classes_
    one = [pairs[0], np.ones((3, 1))]
    np.testing.assert_array_equal(
        normalise_scores(one, 3, 2, "m", True, classes=[np.array([0, 1]), np.array([0])])[:, 1],
        np.zeros(3))
    with pytest.raises(OutputContractError, match="classes_ do not say"):
        normalise_scores(one, 3, 2, "m", True)
    np.testing.assert_array_equal(normalise_scores(sp.lil_matrix(S), 3, 2, "m", True), S)
    np.testing.assert_array_equal(normalise_scores(pairs[1], 3, 1, "m", True), S[:, [1]])
    np.testing.assert_array_equal(normalise_scores(S[:, 0], 3, 1, "m", False), S[:, [0]])
    margins = S * 10 - 5
    np.testing.assert_array_equal(normalise_scores(margins, 3, 2, "m", False), margins)
    with pytest.raises(OutputContractError,
                       match=r"m: predict_proba gave -4\.0 at row 0, label 0: probabilities must lie in \[0, 1\]"):
        normalise_scores(margins, 3, 2, "m", True)
    with pytest.raises(OutputContractError, match="list of 1 arrays for 2 labels"):
        normalise_scores(pairs[:1], 3, 2, "m", True)
    with pytest.raises(OutputContractError, match="must be finite"):
        normalise_scores(np.where(S > 0.85, -np.inf, S), 3, 2, "m", False)


def test_check_method_shares_the_runners_checks():
    from sklearn.linear_model import LogisticRegression
    from sklearn.multioutput import MultiOutputClassifier

    assert check_method(MultiOutputClassifier(LogisticRegression()))["scores"] == "predict_proba"

    class Probabilities(MultiOutputClassifier):
        def predict(self, X):
            return np.column_stack([p[:, 1] for p in self.predict_proba(X)])

    with pytest.raises(AssertionError, match=r"Probabilities: predict gave 0\."):
        check_method(Probabilities(LogisticRegression()))


def test_a_nan_measure_fails_the_cell_unless_its_definition_explains_it():
    from mlbench.experiment.cell import _measure
    from mlbench.metrics import get_measure
    from mlbench.metrics.base import Measure

    class Spec:
        method = "my.py:M"

    nan = Measure("odd", lambda Y, P: float("nan"), True, "predictions", "example")
    with pytest.raises(OutputContractError, match="my.py:M: measure odd is NaN on its output"):
        _measure(Spec, nan, np.eye(3, dtype=np.int8), np.eye(3, dtype=np.int8), {}, {})
    # macro-AUC on a test part where no label has both classes: NaN, explained, kept
    undefined = {}
    Y = np.ones((4, 2), dtype=np.int8)
    value = _measure(Spec, get_measure("macro_auc"), Y, np.random.default_rng(0).random((4, 2)),
                     {}, undefined)
    assert np.isnan(value) and "no label has both" in undefined["macro_auc"]


def test_degenerate_outputs_are_named_in_order():
    rng = np.random.default_rng(0)
    learnt = (rng.random((6, 4)) > 0.5).astype(int)
    learnt[0] = [1, 0, 0, 0]
    assert degenerate(learnt, rng.random((6, 4))) is None
    assert degenerate(np.zeros((6, 4)), rng.random((6, 4))) == "no label predicted for any test row"
    assert degenerate(np.ones((6, 4))) == "every label predicted for every test row"
    assert degenerate(np.tile([1, 0, 1, 0], (6, 1))) == \
        "the same label set predicted for every test row"
    assert degenerate(learnt, np.full((6, 4), 0.3)) == "the same score for every test row and label"
    # one test row has nothing to compare
    assert degenerate(np.array([[0, 0]]), np.array([[0.4, 0.4]])) is None
    assert degenerate(np.zeros((0, 3))) is None


def test_a_degenerate_cell_is_recorded_and_reported(work):
    from mlbench.report.prepare import degenerate_notes, prepare

    df = _run(work, ["contract_methods.py:Silent", "contract_methods.py:DecisionOnly"])
    silent, fine = (json.loads(df.loc[f"contract_methods.py:{m}"].extra)
                    for m in ("Silent", "DecisionOnly"))
    assert silent["degenerate"] == "no label predicted for any test row"
    assert "degenerate" not in fine
    frame = pd.read_csv(work / "out.csv")
    assert degenerate_notes(frame) == [
        "contract_methods.py:Silent: no label predicted for any test row on emotions (1 of 1 "
        "splits): its outputs there do not depend on the features"]
    notes = prepare(str(work / "out.csv"), metrics=["hamming_loss"]).analysis.notes
    assert degenerate_notes(frame)[0] in notes
    # a hostile extra column is skipped, not a traceback
    frame.loc[0, "extra"] = "[" * 100_000
    assert degenerate_notes(frame) == []

