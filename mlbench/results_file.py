"""The results file's one owner: its columns, a cell's key, the line parser and the reader.

Every module that reads a results CSV goes through here: resume (:mod:`mlbench.experiment.store`),
reports and checks (:mod:`mlbench.report.results`), the cost model and ``COSTS.md``
(:mod:`mlbench.experiment.costs`), ``REPRODUCTION.md`` (:mod:`mlbench.report.reproduction`) and the
Python API.  It imports nothing of mlbench's but the error classes and the column list, so any
layer may use it.

Line rules (:func:`parse_lines`).  The writer puts every row on one physical line, so each line is
parsed on its own and a fault spoils that line only.  A line is *refused* (left out, and named as
``"line N: why"``), never reinterpreted, when:

* the CSV reader cannot parse it (a stray quote, a field over :data:`FIELD_LIMIT`);
* its field count differs from the header's;
* it is a second header (``cat a.csv b.csv``, ``to_csv(mode="a")``): one identical to the first is
  skipped; one with another column order refuses itself and every line after it up to the next
  header identical to the first, because those lines are laid out by a header the file does not
  have (two metric columns swapped would otherwise be read as each other's values);
* its fixed fields do not fit their columns: a ``status`` that is not a status, or a non-number
  in a numeric column (how a swapped layout without its own header shows; two metric columns
  swapped without a header cannot be told from the values and need the header rule above).
"""
from __future__ import annotations

import csv
import json
import os

from mlbench.errors import ConfigError
from mlbench.experiment.columns import COLUMNS

#: the columns that identify a cell (``status`` is read beside them)
KEY_COLUMNS = ("dataset", "method", "split", "protocol", "seed", "status")
#: the values of the ``status`` column
STATUSES = ("ok", "error", "timeout", "lost", "memory")
#: fixed columns holding numbers (or nothing)
NUMERIC_COLUMNS = ("repeat", "fold", "seed", "fit_seconds", "predict_seconds", "cpu_seconds",
                   "peak_memory_mb", "n_train", "n_test", "n_features", "n_labels")
#: fixed columns read as text (pandas must not guess their type)
TEXT_COLUMNS = tuple(c for c in COLUMNS if c not in NUMERIC_COLUMNS)
#: the largest field a results file may hold (a cell's ``extra`` with bootstrap replicates is
#: tens of kilobytes; csv's own default of 128 KiB would make a longer one a traceback)
FIELD_LIMIT = 2**24


def key_of(dataset, method, split, protocol, seed):
    """The resume key of a cell (all strings, as read back from the CSV)."""
    return (str(dataset), str(method), str(split), str(protocol), str(seed))


def row_key(row):
    """:func:`key_of` a row (a dict of the CSV's fields)."""
    return key_of(row.get("dataset"), row.get("method"), row.get("split"), row.get("protocol"),
                  row.get("seed"))


def json_object(text):
    """The JSON object in ``text`` (a ``params`` or ``extra`` cell) as a dict, or None where the
    cell is empty, not JSON, not an object, or hostile (nested deeper than the parser allows); a
    dict is returned as it is."""
    if isinstance(text, dict):
        return text
    try:
        value = json.loads(text) if isinstance(text, str) and text else None
    except (ValueError, RecursionError):   # RecursionError: hostile, deeply nested JSON
        return None
    return value if isinstance(value, dict) else None


def canonical_params(text):
    """``text`` (a ``params`` cell) re-serialised with sorted keys and no layout differences."""
    try:
        return json.dumps(json.loads(text), sort_keys=True)
    except (TypeError, ValueError, RecursionError):   # RecursionError: hostile, deeply nested
        return text or ""


def check_results_path(path):
    """Refuse an ``--out`` that is not a regular file (a directory, device, FIFO or socket): the
    results file is rewritten atomically, which would replace such a thing or hang on it."""
    import stat

    try:
        mode = os.stat(path).st_mode        # follows a symbolic link to its target
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ConfigError(f"{path}: cannot use it as a results file ({exc.strerror})") from None
    if not stat.S_ISREG(mode):
        raise ConfigError(f"{path} is not a regular file; give a results CSV path (-o FILE)")


#: the columns without which a file is no results file to a report (resume needs KEY_COLUMNS)
REPORT_COLUMNS = ("dataset", "method", "split")


def _is_header(fields, header):
    return set(fields) == set(header) or set(REPORT_COLUMNS) <= set(fields)


def _misfit(row):
    """Why a row's fixed fields do not fit their columns, or None."""
    status = row.get("status")
    if status is not None and status not in STATUSES:
        return f"status {status[:40]!r} is not one of {', '.join(STATUSES)}"
    for c in NUMERIC_COLUMNS:
        v = row.get(c)
        if v:
            try:
                float(v)
            except ValueError:
                return f"column {c} holds {v[:40]!r}, not a number"
    return None


def parse_lines(data, path, problems):
    """(header, rows) of results-CSV bytes, each row a dict with its line number in ``"__line"``.
    Lines refused by the module's line rules go to ``problems`` as ``"line N: why"``."""
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    csv.field_size_limit(max(csv.field_size_limit(), FIELD_LIMIT))

    def parse(line):
        return next(csv.reader([line], strict=True))

    try:
        header = parse(lines[0]) if lines else []
    except (csv.Error, StopIteration) as exc:
        raise ConfigError(f"{path}: line 1: not a results CSV header ({exc})") from None
    dup = [c for i, c in enumerate(header) if c in header[:i]]
    if dup:
        raise ConfigError(f"{path}: line 1: column {dup[0]!r} appears twice in the header")
    rows = []
    foreign = None      # line number of an appended header of another layout, while it governs
    width = len(header)
    for number, line in enumerate(lines[1:], start=2):
        if not line:
            continue
        try:
            fields = parse(line)
        except (csv.Error, StopIteration) as exc:
            problems.append(f"line {number}: {exc}")
            continue
        if _is_header(fields, header):
            if fields == header:
                foreign = None
                problems.append(f"line {number}: a repeated header, skipped")
            else:
                foreign = number
                problems.append(f"line {number}: a second header with another column layout "
                                f"(expected the header's {width} columns in line 1's order); "
                                f"the lines under it are refused")
            continue
        if foreign is not None:
            problems.append(f"line {number}: written under the header of line {foreign}, not "
                            f"line 1's; refused")
            continue
        if len(fields) != width:
            problems.append(f"line {number}: {len(fields)} fields (expected the header's "
                            f"{width} columns)")
            continue
        row = dict(zip(header, fields))
        why = _misfit(row)
        if why is not None:
            problems.append(f"line {number}: {why} (a layout other than the header's?)")
            continue
        row["__line"] = number
        rows.append(row)
    return header, rows


def read_rows(path, problems=None, required=KEY_COLUMNS, cut_torn=True):
    """(header, rows, refused) of the results file ``path``, read-only: rows as dicts.  Left out
    and counted in ``refused``: a torn last line (a run killed mid-write; with ``cut_torn``, as
    resume reads: a report reads a last line without its newline when it is whole) and every line
    :func:`parse_lines` refuses; ``problems`` (a list) receives ``"line N: why"`` for each.  A file
    without the ``required`` columns (resume: the key columns) is not a results file: ConfigError,
    and the caller touches nothing.  A missing or empty file has no header and no rows."""
    check_results_path(path)
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return [], [], 0
    with open(path, "rb") as fh:
        data = fh.read()
    problems = [] if problems is None else problems
    before = len(problems)
    if cut_torn and not data.endswith(b"\n"):
        # killed mid-write: the last line is incomplete; cut it off
        cut = data.rfind(b"\n") + 1
        last = data.count(b"\n") + 1
        problems.append(f"line {last}: incomplete last line")
        data = data[:cut]
    header, rows = parse_lines(data, path, problems)
    if not set(required) <= set(header):
        raise ConfigError(f"{path} is not an mlbench results file (missing column "
                          f"{', '.join(c for c in required if c not in header)} in its first "
                          f"line); nothing was changed")
    return header, rows, len(problems) - before


def read_results(paths, problems=None, required=REPORT_COLUMNS):
    """The rows of the results files ``paths`` as one pandas DataFrame, read by the line rules
    (refused lines are left out and named in ``problems`` as ``"FILE: line N: why"``).  Fixed text
    columns stay text; numeric and metric columns are numbers (NaN where empty); ``__file`` and
    ``__line`` say where each row came from.  A missing file or one without the ``required``
    columns is a ConfigError."""
    import pandas as pd

    problems = [] if problems is None else problems
    frames = []
    for path in [os.fspath(p) for p in paths]:
        if not os.path.isfile(path):
            raise ConfigError(f"results file {path} does not exist")
        found = []
        header, rows, _ = read_rows(path, found, required, cut_torn=False)
        problems.extend(f"{path}: {p}" for p in found)
        frame = pd.DataFrame.from_records(rows, columns=list(header) + ["__line"])
        for c in frame.columns:
            if c in TEXT_COLUMNS or c.startswith("__"):
                continue
            frame[c] = pd.to_numeric(frame[c].replace("", "nan"), errors="coerce") \
                if c in NUMERIC_COLUMNS else _numbers_or_text(frame[c])
        for c in TEXT_COLUMNS:
            if c in frame.columns:
                frame[c] = frame[c].astype(object).where(frame[c] != "", float("nan"))
        frame["__file"] = path
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=list(COLUMNS))
    return pd.concat(frames, ignore_index=True, sort=False)


def _numbers_or_text(column):
    """A metric (or unknown) column: floats when every non-empty value is a number, else the text
    (the report names the rows whose metric is not a number)."""
    import pandas as pd

    values = pd.to_numeric(column.replace("", "nan"), errors="coerce")
    text = column.astype(str).str.strip().str.lower()
    if (values.isna() & ~text.isin(["", "nan"])).any():
        return column.where(column != "", float("nan"))
    return values
