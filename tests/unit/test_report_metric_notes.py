"""``metric_notes``: the notes of several metric analyses, one line per distinct note."""
from types import SimpleNamespace

from mlbench.report.styles.common import metric_notes


def analysis(metric, *notes):
    return SimpleNamespace(metric=metric, notes=list(notes))


def test_same_note_of_several_metrics_is_one_line_naming_them_in_order():
    metrics = [analysis("micro_f1", "no dataset has two common splits", "d1 left out"),
               analysis("macro_f1", "no dataset has two common splits"),
               analysis("h_f1")]
    assert metric_notes(metrics) == ["micro_f1, macro_f1: no dataset has two common splits",
                                     "micro_f1: d1 left out"]


def test_skipped_prefixes_are_left_out():
    metrics = [analysis("micro_f1", "no dataset has two common splits", "d1 left out"),
               analysis("macro_f1", "no dataset has two common splits")]
    assert metric_notes(metrics, skip=("no dataset has two",)) == ["micro_f1: d1 left out"]
    assert metric_notes([analysis("te")]) == []
