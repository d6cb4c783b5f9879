import json

from mlbench.methods import registry


def test_methods_json_lists_every_registered_method(cli):
    code, out, _ = cli(["methods", "--format", "json"])
    assert code == 0
    records = json.loads(out)
    assert [r["name"] for r in records] == [s.name for s in registry.all_methods()]
    for r in records:
        assert set(r) >= {"name", "family", "paper", "description", "parameters"}
        assert "random_state" not in r["parameters"]


def test_methods_filters_and_terminal_table(cli):
    specs = registry.all_methods()
    assert specs, "no method is registered"
    family = specs[0].family
    code, out, _ = cli(["methods", "--family", family, "--format", "json"])
    assert code == 0 and {r["family"] for r in json.loads(out)} == {family}
    code, out, _ = cli(["methods", "--paper", "platform", "--format", "json"])
    assert code == 0 and {r["paper"] for r in json.loads(out)} <= {"platform"}
    code, out, _ = cli(["methods"])
    assert code == 0 and specs[0].name in out


def test_methods_unknown_filter_is_one_line_exit_2(cli):
    code, out, err = cli(["methods", "--family", "no-such-family"])
    assert code == 2 and err.startswith("mlbench: error: unknown family") and err.count("\n") == 1
    code, _, err = cli(["methods", "--paper", "nobody"])
    assert code == 2 and "unknown paper" in err


def test_methods_fit_80_columns_and_a_method_has_its_page(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = cli(["methods"])
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 80
    from mlbench.methods import registry

    n_methods = len(registry.all_methods())                  # one line per method, no wrapping
    assert len(out.splitlines()) == n_methods + 1 and out.startswith(f"{n_methods} method(s)")
    code, out, _ = cli(["methods", "pcc"])
    assert code == 0 and "select_C_on = 'own'" in out and "class mlbench.methods" in out
    assert "Mixtures-of-Trees" in out
    code, _, err = cli(["methods", "pccc"])
    assert code == 2 and "did you mean 'pcc'" in err


def test_method_page_gives_measured_costs_by_dataset(cli):
    """``methods NAME``: the cost of its cells in results/papers, one line per dataset (sorted)."""
    code, out, err = cli(["methods", "mc"])
    assert code == 0, err
    lines = out.split("measured cost in results/papers", 1)[1].splitlines()[1:]
    names = [ln.split()[0] for ln in lines if ln.startswith("  ")]
    assert "emotions" in names and "enron" in names
    assert names == sorted(names, key=str.lower)
    assert all("(mc)" in ln and " s " in ln for ln in lines if ln.startswith("  "))
