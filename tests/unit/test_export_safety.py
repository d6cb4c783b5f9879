"""Issue 41, item 5: no export can be turned against its reader.

A results file may come from anyone; its method and dataset names reach every export.  Each format
is rendered from a results file whose names carry a spreadsheet formula, HTML/script payloads,
terminal escape sequences (a terminated OSC 8 hyperlink, an unterminated OSC title, an 8-bit CSI)
and a markdown-table ``|``.
"""
import csv
import io
import json

import numpy as np
import pandas as pd
import pytest

from mlbench.report.build import make_report
from mlbench.report.formats import FORMATS, csv_cell, plain

METHODS = ['=HYPERLINK("http://x","y")', "<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
           "osc\x1b]8;;http://x\x07link", "title\x1b]0;pwned", "c1\x9b31mred|pipe"]
DATASETS = ["@SUM(1+1)", "+cmd|x", "-2+3"]
CONTROL = ["\x1b", "\x07", "\x9b", "\x9d"]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    rng = np.random.default_rng(0)
    rows = [dict(dataset=d, method=m, protocol="toy", split=f"r{s}", status="ok", n_train=10,
                 n_test=10, macro_f1=0.5 + 0.05 * i + 0.01 * rng.standard_normal())
            for d in DATASETS for i, m in enumerate(METHODS) for s in range(3)]
    path = tmp_path_factory.mktemp("payload") / "results.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _report(path, fmt):
    text, _, _ = make_report([path], fmt=fmt, stats=["friedman"], control=METHODS[1], width=400)
    return text


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_control_sequence_reaches_the_reader(results, fmt):
    text = _report(results, fmt)
    for ch in CONTROL:
        assert ch not in text, (fmt, repr(ch))
    if fmt not in ("json", "html"):  # (json keeps names exactly; the dashboard's figures keep
        assert "pwned" not in text   # the inert text of a sequence, without its control bytes)


def test_csv_neutralises_formulas_and_keeps_numbers(results):
    rows = list(csv.reader(io.StringIO(_report(results, "csv"))))
    cells = [c for r in rows[1:] for c in r]
    assert "'=HYPERLINK(\"http://x\",\"y\")" in cells and "'@SUM(1+1)" in cells
    assert "'+cmd|x" in cells and "'-2+3" in cells
    for c in cells:
        if c[:1] in ("=", "+", "-", "@", "\t", "\r"):
            float(c)                 # only a number may start so, and it stays a number
    values = [r[5] for r in rows[1:] if r[5]]
    assert values and all(isinstance(float(v), float) for v in values)


def test_csv_cell_rule():
    assert csv_cell("-0.5") == "-0.5" and csv_cell("+1e3") == "+1e3" and csv_cell("-∞") == "-∞"
    assert csv_cell("=1+1") == "'=1+1" and csv_cell("@x") == "'@x" and csv_cell("-x") == "'-x"
    assert csv_cell("\t=cmd") == "' =cmd" and csv_cell("\r+1 x") == "' +1 x"
    assert csv_cell("  =cmd") == "'  =cmd"
    assert csv_cell("plain") == "plain" and csv_cell(3) == 3


def test_markdown_escapes_html_and_pipes(results):
    text = _report(results, "markdown")
    assert "<script" not in text and "<img" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    tables = [[line for line in block.splitlines() if line.startswith("|")]
              for block in text.split("\n\n")]
    for table in filter(None, tables):  # every row has its header's number of cells
        assert len({len(line.replace("\\|", "").split("|")) for line in table}) == 1, table


def test_html_and_dashboard_escape_everything(results):
    text = _report(results, "html")
    assert "<script>alert" not in text and "<img src=x" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text


def test_latex_escapes(results):
    text = _report(results, "latex")
    assert "<script>" not in text and "$<$script$>$alert(1)$<$/script$>$" in text


def test_terminal_shows_names_without_their_escapes(results):
    text = _report(results, "terminal")
    assert "osc" in text and "link" in text and "title" in text and "c1red|pipe" in text


def test_json_keeps_the_names_exactly(results):
    text = _report(results, "json")
    doc = json.loads(text)
    assert set(METHODS) <= set(doc["metrics"]["macro_f1"]["methods"])


def test_plain_strips_every_kind_of_sequence():
    assert plain("a\x1b[31mred\x1b[0m") == "ared"
    assert plain("x\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\") == "xlink"
    assert plain("x\x1bP1;2|data\x1b\\y") == "xy"                     # DCS
    assert plain("x\x1b(0y\x1b7z") == "xyz"                            # charset, save cursor
    assert plain("a\tb\nc\rd\x00e\x7f\u202ef") == "a b c de" + "f"
    assert plain("x\x1b") == "x" and plain("x\x1b[") == "x"           # truncated


def test_check_lines_and_junit_carry_no_control_sequence():
    import xml.dom.minidom

    from mlbench.report.check import CheckResult, Difference, annotation, describe, junit_xml

    d = Difference(DATASETS[0], METHODS[3] + METHODS[4], "macro_f1", 0.8, 0.7, 0.1)
    lines = [describe(d, 0.02), annotation(d, 0.02, "new.csv")]
    xml_text = junit_xml(CheckResult(regressions=[d], compared=1, cases=[d]), 0.02, {})
    for text in lines + [xml_text]:
        assert not any(ch in text for ch in CONTROL)
    assert "osclink" in lines[0]
    xml.dom.minidom.parseString(xml_text)          # still well-formed XML
