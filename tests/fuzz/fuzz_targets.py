"""The fuzz targets: one per reader, each ``target(data: bytes, tmp: Path) -> (outcome, detail)``.

Outcomes (segfaults and hangs are seen by the runner, from outside the process):

- ``accepted``  the reader returned a value that passed the target's checks;
- ``error``     a :class:`DataError` with a one-line ``path:line:column:`` message;
- ``traceback`` any other exception, or a DataError message that is not one such line;
- ``differs``   ARFF only: both readers accept and liac-arff's values differ from ours;
- ``invalid``   accepted although the input breaks the format's rules (for ARFF: liac-arff
  rejects it and the reason is not one of the documented leniencies; for the cache: a value
  differs from the dataset that was saved).
"""
from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path

import numpy as np

from mlbench.data import cache, clus_hmc, meka, mulan_xml
from mlbench.data.arff import STRING, parse_arff, read_arff
from mlbench.data.rda import read_mldr
from mlbench.errors import DataError

SEEDS = Path(__file__).resolve().parent / "seeds"
_LINE = re.compile(r"^\S.*?:\d+:\d+: \S")

# liac-arff errors on inputs that mlbench accepts on purpose (ARCHITECTURE.md, "Readers")
LENIENCIES = (
    "Bad @ATTRIBUTE name",          # repeated attribute names (some Clus files repeat them)
    "Bad @ATTRIBUTE type",          # date / relational / hierarchical read as strings
    "Bad @RELATION format",         # a bare '@relation' (no name) or a quoted-name variant
    "Invalid layout of the ARFF file, at line",  # a '%' comment or blank line in odd places
)


def _error(exc: DataError):
    msg = str(exc)
    if "\n" in msg or not _LINE.match(msg):
        return "traceback", f"DataError not one path:line:column line: {msg[:200]!r}"
    return "error", msg[:200]


def _liac(data: bytes):
    import arff

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "not UTF-8"
    try:
        return arff.load(io.StringIO(text), encode_nominal=True), None
    except Exception as exc:  # liac-arff raises many types; any means "rejected"
        return None, f"{type(exc).__name__}: {exc}"


def _unindent_header(data: bytes) -> bytes:
    """``data`` with the blanks before header keywords removed and tabs after ``@attribute`` made
    spaces: liac-arff skips a tab-indented ``@attribute`` line and rejects a tab after the keyword
    (defects; WEKA and mlbench read both), so the reference is given the same header in the form
    it reads."""
    k = data.lower().find(b"@data")
    if k < 0:
        return data
    head = re.sub(rb"(?m)^[ \t]+@", b"@", data[:k])
    # likewise a tab between '@attribute' and the name (WEKA and mlbench read it)
    head = re.sub(rb"(?mi)^(@attribute)\t+", rb"\1 ", head)
    return head + data[k:]


def _compare(ours, ref) -> str | None:
    """None when mlbench's values equal liac-arff's, else where they differ."""
    X = ours.X.toarray() if ours.sparse_rows else ours.X
    rows = ref["data"]
    if len(rows) != X.shape[0]:
        return f"{X.shape[0]} rows, liac-arff {len(rows)}"
    for i, row in enumerate(rows):
        if len(row) != X.shape[1]:
            return f"row {i}: {X.shape[1]} values, liac-arff {len(row)}"
        for j, v in enumerate(row):
            if ours.attributes[j].kind == STRING:
                if ours.strings[j][i] != v:
                    return f"row {i} col {j}: {ours.strings[j][i]!r} vs {v!r}"
                continue
            a = X[i, j]
            if v is None:
                if not math.isnan(a):
                    return f"row {i} col {j}: {a!r} vs missing"
            elif isinstance(v, str) or not (a == v or (math.isnan(a) and math.isnan(v))):
                return f"row {i} col {j}: {a!r} vs {v!r}"
    return None


def arff_target(data: bytes, tmp: Path):
    try:
        (tmp / "fuzz.arff").write_bytes(data)
        ours = read_arff(tmp / "fuzz.arff")
    except DataError as exc:
        return _error(exc)
    ref, why = _liac(_unindent_header(data))
    if ref is None:
        special = any(ch in a.name for a in ours.attributes for ch in "%'\"\\")
        if why == "not UTF-8" or any(why.split(": ", 1)[-1].startswith(s) for s in LENIENCIES) \
                or (special and why.startswith("BadAttributeFormat")):
            return "accepted", f"leniency: {why[:120]}"
        return "invalid", f"liac-arff rejects: {why[:200]}"
    diff = _compare(ours, ref)
    return ("differs", diff) if diff else ("accepted", "")


def meka_target(data: bytes, tmp: Path):
    try:
        d = parse_arff(data, "fuzz.arff")
        cols = meka.label_columns(d)
    except DataError as exc:
        return _error(exc)
    n = meka.label_count(d.relation)
    if len(cols) != abs(n) or not cols or len(cols) >= len(d.attributes):
        return "invalid", f"-C {n} gave {len(cols)} label columns"
    return "accepted", ""


def clus_target(data: bytes, tmp: Path):
    try:
        d = parse_arff(data, "fuzz.arff")
        Y, hier, col = clus_hmc.labels(d)
    except DataError as exc:
        return _error(exc)
    if Y.shape != (d.X.shape[0], len(hier)) or (hier.close(Y) != Y).any():
        return "invalid", "labels not closed upward"
    return "accepted", ""


def xml_target(data: bytes, tmp: Path):
    path = tmp / "labels.xml"
    path.write_bytes(data)
    try:
        names, edges = mulan_xml.read_labels(path)
    except DataError as exc:
        return _error(exc)
    if len(set(names)) != len(names) or any(p not in names or c not in names for p, c in edges):
        return "invalid", "duplicate or dangling label"
    return "accepted", ""


def rda_target(data: bytes, tmp: Path):
    path = tmp / "fuzz.rda"
    path.write_bytes(data)
    try:
        X, Y, names, lnames, nominal = read_mldr(path)
    except DataError as exc:
        return _error(exc)
    bad = (X.shape[0] != Y.shape[0] or X.shape[1] != len(names) or Y.shape[1] != len(lnames)
           or not np.isin(Y, (0, 1)).all())
    for k, values in nominal.items():
        col = X[:, k].toarray().ravel()
        col = col[~np.isnan(col)]
        bad |= bool(((col < 0) | (col >= len(values)) | (col != np.round(col))).any())
    return ("invalid", "inconsistent shapes or codes") if bad else ("accepted", "")


def _cache_seed():
    """The bytes of the cache of a small real dataset (the flags seed) and the dataset itself."""
    import tempfile

    from mlbench.data.dataset import Dataset

    d = parse_arff((SEEDS / "flags.arff").read_bytes(), "flags.arff")
    X, Y, names, nominal = mulan_xml.split_features_labels(d, list(range(19, 26)))
    ds = Dataset("flags", X, Y, names, d.names[19:26], nominal,
                 parts={"train": np.arange(6), "test": np.arange(6, len(Y))}, sha256="0" * 64)
    with tempfile.TemporaryDirectory() as t:
        return cache.cache_path(cache.save(Path(t), ds).parent, "flags").read_bytes(), ds


_CACHE = None


def cache_target(data: bytes, tmp: Path):
    global _CACHE
    if _CACHE is None:
        _CACHE = _cache_seed()
    ref = _CACHE[1]
    (tmp / "flags.npz").write_bytes(data)
    ds = cache.load(tmp, "flags")
    if ds is None:
        return "error", "discarded"
    same = (np.array_equal(np.asarray(ds.X), np.asarray(ref.X), equal_nan=True)
            and np.array_equal(ds.Y, ref.Y) and ds.feature_names == ref.feature_names
            and ds.label_names == ref.label_names and ds.nominal == ref.nominal
            and list(ds.parts) == list(ref.parts)
            and all(np.array_equal(ds.parts[p], ref.parts[p]) for p in ref.parts))
    return ("accepted", "") if same else ("invalid", "a cached value differs from the saved one")


def cache_seed_bytes() -> bytes:
    global _CACHE
    if _CACHE is None:
        _CACHE = _cache_seed()
    return _CACHE[0]


def _one_line(exc, path):
    msg = str(exc)
    if "\n" in msg or str(path) not in msg:
        return "traceback", f"error not one line naming the file: {msg[:200]!r}"
    return "error", msg[:200]


def protocol_target(data: bytes, tmp: Path):
    """The protocol loader (the YAML reader with its alias, depth, duplicate-key and UTF-8 rules)."""
    from mlbench.errors import MlbenchError
    from mlbench.protocols import load_protocol

    path = tmp / "protocol.yaml"
    path.write_bytes(data)
    try:
        load_protocol(str(path))
    except MlbenchError as exc:
        return _one_line(exc, path)
    return "accepted", ""


def results_target(data: bytes, tmp: Path):
    """A results CSV as resume reads it (results_file.read_rows, and read_ok: the recorded
    provenance, params and data_spec JSON), as reports read it (read_results, load_results) and
    the JSON of ``extra`` that reports decode (bootstrap replicates, MLDF layers), checked against
    an independent reading with the csv module: every accepted row holds its line's fields under
    line 1's header, and no row is accepted from under a second header of another layout (never
    reinterpreted)."""
    from mlbench.errors import MlbenchError
    from mlbench.experiment.provenance import differences, recorded_identity
    from mlbench.experiment.store import read_ok
    from mlbench.protocols.measure_from import _extra_layers
    from mlbench.report.results import load_results
    from mlbench.results_file import read_results, read_rows
    from mlbench.stats.bootstrap import _extra

    path = tmp / "results.csv"
    path.write_bytes(data)
    try:
        header, rows, _ = read_rows(str(path))
        for row in read_ok(str(path)).values():
            differences(recorded_identity(row), {"params": "{}", "protocol_spec": "x"}, {"x": 1})
        for row in rows:
            _extra(row)
            _extra_layers(row.get("extra"))
        read_results([str(path)])
        load_results([str(path)])
    except MlbenchError as exc:
        return _one_line(exc, path)
    lines = data.decode("utf-8", errors="replace").split("\n")
    governed, foreign = {}, None
    for number, line in enumerate(lines[1:], start=2):
        try:
            fields = next(csv.reader([line]))
        except (csv.Error, StopIteration):
            fields = None
        if fields and {"dataset", "method", "split"} <= set(fields):
            foreign = None if fields == header else number
        governed[number] = foreign
    for row in rows:
        n = row["__line"]
        if governed.get(n) is not None:
            return "differs", f"line {n} read under line {governed[n]}'s header"
        want = next(csv.reader([lines[n - 1]]))
        if [row[c] for c in header] != want:
            return "differs", f"line {n}: {want[:4]!r} read as {[row[c] for c in header][:4]!r}"
    return "accepted", ""


# the csv reference reads fields of any size, as the reader under test does
csv.field_size_limit(2**31 - 1)

# pandas' default missing-value markers (read_csv's na_values): an empty feature cell is missing
_NA = {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
       "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}


def user_csv_target(data: bytes, tmp: Path):
    """A user's CSV dataset (``fuzz.csv@2``), checked against an independent reading of the same
    bytes with Python's csv module: same rows, labels and feature values (NaN for a missing one)."""
    from mlbench.data.user import _csv_dataset

    path = tmp / "fuzz.csv"
    path.write_bytes(data)
    try:
        ds = _csv_dataset(path, 2, "fuzz")
    except DataError as exc:
        return _error(exc)
    rows = [r for r in csv.reader(io.StringIO(data.decode("utf-8"), newline="")) if r]
    header, rows = rows[0], rows[1:]
    if len(rows) != ds.X.shape[0] or any(len(r) != len(header) for r in rows):
        return "invalid", f"{len(rows)} csv rows, {ds.X.shape[0]} read"
    for i, r in enumerate(rows):
        try:
            want = [math.nan if v.strip() in _NA else float(v) for v in r[:-2]]
            labels = [float(v) for v in r[-2:]]
        except ValueError as exc:
            return "invalid", f"row {i + 1}: {str(exc)[:120]}"
        if labels != ds.Y[i].tolist() or not np.array_equal(np.asarray(want), ds.X[i], equal_nan=True):
            return "differs", f"row {i + 1}: {r[:6]!r} read as {ds.X[i][:6].tolist()!r}"
    return "accepted", ""


def user_parquet_target(data: bytes, tmp: Path):
    """A user's Parquet dataset (``fuzz.parquet@2``, read by pyarrow): a corrupt file is one line,
    an accepted one a float feature matrix beside 0/1 labels of the same rows."""
    from mlbench.data.user import _csv_dataset

    path = tmp / "fuzz.parquet"
    path.write_bytes(data)
    try:
        ds = _csv_dataset(path, 2, "fuzz")
    except DataError as exc:
        return _error(exc)
    ok = (ds.X.dtype == np.float64 and ds.X.shape[0] == ds.Y.shape[0] > 0 and ds.Y.shape[1] == 2
          and np.isin(ds.Y, (0, 1)).all() and len(ds.feature_names) == ds.X.shape[1])
    return ("accepted", "") if ok else ("invalid", f"X {ds.X.shape} {ds.X.dtype}, Y {ds.Y.shape}")


# name -> (target, mutation family, seed files)
TARGETS = {
    "arff-dense": (arff_target, "arff", ["flags.arff"]),
    "arff-sparse": (arff_target, "arff", ["tmc2007.arff"]),
    "mulan-xml": (xml_target, "xml", ["flags.xml", "scene.xml"]),
    "meka": (meka_target, "arff", ["yeast-meka.arff"]),
    "rda": (rda_target, "rda", ["flags.rda"]),
    "clus-hmc": (clus_target, "arff", ["church-clus.arff"]),
    "cache": (cache_target, "cache", []),
    "protocol-yaml": (protocol_target, "yaml", ["protocol.yaml"]),
    "results-csv": (results_target, "csv", ["results.csv", "results-appended.csv"]),
    "user-csv": (user_csv_target, "csv", ["flags.csv"]),
    "user-parquet": (user_parquet_target, "cache", ["flags.parquet"]),
}


def seeds(name: str) -> list[bytes]:
    files = TARGETS[name][2]
    return [(SEEDS / f).read_bytes() for f in files] if files else [cache_seed_bytes()]
