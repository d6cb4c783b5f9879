"""A user's own dataset, named by its path wherever a dataset name is accepted.

* ``path/to/NAME.arff`` with ``NAME.xml`` beside it: a MULAN dataset (the XML names the labels);
* ``path/to/NAME.arff`` without one: a MEKA dataset (``-C N`` in the relation name);
* ``path/to/NAME.arff@N``: the last N attributes are the labels; ``@-N``: the first N (MEKA's side);
* ``path/to/DIR``: a train/test pair ``DIR/NAME-train.arff`` + ``DIR/NAME-test.arff`` (with
  ``DIR/NAME.xml``, or ``@N`` on the directory), concatenated train first (``Dataset.parts``);
* ``path/to/NAME.csv@N``: a CSV with a header row whose last N columns are 0/1 labels (``@-N``: the
  first N), every other column numeric; ``NAME.parquet@N`` the same as a Parquet table (pyarrow,
  ``pip install mlbench[parquet]``).

The files go through the same readers as the registered datasets (so the same checks and one-line
errors), the dataset is named NAME (a safe name, as results and split files use it) and its
``sha256`` is that of its files, which is what a results row records.  The parsed dataset is
cached in the data directory under ``user-NAME-HASH.npz``, keyed by the hash of its files and of
the label rule (``@N``): an edited file is a new key, so a stale parse is never used.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from mlbench.data.registry import DatasetEntry, FileEntry
from mlbench.errors import DataError, WriteError

_COUNT = re.compile(r"^(?P<path>.+?)@(?P<n>-?\d+)$")
SUFFIXES = (".arff", ".csv", ".parquet")


def is_user_dataset(name) -> bool:
    """Whether a dataset name is a path (or a path with ``@N``) rather than a registry name."""
    text = str(name)
    m = _COUNT.match(text)
    base = m.group("path") if m else text
    return "/" in base or base.lower().endswith(SUFFIXES) or Path(base).is_dir()


def _split_count(text):
    m = _COUNT.match(text)
    return (m.group("path"), int(m.group("n"))) if m else (text, None)


def _label_cols(n, n_attr, where):
    if n == 0 or abs(n) >= n_attr:
        raise DataError(f"{where}: @{n} asks for {abs(n)} label columns of {n_attr} attributes")
    return list(range(n_attr - n, n_attr)) if n > 0 else list(range(-n))


def _entry(name, fmt, files):
    return DatasetEntry(name=name, format=fmt, domain="user", published={},
                        files=tuple(FileEntry(role, p.resolve().as_uri(), None) for role, p in files))


def _layout(text):
    """(raw path, N of @N or None, path, name, parts [(role, path)], xml path) of a user's dataset,
    every file checked to exist and the name to be safe."""
    from mlbench.safety import check_name

    raw, n = _split_count(str(text))
    path = Path(raw).expanduser()
    if not path.exists():
        raise DataError(f"{raw}: no such file or directory (a dataset path: FILE.arff, FILE.arff@N, "
                        f"FILE.csv@N or a directory of NAME-train.arff / NAME-test.arff)")
    if path.is_dir():
        trains = sorted(path.glob("*-train.arff"))
        if len(trains) != 1:
            raise DataError(f"{raw}: a dataset directory needs exactly one NAME-train.arff "
                            f"(found {len(trains)})")
        stem = trains[0].name[:-len("-train.arff")]
        test = path / f"{stem}-test.arff"
        if not test.is_file():
            raise DataError(f"{raw}: {trains[0].name} has no {test.name} beside it")
        parts, xml = [("train", trains[0]), ("test", test)], path / f"{stem}.xml"
    else:
        stem, parts, xml = path.stem, [("full", path)], path.with_suffix(".xml")
    return raw, n, path, check_name(stem, "dataset name", raw), parts, xml


def load_user_dataset(text, data_dir=None):
    """The :class:`~mlbench.data.dataset.Dataset` a user's path names (see the module docstring),
    from the cache keyed by the hash of its files and label rule when they are unchanged."""
    import dataclasses
    import hashlib

    from mlbench.data import cache, fetch

    raw, n, path, name, parts, xml = _layout(text)
    files = [p for _, p in parts] + ([xml] if xml.is_file() else [])
    digest = hashlib.sha256((f"{n}\n" + "\n".join(fetch.sha256_of(p) for p in files)).encode())
    key = f"user-{name}-{digest.hexdigest()[:16]}"
    root = fetch.data_dir(data_dir)
    try:
        ds = cache.load(root, key)          # the key holds the files' hash: no stale parse
    except DataError:
        ds = None
    if ds is None:
        ds = _parse_user(text)
        try:
            cache.save(root, dataclasses.replace(ds, name=key))
        except WriteError:
            pass                       # a full or read-only data directory: just do not cache
        return ds
    return dataclasses.replace(ds, name=name)


def _parse_user(text):
    """Parse a user's dataset (no cache)."""
    from mlbench.data.load import build_dataset

    raw, n, path, name, parts, xml = _layout(text)
    if path.suffix.lower() in (".csv", ".parquet"):
        if n is None:
            raise DataError(f"{raw}: a table dataset needs its label count: {raw}@N (the last N "
                            f"columns) or {raw}@-N (the first N)")
        return _csv_dataset(path, n, name)
    if n is not None:
        return _counted_arff(parts, n, name, raw)
    if xml.is_file():
        return build_dataset(_entry(name, "mulan", parts + [("labels-xml", xml)]),
                             dict(parts + [("labels-xml", xml)]))
    try:
        return build_dataset(_entry(name, "meka", parts), dict(parts))
    except DataError as exc:
        if "not a MEKA file" not in str(exc):
            raise
        raise DataError(f"{exc}; to name the labels put {xml.name} (MULAN) beside it or use "
                        f"{raw}@N for the last N attributes") from None


def _counted_arff(parts, n, name, raw):
    """ARFF file(s) whose labels are the last (first) N attributes."""
    from mlbench.data import fetch, mulan_xml
    from mlbench.data.arff import read_arff
    from mlbench.data.dataset import Dataset
    from mlbench.data.load import _representation, _same_header, _stack

    datas = [read_arff(parts[0][1])]
    for _, p in parts[1:]:
        datas.append(read_arff(p, sparse=datas[0].sparse_rows))
    _same_header(datas, name)
    cols = _label_cols(n, len(datas[0].attributes), raw)
    Xs, Ys = [], []
    for d in datas:
        X, Y, fnames, nominal = mulan_xml.split_features_labels(d, cols)
        Xs.append(X)
        Ys.append(Y)
    sizes = np.cumsum([0] + [len(y) for y in Ys])
    part_rows = ({role: np.arange(sizes[k], sizes[k + 1]) for k, (role, _) in enumerate(parts)}
                 if len(parts) > 1 else {})
    entry = _entry(name, "mulan", parts)
    return Dataset(name=name, X=_representation(_stack(Xs)), Y=np.ascontiguousarray(np.vstack(Ys), np.int8),
                   feature_names=list(fnames), label_names=[datas[0].attributes[j].name for j in cols],
                   nominal=nominal, parts=part_rows, sha256=fetch.combined_sha256(entry, dict(parts)),
                   domain="user")


def _csv_rows(text):
    """(line number, fields) of each non-blank row of a CSV text, the header first: the rows pandas
    reads (it skips blank lines too).  Fields of any size, as pandas reads them (the csv module's
    default limit of 131,072 characters is raised, as the results store raises it)."""
    import csv
    import io

    csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))
    reader = csv.reader(io.StringIO(text, newline=""))
    return ((reader.line_num, r) for r in reader if r)


def _csv_width_error(path, text):
    """The one-line error for the first row whose field count differs from the header's (or for
    a text the csv module cannot split), else None."""
    import csv

    try:
        rows = _csv_rows(text)
        _, header = next(rows, (1, []))
        for line, fields in rows:
            if len(fields) != len(header):
                return f"{path}:{line}:1: {len(fields)} field(s) where the header has {len(header)}"
    except csv.Error as exc:
        return f"{path}:1:1: not a readable CSV table ({str(exc)[:160]})"
    return None


def _csv_position(path, text, row, field):
    """``path:line:column`` of field ``field`` of data row ``row`` (0-based, as pandas counts) of a
    text that passed :func:`_csv_width_error`: the column is the field's first character on an
    unquoted line, else 1."""
    rows = _csv_rows(text)
    next(rows, None)                                    # the header
    for i, (line, fields) in enumerate(rows):
        if i == row:
            col = 1
            if all('"' not in f and "\n" not in f and "\r" not in f for f in fields):
                col = sum(len(f) + 1 for f in fields[:field]) + 1
            return f"{path}:{line}:{col}"
    return f"{path}:1:1: row {row + 1}"


def _csv_dataset(path, n, name):
    """A CSV (with a header) or Parquet table; the last (first) N columns are 0/1 labels, the
    others numbers.  An empty feature cell is a missing value (as ARFF's ``?``; the ``impute``
    preprocessing step fills it); a CSV row with more or fewer fields than the header, an empty or
    non-0/1 label, or a feature that is not a number is an error naming its line and value."""
    import io

    import pandas as pd

    from mlbench.data import fetch
    from mlbench.data.arff import shorten
    from mlbench.data.dataset import Dataset
    from mlbench.safety import decode_utf8

    parquet = path.suffix.lower() == ".parquet"
    if parquet:
        import importlib.util

        if importlib.util.find_spec("pyarrow") is None:
            raise DataError(f"{path}: reading Parquet needs pyarrow: pip install 'mlbench[parquet]'")
    text = None
    if not parquet:
        # the field counts are checked first: given rows longer than its header, pandas would
        # silently take their first columns as an index
        raw = path.read_bytes()
        text = decode_utf8(raw, lambda line, col, byte: DataError(
            f"{path}:{line}:{col}: not UTF-8 (byte 0x{byte:02x})"))
        bad = _csv_width_error(path, text)
        if bad:
            raise DataError(bad)
    try:
        df = pd.read_parquet(path) if parquet else pd.read_csv(io.StringIO(text), index_col=False)
    except Exception as exc:  # noqa: BLE001 - pandas and pyarrow raise many types on a corrupt file
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"{path}:1:1: not a readable {'Parquet' if parquet else 'CSV'} table "
                        f"({first[:160]})") from None
    if len(df) == 0:
        raise DataError(f"{path}:2:1: the table has no data rows")
    cols = _label_cols(n, df.shape[1], f"{path}:1:1")
    fcols = sorted(set(range(df.shape[1])) - set(cols))
    labels, feats = df.iloc[:, cols], df.iloc[:, fcols]

    def where(i, j):        # data row i, table column j (a Parquet file has no lines: its row)
        return f"{path}:1:1: row {i + 1}" if parquet else _csv_position(path, text, i, j)

    bad = ~labels.isin([0, 1]).to_numpy()
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        raise DataError(f"{where(i, cols[j])}: label column {str(labels.columns[j])!r} holds "
                        f"{shorten(str(labels.iat[i, j]))}; labels must be 0 or 1")
    X = feats.apply(pd.to_numeric, errors="coerce")
    bad = (X.isna() & feats.notna()).to_numpy()
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        raise DataError(f"{where(i, fcols[j])}: feature column {str(feats.columns[j])!r} holds "
                        f"{shorten(str(feats.iat[i, j]))}, not a number")
    return Dataset(name=name, X=np.ascontiguousarray(X.to_numpy(dtype=np.float64)),
                   Y=np.ascontiguousarray(labels.to_numpy(), np.int8),
                   feature_names=[str(c) for c in feats.columns],
                   label_names=[str(c) for c in labels.columns],
                   sha256=fetch.sha256_of(path), domain="user")
