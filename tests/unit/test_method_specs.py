"""Issue 43: the method spec grammar (nested specs, grids), parsed without evaluating anything;
protocol entries with grids and tuning; the protocol file a row records for the report."""
import json
import sys

import numpy as np
import pandas as pd
import pytest

from mlbench.errors import ConfigError
from mlbench.methods import registry
from mlbench.methods._spec import (MAX_VARIANTS, Grid, Spec, canonical_spec, expand_names,
                                   parse_spec)

MOC = ("sklearn.multioutput:MultiOutputClassifier("
       "estimator=sklearn.linear_model:LogisticRegression(C=0.5, max_iter=500))")
LP = "skmultilearn.problem_transform:LabelPowerset(classifier=sklearn.svm:SVC(probability=True))"
KNN = "sklearn.neighbors:KNeighborsClassifier(n_neighbors=[5, 15])"


def test_nested_specs_parse_into_a_tree():
    assert parse_spec(MOC) == Spec("sklearn.multioutput:MultiOutputClassifier", (
        ("estimator", Spec("sklearn.linear_model:LogisticRegression", (("C", 0.5), ("max_iter", 500)))),))
    assert parse_spec(LP).params[0][1] == Spec("sklearn.svm:SVC", (("probability", True),))
    spec = parse_spec("dir/my-methods.py:M(a=-1e-3, b=(1, [2, 3]), c={'k': 'x:y(z)'}, d=None, "
                      "e=pkg.mod:Inner)")
    assert dict(spec.params) == {"a": -1e-3, "b": (1, [2, 3]), "c": {"k": "x:y(z)"}, "d": None,
                                 "e": Spec("pkg.mod:Inner")}
    assert spec.target == "dir/my-methods.py:M"
    assert parse_spec("br-lr(base=sklearn.svm:LinearSVC(C=0.5))").is_registered


def test_canonical_text_sorts_parameters_and_is_stable():
    a = canonical_spec("m:C(b=sklearn.svm:SVC(probability=True, C=2), a='x')")
    assert a == "m:C(a='x', b=sklearn.svm:SVC(C=2, probability=True))"
    assert canonical_spec(a) == a and canonical_spec("m:C( a = 'x' , b=sklearn.svm:SVC(C=2,"
                                                     "probability=True))") == a
    assert canonical_spec("m:C(t=(1,), l=[[1, 2]])") == "m:C(l=[[1, 2]], t=(1,))"


def test_a_list_is_a_grid_a_tuple_a_literal():
    assert expand_names(KNN) == [
        ("sklearn.neighbors:KNeighborsClassifier(n_neighbors=5)",) * 2,
        ("sklearn.neighbors:KNeighborsClassifier(n_neighbors=15)",) * 2]
    assert parse_spec("m:C(h=(64, 32))").params == (("h", (64, 32)),)
    assert parse_spec("m:C(h=[[64, 32]])").params == (("h", Grid(([64, 32],))),)
    names = [n for n, _ in expand_names("m:C(a=[1, 2], e=m:D(c=[0.1, 1.0]))")]
    assert names == ["m:C(a=1, e=m:D(c=0.1))", "m:C(a=1, e=m:D(c=1.0))",
                     "m:C(a=2, e=m:D(c=0.1))", "m:C(a=2, e=m:D(c=1.0))"]
    assert [lab for _, lab in expand_names("m:C(e=m:D(c=[0.1, 1.0]))", "mine")] == [
        "mine(e__c=0.1)", "mine(e__c=1.0)"]
    assert expand_names("m:C(a=1)") == [("m:C(a=1)", "m:C(a=1)")]      # as typed: no grid


@pytest.mark.parametrize("text, message", [
    ("m:C(a=__import__('os'))", "not a MODULE:CLASS spec ('__import__')"),
    ("m:C(a=os.system)", "not a literal or a spec ('os.system')"),
    ("m:C(a=open('/etc/passwd'))", "not a MODULE:CLASS spec ('open')"),
    ("m:C().fit", "not a method spec"),
    ("m:C(a=(lambda: 1))", "not a literal or a spec"),
    ("m:C(a=1 + 2)", "not a literal or a spec ('1 + 2')"),
    ("m:C(a=f'{x}')", "not a literal or a spec"),
    ("m:C(a=b'x')", "not a literal"),
    ("m:C(1)", "a positional argument"),
    ("m:C(**kw)", "NAME=VALUE"),
    ("m:C(a=1, a=2)", "parameter a given twice"),
    ("m:C(a=[])", "an empty grid"),
    ("m:C(a='x)", "a string opened at position 7 is not closed"),
    ("m:C(a=" + "(" * 13 + ")" * 13 + ")", "nested more than 12 levels deep"),
    ("m:C(a='" + "x" * 5000 + "')", "longer than 4000 characters"),
    ("m:C(a=br-lr)", "not a literal or a spec"),
    ("m:C(a=1", "cannot read it"),
    ("m:C(a=[" + ", ".join(map(str, range(MAX_VARIANTS + 1))) + "])", "more than 100 variants"),
])
def test_anything_but_the_grammar_is_one_line_naming_the_spec(text, message):
    with pytest.raises(ConfigError) as err:
        expand_names(text)
    assert message in str(err.value) and "\n" not in str(err.value)
    assert str(err.value).startswith(f"method {text[:60]!r}"[:-1])


def test_parsing_imports_nothing():
    before = set(sys.modules)
    parse_spec("no_such_module_xyz:Clf(inner=other_missing_mod:Thing(k=1))")
    assert set(sys.modules) - before == set()


def test_nested_estimators_are_fresh_and_seeded_from_the_cell_seed():
    spec = registry.get(MOC)
    assert spec.family == "user" and "estimator" in spec.nested
    a, b, c = spec.make(random_state=1), spec.make(random_state=1), spec.make(random_state=2)
    assert a.estimator is not b.estimator
    assert a.estimator.random_state == b.estimator.random_state != c.estimator.random_state
    assert a.estimator.get_params()["C"] == 0.5 and a.estimator.max_iter == 500
    fixed = registry.get("sklearn.multioutput:MultiOutputClassifier(estimator="
                         "sklearn.linear_model:LogisticRegression(random_state=7))")
    assert fixed.make(random_state=1).estimator.random_state == 7


def test_a_builtin_takes_a_base_learner_spec():
    from sklearn.svm import LinearSVC

    est = registry.make("br-lr(base=sklearn.svm:LinearSVC(C=0.5))", random_state=3)
    assert type(est).__name__ == "BinaryRelevance" and isinstance(est.base, LinearSVC)
    assert est.base.C == 0.5 and registry.get("br-lr(base=sklearn.svm:LinearSVC)").family == \
        "transformation"
    with pytest.raises(ConfigError, match="br-lr has no parameter 'bogus'"):
        registry.get("br-lr(bogus=1)")
    with pytest.raises(ConfigError, match=r"not a MODULE:CLASS spec \('mlknn'\)"):
        registry.get("m:C(a=mlknn(k=1))")         # nested: classes only, by MODULE:CLASS


def test_a_grid_is_not_one_method():
    with pytest.raises(ConfigError, match="is a grid of 2 methods"):
        registry.get(KNN)
    est = registry.make("sklearn.neural_network:MLPClassifier(hidden_layer_sizes=[[8, 4]])")
    assert est.hidden_layer_sizes == [8, 4]       # a one-value grid is its value, a literal list


def test_protocol_entries_grid_tune_and_literal_params():
    from mlbench.protocols import method_entries

    entries = method_entries({"name": "sklearn.neighbors:KNeighborsClassifier", "id": "knn",
                              "grid": {"n_neighbors": [5, 15]}, "params": {"p": 1}}, "f.yaml")
    assert [(e.label, e.name, e.params) for e in entries] == [
        ("knn(n_neighbors=5)", "sklearn.neighbors:KNeighborsClassifier(n_neighbors=5, p=1)", {}),
        ("knn(n_neighbors=15)", "sklearn.neighbors:KNeighborsClassifier(n_neighbors=15, p=1)", {})]
    (tuned,) = method_entries({"name": "sklearn.neighbors:KNeighborsClassifier",
                               "tune": {"n_neighbors": [5, 15]}}, "f.yaml", ("hamming_loss",))
    assert tuned.label == "sklearn.neighbors:KNeighborsClassifier"
    assert tuned.name == ("mlbench.methods.tuning:Tuned(estimator=sklearn.neighbors:"
                          "KNeighborsClassifier, grid={'n_neighbors': (5, 15)}, "
                          "metric='hamming_loss')")
    (plain,) = method_entries({"name": "hrlr", "params": {"cs": [0.1, 1.0]}}, "f.yaml")
    assert plain.params == {"cs": [0.1, 1.0]} and plain.name == "hrlr"    # params stay literal
    for item, message in [({"name": "br-lr", "tune": {"k": [1, 2]}}, "a registered method tunes"),
                          ({"name": "m:C", "grid": {"k": 3}}, "non-empty list"),
                          ({"name": "m:C", "tune_by": "macro_f1"}, "with tune"),
                          ("m:C(a=os.system)", "f.yaml: method 'm:C(a=os.system)'")]:
        with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
            method_entries(item, "f.yaml")


def _toy(n=120, L=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    Y = (X[:, :L] + 0.8 * rng.normal(size=(n, L)) > 0).astype(int)
    return X, Y


@pytest.mark.parametrize("metric", ["macro_f1", "hamming_loss", "macro_auc"])
def test_tuned_chooses_the_best_point_on_the_validation_part(metric):
    from sklearn.neighbors import KNeighborsClassifier

    from mlbench.metrics import get_measure
    from mlbench.methods.tuning import Tuned

    X, Y = _toy()
    Xv, Yv = _toy(60, seed=1)
    grid = {"n_neighbors": [1, 7, 25]}
    est = Tuned(KNeighborsClassifier(), grid, metric=metric).fit(X, Y, validation=(Xv, Yv))
    m = get_measure(metric)
    scores = []
    for k in grid["n_neighbors"]:
        fit = KNeighborsClassifier(n_neighbors=k).fit(X, Y)
        out = (np.column_stack([p[:, 1] for p in fit.predict_proba(Xv)]) if m.needs == "scores"
               else fit.predict(Xv))
        scores.append(m(Yv, out))
    best = (np.argmax if m.greater_is_better else np.argmin)(scores)
    assert est.fit_info_["n_neighbors"] == grid["n_neighbors"][best]
    assert est.fit_info_["validation_scores"] == [round(s, 6) for s in scores]
    assert est.fit_info_["tuned_by"] == metric and est.fit_info_["n_validation"] == 60
    refit = KNeighborsClassifier(n_neighbors=grid["n_neighbors"][best]).fit(np.vstack([X, Xv]),
                                                                           np.vstack([Y, Yv]))
    np.testing.assert_array_equal(est.predict(Xv), refit.predict(Xv))


def test_tuned_draws_its_own_validation_part_with_its_seed():
    from sklearn.neighbors import KNeighborsClassifier

    from mlbench.methods.tuning import Tuned

    X, Y = _toy()
    a = Tuned(KNeighborsClassifier(), {"n_neighbors": [1, 9]}, random_state=4).fit(X, Y)
    b = Tuned(KNeighborsClassifier(), {"n_neighbors": [1, 9]}, random_state=4).fit(X, Y)
    assert a.fit_info_ == b.fit_info_ and a.fit_info_["n_validation"] == 24
    with pytest.raises(ConfigError, match="no parameter 'bogus'"):
        Tuned(KNeighborsClassifier(), {"bogus": [1]}).fit(X, Y)
    with pytest.raises(ConfigError, match="needs joint"):
        Tuned(KNeighborsClassifier(), {"n_neighbors": [1]}, metric="cll_loss").fit(X, Y)


def test_a_protocols_user_methods_are_run_not_dropped():
    from mlbench.experiment.runner import resolve_methods
    from mlbench.protocols import parse_protocol

    proto = parse_protocol({"name": "lab", "split": {"scheme": "holdout"}, "metrics": ["macro_f1"],
                            "methods": [KNN, "br-lr", "not-yet-a-method",
                                        {"name": "sklearn.neighbors:KNeighborsClassifier",
                                         "id": "knn-t", "tune": {"n_neighbors": [3, 5]}}],
                            "control": "sklearn.neighbors:KNeighborsClassifier(n_neighbors=15)"})
    entries, missing = resolve_methods(proto)
    assert [e.label for e in entries] == [
        "sklearn.neighbors:KNeighborsClassifier(n_neighbors=5)",
        "sklearn.neighbors:KNeighborsClassifier(n_neighbors=15)", "br-lr", "knn-t"]
    assert missing == ["not-yet-a-method"]
    entries, _ = resolve_methods(proto, [KNN, {"name": "sklearn.svm:SVC", "id": "svc"}, "knn-t"])
    assert [e.label for e in entries][2:] == ["svc", "knn-t"]


def test_the_report_reads_the_protocol_file_its_rows_recorded(tmp_path):
    from mlbench.report.prepare import protocol_defaults, protocol_source

    path = tmp_path / "lab.yaml"
    path.write_text("name: lab\nsplit: {scheme: holdout}\nmetrics: [macro_auc, macro_f1]\n"
                    "methods: [br-lr, cc]\ncontrol: cc\nstyle: mldf\n")
    frame = pd.DataFrame({"protocol": ["lab", "lab"],
                          "extra": ["{}", json.dumps({"protocol_file": str(path)})]})
    assert protocol_source("lab", frame) == str(path)
    assert protocol_defaults("lab", frame) == {"metrics": ["macro_auc", "macro_f1"],
                                               "control": "cc", "stats": [], "style": "mldf",
                                               "variants": {}}
    assert protocol_source("other", frame) == "other"          # another protocol's rows
    path.unlink()
    assert protocol_source("lab", frame) == "lab" and protocol_defaults("lab", frame) == {}


def test_a_protocol_file_in_the_results_checkout_is_recorded_relative_and_found_again(
        tmp_path, monkeypatch):
    """A row names no machine's directory: a protocol file inside the checkout of the results file
    is recorded relative to the checkout's root, and the report reads it against the checkout of
    the row's results file (``__file``) from any current directory; one outside by its path."""
    from mlbench.protocols import load_protocol, protocol_file
    from mlbench.report.prepare import protocol_source

    repo = tmp_path / "checkout"
    (repo / ".git").mkdir(parents=True)
    (repo / "results" / "papers").mkdir(parents=True)
    text = "name: lab\nsplit: {scheme: holdout}\nmetrics: [macro_f1]\nmethods: [br-lr]\n"
    (repo / "results" / "papers" / "lab.yaml").write_text(text)
    (tmp_path / "elsewhere.yaml").write_text(text)
    results = repo / "results" / "papers" / "lab.csv"
    inside = load_protocol(str(repo / "results" / "papers" / "lab.yaml"))
    outside = load_protocol(str(tmp_path / "elsewhere.yaml"))
    assert protocol_file(inside, results) == "results/papers/lab.yaml"
    assert protocol_file(outside, results) == str(tmp_path / "elsewhere.yaml")
    assert protocol_file(inside) == str(repo / "results" / "papers" / "lab.yaml")
    assert protocol_file(load_protocol("quick"), results) == ""           # shipped: by name
    # without a checkout, the results file's own directory is the root
    assert protocol_file(outside, tmp_path / "r.csv") == "elsewhere.yaml"

    recorded = json.dumps({"protocol_file": "results/papers/lab.yaml"})
    frame = pd.DataFrame({"protocol": ["lab"], "extra": [recorded], "__file": [str(results)]})
    monkeypatch.chdir(tmp_path)        # not the checkout: the path is read against the results'
    assert protocol_source("lab", frame) == str(repo / "results" / "papers" / "lab.yaml")
    # rows that do not say which file they came from: against the current directory
    assert protocol_source("lab", frame.drop(columns="__file")) == "lab"
    monkeypatch.chdir(repo)
    assert protocol_source("lab", frame.drop(columns="__file")) == str(
        repo / "results" / "papers" / "lab.yaml")


def test_long_method_names_make_short_unique_file_names():
    from mlbench.safety import file_part

    a, b = file_part("m:C(a=" + "1" * 300 + ")"), file_part("m:C(a=" + "1" * 299 + "2)")
    assert len(a) == 113 and a != b and file_part("br-lr") == "br-lr"


@pytest.mark.parametrize("name", ["br-lr", "cc", "ecc", "rakel", "clr", "homer", "iblr"])
def test_the_transformation_methods_fit_with_a_base_learner_spec(name):
    from sklearn.svm import LinearSVC

    X, Y = _toy(60)
    est = registry.make(f"{name}(base=sklearn.svm:LinearSVC(C=0.5))", random_state=0)
    assert isinstance(est.base, LinearSVC)
    assert est.fit(X, Y).predict(X).shape == Y.shape
