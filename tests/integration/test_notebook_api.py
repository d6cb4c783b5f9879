"""The notebook API (issue #43, item 4): ``mlbench.results.read`` -> ``mlbench.stats.friedman /
posthoc / corrected_ttest / bayes`` -> the numbers of ``mlbench report --format json`` on the same
file, and ``summary()`` the table the report prints; ``mlbench.plots`` draws what ``mlbench plot``
draws.  The file is the committed SOSHF results (18 methods, 9 datasets, 8 splits)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mlbench
from mlbench.errors import MlbenchError

ROOT = Path(__file__).resolve().parents[2]
SOSHF = ROOT / "results" / "papers" / "soshf.csv"
#: (API keyword arguments, the same options of mlbench report): 9 datasets, 8 of the 18 methods
#: (the protocol's control among them), the datasets as a glob
CASES = {
    "selection": (dict(methods="sf*,mlknn,rf-cost,ecc", datasets="*", alpha=0.1),
                  ["--methods", "sf*,mlknn,rf-cost,ecc", "--datasets", "*", "--alpha", "0.1"]),
    "control": (dict(methods="sf-h*,mlknn,iblr", datasets="emotions,scene,yeast,enron",
                     control="mlknn"),
                ["--methods", "sf-h*,mlknn,iblr", "--datasets", "emotions,scene,yeast,enron",
                 "--control", "mlknn"]),
}


@pytest.fixture(scope="module")
def frame():
    return mlbench.results.read(SOSHF)


@pytest.fixture(scope="module", params=list(CASES))
def case(request, frame):
    """The API's four results and the report's JSON document for the same options."""
    from click.testing import CliRunner

    from mlbench.cli import cli

    kw, argv = CASES[request.param]
    res = CliRunner().invoke(cli, ["report", str(SOSHF), "--metric", "macro_f1", "--stats", "all",
                                   "--rope", "0.02", "--seed", "3", "--format", "json", *argv])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)["metrics"]["macro_f1"]
    rest = {k: v for k, v in kw.items() if k != "alpha"}
    alpha = {"alpha": kw["alpha"]} if "alpha" in kw else {}
    return dict(doc=doc, kw=kw, argv=argv,
                friedman=mlbench.stats.friedman(frame, "macro_f1", **rest, **alpha),
                posthoc=mlbench.stats.posthoc(frame, "macro_f1", **rest, **alpha),
                ttest=mlbench.stats.corrected_ttest(frame, "macro_f1", **rest, **alpha),
                bayes=mlbench.stats.bayes(frame, "macro_f1", rope=0.02, seed=3, **rest))


def test_read_is_the_reports_rows(frame):
    from mlbench.report.results import load_results

    res = load_results([SOSHF])
    assert len(frame) == len(res.frame) + len(res.failures)
    assert frame.attrs["files"] == [str(SOSHF)] and frame.attrs["metrics"] == ["macro_f1", "macro_auc"]
    assert frame.attrs["protocol"] == "soshf"
    assert frame["macro_f1"].dtype == float and frame["__line"].is_monotonic_increasing
    ok = frame[frame.status == "ok"]
    assert ok.groupby(["dataset", "method"]).size().max() == 8        # 8 splits per cell
    pd.testing.assert_frame_equal(ok.reset_index(drop=True)[res.frame.columns], res.frame)


def test_friedman_equals_the_report(case):
    fr, doc = case["friedman"], case["doc"]["friedman"]
    assert (fr.chi2, fr.p_chi2, fr.f, fr.p_f) == (doc["chi2"], doc["p_chi2"], doc["f"], doc["p_f"])
    assert list(fr.df_f) == doc["df_f"] and fr.rejects == doc["rejects"]
    assert fr.average_ranks.to_dict() == doc["average_ranks"]
    assert fr.datasets == case["doc"]["complete_datasets"] and len(fr.methods) == doc["n_methods"]
    assert fr.cd_nemenyi == case["doc"]["nemenyi"]["cd"]
    assert fr.cd_bonferroni_dunn == case["doc"]["mean_ranks_vs_control"]["cd_bonferroni_dunn"]
    assert fr.ranks.mean(axis=0).to_dict() == pytest.approx(doc["average_ranks"], abs=1e-12)


def test_posthoc_equals_the_report(case):
    ph, doc = case["posthoc"], case["doc"]
    vs = doc["mean_ranks_vs_control"]["methods"]
    assert set(ph.vs_control.index) == set(vs)
    for m, row in ph.vs_control.iterrows():
        assert {k: row[k] for k in ("z", "p", "p_bonferroni", "p_holm")} == \
            {k: vs[m][k] for k in ("z", "p", "p_bonferroni", "p_holm")}
        assert (bool(row.reject_bonferroni), bool(row.reject_holm)) == \
            (vs[m]["reject_bonferroni"], vs[m]["reject_holm"])
    wx = doc["wilcoxon_vs_control"]
    for m, row in ph.wilcoxon.iterrows():
        assert {k: row[k] for k in ("r_plus", "r_minus", "t", "z", "p", "p_holm")} == \
            {k: wx[m][k] for k in ("r_plus", "r_minus", "t", "z", "p", "p_holm")}
    pairs = [[a, b] for i, a in enumerate(ph.methods) for b in ph.methods[i + 1:]
             if ph.nemenyi.loc[a, b]]
    assert pairs == doc["nemenyi"]["different_pairs"]
    assert ph.control == case["kw"].get("control", "sf-h-cs")


def test_corrected_ttest_equals_the_report(case):
    tt, doc = case["ttest"], case["doc"]
    assert tt.test == "Nadeau-Bengio corrected resampled t-test"
    mine = [{k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
            for r in tt.tests.to_dict("records")]
    theirs = [{k: r[k] for k in mine[0]} for r in doc["per_dataset_tests"]]
    assert mine == theirs and len(mine) > 10
    assert {m: list(map(int, row)) for m, row in tt.win_tie_loss.iterrows()} == doc["win_tie_loss"]


def test_bayes_equals_the_report(case):
    bt, doc = case["bayes"], case["doc"]["bayes_vs_control"]
    assert bt.rope == 0.02 and bt.seed == 3
    assert {m: list(row) for m, row in bt.probabilities.iterrows()} == \
        {m: [d["p_control_better"], d["p_rope"], d["p_control_worse"]] for m, d in doc.items()}


def test_summary_is_the_reports_table(case):
    """Each summary's table is, line for line, the one ``mlbench report`` prints (markdown)."""
    from click.testing import CliRunner

    from mlbench.cli import cli

    res = CliRunner().invoke(cli, ["report", str(SOSHF), "--metric", "macro_f1", "--stats",
                                   "all", "--rope", "0.02", "--seed", "3", "--format", "markdown",
                                   *case["argv"]])
    assert res.exit_code == 0, res.output
    for name in ("friedman", "posthoc", "ttest", "bayes"):
        text = case[name].summary(fmt="markdown")
        tables = [t for t in text.split("\n\n") if t.startswith("### ")]
        assert tables, name
        for table in tables:
            assert table in res.stdout, (name, table[:80])
    assert "Friedman test over datasets" in str(case["friedman"])


def test_a_test_the_data_cannot_support_is_one_error(frame):
    with pytest.raises(MlbenchError, match="^friedman compares methods over datasets and needs at least two"):
        mlbench.stats.friedman(frame, "macro_f1", datasets="emotions")
    with pytest.raises(MlbenchError, match="unknown metric .macro_f2.; did you mean"):
        mlbench.stats.bayes(frame, "macro_f2")
    with pytest.raises(MlbenchError, match="one metric name"):
        mlbench.stats.posthoc(frame, ["macro_f1"])


def test_plots_are_the_commands_figures(frame, tmp_path):
    from matplotlib.figure import Figure

    fig = mlbench.plots.cd(frame, "macro_f1", datasets="emotions,scene,yeast")
    labels = sorted(t.get_gid()[6:] for t in fig.texts + fig.axes[0].texts
                    if (t.get_gid() or "").startswith("label:"))
    assert labels == sorted(mlbench.stats.friedman(frame, "macro_f1",
                                                   datasets="emotions,scene,yeast").methods)
    for kind in ("box", "heatmap", "pareto", "bayes"):
        fig = getattr(mlbench.plots, kind)(frame, "macro_auc", methods="sf,sf-h,mlknn",
                                           datasets="emotions,scene")
        assert isinstance(fig, Figure) and fig.axes, kind
        fig.savefig(tmp_path / f"{kind}.png")
        assert (tmp_path / f"{kind}.png").stat().st_size > 1000
    import matplotlib.pyplot as plt

    assert plt.get_fignums() == []              # not pyplot's: a notebook shows each once
    with pytest.raises(MlbenchError, match="no cd plot for macro_f1: .* 1 dataset"):
        mlbench.plots.cd(frame, "macro_f1", datasets="emotions")


def test_the_api_modules_import_light():
    code = ("import sys, mlbench, mlbench.stats; mlbench.results; mlbench.plots; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'pandas', 'numpy', 'scipy', 'sklearn', 'matplotlib'}))")
    env = dict(os.environ, PYTHONPATH=str(Path(mlbench.__file__).parents[1]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    assert {"friedman", "posthoc", "corrected_ttest", "bayes", "rank_scores"} <= set(dir(mlbench.stats))
