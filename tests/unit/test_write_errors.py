"""Issue 42, item 4: every file a command writes is written atomically, and a full disk or a
read-only file system is one line on stderr naming the file, exit status 2 -- never a traceback,
a temporary file left behind or a file half-written.

Each writer meets a real read-only tmpfs and a real full one (the ``mounts`` fixture of
conftest.py; a read-only test is skipped where mounting is not allowed, a full-disk test then
makes the flushes of files under the directory fail with ENOSPC instead).
"""
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

KINDS = ("read_only", "full")
REASON = {"read_only": "Read-only file system (EROFS)", "full": "No space left on device (ENOSPC)"}


def one_line(code, err, path, kind):
    """Exit 2 and exactly one line on stderr naming ``path`` and the reason."""
    assert code == 2, err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith(f"mlbench: error: cannot write {path}"), err
    assert REASON[kind] in err and "Traceback" not in err


def temp_files(*roots):
    """Temporary files (``NAME.tmpXXXX``) left under ``roots``."""
    return [p for root in roots for p in Path(root).rglob("*") if ".tmp" in p.name]


def snapshot(root):
    return {p.relative_to(root): p.read_bytes() for p in sorted(Path(root).rglob("*")) if p.is_file()}


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("MLBENCH_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("MLBENCH_MIRROR", raising=False)
    monkeypatch.setenv("COLUMNS", "120")
    return tmp_path / "data"


# -- run: the results file, its lock, <out>.splits/ and <out>.predictions/ ---------------------------
@pytest.fixture
def grid(tmp_path):
    """A 40-row user dataset and a one-split protocol; ``grid.run(out, *more)`` runs it."""
    rng = np.random.default_rng(0)
    lines = ["@relation toy", "@attribute f1 numeric", "@attribute f2 numeric",
             "@attribute L1 {0,1}", "@attribute L2 {0,1}", "@data"]
    for _ in range(40):
        x = rng.normal(size=2)
        lines.append(f"{x[0]:.4f},{x[1]:.4f},{int(x[0] > 0)},{int(x[1] > 0)}")
    (tmp_path / "toy.arff").write_text("\n".join(lines) + "\n")
    proto = tmp_path / "w.yaml"
    proto.write_text(yaml.safe_dump({
        "name": "w", "split": {"scheme": "holdout", "train_fraction": 0.5, "repeats": 1}, "seed": 0,
        "metrics": ["hamming_loss"], "datasets": [f"{tmp_path / 'toy.arff'}@2"], "methods": ["br-lr"]}))

    class Grid:
        def argv(self, out, *more):
            return ["run", "-p", proto, "-o", out, "-j", "1", "-q", *more]

        def done(self, cli, methods="br-lr"):
            """A finished run's results file and splits, in a writable folder."""
            out = tmp_path / "done" / "r.csv"
            code, _, err = cli(self.argv(out, "-m", methods))
            assert code == 0, err
            return out

    return Grid()


def copy_results(done, splits=True, csv=True):
    def fill(folder):
        if csv:
            shutil.copy(done, Path(folder) / "r.csv")
        if splits:
            shutil.copytree(f"{done}.splits", Path(folder) / "r.csv.splits")
    return fill


@pytest.mark.parametrize("kind", KINDS)
def test_run_on_an_unwritable_out_is_one_line_and_changes_nothing(kind, grid, cli, mounts, tmp_path):
    done = grid.done(cli)
    folder = getattr(mounts, kind)(tmp_path / "out", copy_results(done, splits=False))
    before = snapshot(folder)
    code, _, err = cli(grid.argv(folder / "r.csv", "-m", "br-lr,mlknn"))
    # read-only: the lock cannot be made; full: the lock is (an empty file), the splits are not
    where = folder / ("r.csv.lock" if kind == "read_only" else "r.csv.splits")
    one_line(code, err, where, kind)
    assert not temp_files(folder)
    after = snapshot(folder)
    assert after.pop(Path("r.csv.lock"), b"") == b"" and after == before


def page_sized(done):
    """``done``'s rows plus a failed row of another dataset, padded to 4096 bytes: one full
    tmpfs page, so that appending a line needs a new block."""
    import csv
    import io

    text = done.read_text()
    header = next(csv.reader([text.splitlines()[0]]))
    pad = {"dataset": "other", "method": "br-lr", "protocol": "w", "split": "holdout-r00",
           "seed": "0", "status": "error", "error": ""}
    line = io.StringIO()
    csv.writer(line, lineterminator="\n").writerow([pad.get(c, "") for c in header])
    pad["error"] = "x" * (4096 - len(text) - len(line.getvalue()))
    line = io.StringIO()
    csv.writer(line, lineterminator="\n").writerow([pad.get(c, "") for c in header])
    text += line.getvalue()
    assert len(text.encode()) == 4096
    return text


@pytest.mark.parametrize("kind", KINDS)
def test_run_appending_to_a_full_or_read_only_out_is_one_line(kind, grid, cli, mounts, tmp_path):
    done = grid.done(cli)
    text = page_sized(done)

    def fill(folder):
        copy_results(done, csv=False)(folder)
        (folder / "r.csv").write_text(text)

    folder = getattr(mounts, kind)(tmp_path / "out", fill)
    code, _, err = cli(grid.argv(folder / "r.csv", "-m", "br-lr,mlknn"))
    one_line(code, err, folder / ("r.csv.lock" if kind == "read_only" else "r.csv:"), kind)
    if kind == "full":                           # mlknn's row could not be appended
        assert "the rows written before are kept" in err
    assert (folder / "r.csv").read_text() == text and not temp_files(folder)


@pytest.mark.parametrize("kind", KINDS)
def test_run_starting_a_results_file_on_a_full_or_read_only_out(kind, grid, cli, mounts, tmp_path):
    folder = getattr(mounts, kind)(tmp_path / "out")
    code, _, err = cli(grid.argv(folder / "r.csv"))
    # read-only: the lock; full: the header of the new file (written atomically)
    one_line(code, err, folder / ("r.csv.lock" if kind == "read_only" else "r.csv:"), kind)
    assert not (folder / "r.csv").exists() and not temp_files(folder)


@pytest.mark.parametrize("kind", KINDS)
def test_run_with_every_cell_done_needs_no_writable_out(kind, grid, cli, mounts, tmp_path):
    """Issue 42: ``run --out`` on a read-only file system, even with every cell done."""
    done = grid.done(cli)
    folder = getattr(mounts, kind)(tmp_path / "out", copy_results(done))
    before = snapshot(folder)
    # full: a new metric column would need a rewrite; with nothing to run it is not made
    more = ("--protocol", _with_metrics(tmp_path, "hamming_loss", "micro_f1")) if kind == "full" else ()
    code, _, err = cli(grid.argv(folder / "r.csv", *more))
    assert code == 0, err
    assert "0 cell(s) run, 1 already done" in err and "Traceback" not in err
    after = snapshot(folder)
    assert after.pop(Path("r.csv.lock"), b"") == b"" and after == before


def _with_metrics(tmp_path, *metrics):
    spec = yaml.safe_load((tmp_path / "w.yaml").read_text())
    spec["metrics"] = list(metrics)
    path = tmp_path / "w2.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.mark.parametrize("kind", KINDS)
def test_run_splits_folder_full_or_read_only(kind, grid, cli, mounts, tmp_path):
    out = tmp_path / "out" / "r.csv"
    splits = getattr(mounts, kind)(tmp_path / "out" / "r.csv.splits")
    code, _, err = cli(grid.argv(out))
    one_line(code, err, splits / "w-toy-seed0.npz", kind)
    assert not temp_files(splits) and len(out.read_text().splitlines()) == 1   # nothing ran


@pytest.mark.parametrize("kind", KINDS)
def test_run_predictions_folder_full_or_read_only_stops_the_run(kind, grid, cli, mounts, tmp_path):
    out = tmp_path / "out" / "r.csv"
    preds = getattr(mounts, kind)(tmp_path / "out" / "r.csv.predictions")
    code, _, err = cli(grid.argv(out, "-m", "br-lr,mlknn", "--save-predictions"))
    one_line(code, err, preds / "w__toy__", kind)
    assert "or run without --save-predictions" in err
    assert not temp_files(preds) and not list(preds.glob("*.npz"))
    rows = pd.read_csv(out)                 # the cell's row says why; a rerun retries it
    assert list(rows.status) == ["error"] and rows.error[0].startswith("WriteError: cannot write")


# -- datasets: the embedded copy, downloads, the parsed cache ------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_embedded_emotions_into_a_full_or_read_only_data_dir(kind, cli, mounts, tmp_path, monkeypatch):
    data = getattr(mounts, kind)(tmp_path / "ro-data")
    monkeypatch.setenv("MLBENCH_DATA", str(data))
    code, _, err = cli(["info", "emotions"])
    one_line(code, err, data / "files", kind)
    assert "set MLBENCH_DATA (or pass --data-dir) to a writable folder" in err
    assert not temp_files(data)


TOY_ARFF = b"@relation toy\n@attribute f1 numeric\n@attribute L1 {0,1}\n@attribute L2 {0,1}\n" \
           b"@data\n0.5,1,0\n1.5,0,1\n2.5,1,1\n"
TOY_XML = (b'<?xml version="1.0"?><labels xmlns="http://mulan.sourceforge.net/labels">'
           b'<label name="L1"/><label name="L2"/></labels>')


def add_toy(monkeypatch, mirror):
    """Register dataset 'toy' whose files are in the mirror folder ``mirror``."""
    import hashlib

    import mlbench.data.registry as reg
    from mlbench.data.registry import DatasetEntry, FileEntry

    (mirror / "example.org" / "toy").mkdir(parents=True)
    files = []
    for role, name, data in (("full", "toy.arff", TOY_ARFF), ("labels-xml", "toy.xml", TOY_XML)):
        (mirror / "example.org" / "toy" / name).write_bytes(data)
        files.append(FileEntry(role, f"https://example.org/toy/{name}",
                               hashlib.sha256(data).hexdigest()))
    table = dict(reg.registry())
    table["toy"] = DatasetEntry(name="toy", format="mulan", domain="test",
                                published={"instances": 3, "features": 1, "labels": 2},
                                files=tuple(files))
    monkeypatch.setattr(reg, "registry", lambda: table)


@pytest.fixture
def http_mirror(tmp_path, monkeypatch):
    """A local HTTP server over ``tmp_path / "www"``, holding the files of dataset 'toy'."""
    import functools
    import http.server
    import threading

    add_toy(monkeypatch, tmp_path / "www")
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(tmp_path / "www"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    for var in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setattr("mlbench.data.fetch.RETRIES", 0)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.parametrize("kind", KINDS)
def test_download_into_a_full_or_read_only_data_dir(kind, cli, mounts, tmp_path, monkeypatch,
                                                    http_mirror):
    data = getattr(mounts, kind)(tmp_path / "ro-data")
    if not mounts.real:
        pytest.skip("pooch writes a download without fsync: only a real full disk shows it")
    monkeypatch.setenv("MLBENCH_DATA", str(data))
    code, _, err = cli(["fetch", "toy", "--mirror", http_mirror])
    one_line(code, err, data / "files" / "example.org" / "toy", kind)
    assert not [p for p in data.rglob("*") if p.name != "filler" and p.is_file()]


@pytest.mark.parametrize("kind", KINDS)
def test_a_cache_that_cannot_be_written_is_one_note_and_the_command_goes_on(kind, cli, mounts,
                                                                           tmp_path, monkeypatch):
    """The parsed cache only saves time: a data directory that cannot hold it is a note (one
    line naming the file), not an error; the files themselves are read from the mirror."""
    add_toy(monkeypatch, tmp_path / "mirror")
    data = getattr(mounts, kind)(tmp_path / "ro-data")
    monkeypatch.setenv("MLBENCH_DATA", str(data))
    code, out, err = cli(["info", "toy", "--mirror", tmp_path / "mirror"])
    assert code == 0, err
    assert err.count("\n") == 1 and err.startswith(
        f"mlbench: note: toy parsed but not cached (cannot write {data / 'toy.npz'}: {REASON[kind]}")
    assert not temp_files(data) and not (data / "toy.npz").exists()


# -- reports, pictures, tables -----------------------------------------------------------------------
@pytest.fixture
def results(tmp_path):
    rows = [dict(dataset=f"d{d}", method=m, protocol="x", split=f"r{s}", seed=0, status="ok",
                 macro_f1=v + 0.02 * d + 0.01 * s, fit_seconds=t, predict_seconds=t / 10,
                 peak_memory_mb=10.0)
            for d in range(3) for s in range(3)
            for m, v, t in (("a", 0.5, 0.1), ("b", 0.7, 10.0), ("c", 0.4, 20.0))]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _existing(name, text):
    def fill(folder):
        (Path(folder) / name).write_text(text)
    return fill


WRITERS = {   # name -> (argv with OUT for the target file, file name, what a user changes)
    "report -o": (["report", "RESULTS", "--format", "markdown", "-o", "OUT"], "t.md"),
    "report html -o": (["report", "RESULTS", "--format", "html", "-o", "OUT"], "t.html"),
    "report --cd-diagram": (["report", "RESULTS", "--cd-diagram", "OUT"], "cd.svg"),
    "costs -o": (["costs", "RESULTS", "-o", "OUT"], "COSTS.md"),
    "check --junit": (["check", "RESULTS", "--against", "RESULTS", "--junit", "OUT"], "j.xml"),
    "protocol new -o": (["protocol", "new", "mine", "--from", "quick", "-o", "OUT"], "mine.yaml"),
    "reproduction --out": (["reproduction", "--root", "ROOT", "--out", "OUT"], "REPRODUCTION.md"),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("writer", list(WRITERS))
def test_every_output_file_to_a_full_or_read_only_folder(writer, kind, results, cli, mounts, tmp_path):
    argv, name = WRITERS[writer]
    root = tmp_path / "root"
    (root / "results" / "papers").mkdir(parents=True)
    (root / "results" / "papers" / "claims.yaml").write_text("papers: {}\n")
    old = "the file as it was\n"
    folder = getattr(mounts, kind)(tmp_path / "out", None if writer == "protocol new -o"
                                   else _existing(name, old))
    target = folder / name
    argv = [{"RESULTS": results, "OUT": target, "ROOT": root}.get(a, a) for a in argv]
    code, _, err = cli(argv)
    one_line(code, err, target, kind)
    assert not temp_files(folder)
    if writer == "protocol new -o":
        assert not target.exists()
    else:
        assert target.read_text() == old                     # the old file, whole


@pytest.mark.parametrize("kind", KINDS)
def test_plot_into_a_full_or_read_only_folder(kind, results, cli, mounts, tmp_path):
    folder = getattr(mounts, kind)(tmp_path / "plots")
    code, _, err = cli(["plot", results, "--kind", "box", "-o", folder])
    one_line(code, err, folder / "box-macro_f1.png", kind)
    assert not temp_files(folder) and not (folder / "box-macro_f1.png").exists()
    # a folder to create inside a read-only or full one
    code, _, err = cli(["plot", results, "--kind", "box", "-o", folder / "sub"])
    if kind == "read_only":
        one_line(code, err, folder / "sub", kind)
    else:                                      # tmpfs folders take no blocks: the picture fails
        one_line(code, err, folder / "sub" / "box-macro_f1.png", kind)


@pytest.mark.parametrize("kind", KINDS)
def test_the_dashboards_figures_in_a_full_or_read_only_tmpdir(kind, results, cli, mounts, tmp_path,
                                                              monkeypatch):
    import tempfile

    tmp = getattr(mounts, kind)(tmp_path / "tmp")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    out = tmp_path / "t.html"
    code, _, err = cli(["report", results, "--format", "html", "-o", out])
    one_line(code, err, f"{tmp}:", kind)
    assert "set TMPDIR to a writable folder" in err
    assert not out.exists() and not temp_files(tmp_path)


@pytest.mark.parametrize("kind", KINDS)
def test_explain_picture_to_a_full_or_read_only_folder(kind, cli, mounts, tmp_path, monkeypatch):
    from mlbench.methods.mtl import explain

    graph = explain.LabelGraph(dataset="emotions", labels=["a", "b", "c"],
                               laplacian=np.array([[1.0, -1, 0], [-1, 1, 0], [0, 0, 0]]),
                               edges=[(0, 1, 1, 0.9)], pi_thr=0.8, n_subsamples=6,
                               params={"lambda": 4.0})
    monkeypatch.setattr(explain, "explain_imtsl", lambda *a, **k: graph)   # the fit: not this test
    folder = getattr(mounts, kind)(tmp_path / "out", _existing("g.png", "old\n"))
    code, _, err = cli(["explain", "imtsl", "--dataset", "emotions", "--out", folder / "g.png"])
    one_line(code, err, folder / "g.png", kind)
    assert (folder / "g.png").read_text() == "old\n" and not temp_files(folder)


# -- the module itself -------------------------------------------------------------------------------
def test_atomic_write_keeps_the_old_file_when_the_writer_fails(tmp_path):
    from mlbench.fileio import atomic_write

    path = tmp_path / "f.txt"
    path.write_text("old")

    def boom(fh):
        fh.write(b"half")
        raise RuntimeError("the writer failed")

    with pytest.raises(RuntimeError):
        atomic_write(path, boom)
    assert path.read_text() == "old" and sorted(tmp_path.iterdir()) == [path]
    atomic_write(path, "new")
    assert path.read_text() == "new" and (path.stat().st_mode & 0o777) == 0o666 & ~_umask()


def _umask():
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_path_with_a_newline_stays_one_line(tmp_path):
    import errno

    from mlbench.fileio import write_error

    msg = str(write_error(tmp_path / "a\nb.csv", OSError(errno.EACCES, "Permission denied"),
                          "choose another --out"))
    assert "\n" not in msg and msg.endswith("Permission denied (EACCES); make it writable or "
                                            "choose another --out")


def test_a_stray_os_error_is_still_one_line(cli, monkeypatch):
    import errno

    from mlbench.data import registry

    def broken(*a, **k):
        raise OSError(errno.EIO, "Input/output error", "/some/file")

    monkeypatch.setattr(registry, "registry", broken)
    code, _, err = cli(["datasets"])
    assert code == 2 and err == "mlbench: error: /some/file: Input/output error (EIO)\n"

