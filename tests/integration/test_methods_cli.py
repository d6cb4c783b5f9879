import json

import pytest

from mlbench.cli import main
from mlbench.methods import registry


def run_cli(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_methods_json_lists_every_registered_method(capsys):
    code, out, _ = run_cli(["methods", "--format", "json"], capsys)
    assert code == 0
    records = json.loads(out)
    assert [r["name"] for r in records] == [s.name for s in registry.all_methods()]
    for r in records:
        assert set(r) >= {"name", "family", "paper", "description", "parameters"}
        assert "random_state" not in r["parameters"]


def test_methods_filters_and_terminal_table(capsys):
    specs = registry.all_methods()
    assert specs, "no method is registered"
    family = specs[0].family
    code, out, _ = run_cli(["methods", "--family", family, "--format", "json"], capsys)
    assert code == 0 and {r["family"] for r in json.loads(out)} == {family}
    code, out, _ = run_cli(["methods", "--paper", "platform", "--format", "json"], capsys)
    assert code == 0 and {r["paper"] for r in json.loads(out)} <= {"platform"}
    code, out, _ = run_cli(["methods"], capsys)
    assert code == 0 and specs[0].name in out


def test_methods_unknown_filter_is_one_line_exit_2(capsys):
    code, out, err = run_cli(["methods", "--family", "no-such-family"], capsys)
    assert code == 2 and err.startswith("mlbench: error: unknown family") and err.count("\n") == 1
    code, _, err = run_cli(["methods", "--paper", "nobody"], capsys)
    assert code == 2 and "unknown paper" in err
