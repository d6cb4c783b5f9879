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
    assert code == 1 and "FAILED   yeast / mlknn / macro_f1" in out


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


def test_missing_cells_are_not_regressions_unless_strict(reference, tmp_path, cli):
    """The README's example: a smaller new run than the reference is not a regression."""
    df = pd.read_csv(reference)
    new = write(tmp_path, df[df.dataset == "emotions"])
    code, out, _ = cli(["check", new, "--against", reference])
    assert code == 0 and "0 regressions, 4 missing" in out and "MISSING  yeast / br-lr" in out
    assert cli(["check", new, "--against", reference, "--strict"])[0] == 1


def test_a_worse_mean_inside_the_split_noise_is_not_a_regression(reference, tmp_path, cli):
    df = pd.read_csv(reference)
    noisy = df.copy()
    sel = (noisy.method == "mlknn") & (noisy.dataset == "yeast")
    noisy.loc[sel, "macro_f1"] += [0.10, -0.25, 0.06]       # mean 0.03 lower, splits disagree
    code, out, _ = cli(["check", write(tmp_path, noisy), "--against", reference])
    assert code == 0, out
    shifted = df.copy()
    shifted.loc[sel, "macro_f1"] -= [0.03, 0.031, 0.032]     # consistently lower
    code, out, _ = cli(["check", write(tmp_path, shifted), "--against", reference])
    assert code == 1 and "paired t-test p =" in out


def test_per_metric_tolerance_junit_and_annotations(reference, tmp_path, cli):
    import xml.etree.ElementTree as ET

    df = pd.read_csv(reference)
    df.loc[df.method == "mlknn", "macro_f1"] -= 0.03
    df = df[~((df.dataset == "yeast") & (df.method == "br-lr"))]
    new = write(tmp_path, df)
    junit = tmp_path / "check.xml"
    code, out, _ = cli(["check", new, "--against", reference, "--tolerance", "macro_f1=0.05",
                        "--junit", str(junit), "--annotations"])
    assert code == 0 and "::error" not in out
    code, out, _ = cli(["check", new, "--against", reference, "--tolerance", "0.05",
                        "--tolerance", "macro_f1=0.01", "--junit", str(junit), "--annotations"])
    assert code == 1 and out.count("::error file=") == 2
    suite = ET.parse(junit).getroot()
    assert suite.get("tests") == "8" and suite.get("failures") == "2" and suite.get("skipped") == "2"
    failing = [c.get("name") for c in suite if c.find("failure") is not None]
    assert sorted(failing) == ["emotions / mlknn / macro_f1", "yeast / mlknn / macro_f1"]
    code, _, err = cli(["check", new, "--against", reference, "--tolerance", "macro_f9=1"])
    assert code == 2 and "unknown metric" in err


def test_improvements_are_named_with_their_numbers(reference, tmp_path, cli):
    df = pd.read_csv(reference)
    df.loc[(df.method == "br-lr") & (df.dataset == "yeast"), "macro_f1"] += 0.05
    code, out, _ = cli(["check", write(tmp_path, df), "--against", reference])
    assert code == 0 and "1 improvements" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("BETTER"))
    assert line == "BETTER   yeast / br-lr / macro_f1: 0.6600 vs reference 0.6100 (better by 0.0500 > 0.02)"


@pytest.mark.parametrize("change, message", [
    (dict(protocol="soshf"), "protocol 'quick', the results 'soshf'"),
    (dict(seed=1), "seed 0, the results 1"),
    (dict(split_prefix="kfold-"), "split scheme r0, r1, r2, the results kfold"),
    (dict(n_train=70), "emotions r0 with 80 training / 20 test rows, the results 70 / 20"),
])
def test_a_foreign_reference_is_refused(reference, tmp_path, cli, change, message):
    """A reference of another protocol, seed or split rule was measured on other splits: exit 2,
    one line naming the difference, before any cell is compared."""
    ref = pd.read_csv(reference).assign(seed=0, n_train=80, n_test=20)
    ref.to_csv(reference, index=False)
    df = ref.copy()
    for key, value in change.items():
        if key == "split_prefix":
            df["split"] = value + df["split"]
        else:
            df[key] = value
    code, out, err = cli(["check", write(tmp_path, df), "--against", reference])
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert f"reference {reference} is not comparable: it has {message}" in err


def test_a_foreign_name_is_shown_escaped(reference, tmp_path, cli):
    df = pd.read_csv(reference)
    df["split"] = "\x1b[31mkfold-" + df["split"]
    code, _, err = cli(["check", write(tmp_path, df), "--against", reference])
    assert code == 2 and "\x1b" not in err and "'\\x1b[31mkfold'" in err
