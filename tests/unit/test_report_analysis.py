"""The analysis behind the tables: Demšar's example through the whole pipeline, markers, blocks."""
import numpy as np
import pandas as pd
import pytest

from mlbench.errors import ConfigError, MlbenchError
from mlbench.report.analysis import analyse, normalize_stats
from mlbench.report.results import load_results
from mlbench.stats import wilcoxon_signed_rank

# Demšar (2006) Table 6 as a results CSV with one split per cell (voting: see tests/unit/test_stats.py)
METHODS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
AUC = np.array([
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.9749], [0.957, 0.978, 0.946, 0.970]])
DATASETS = ["adult", "breast", "wisconsin", "cmc", "ionosphere", "iris", "liver", "lung", "lymph",
            "mushroom", "tumor", "rheum", "voting", "wine"]


def demsar_csv(path):
    rows = [dict(dataset=d, method=m, protocol="demsar", split="s0", status="ok", macro_auc=AUC[i, j])
            for i, d in enumerate(DATASETS) for j, m in enumerate(METHODS)]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def splits_csv(path):
    """3 datasets x 3 methods x 5 splits: "ctl" beats "worse" by 0.05, loses to "better" by 0.05."""
    rng = np.random.default_rng(0)
    rows = []
    for d, base in (("x", 0.5), ("y", 0.6), ("z", 0.7)):
        for s in range(5):
            noise = 0.002 * rng.standard_normal(3)
            for j, (m, off) in enumerate((("ctl", 0.0), ("worse", -0.05), ("better", 0.05))):
                rows.append(dict(dataset=d, method=m, protocol="t", split=f"r{s}", status="ok", n_train=100,
                                 n_test=100, macro_f1=base + off + noise[j], hamming_loss=0.3 - off + noise[j]))
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_pipeline_reproduces_demsar(tmp_path):
    res = load_results([demsar_csv(tmp_path / "d.csv")])
    a = analyse(res, control="C4.5", stats=["friedman", "wilcoxon"]).metrics[0]
    np.testing.assert_allclose(a.friedman.average_ranks, [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    assert a.friedman.chi2 == pytest.approx(9.28, abs=5e-3) and a.friedman.f == pytest.approx(3.69, abs=5e-3)
    assert a.friedman_rejects and a.nemenyi.cd == pytest.approx(1.25, abs=5e-3)
    # Bonferroni-Dunn against C4.5: only C4.5+m+cf differs, and it is better than the control
    assert [a.mean_rank_marker(m) for m in METHODS[1:]] == [0, 0, -1]
    assert a.mean_rank_marker("C4.5") is None
    # Wilcoxon with Bonferroni over three comparisons
    expected = []
    for j in (1, 2, 3):
        w = wilcoxon_signed_rank(AUC[:, 0], AUC[:, j])
        expected.append(-1 if w.p * 3 < 0.05 and w.r_minus > w.r_plus else 0)
    assert [a.wilcoxon_marker(m) for m in METHODS[1:]] == expected
    assert expected[0] == -1  # C4.5+m beats C4.5: p = 0.011, x3 = 0.033
    # one split per cell: no per-dataset test, said in the notes
    assert a.per_dataset == {} and any("two or more common splits" in n for n in a.notes)


def test_no_posthoc_markers_without_friedman_rejection(tmp_path):
    res = load_results([demsar_csv(tmp_path / "d.csv")])
    a = analyse(res, control="C4.5", alpha=0.01).metrics[0]  # p(F_F) = 0.02 > 0.01
    assert not a.friedman_rejects
    assert {a.mean_rank_marker(m) for m in METHODS[1:]} == {0}
    assert {a.wilcoxon_marker(m) for m in METHODS[1:]} == {0}


def test_split_markers_and_win_tie_loss(tmp_path):
    res = load_results([splits_csv(tmp_path / "s.csv")])
    an = analyse(res, control="ctl", stats=["ttest"])
    f1, hl = an.metrics
    assert an.split_test == "ttest"
    for ma in (f1, hl):  # direction respected for the loss
        assert ma.wtl == {"worse": [3, 0, 0], "better": [0, 0, 3]}
        assert ma.split_marker("x", "worse") == 1 and ma.split_marker("x", "better") == -1
        assert ma.per_dataset[("x", "worse")].n_splits == 5


def test_corrected_ttest_is_used_when_asked(tmp_path):
    res = load_results([splits_csv(tmp_path / "s.csv")])
    an = analyse(res, control="ctl", stats=["corrected-ttest"])
    r = an.metrics[0].per_dataset[("x", "worse")]
    assert r.test == "corrected resampled t-test" and an.split_test_name.startswith("Nadeau-Bengio")


def test_incomplete_method_leaves_block_and_is_listed(tmp_path):
    path = splits_csv(tmp_path / "s.csv")
    df = pd.read_csv(path)
    df = pd.concat([df, pd.DataFrame([dict(dataset="x", method="broken", protocol="t", split="r0",
                                           status="error", error="ValueError: boom")])])
    df.to_csv(path, index=False)
    ma = analyse(load_results([path]), control="ctl").metrics[0]
    assert "broken" not in ma.block_methods and ma.friedman.n_methods == 3
    # one line for the method: its count, each reason with its datasets, and that the tests leave it out
    assert [n for n in ma.notes if "broken" in n] == [
        "missing: broken has no value on 3 of 3 datasets (x: error x1: ValueError: boom; y, z: not run); "
        "left out of the tests over datasets"]


def test_method_missing_on_one_dataset_leaves_the_block_not_the_dataset(tmp_path):
    path = splits_csv(tmp_path / "s.csv")
    df = pd.read_csv(path)
    df = df[~((df.dataset == "z") & (df.method == "better"))]
    df.to_csv(path, index=False)
    ma = analyse(load_results([path]), control="ctl").metrics[0]
    assert ma.used_datasets == ["x", "y", "z"] and ma.left_out == []
    assert ma.block_methods == ["ctl", "worse"] and ma.friedman.n_datasets == 3
    assert [n for n in ma.notes if "better" in n] == [
        "missing: better has no value on 1 of 3 datasets (z: not run); left out of the tests over datasets"]


def test_a_dataset_most_methods_lack_is_left_out_instead(tmp_path):
    """A dataset where fewer than half of the methods ran leaves the block, not those methods."""
    path = splits_csv(tmp_path / "s.csv")
    df = pd.read_csv(path)
    extra = df[df.method == "worse"].assign(method="fourth")
    df = pd.concat([df, extra])
    df = df[~((df.dataset == "z") & df.method.isin(["better", "worse", "fourth"]))]
    df.to_csv(path, index=False)
    ma = analyse(load_results([path]), control="ctl").metrics[0]
    assert ma.used_datasets == ["x", "y"] and ma.left_out == ["z"]
    assert ma.block_methods == ["ctl", "worse", "better", "fourth"]
    assert any("left out: z" in n for n in ma.notes)


def test_control_defaults_and_errors(tmp_path):
    res = load_results([splits_csv(tmp_path / "s.csv")])
    an = analyse(res)
    assert an.control == "better" and "best average rank" in an.control_source
    assert analyse(res, protocol_control="ctl").control == "ctl"
    with pytest.raises(ConfigError, match="did you mean 'ctl'"):
        analyse(res, control="ctll")
    with pytest.raises(ConfigError, match="alpha"):
        analyse(res, alpha=1.5)


def test_strict_stats_need_enough_data(tmp_path):
    path = splits_csv(tmp_path / "s.csv")
    df = pd.read_csv(path)
    df[df.dataset == "x"].to_csv(path, index=False)
    res = load_results([path])
    strict = analyse(res, strict_stats=["friedman"])   # one dataset: per-split tests, a note
    assert any("needs at least two" in n for n in strict.metrics[0].notes)
    assert strict.metrics[0].per_dataset
    an = analyse(res, stats=["friedman"])  # from a protocol: a note, not an error
    assert an.metrics[0].friedman is None and any("two datasets" in n for n in an.metrics[0].notes)


def test_fewer_than_two_methods_is_an_error(tmp_path):
    path = splits_csv(tmp_path / "s.csv")
    df = pd.read_csv(path)
    df[df.method == "ctl"].to_csv(path, index=False)
    with pytest.raises(MlbenchError, match="compares methods"):
        analyse(load_results([path]))


def test_normalize_stats():
    assert normalize_stats(["all"], strict=True)[0] == ["friedman", "wilcoxon", "ttest", "corrected-ttest", "bayes"]
    assert normalize_stats(["bonferroni_dunn", "mcnemar"], strict=False) == (["friedman"], ["mcnemar"])
    with pytest.raises(ConfigError, match="unknown statistic"):
        normalize_stats(["mcnemar"], strict=True)


def test_control_without_the_metric_is_reported_not_fatal(tmp_path):
    # e.g. CLL-loss: a control that gives no joint probabilities has no value
    path = splits_csv(tmp_path / "s.csv")
    df = pd.read_csv(path)
    df["cll_loss"] = np.where(df.method == "ctl", np.nan, 1.0 + df.macro_f1)
    df.to_csv(path, index=False)
    from mlbench.report.export import analysis_to_dict
    from mlbench.report.styles import build_tables

    an = analyse(load_results([path]), control="ctl", stats=["friedman", "bayes"])
    ma = an.metrics[-1]
    assert ma.metric == "cll_loss" and ma.block_methods == ["worse", "better"]
    assert ma.friedman is not None and ma.vs_control is None and ma.wilcoxon is None and not ma.bayes
    assert any("control ctl has no cll_loss value" in n for n in ma.notes)
    for style in ("soshf", "mc", "plain"):
        assert build_tables(an, style)
    assert "mean_ranks_vs_control" not in analysis_to_dict(an, "soshf")["metrics"]["cll_loss"]


def test_power_notes_say_when_a_test_cannot_reject():
    from mlbench.report.analysis import power_notes

    notes = power_notes(5, 18, 0.05, ["wilcoxon"])
    assert len(notes) == 1 and "smallest p-value is 0.0625" in notes[0] and "10 datasets" in notes[0]
    assert power_notes(12, 3, 0.05, ["wilcoxon"]) == []          # 2/4096 < 0.025
    assert "no pair can differ" in power_notes(2, 5, 0.05, [], cd=4.3)[0]
    assert power_notes(20, 5, 0.05, [], cd=1.36) == []


def test_each_metric_gets_its_own_control_unless_one_is_given(tmp_path):
    rows = [dict(dataset=d, method=m, split=f"s{s}", macro_f1=f, hamming_loss=h)
            for d in ("x", "y") for s in range(3)
            for m, f, h in (("a", 0.8, 0.30), ("b", 0.6, 0.10), ("c", 0.5, 0.20))]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    res = load_results([path])
    an = analyse(res, metrics=["macro_f1", "hamming_loss"])
    assert [ma.control for ma in an.metrics] == ["a", "b"]           # best on each
    assert all("best average rank" in ma.control_source for ma in an.metrics)
    fixed = analyse(res, metrics=["macro_f1", "hamming_loss"], control="c")
    assert [ma.control for ma in fixed.metrics] == ["c", "c"]
    one = analyse(res, metrics=["macro_f1", "hamming_loss"], per_metric_control=False)
    assert [ma.control for ma in one.metrics] == ["a", "a"]
