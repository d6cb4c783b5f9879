"""``mlbench check``: exit 0 on the reference itself, 1 on a regression, 2 on bad input."""
import pandas as pd
import pytest


# toy reference: 2 datasets x 2 methods x 3 splits, a score (macro_f1) and a loss (hamming_loss)
ROWS = [dict(dataset=d, method=m, protocol="quick", split=f"r{s}", status="ok",
             macro_f1=0.5 + 0.1 * i + 0.05 * j + 0.01 * s, hamming_loss=0.2 - 0.02 * j + 0.005 * s)
        for i, d in enumerate(["emotions", "yeast"]) for j, m in enumerate(["br-lr", "mlknn"]) for s in range(3)]


@pytest.fixture
def reference(tmp_path):
    path = tmp_path / "reference.csv"
    pd.DataFrame(ROWS).to_csv(path, index=False)
    return path


def write(tmp_path, frame):
    path = tmp_path / "new.csv"
    frame.to_csv(path, index=False)
    return path


def test_identical_results_pass(reference, cli):
    code, out, _ = cli(["check", reference, "--against", reference])
    assert code == 0
    assert "8 cells compared, 0 regressions" in out


def test_one_method_made_worse_fails(reference, tmp_path, cli):
    df = pd.read_csv(reference)
    df.loc[df.method == "mlknn", "macro_f1"] -= 0.05
    code, out, _ = cli(["check", write(tmp_path, df), "--against", reference])
    assert code == 1
    assert out.count("WORSE") == 2 and "mlknn / macro_f1" in out and "br-lr" not in out


def test_loss_direction(reference, tmp_path, cli):
    df = pd.read_csv(reference)
    df.loc[df.method == "br-lr", "hamming_loss"] -= 0.05  # lower loss: an improvement
    code, out, _ = cli(["check", write(tmp_path, df), "--against", reference])
    assert code == 0 and "2 improvements" in out
    df.loc[df.method == "br-lr", "hamming_loss"] += 0.10  # now 0.05 higher than the reference
    code, out, _ = cli(["check", write(tmp_path, df), "--against", reference])
    assert code == 1 and "br-lr / hamming_loss" in out


def test_tolerance(reference, tmp_path, cli):
    df = pd.read_csv(reference)
    df.loc[df.method == "mlknn", "macro_f1"] -= 0.015
    new = write(tmp_path, df)
    assert cli(["check", new, "--against", reference])[0] == 0
    assert cli(["check", new, "--against", reference, "--tolerance", "0.01"])[0] == 1


def test_failed_method_is_a_regression(reference, tmp_path, cli):
    df = pd.read_csv(reference)
    df.loc[(df.method == "mlknn") & (df.dataset == "yeast"), "status"] = "error"
    code, out, _ = cli(["check", write(tmp_path, df), "--against", reference])
    assert code == 1 and "MISSING  yeast / mlknn / macro_f1" in out


@pytest.mark.parametrize("argv, message", [
    (["--tolerance", "-1"], "--tolerance must be non-negative"),
    (["--metric", "macro_f2"], "unknown metric"),
])
def test_bad_input_exits_2(reference, cli, argv, message):
    code, _, err = cli(["check", reference, "--against", reference] + argv)
    assert code == 2 and message in err and err.count("\n") == 1


def test_malformed_reference_exits_2(reference, tmp_path, cli):
    bad = tmp_path / "bad.csv"
    bad.write_text("dataset,method,split,macro_f1\nd,m,r0,oops\n")
    code, _, err = cli(["check", reference, "--against", bad])
    assert code == 2 and "non-number" in err
