"""Issue 43, done-when: the two nested specs and the grid run by name from the CLI, a YAML protocol
and ``mlbench.run``; their macro-F1 / macro-AUC equal scikit-learn's on the saved predictions; a
user method in a protocol YAML runs and the YAML's control is the report's."""
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score, roc_auc_score

from mlbench.methods import registry
from mlbench.safety import file_part

MOC = ("sklearn.multioutput:MultiOutputClassifier("
       "estimator=sklearn.linear_model:LogisticRegression(C=0.5, max_iter=500))")
LP = "skmultilearn.problem_transform:LabelPowerset(classifier=sklearn.svm:SVC(probability=True))"
KNN = "sklearn.neighbors:KNeighborsClassifier(n_neighbors=[5, 15])"
LABELS = [MOC, LP, "sklearn.neighbors:KNeighborsClassifier(n_neighbors=5)",
          "sklearn.neighbors:KNeighborsClassifier(n_neighbors=15)"]

PROTOCOL = f"""\
name: lab
split: {{scheme: holdout, train_fraction: 0.7, repeats: 1, validation_fraction: 0.2}}
metrics: [macro_f1, macro_auc]
datasets: [emotions]
methods:
  - "{MOC}"
  - "{LP}"
  - "{KNN}"
  - {{name: "sklearn.neighbors:KNeighborsClassifier", id: knn-tuned, tune: {{n_neighbors: [5, 15, 25]}}}}
control: "sklearn.neighbors:KNeighborsClassifier(n_neighbors=15)"
"""


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    registry._USER.clear()


def check_against_sklearn(out, labels):
    """Every row of ``out`` is ok, and its macro-F1 / macro-AUC are scikit-learn's on its saved
    predictions (``f1_score(..., average="macro", zero_division=1)``: mlbench's convention)."""
    df = pd.read_csv(out)
    assert sorted(df.method) == sorted(labels) and (df.status == "ok").all(), df.error.tolist()
    for row in df.itertuples():
        (npz,) = (out.parent / f"{out.name}.predictions").glob(
            f"*__{row.dataset}__{file_part(row.method)}__{row.split}__s*.npz")
        with np.load(npz) as z:
            Y, P, S = z["Y_true"], z["predictions"], z["scores"]
        assert row.macro_f1 == pytest.approx(f1_score(Y, P, average="macro", zero_division=1),
                                             abs=1e-12)
        assert row.macro_auc == pytest.approx(roc_auc_score(Y, S, average="macro"), abs=1e-12)
    return df


def test_specs_and_a_grid_by_name_from_the_cli(workdir, cli):
    code, _, err = cli(["run", "-p", "quick", "-d", "emotions", "--repeats", "1", "-j", "1", "-q",
                        "-o", "r.csv", "--save-predictions", "-m", ",".join([MOC, LP, KNN])])
    assert code == 0, err
    df = check_against_sklearn(workdir / "r.csv", LABELS)
    params = json.loads(df.set_index("method").params[LP])
    assert params["classifier"].startswith("SVC(probability=True, random_state=")   # seeded
    code, _, err = cli(["run", "-p", "quick", "-d", "emotions", "--repeats", "1", "-j", "1", "-q",
                        "-o", "r.csv", "-m", ",".join([MOC, LP, KNN])])
    assert code == 0 and "0 cell(s) run, 4 already done" in err      # nested seeds resume


def test_specs_a_grid_and_tuning_from_a_protocol_file_whose_control_the_report_uses(workdir, cli):
    (workdir / "lab.yaml").write_text(PROTOCOL)
    code, _, err = cli(["run", "-p", "lab.yaml", "-j", "1", "-q", "-o", "lab.csv",
                        "--save-predictions"])
    assert code == 0 and "skipped method" not in err, err
    df = check_against_sklearn(workdir / "lab.csv", LABELS + ["knn-tuned"])
    tuned = json.loads(df.set_index("method").extra["knn-tuned"])
    assert tuned["n_neighbors"] in (5, 15, 25) and tuned["tuned_by"] == "macro_f1"
    assert len(tuned["validation_scores"]) == 3 and tuned["n_validation"] > 0
    assert tuned["protocol_file"] == "lab.yaml"        # beside the results: no machine's directory
    code, out, err = cli(["report", "lab.csv", "--format", "json"])
    assert code == 0, err
    report = json.loads(out)
    assert report["control"] == "sklearn.neighbors:KNeighborsClassifier(n_neighbors=15)"
    assert report["control_source"] == "the protocol's proposed method"


def test_specs_and_a_grid_through_mlbench_run(workdir):
    import mlbench

    (workdir / "lab.yaml").write_text(PROTOCOL)
    df = mlbench.run("lab.yaml", methods=[MOC, LP, KNN], out="api.csv", save_predictions=True)
    assert sorted(df.method) == sorted(LABELS)
    check_against_sklearn(workdir / "api.csv", LABELS)
    text = mlbench.build_report(df, metrics=["macro_f1"], fmt="markdown")
    assert "control: sklearn.neighbors:KNeighborsClassifier(n_neighbors=15) (the protocol's" in text
