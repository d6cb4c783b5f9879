"""``mlbench report --style hiercost``: Yang & Liu markers from saved predictions, known outcome.

Two datasets, three methods, one given split each; the predictions are built so that
* on d1 the control (hiercost) is perfect and lr, the strongest other method, misses 20 positive
  decisions spread unevenly over 5 categories: micro sign test p = 2^-20 (‡), macro t-test
  p = 0.0043 (†);
* on d2 lr is perfect and the control is lr's d1 predictions: no marker; td-lr (much weaker) is not
  the rival, else the control would be marked.
"""
import io

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import f1_score

MISSES = [2, 4, 6, 3, 5]      # positives lr misses in each category on d1


def predictions():
    rng = np.random.default_rng(0)
    Y = (rng.random((120, 5)) < 0.4).astype(np.int8)
    weak = Y.copy()
    for j, k in enumerate(MISSES):
        weak[np.flatnonzero(Y[:, j])[:k], j] = 0
    bad = Y.copy()
    bad[:60] = 1 - bad[:60]
    return Y, {"d1": {"hiercost": Y.copy(), "lr": weak, "td-lr": bad},
               "d2": {"hiercost": weak, "lr": Y.copy(), "td-lr": bad}}


def write(tmp_path, save=True, skip=()):
    Y, preds = predictions()
    out = tmp_path / "results.csv"
    pdir = tmp_path / "results.csv.predictions"
    rows = []
    for d, methods in preds.items():
        for m, P in methods.items():
            if save and (d, m) not in skip:
                pdir.mkdir(exist_ok=True)
                np.savez(pdir / f"hiercost__{d}__{m}__given-r00__s0.npz", Y_true=Y, predictions=P)
            rows.append(dict(dataset=d, method=m, protocol="hiercost", split="given-r00", repeat=0,
                             seed=0, status="ok", n_train=100, n_test=120,
                             micro_f1=f1_score(Y, P, average="micro"),
                             macro_f1=f1_score(Y, P, average="macro")))
    pd.DataFrame(rows).to_csv(out, index=False)
    return out


def report(path, cli, fmt="csv"):
    code, out, err = cli(["report", path, "--style", "hiercost", "--format", fmt])
    assert code == 0, err
    return out


def markers(text):
    df = pd.read_csv(io.StringIO(text), keep_default_na=False)
    df = df[df.row == "hiercost (control)"]
    return {(g, c.split()[0]): m for g, c, m in zip(df.group, df.column, df.marker)}


def test_the_known_outcome_by_scipy():
    """The fixture's p-values, computed without mlbench (guards the expected markers below)."""
    Y, preds = predictions()
    A, B = preds["d1"]["hiercost"], preds["d1"]["lr"]
    assert (A != B).sum() == sum(MISSES) == 20 and stats.binom.sf(19, 20, 0.5) < 0.001
    p = stats.ttest_rel(f1_score(Y, A, average=None), f1_score(Y, B, average=None),
                        alternative="greater").pvalue
    assert 0.001 < p < 0.05


def test_markers_from_saved_predictions(tmp_path, cli):
    out = report(write(tmp_path), cli)
    assert markers(out) == {("d1", "Micro-F1"): "‡", ("d1", "Macro-F1"): "†",
                            ("d2", "Micro-F1"): "", ("d2", "Macro-F1"): ""}
    text = report(tmp_path / "results.csv", cli, fmt="markdown")
    assert "| hiercost (control) | **1.0000**‡ | **1.0000**† |" in text
    assert "micro sign test" in text and "d1 micro_f1: vs lr p = 9.54e-07" in text
    assert "d2 micro_f1: vs lr p = 1" in text                   # the rival is lr, not td-lr
    # one given split: the significance note says what was tested, the split test's note is dropped
    assert "common splits" not in text


def test_without_predictions_no_marker_and_a_hint(tmp_path, cli):
    out = report(write(tmp_path, save=False), cli)
    assert set(markers(out).values()) == {""}
    assert "--save-predictions" in report(tmp_path / "results.csv", cli, fmt="markdown")


def test_a_missing_rival_file_leaves_that_dataset_unmarked(tmp_path, cli):
    out = report(write(tmp_path, skip={("d1", "lr")}), cli)
    assert markers(out)[("d1", "Micro-F1")] == "" and markers(out)[("d1", "Macro-F1")] == ""
    text = report(tmp_path / "results.csv", cli, fmt="markdown")
    assert "d2 micro_f1: vs lr p = 1" in text and "d1 micro_f1" not in text


@pytest.mark.parametrize("fmt", ["latex", "html", "json", "terminal"])
def test_other_formats_render(tmp_path, cli, fmt):
    assert report(write(tmp_path), cli, fmt=fmt).strip()


def test_bootstrap_intervals_table_from_stored_replicates(tmp_path, cli):
    """Rows whose extra holds bootstrap replicates get the interval table: the control's own
    interval and each other method's paired difference, starred when it excludes 0."""
    import json

    from mlbench.stats.bootstrap import encode, replicates, resample_seed

    Y, preds = predictions()
    seed = resample_seed(0, "d1", "given-r00")
    rows = []
    for m, P in preds["d1"].items():
        reps = replicates(lambda r: f1_score(Y[r], P[r], average="micro"), len(Y), 300, seed)
        extra = {"bootstrap": {"B": 300, "replicates": {"micro_f1": encode(reps)}}}
        rows.append(dict(dataset="d1", method=m, protocol="hiercost", split="given-r00", repeat=0,
                         seed=0, status="ok", micro_f1=f1_score(Y, P, average="micro"),
                         extra=json.dumps(extra)))
    path = tmp_path / "boot.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    text = report(path, cli, fmt="markdown")
    assert "95% bootstrap intervals over the test rows" in text
    lines = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| ")}
    assert "[1.000, 1.000]" in lines["hiercost (control)"]
    assert "*" in lines["lr"] and lines["lr"].count("+") >= 3     # control better, interval > 0
