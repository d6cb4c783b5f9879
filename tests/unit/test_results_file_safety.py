"""The results file is sacred (issue 18, part 3): a file that is not a results file is refused
untouched, unreadable lines are reported by line number and kept in a backup, a symbolic link is
written through, special files are refused, and a long field or a bare CR is no traceback."""
import os

import pytest

from mlbench.errors import ConfigError
from mlbench.experiment.store import ResultsStore, read_rows

HEADER = "dataset,method,protocol,split,repeat,fold,seed,status,error,macro_f1,params,extra\n"


def row(method, value="0.5", extra=""):
    return f"d,{method},p,s0,0,,0,ok,,{value},,{extra}\n"


def test_a_foreign_file_is_refused_and_left_as_it_was(tmp_path, cli):
    out = tmp_path / "notes.csv"
    out.write_text("name,phone\nAda,123\n")
    before = out.read_bytes()
    with pytest.raises(ConfigError, match="not an mlbench results file .* nothing was changed"):
        ResultsStore(out, ["macro_f1"])
    assert out.read_bytes() == before
    code, _, err = cli(["run", "-p", "quick", "-d", "emotions", "-m", "br-lr", "-o", str(out), "-q"])
    assert code == 2 and "not an mlbench results file" in err and out.read_bytes() == before


def test_unreadable_lines_are_reported_skipped_and_kept_in_a_backup(tmp_path):
    out = tmp_path / "r.csv"
    text = (HEADER + row("a") + 'd,b,p,s0,0,,0,ok,,"0.5\rx\n' + row("c", extra="x" * 200_000)
            + row("e") + "d,f,p,s0\n" + row("g") + "d,h,p,s0,0,")
    out.write_bytes(text.encode())
    problems = []
    header, rows, repaired = read_rows(str(out), problems)
    assert [r["method"] for r in rows][0] == "a" and "g" in [r["method"] for r in rows]
    assert "c" in [r["method"] for r in rows]                 # a 200 kB field is read, not an error
    assert repaired == len(problems) >= 2
    assert any(p.startswith("line 8: incomplete last line") for p in problems)
    store = ResultsStore(out, ["macro_f1"])
    store.close()
    assert store.backup and open(store.backup, "rb").read() == text.encode()   # nothing lost
    assert "g" in open(out).read() and store.problems == problems


def test_a_symlinked_results_file_is_written_through(tmp_path):
    real = tmp_path / "store" / "real.csv"
    real.parent.mkdir()
    real.write_text(HEADER + row("a"))
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    store = ResultsStore(link, ["macro_f1", "micro_f1"])      # a new column: an atomic rewrite
    store.close()
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert "micro_f1" in real.read_text().splitlines()[0]


@pytest.mark.parametrize("kind", ["dir", "fifo", "device"])
def test_special_files_are_refused(tmp_path, kind):
    if kind == "dir":
        target = tmp_path / "d"
        target.mkdir()
    elif kind == "fifo":
        target = tmp_path / "f"
        os.mkfifo(target)
    else:
        target = "/dev/null"
    with pytest.raises(ConfigError, match="not a regular file"):
        ResultsStore(target, ["macro_f1"])


def test_a_refused_file_leaves_no_lock_behind(tmp_path):
    out = tmp_path / "notes.csv"
    out.write_text("name,phone\n")
    for _ in range(2):                      # the second attempt is not "another run is writing"
        with pytest.raises(ConfigError, match="not an mlbench results file"):
            ResultsStore(out, ["macro_f1"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.csv"]


def test_deleting_the_lock_file_does_not_let_a_second_run_in(tmp_path, lock_holder):
    """Issue 18: the lock holds on the results file's name, not only on <file>.lock."""
    out = tmp_path / "r.csv"
    with lock_holder(out):
        os.unlink(f"{out}.lock")
        with pytest.raises(ConfigError, match="another mlbench run is writing"):
            ResultsStore(out, ["macro_f1"])
        link = tmp_path / "link.csv"                  # the same file by another name
        link.symlink_to(out)
        with pytest.raises(ConfigError, match="another mlbench run is writing"):
            ResultsStore(link, ["macro_f1"])
    ResultsStore(out, ["macro_f1"]).close()           # the holder died: the lock went with it


def test_a_full_disk_or_read_only_directory_is_one_line_and_keeps_the_rows(tmp_path, monkeypatch):
    import errno

    out = tmp_path / "r.csv"
    out.write_text(HEADER + row("a"))
    store = ResultsStore(out, ["macro_f1"])
    real_write = os.write

    def full(fd, data):
        real_write(fd, data[:10])             # part of the line, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(ConfigError, match=r"cannot write .*No space left on device \(ENOSPC\); "
                                          "the rows written before are kept"):
        store.append({"dataset": "d", "method": "b", "protocol": "p", "split": "s0", "seed": 0,
                      "status": "ok", "macro_f1": 0.6})
    monkeypatch.undo()
    store.close()
    header, rows, repaired = read_rows(str(out))
    assert [r["method"] for r in rows] == ["a"] and repaired == 1     # the torn line is cut



def test_a_read_only_file_system_is_one_line_and_leaves_the_file(tmp_path, monkeypatch):
    import errno

    out = tmp_path / "r.csv"
    out.write_text(HEADER + row("a"))

    def refuse(src, dst):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(ConfigError, match=r"cannot write .*Read-only file system \(EROFS\)"):
        ResultsStore(out, ["macro_f1", "micro_f1"])          # a new column: an atomic rewrite
    monkeypatch.undo()
    assert out.read_text() == HEADER + row("a")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]    # no temp file, no lock left


HOSTILE_EXTRAS = ["", "not json", "[1, 2]", '"text"', "null", "[" * 100_000 + "]" * 100_000,
                  '{"search": [1]}', '{"search": {"seconds_used": "many"}}',
                  '{"search": {"seconds_used": Infinity}}', '{"search": {"seconds_used": true}}',
                  '{"degenerate": 3, "layers": [], "data_spec": null}']


@pytest.mark.parametrize("text", HOSTILE_EXTRAS + [None, 3.5])
def test_json_object_is_a_dict_or_none_for_any_cell(text):
    from mlbench.results_file import json_object

    value = json_object(text)
    assert value is None or isinstance(value, dict)
    assert json_object('{"a": 1}') == {"a": 1} and json_object({"b": 2}) == {"b": 2}


def test_every_reader_of_extra_takes_a_hostile_cell_as_absent():
    """One parser (:func:`mlbench.results_file.json_object`) behind every reader of ``extra``:
    a cell that is not a JSON object, or holds the wrong types, counts as no information."""
    import pandas as pd

    from mlbench.experiment.costs import search_seconds
    from mlbench.experiment.provenance import recorded_identity
    from mlbench.report.prepare import degenerate_notes
    from mlbench.report.tuning import grid_edge_counts
    from mlbench.stats.bootstrap import _extra

    frame = pd.DataFrame({"method": "m", "dataset": "d", "params": '{"C": [1, 2]}',
                          "extra": HOSTILE_EXTRAS})
    assert search_seconds(frame).tolist() == [0.0] * len(HOSTILE_EXTRAS)
    assert degenerate_notes(frame) == [] and grid_edge_counts(frame) == {}
    for text in HOSTILE_EXTRAS:
        assert recorded_identity({"extra": text})["protocol_spec"] == ""
        assert _extra({"extra": text}) is None or isinstance(_extra({"extra": text}), dict)
    good = pd.DataFrame({"method": "m", "dataset": "d", "params": "",
                         "extra": ['{"search": {"seconds_used": 2.5}, "degenerate": "constant"}']})
    assert search_seconds(good).tolist() == [2.5]
    assert degenerate_notes(good) == ["m: constant on d (1 of 1 splits): its outputs there do not "
                                      "depend on the features"]
