"""The end-of-run summary: sorted by dataset then method whatever the completion order, one table
whose columns are the same for every dataset."""
from mlbench.experiment.summary import print_summary, summary_tables


def _rows(order):
    rows = []
    for dataset, method, split, status, value in order:
        rows.append(dict(dataset=dataset, method=method, split=split, status=status,
                         macro_f1=value if status == "ok" else None,
                         hamming_loss=1 - value if status == "ok" else None))
    return rows


CELLS = [("yeast", "mlknn", "r0", "ok", 0.4), ("Emotions", "br-lr", "r0", "ok", 0.6),
         ("yeast", "br-lr", "r0", "error", 0.0), ("Emotions", "br-lr", "r1", "ok", 0.8),
         ("emotions-x", "cc", "r0", "ok", 0.5), ("yeast", "br-lr", "r1", "ok", 0.3)]


def test_rows_sorted_by_dataset_then_method_in_one_table():
    tables = summary_tables(_rows(CELLS), ["macro_f1", "hamming_loss"])
    assert len(tables) == 1
    t = tables[0]
    assert t.columns == ["method", "macro_f1 ↑", "hamming_loss ↓", "splits", "failed"]
    assert [(r.group, r.label) for r in t.rows] == [
        ("Emotions", "br-lr"), ("emotions-x", "cc"), ("yeast", "br-lr"), ("yeast", "mlknn")]
    assert [c.text for c in t.rows[0].cells] == ["0.7000", "0.3000", "2", "0"]
    assert [c.text for c in t.rows[2].cells] == ["0.3000", "0.7000", "1", "1"]


def test_completion_order_does_not_change_the_printed_summary(capsys):
    print_summary(_rows(CELLS), ["macro_f1", "hamming_loss"], width=100)
    first = capsys.readouterr().out
    print_summary(_rows(list(reversed(CELLS))), ["macro_f1", "hamming_loss"], width=100)
    assert capsys.readouterr().out == first and "emotions-x" in first
