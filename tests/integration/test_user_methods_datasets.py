"""Issue 19: a user's method (MODULE:CLASS, FILE.py:CLASS(params), a plug-in package) and dataset
(a path) go through the same runner, results and reports as the built-in ones."""
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from mlbench.errors import ConfigError
from mlbench.methods import registry

MY_METHODS = '''
"""A tiny multi-label method: nearest-centroid scores per label."""
import numpy as np


class MyClf:
    """Per label, distance to the negative centroid minus distance to the positive one."""

    def __init__(self, shrink=0.0, random_state=None):
        self.shrink = shrink
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = np.asarray(X, float), np.asarray(Y)
        mean = lambda rows: X[rows].mean(0) if rows.any() else X.mean(0)
        self.pos_ = np.array([mean(Y[:, j] == 1) for j in range(Y.shape[1])])
        self.neg_ = np.array([mean(Y[:, j] == 0) for j in range(Y.shape[1])])
        return self

    def decision_function(self, X):
        d = lambda C: ((np.asarray(X, float)[:, None, :] - C[None]) ** 2).sum(-1)
        return d(self.neg_) - d(self.pos_) - self.shrink

    def predict(self, X):
        return (self.decision_function(X) > 0).astype(int)


class NoScores(MyClf):
    decision_function = None

    def predict(self, X):
        return (MyClf.decision_function(self, X) > 0).astype(int)


class Broken(MyClf):
    def fit(self, X, Y):
        raise RuntimeError("my fit fails")


class WrongShape(MyClf):
    def predict(self, X):
        return np.zeros((len(X), 1), dtype=int)


class NotAnEstimator:
    pass
'''

XML = ('<?xml version="1.0" encoding="utf-8"?>\n<labels xmlns="http://mulan.sourceforge.net/labels">'
       '<label name="y1"></label><label name="y2"></label></labels>\n')


def toy_arff(path, n=60):
    rng = np.random.default_rng(0)
    lines = ["@relation toy", "@attribute a numeric", "@attribute b numeric", "@attribute c numeric",
             "@attribute y1 {0,1}", "@attribute y2 {0,1}", "@data"]
    for _ in range(n):
        x = rng.normal(size=3)
        y = (x[:2] + 0.3 * rng.normal(size=2) > 0).astype(int)
        lines.append(",".join(f"{v:.4f}" for v in x) + "," + ",".join(map(str, y)))
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.delitem(sys.modules, "my_methods", raising=False)   # another test's module
    (tmp_path / "my_methods.py").write_text(MY_METHODS)
    toy_arff(tmp_path / "toy.arff")
    (tmp_path / "toy.xml").write_text(XML)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MLBENCH_DATA", str(tmp_path / "data"))
    yield tmp_path
    registry._USER.clear()
    sys.modules.pop("my_methods", None)          # imported by name in some tests


def test_the_walkthrough_run_report_and_friedman(workdir, cli):
    code, out, err = cli(["run", "--protocol", "quick", "--methods", "my_methods.py:MyClf,br-lr",
                          "--datasets", "./toy.arff,emotions", "-j", "1", "-q"])
    assert code == 0, err
    df = pd.read_csv(workdir / "results" / "quick.csv")
    assert set(df.method) == {"my_methods.py:MyClf", "br-lr"} and set(df.dataset) == {"toy", "emotions"}
    assert (df.status == "ok").all() and df.macro_auc.notna().all()
    code, out, err = cli(["report", "results/quick.csv", "--metric", "macro_f1"])
    assert code == 0 and "my_methods.py:MyClf" in out
    code, out, err = cli(["report", "results/quick.csv", "--metric", "macro_f1", "--stats", "friedman",
                          "--control", "my_methods.py:MyClf"])
    assert code == 0 and "Friedman" in out


def test_parameters_and_module_form(workdir, cli):
    code, _, err = cli(["run", "--protocol", "quick", "-m", "my_methods:MyClf(shrink=0.5)",
                        "-d", "./toy.arff", "-j", "1", "-q", "-o", "r.csv"])
    assert code == 0, err
    row = pd.read_csv(workdir / "r.csv").iloc[0]
    assert row.method == "my_methods:MyClf(shrink=0.5)" and '"shrink": 0.5' in row.params


def test_a_method_without_scores_reports_those_measures_as_not_available(workdir, cli):
    code, _, err = cli(["run", "-p", "quick", "-m", "my_methods.py:NoScores", "-d", "./toy.arff",
                        "-j", "1", "-q", "-o", "r.csv"])
    assert code == 0, err
    df = pd.read_csv(workdir / "r.csv")
    assert (df.status == "ok").all() and df.macro_auc.isna().all() and df.macro_f1.notna().all()
    assert "the method gives no scores" in df.extra.iloc[0]


@pytest.mark.parametrize("cls, reason", [("Broken", "my fit fails"), ("WrongShape", "")])
def test_a_failing_method_fails_only_its_cells(workdir, cli, cls, reason):
    code, _, err = cli(["run", "-p", "quick", "-m", f"my_methods.py:{cls},br-lr", "-d", "./toy.arff",
                        "-j", "1", "-q", "-o", "r.csv"])
    assert code == 0, err
    df = pd.read_csv(workdir / "r.csv")
    failed = df[df.method == f"my_methods.py:{cls}"]
    assert (failed.status == "error").all() and reason in failed.error.iloc[0]
    assert (df[df.method == "br-lr"].status == "ok").all()


@pytest.mark.parametrize("spec, message", [
    ("my_methods.py:NotAnEstimator", "has no fit or predict"),
    ("my_methods.py:Missing", "has no Missing"),
    ("nowhere.py:X", "no file"),
    ("no_such_module_xyz:X", "cannot import"),
    ("my_methods.py:MyClf(shrink=__import__('os'))", "not a MODULE:CLASS spec ('__import__')"),
    ("my_methods.py:MyClf(1, 2)", "NAME=VALUE"),
    ("my_methods.py:MyClf(bogus=1)", "failed"),
])
def test_contract_errors_are_one_line_before_any_cell(workdir, cli, spec, message):
    code, _, err = cli(["run", "-p", "quick", "-m", spec, "-d", "./toy.arff", "-q", "-o", "r.csv"])
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert not (workdir / "r.csv").exists()


def test_a_list_parameter_is_a_grid_of_methods(workdir, cli):
    code, _, err = cli(["run", "-p", "quick", "-m", "my_methods:MyClf(shrink=[0.0, 0.5])", "-d",
                        "./toy.arff", "--repeats", "1", "-j", "1", "-q", "-o", "r.csv"])
    assert code == 0, err
    assert sorted(pd.read_csv(workdir / "r.csv").method) == [
        "my_methods:MyClf(shrink=0.0)", "my_methods:MyClf(shrink=0.5)"]


def test_user_datasets_by_path(workdir, cli):
    from mlbench.data import load_dataset

    full = load_dataset("./toy.arff")
    assert (full.name, full.n_instances, full.n_features, full.n_labels) == ("toy", 60, 3, 2)
    counted = load_dataset("toy.arff@2")
    np.testing.assert_array_equal(counted.Y, full.Y)
    first = load_dataset("toy.arff@-1")
    assert first.n_labels == 1 and first.label_names == ["a"]
    pair = workdir / "pair"
    pair.mkdir()
    toy_arff(pair / "toy-train.arff", 40)
    toy_arff(pair / "toy-test.arff", 20)
    (pair / "toy.xml").write_text(XML)
    d = load_dataset(str(pair))
    assert d.n_instances == 60 and list(d.parts) == ["train", "test"]
    pd.DataFrame({"f1": np.arange(10.0), "f2": np.ones(10), "l1": [0, 1] * 5}).to_csv("t.csv", index=False)
    c = load_dataset("t.csv@1")
    assert c.label_names == ["l1"] and c.n_features == 2
    code, out, err = cli(["info", "./toy.arff", "--format", "csv"])
    assert code == 0 and out.splitlines()[1].startswith("toy,user,60,3,2")
    (workdir / "plain.arff").write_text((workdir / "toy.arff").read_text())
    for argv, message in [(["info", "./plain.arff"], "plain.xml (MULAN) beside it"),
                          (["info", "./nope.arff"], "no such file"),
                          (["info", "t.csv"], "needs its label count"),
                          (["info", "toy.arff@9"], "asks for 9 label columns")]:
        code, _, err = cli(argv)
        assert code == 2 and message in err and err.count("\n") == 1, err


@pytest.mark.parametrize("text, message", [
    # a header one field short of its rows: pandas alone would take the first column as an index
    ("f1,l1\n1.5,2,1\n3.5,4,0\n", "bad.csv:2:1: 3 field(s) where the header has 2"),
    ("f1,f2,l1\n1.5,2,1\n\n3.5,0\n", "bad.csv:4:1: 2 field(s) where the header has 3"),
    ("f1,f2,l1\n1.5,2,1\n3.5,x,0\n", "bad.csv:3:5: feature column 'f2' holds 'x', not a number"),
    ("f1,f2,l1\n1.5,2,1\n3.5,4,\n", "bad.csv:3:7: label column 'l1' holds 'nan'; labels must be 0 or 1"),
    ("f1,f2,l1\n", "bad.csv:2:1: the table has no data rows"),
])
def test_a_malformed_csv_dataset_is_one_line_naming_its_line(workdir, cli, text, message):
    (workdir / "bad.csv").write_text(text)
    code, _, err = cli(["info", "./bad.csv@1"])
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert not list((workdir / "data").glob("user-bad-*"))        # nothing cached


def test_a_csv_dataset_keeps_missing_features_and_exact_numbers(workdir):
    from mlbench.data import load_dataset

    (workdir / "m.csv").write_text("f1,f2,l1\n0.1234567890123456789,,1\n1e-320,4,0\n")
    d = load_dataset("m.csv@1")
    assert d.X[0, 0] == float("0.1234567890123456789") and np.isnan(d.X[0, 1])
    assert d.X[1, 0] == 1e-320 and d.Y.ravel().tolist() == [1, 0]


def test_a_plugin_package_registers_named_methods(tmp_path, monkeypatch, cli):
    """An installed distribution with an ``mlbench.methods`` entry point (a throwaway one on
    sys.path, found by importlib.metadata) registers its methods like built-ins."""
    site = tmp_path / "site"
    pkg = site / "mlbench_toyplugin"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent('''
        from mlbench.methods.registry import register
        from mlbench.methods.transformation.br import BinaryRelevance
        register("toy-plugin-br", BinaryRelevance, family="plugin", paper="user",
                 params={"base": "lr"}, description="BR from a plug-in package")
    '''))
    info = site / "mlbench_toyplugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mlbench-toyplugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[mlbench.methods]\ntoy = mlbench_toyplugin\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(registry, "_discovered", False)
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    try:
        spec = registry.get("toy-plugin-br")
        assert spec.paper == "user" and spec.family == "plugin"
        assert "toy-plugin-br" in [s.name for s in registry.all_methods()]
        monkeypatch.setenv("MLBENCH_DATA", str(tmp_path / "data"))
        out = tmp_path / "r.csv"
        code, _, err = cli(["run", "-p", "quick", "-m", "toy-plugin-br,br-lr", "-d", "emotions",
                            "--repeats", "1", "-j", "1", "-q", "-o", str(out)])
        assert code == 0, err
        assert set(pd.read_csv(out).method) == {"toy-plugin-br", "br-lr"}
        code, text, err = cli(["report", str(out), "--metric", "macro_f1"])
        assert code == 0 and "toy-plugin-br" in text
    finally:
        registry._REGISTRY.pop("toy-plugin-br", None)
        sys.modules.pop("mlbench_toyplugin", None)


def test_check_method_for_method_authors(workdir):
    from mlbench.testing import check_method

    sys.path.insert(0, str(workdir))
    try:
        import my_methods
    finally:
        sys.path.remove(str(workdir))
    found = check_method(my_methods.MyClf())
    assert found["scores"] == "decision_function" and found["random_state"]
    with pytest.raises(AssertionError, match="WrongShape: predict has shape"):
        check_method(my_methods.WrongShape())
    with pytest.raises(AssertionError, match="no fit"):
        check_method(my_methods.NotAnEstimator())
    from mlbench.methods import make

    assert check_method(make("br-lr"))["scores"] == "predict_proba"


def test_a_method_that_refuses_sparse_x_gets_it_dense(workdir, cli):
    import scipy.sparse as sp

    from mlbench.data.dataset import Dataset
    from mlbench.experiment import runner

    def sparse_loader(name):
        rng = np.random.default_rng(1)
        X = sp.random(60, 20, density=0.1, random_state=1, format="csr")
        Y = (rng.random((60, 2)) < 0.4).astype(np.int8)
        Y[0] = 1
        Y[1] = 0
        return Dataset("sparsy", X, Y, [f"f{i}" for i in range(20)], ["a", "b"], sha256="s")

    runner_loader = runner._default_loader
    try:
        runner._default_loader = sparse_loader
        code, _, err = cli(["run", "-p", "quick", "-m", "my_methods.py:MyClf", "-d", "sparsy",
                            "-j", "1", "-q", "-o", "r.csv"])
    finally:
        runner._default_loader = runner_loader
    assert code == 0, err
    df = pd.read_csv(workdir / "r.csv")
    assert (df.status == "ok").all() and "densified" in df.extra.iloc[0]


def test_protocol_new_writes_a_loadable_commented_copy(workdir, cli):
    from mlbench.protocols import load_protocol

    code, out, err = cli(["protocol", "new", "lab", "--from", "soshf"])
    assert code == 0 and "mlbench run --protocol lab.yaml" in out, err
    text = (workdir / "lab.yaml").read_text()
    assert text.startswith("# Protocol lab") and "name: lab\n" in text
    proto = load_protocol("lab.yaml")
    assert proto.name == "lab" and proto.paper == "soshf"
    for argv, message in [(["protocol", "new", "lab"], "exists"),
                          (["protocol", "new", "x", "--from", "soshx"], "did you mean 'soshf'"),
                          (["protocol", "new", "../x"], "not a safe name")]:
        code, _, err = cli(argv)
        assert code == 2 and message in err and err.count("\n") == 1


def test_datasets_lists_every_dataset_with_its_status(workdir, cli, monkeypatch):
    from mlbench.data.registry import registry

    monkeypatch.setenv("COLUMNS", "100")
    code, out, err = cli(["datasets", "--format", "csv"])
    assert code == 0, err
    df = pd.read_csv(__import__("io").StringIO(out))
    assert set(df.dataset) == set(registry())
    st = df.set_index("dataset").status
    assert st["mediamill"] == "network-only" and st["ipc"] == "unavailable"
    assert st["emotions"] in ("cached", "in mirror", "fetchable")
    code, out, _ = cli(["datasets"])
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 100
    code, out, _ = cli(["datasets", "--paper", "hiercost", "--format", "csv"])
    assert "ImCLEF07A" in out and "emotions" not in out



def test_datasets_of_a_paper_with_the_reason_of_the_unavailable_ones(workdir, cli):
    code, out, err = cli(["datasets", "--paper", "bogatinovski2022", "--format", "csv"])
    assert code == 0, err
    df = pd.read_csv(__import__("io").StringIO(out)).set_index("dataset")
    assert len(df) == 40 and df.papers.str.contains("bogatinovski2022").all()
    assert df.status["langlog"] != "unavailable"
    assert df.status["abpm"] == "unavailable"
    assert df.note["abpm"].startswith("not in the mirror: ") and \
        df.note["abpm"].endswith("source: https://data.mendeley.com/datasets/y4dh3b3tfx/1")
    code, _, err = cli(["datasets", "--paper", "bogatinovsky2022"])
    assert code == 2 and "unknown paper 'bogatinovsky2022'" in err and err.count("\n") == 1

def test_a_lab_datasets_file_adds_pinned_datasets(workdir, cli, monkeypatch):
    import hashlib

    from mlbench.data import registry as reg

    mirror = workdir / "labmirror" / "lab.example.org" / "d"
    mirror.mkdir(parents=True)
    sha = {}
    for name in ("toy.arff", "toy.xml"):
        (mirror / name).write_bytes((workdir / name).read_bytes())
        sha[name] = hashlib.sha256((workdir / name).read_bytes()).hexdigest()
    (workdir / "lab.yaml").write_text(textwrap.dedent(f"""
        datasets:
          labtoy:
            format: mulan
            domain: lab
            published: {{instances: 60, features: 3, labels: 2}}
            files:
            - {{role: full, url: "https://lab.example.org/d/toy.arff", sha256: {sha['toy.arff']}}}
            - {{role: labels-xml, url: "https://lab.example.org/d/toy.xml", sha256: {sha['toy.xml']}}}
    """))
    monkeypatch.setenv("MLBENCH_MIRROR", str(workdir / "labmirror"))
    before = dict(reg.registry())
    try:
        code, out, err = cli(["--registry", "lab.yaml", "run", "-p", "quick", "-m", "br-lr",
                              "-d", "labtoy", "-j", "1", "-q", "-o", "r.csv"])
        assert code == 0, err
        assert set(pd.read_csv(workdir / "r.csv").dataset) == {"labtoy"}
    finally:
        reg.registry().clear()
        reg.registry().update(before)
    (workdir / "bad.yaml").write_text("datasets:\n  emotions: {format: mulan, files: []}\n")
    code, _, err = cli(["--registry", "bad.yaml", "datasets"])
    assert code == 2 and "'emotions' is already a registered dataset" in err
    (workdir / "unpinned.yaml").write_text(
        "datasets:\n  x: {format: mulan, files: [{role: full, url: 'https://h/x.arff'}]}\n")
    code, _, err = cli(["--registry", "unpinned.yaml", "datasets"])
    assert code == 2 and "needs its sha256" in err
    assert set(reg.registry()) == set(before)


def test_evaluate_rescores_saved_predictions(workdir, cli):
    import json

    code, _, err = cli(["run", "-p", "quick", "-m", "br-lr", "-d", "./toy.arff", "--repeats", "1",
                        "-o", "sv.csv", "-q", "--save-predictions", "-j", "1"])
    assert code == 0, err
    row = pd.read_csv(workdir / "sv.csv").iloc[0]
    (npz,) = (workdir / "sv.csv.predictions").glob("*.npz")
    code, out, err = cli(["evaluate", "--saved", str(npz), "--metric", "macro_f1,macro_auc",
                          "--format", "json"])
    assert code == 0, err
    got = json.loads(out)
    assert got["macro_f1"] == pytest.approx(row.macro_f1) and got["macro_auc"] == pytest.approx(row.macro_auc)
    (workdir / "junk.npz").write_bytes(b"not a zip")
    for argv, message in [(["evaluate", "--saved", "junk.npz"], "not a saved-predictions file"),
                          (["evaluate"], "give --truth"),
                          (["evaluate", "--saved", str(npz), "--scores", "s.csv"], "drop --scores")]:
        code, _, err = cli(argv)
        assert code == 2 and message in err and err.count("\n") == 1, err


def test_a_user_dataset_is_cached_by_the_hash_of_its_files(workdir):
    from mlbench.data import load_dataset

    first = load_dataset("./toy.arff")
    cached = sorted(p.name for p in (workdir / "data").glob("user-toy-*.npz"))
    assert len(cached) == 1
    again = load_dataset("./toy.arff")
    assert (again.name, again.sha256) == (first.name, first.sha256)
    np.testing.assert_array_equal(again.Y, first.Y)
    lines = (workdir / "toy.arff").read_text().splitlines()
    lines[-1] = lines[-1][:-3] + "1,1"            # the file changes: a new key, a new parse
    (workdir / "toy.arff").write_text("\n".join(lines) + "\n")
    changed = load_dataset("./toy.arff")
    assert changed.sha256 != first.sha256 and changed.Y[-1].tolist() == [1, 1]
    assert len(list((workdir / "data").glob("user-toy-*.npz"))) == 2
    assert load_dataset("toy.arff@2").sha256 != ""         # another label rule: its own key


@pytest.mark.slow
def test_a_user_method_reaches_dask_workers_by_value(workdir, cli):
    """The workers get the class itself: the file may be gone (or live on another machine)."""
    pytest.importorskip("distributed")
    from mlbench.methods import registry as reg

    reg.get("my_methods.py:MyClf")                     # the driver loads it...
    (workdir / "my_methods.py").rename(workdir / "moved.py")   # ...then the file disappears
    code, _, err = cli(["run", "-p", "quick", "-m", "my_methods.py:MyClf", "-d", "./toy.arff",
                        "--executor", "dask", "-j", "2", "-q", "-o", "r.csv"])
    assert code == 0, err
    df = pd.read_csv(workdir / "r.csv")
    assert (df.status == "ok").all() and len(df) == 3


def test_a_user_method_that_does_not_pickle_is_one_line_for_dask(workdir, cli):
    pytest.importorskip("distributed")
    (workdir / "locked.py").write_text(MY_METHODS.replace(
        "class NotAnEstimator:", "import threading\n\n\nclass Locked(MyClf):\n    lock = threading.Lock()\n\n\nclass NotAnEstimator:"))
    code, _, err = cli(["run", "-p", "quick", "-m", "locked.py:Locked", "-d", "./toy.arff",
                        "--executor", "dask", "-j", "1", "-q", "-o", "r.csv"])
    assert code == 2 and "cannot be sent to Dask workers" in err and err.count("\n") == 1, err
    assert not (workdir / "r.csv").exists()


def test_a_parquet_table_is_a_dataset_too(workdir):
    pytest.importorskip("pyarrow")
    from mlbench.data import load_dataset

    frame = pd.DataFrame({"f1": np.arange(12.0), "f2": np.ones(12), "l1": [0, 1] * 6, "l2": [1, 0] * 6})
    frame.to_parquet(workdir / "t.parquet")
    ds = load_dataset("t.parquet@2")
    assert (ds.name, ds.n_features, ds.label_names) == ("t", 2, ["l1", "l2"])
    np.testing.assert_array_equal(ds.Y[:, 0], frame.l1.to_numpy())
    (workdir / "bad.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(Exception, match="not a readable Parquet table"):
        load_dataset("bad.parquet@1")


def test_methods_shows_a_user_method_page(workdir, cli):
    code, out, err = cli(["methods", "my_methods.py:MyClf(shrink=0.5)"])
    assert code == 0, err
    assert "family user" in out and "shrink = 0.5" in out and "nearest-centroid" not in out
    code, out, _ = cli(["methods", "my_methods.py:MyClf", "--format", "json"])
    assert code == 0 and __import__("json").loads(out)["parameters"]["shrink"] == 0.0
