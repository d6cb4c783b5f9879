"""evaluate(), the CLL loss, the measure registry and ``mlbench evaluate`` on CSV files."""
import json
import math

import numpy as np
import pytest

from mlbench.errors import ConfigError, MlbenchError
from mlbench.metrics import MEASURES, MetricInputError, default_measures, evaluate, get_measure

Y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]])
S = np.array([[0.9, 0.2, 0.6], [0.1, 0.7, 0.3], [0.8, 0.4, 0.5], [0.3, 0.3, 0.9]])

REQUIRED = [
    "hamming_loss", "subset_accuracy", "exact_match", "accuracy", "example_precision", "example_recall",
    "example_f1", "micro_precision", "micro_recall", "micro_f1", "macro_precision", "macro_recall",
    "macro_f1", "one_error", "coverage", "coverage_normalized", "ranking_loss", "average_precision",
    "macro_auc", "micro_auc", "cll_loss", "one_minus_hamming",
]


def test_every_required_measure_is_registered_with_its_needs():
    for name in REQUIRED:
        assert name in MEASURES, name
    assert get_measure("cll_loss").needs == "joint"
    assert get_measure("macro_auc").needs == "scores"
    assert get_measure("ranking_loss").kind == "ranking"
    lower = {"hamming_loss", "one_error", "coverage", "coverage_normalized", "ranking_loss", "cll_loss"}
    for name in REQUIRED:
        assert get_measure(name).greater_is_better == (name not in lower), name


# ---- CLL loss (MC paper, Section 6.2) ------------------------------------------------------------

def test_cll_loss_hand_worked():
    # P(true vector | x) = 1/2, 1/4, 1/8, 1: loss = ln 2 + ln 4 + ln 8 + 0 = 6 ln 2
    J = np.log([0.5, 0.25, 0.125, 1.0])
    assert get_measure("cll_loss")(Y, J) == pytest.approx(6 * math.log(2))
    assert get_measure("cll_loss_mean")(Y, J) == pytest.approx(6 * math.log(2) / 4)


def test_cll_loss_zero_probability_is_infinite():
    assert get_measure("cll_loss")(Y, np.array([-1.0, -np.inf, -1.0, -1.0])) == math.inf


@pytest.mark.parametrize("J, message", [
    (np.array([-1.0, 0.3, -1.0, -1.0]), "row 1: 0.3 > 0"),
    (np.array([-1.0, -1.0]), "shape"),
    (np.array([-1.0, np.nan, -1.0, -1.0]), "NaN"),
])
def test_cll_loss_bad_input(J, message):
    with pytest.raises(MetricInputError, match=message):
        get_measure("cll_loss")(Y, J)


# ---- evaluate() ----------------------------------------------------------------------------------

def test_evaluate_thresholds_scores_at_one_half():
    out = evaluate(Y, scores=S)
    P = (S >= 0.5).astype(int)
    assert out["macro_f1"] == get_measure("macro_f1")(Y, P)
    assert out["ranking_loss"] == get_measure("ranking_loss")(Y, S)
    assert "cll_loss" not in out
    assert "exact_match" not in out  # an alias is not repeated in the default set
    assert set(out) == set(default_measures({"predictions", "scores"}))


def test_evaluate_given_predictions_win_over_threshold():
    P = np.zeros_like(Y)
    out = evaluate(Y, predictions=P, scores=S, measures=["micro_f1", "exact_match"])
    assert out == {"micro_f1": 0.0, "exact_match": 0.0}
    assert evaluate(Y, scores=S, threshold=0.0, measures=["micro_recall"]) == {"micro_recall": 1.0}


def test_evaluate_predictions_only_and_joint_only():
    assert not any(get_measure(n).needs == "scores" for n in evaluate(Y, predictions=Y))
    assert set(evaluate(Y, joint_log_proba=np.zeros(4))) == {"cll_loss", "cll_loss_mean"}


def test_evaluate_missing_input_and_unknown_name():
    with pytest.raises(ConfigError, match="needs scores"):
        evaluate(Y, predictions=Y, measures=["macro_auc"])
    with pytest.raises(ConfigError, match="needs joint"):
        evaluate(Y, scores=S, measures=["cll_loss"])
    with pytest.raises(ConfigError, match="did you mean 'macro_f1'"):
        evaluate(Y, scores=S, measures=["macro_f11"])
    with pytest.raises(MetricInputError, match="shape"):
        evaluate(Y, scores=S[:2])


# ---- mlbench evaluate ----------------------------------------------------------------------------

def write(path, rows, header=None):
    lines = ([",".join(header)] if header else []) + [",".join(str(v) for v in row) for row in rows]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_cli_json_matches_library(tmp_path, cli):
    y = write(tmp_path / "y.csv", Y.tolist(), header=["a", "b", "c"])
    s = write(tmp_path / "s.csv", S.tolist())
    code, out, _ = cli(["evaluate", "--truth", y, "--scores", s, "--format", "json"])
    assert code == 0
    assert json.loads(out) == pytest.approx(evaluate(Y, scores=S))


def test_cli_matches_columns_by_header(tmp_path, cli):
    y = write(tmp_path / "y.csv", Y.tolist(), header=["a", "b", "c"])
    s = write(tmp_path / "s.csv", S[:, [2, 0, 1]].tolist(), header=["c", "a", "b"])
    code, out, _ = cli(["evaluate", "--truth", y, "--scores", s, "--format", "json",
                        "--metric", "macro_auc,one_error"])
    assert code == 0
    assert json.loads(out) == pytest.approx(evaluate(Y, scores=S, measures=["macro_auc", "one_error"]))


def test_cli_terminal_table(tmp_path, cli):
    y = write(tmp_path / "y.csv", Y.tolist())
    p = write(tmp_path / "p.csv", Y.tolist())
    j = write(tmp_path / "j.csv", [[-0.5]] * 4)
    code, out, _ = cli(["evaluate", "--truth", y, "--predictions", p, "--joint", j])
    assert code == 0
    assert "hamming_loss" in out and "0.0000" in out and "cll_loss" in out and "2.0000" in out
    assert "macro_auc" not in out


def test_cli_json_nan_is_null(tmp_path, cli):
    y = write(tmp_path / "y.csv", [[1, 0], [1, 0]])
    s = write(tmp_path / "s.csv", [[0.5, 0.5], [0.5, 0.5]])
    code, out, _ = cli(["evaluate", "--truth", y, "--scores", s, "--format", "json", "--metric", "macro_auc"])
    assert code == 0 and json.loads(out) == {"macro_auc": None}


@pytest.mark.parametrize("truth, other, flag, message", [
    ([[1, 0], [0, 2]], [[0.1, 0.2], [0.3, 0.4]], "--scores", "y.csv: line 2, column 2: 2 is not 0 or 1"),
    ([[1, 0], [0, 1]], [[0.1, 0.2]], "--scores", "o.csv: 1 rows, but .*y.csv has 2"),
    ([[1, 0], [0, 1]], [[0.1], [0.3]], "--scores", "o.csv: 1 columns, but .*y.csv has 2"),
    ([[1, 0], [0, 1]], [[0.1, 0.2], [0.3, "nan"]], "--scores", "o.csv: line 2, column 2: missing value"),
    ([[1, 0], [0, 1]], [[0.1, 0.2], [0.3, "x"]], "--scores", "o.csv: line 2, column 2: 'x' is not a number"),
    ([[1, 0], [0, 1]], [[0.1, 0.2], [0.3, ""]], "--scores", "o.csv: line 2, column 2: missing value"),
    ([[1, 0], [0, 1]], [[1, 0], [0, 0.5]], "--predictions", "o.csv: line 2, column 2: 0.5 is not 0 or 1"),
    ([[1, 0], [0, 1]], [[0.1, 0.2, 0.3], [0.3, 0.4]], "--scores", "o.csv: .*line 2"),
    ([[1, 0], [0, 1]], [[-0.1], [0.2]], "--joint", "o.csv: line 2, column 1: a log-probability must be <= 0"),
])
def test_cli_bad_input_is_one_line_exit_2(tmp_path, cli, truth, other, flag, message):
    y = write(tmp_path / "y.csv", truth)
    (tmp_path / "o.csv").write_text("\n".join(",".join(str(v) for v in row) for row in other) + "\n")
    code, _, err = cli(["evaluate", "--truth", y, flag, str(tmp_path / "o.csv")])
    assert code == 2
    assert err.startswith("mlbench: error: ") and err.count("\n") == 1
    import re

    assert re.search(message, err), err


def test_cli_missing_and_empty_files(tmp_path, cli):
    none = tmp_path / "none.csv"
    code, _, err = cli(["evaluate", "--truth", none, "--scores", none])
    assert code == 2 and "none.csv: no such file" in err
    (tmp_path / "empty.csv").write_text("")
    empty = str(tmp_path / "empty.csv")
    code, _, err = cli(["evaluate", "--truth", empty, "--scores", empty])
    assert code == 2 and "empty.csv: empty file" in err
    y = write(tmp_path / "y.csv", [[1, 0]])
    code, _, err = cli(["evaluate", "--truth", y])
    assert code == 2 and "nothing to evaluate" in err


def test_cli_header_names_must_agree(tmp_path, cli):
    y = write(tmp_path / "y.csv", [[1, 0]], header=["a", "b"])
    s = write(tmp_path / "s.csv", [[0.1, 0.2]], header=["a", "z"])
    code, _, err = cli(["evaluate", "--truth", y, "--scores", s])
    assert code == 2 and "no column 'b'" in err


def test_metric_input_error_is_a_user_error():
    assert issubclass(MetricInputError, MlbenchError)


def test_cli_json_infinite_loss_is_a_string(tmp_path, cli):
    y = write(tmp_path / "y.csv", [[1, 0], [0, 1]])
    j = write(tmp_path / "j.csv", [["-inf"], [-0.5]])
    code, out, _ = cli(["evaluate", "--truth", y, "--joint", j, "--format", "json"])
    assert code == 0 and json.loads(out) == {"cll_loss": "inf", "cll_loss_mean": "inf"}
