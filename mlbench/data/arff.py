"""ARFF reader: a Python header parser and a Cython data kernel (``mlbench._ext._arff``).

ARFF (Weka's Attribute-Relation File Format) is a header of ``@relation`` / ``@attribute`` lines and
a ``@data`` section of dense (comma separated) or sparse (``{index value, ...}``) rows.  The values
this module returns are exactly liac-arff's (``arff.load(f, encode_nominal=True)``): numbers as
floats, INTEGER truncated toward zero, nominal values as the index in the declared list, ``?`` as
missing (NaN here, None in liac-arff), unlisted sparse values as 0.  Two extensions beyond
liac-arff: ``date``/``relational`` attributes are kept as strings, and Clus's ``hierarchical``
attribute type (see :mod:`mlbench.data.clus_hmc`) is read as a string attribute whose declaration is
kept in :attr:`Attribute.spec`.

Files may be ``.bz2``, ``.gz`` or ``.xz`` compressed (detected by their magic bytes).
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from mlbench.errors import DataError

REAL, INTEGER, NOMINAL, STRING = 0, 1, 2, 3
_SIMPLE = {"numeric": REAL, "real": REAL, "integer": INTEGER, "string": STRING, "date": STRING,
           "relational": STRING, "hierarchical": STRING}


@dataclass
class Attribute:
    """One ``@attribute``: name, kind (REAL/INTEGER/NOMINAL/STRING), declared values, raw spec."""

    name: str
    kind: int
    values: list[str] = field(default_factory=list)
    type_name: str = ""
    spec: str = ""
    line: int = 0  # line of the declaration in its file (for error messages)


@dataclass
class ArffData:
    """A parsed ARFF file: ``X`` holds every attribute (strings as NaN, text in ``strings``)."""

    path: str
    relation: str
    attributes: list[Attribute]
    X: np.ndarray | sp.csr_matrix
    strings: dict[int, list] = field(default_factory=dict)
    sparse_rows: bool = False
    relation_line: int = 0
    string_lines: dict[int, list] = field(default_factory=dict)  # line of each string value

    def where(self, line: int = 0, col: int = 1) -> str:
        """``path:line:column`` for an error message (line 1 when unknown)."""
        return f"{self.path}:{line or 1}:{col}"

    @property
    def names(self):
        return [a.name for a in self.attributes]


def read_bytes(path) -> bytes:
    """The file's bytes, decompressed when it is bz2, gzip or xz (by magic bytes)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror}") from None
    try:
        if raw[:3] == b"BZh":
            return bz2.decompress(raw)
        if raw[:2] == b"\x1f\x8b":
            return gzip.decompress(raw)
        if raw[:6] == b"\xfd7zXZ\x00":
            return lzma.decompress(raw)
    except (OSError, EOFError, lzma.LZMAError, ValueError, zlib.error) as exc:
        raise DataError(f"{path}:1:1: corrupt compressed file ({shorten(str(exc))})") from None
    return raw


def shorten(token, width: int = 40) -> str:
    """``token`` (str or bytes) as a one-line repr of at most about ``width`` characters."""
    if isinstance(token, bytes):
        token = token.decode("utf-8", errors="replace")
    token = token if len(token) <= width else token[:width - 3] + "..."
    return repr(token)


def _token_at(text: bytes, offset: int) -> bytes:
    """The bytes from ``offset`` up to the next delimiter (the offending token of an error)."""
    m = re.compile(rb"[^,}\n]{0,60}").match(text, offset)
    return m.group(0).strip() if m else b""


def _split_quoted(text: str, sep: str = ","):
    """Split on ``sep`` outside single or double quotes (backslash escapes the quote)."""
    out, cur, quote, i = [], [], "", 0
    while i < len(text):
        ch = text[i]
        if quote:
            cur.append(ch)
            if ch == "\\" and i + 1 < len(text):
                cur.append(text[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            cur.append(ch)
        elif ch == sep:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    if quote:
        raise ValueError("unterminated quote")
    out.append("".join(cur))
    return out


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # not tab (a final CR is stripped first)
_FIRST_ROW = re.compile(rb"^[ \t\r]*([^ \t\r\n%])", flags=re.M)  # first char of a data row
_ESC = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "\\": "\\", '"': '"', "'": "'",
        "%": "%"}
_ESC_RE = re.compile(r"\\([0-9]{1,3}|.)")


def unquote(value: str) -> str:
    """The text of a (possibly quoted) ARFF value, with liac-arff's escapes resolved."""
    value = value.strip()
    if value[:1] in ("'", '"') and len(value) >= 2 and value[-1] == value[0]:
        return _ESC_RE.sub(_escape, value[1:-1])
    return value


def _escape(m):
    code = m.group(1)
    if code in _ESC:
        return _ESC[code]
    if code.isdigit():  # \d is chr(d); \ddd (two or three digits) is octal, as in liac-arff
        if len(code) > 1 and not set(code) <= set("01234567"):
            raise ValueError(f"bad octal escape \\{code}")
        return chr(int(code)) if len(code) == 1 else chr(int(code, 8))
    return code


def _parse_name(rest: str):
    """Split ``name type`` after ``@attribute``; a quoted name has its quotes and escapes
    resolved as Weka does (``'Swainson\\'s Thrush'`` -> ``Swainson's Thrush``; liac-arff keeps the
    backslash, the one place where this reader differs from it)."""
    rest = rest.strip()
    if rest[:1] in ("'", '"'):
        q = rest[0]
        i = 1
        while i < len(rest):
            if rest[i] == "\\":
                i += 2
                continue
            if rest[i] == q:
                break
            i += 1
        if i >= len(rest):
            raise ValueError("unterminated quoted attribute name")
        return unquote(rest[:i + 1]), rest[i + 1:].strip()
    parts = rest.split(None, 1)
    if len(parts) != 2:
        raise ValueError("attribute without a type")
    if any(ch in parts[0] for ch in "{},"):  # such a name must be quoted (WEKA, liac-arff);
        # '%' and quotes inside a name are kept: real files have them (Clus's 0point02%_MMS,
        # delicious's TAG_m\'usica)
        raise ValueError(f"unquoted attribute name with a special character {parts[0]!r}")
    return parts[0], parts[1].strip()


def _parse_attribute(rest: str) -> Attribute:
    name, type_ = _parse_name(rest)
    if type_.startswith("{"):
        if not type_.endswith("}"):
            raise ValueError("nominal value list without a closing '}'")
        inner = type_[1:-1].strip()
        values = [unquote(v) for v in _split_quoted(inner)] if inner else []
        if len(set(values)) != len(values):
            raise ValueError("a nominal value is declared twice")
        return Attribute(name, NOMINAL, values, "nominal")
    word = type_.split(None, 1)[0].lower()
    if word not in _SIMPLE:
        raise ValueError(f"unknown attribute type {type_.split(None, 1)[0]!r}")
    spec = type_.split(None, 1)[1] if word == "hierarchical" and " " in type_ else ""
    return Attribute(name, _SIMPLE[word], [], word, spec)


def parse_header(text: bytes, path: str = "<arff>"):
    """Parse the header: (relation, attributes, byte offset of the data, its line, relation line).

    Unlike liac-arff, a repeated attribute name is accepted (some Clus files repeat names).
    """
    relation, attributes, relation_line = "", [], 0
    pos, line_no, n = 0, 0, len(text)
    while pos < n:
        end = text.find(b"\n", pos)
        end = n if end < 0 else end
        line_no += 1
        raw = text[pos:end]
        pos = end + 1
        line = raw.decode("utf-8", errors="replace")
        bad = _CONTROL.search(line.rstrip("\r"))
        line = line.strip()
        if bad and line and not line.startswith("%"):
            raise DataError(f"{path}:{line_no}:{raw.find(bad.group(0).encode()) + 1}: control "
                            f"character in a header line ({shorten(line)})")
        if not line or line.startswith("%"):
            continue
        key = line.split(None, 1)[0].lower()
        if key == "@relation":
            relation_line = line_no
            try:
                rel = line.split(None, 1)[1].strip() if len(line.split(None, 1)) > 1 else ""
                if rel[:1] in ("'", '"') and (len(rel) < 2 or rel[-1] != rel[0]):
                    raise ValueError("unterminated quoted name")
                relation = unquote(rel)
            except ValueError as exc:
                raise DataError(f"{path}:{line_no}:1: malformed @relation: {exc} "
                                f"({shorten(line)})") from None
        elif key == "@attribute":
            try:
                attr = _parse_attribute(line.split(None, 1)[1] if len(line.split(None, 1)) > 1
                                        else "")
            except ValueError as exc:
                raise DataError(f"{path}:{line_no}:1: malformed @attribute: {exc} "
                                f"({shorten(line)})") from None
            attr.line = line_no
            attributes.append(attr)
        elif key == "@data":
            if not attributes:
                raise DataError(f"{path}:{line_no}:1: @data before any @attribute")
            return relation, attributes, pos, line_no, relation_line
        else:
            raise DataError(f"{path}:{line_no}:1: unexpected header line ({shorten(line)})")
    raise DataError(f"{path}:{max(line_no, 1)}:1: truncated ARFF: no @data section")


def _nominal_table(attributes):
    """Flatten the nominal value lists into (first, count, offsets, lengths, blob)."""
    first = np.zeros(len(attributes), dtype=np.int64)
    count = np.zeros(len(attributes), dtype=np.int64)
    offs, lens, chunks, k, off = [], [], [], 0, 0
    for j, a in enumerate(attributes):
        if a.kind != NOMINAL:
            continue
        first[j], count[j] = k, len(a.values)
        for v in a.values:
            b = v.encode("utf-8")
            offs.append(off)
            lens.append(len(b))
            chunks.append(b)
            off += len(b)
            k += 1
    return (first, count, np.asarray(offs, dtype=np.int64), np.asarray(lens, dtype=np.int64),
            b"".join(chunks))


def parse_arff(text: bytes, path: str = "<arff>", sparse: bool | None = None) -> ArffData:
    """Parse ARFF bytes; ``sparse`` None: CSR when the first data row is sparse, else dense."""
    from mlbench._ext import _arff

    relation, attributes, start, line_no, relation_line = parse_header(text, path)
    kinds = np.array([a.kind for a in attributes], dtype=np.int8)
    if sparse is None:
        m = _FIRST_ROW.search(text, start)
        sparse = bool(m) and m.group(1) == b"{"
    buf = text + b"\0"
    n_lines = text.count(b"\n", start) + 1
    cap_values = text.count(b",", start) + n_lines if sparse else 0
    first, count, offs, lens, blob = _nominal_table(attributes)
    try:
        values, n_rows, spans = _arff.parse_data(buf, start, line_no, kinds, first, count, offs,
                                                 lens, blob, sparse, n_lines, cap_values)
    except ValueError as exc:
        line, col, offset, msg = str(exc).split("\t", 3)
        msg = re.sub(r"#(\d+)", lambda m: repr(attributes[int(m.group(1))].name), msg)
        raise DataError(f"{path}:{line}:{col}: malformed ARFF data: {msg} "
                        f"({shorten(_token_at(text, int(offset)))})") from None
    if sparse:
        rows, cols, vals = values
        # the kernel rejects repeated or unsorted indices, so no entry is summed here
        X = sp.csr_matrix((vals, (rows, cols)), shape=(n_rows, len(attributes)))
    else:
        X = values
    strings, lines = {}, {}
    slots = [j for j, a in enumerate(attributes) if a.kind == STRING]
    newlines = np.flatnonzero(np.frombuffer(text, dtype=np.uint8) == 10) if slots else None
    for s, j in enumerate(slots):
        col = []
        lines[j] = (np.searchsorted(newlines, spans[:, s, 0]) + 1).tolist()
        for i, (a, b) in enumerate(spans[:, s, :].tolist()):
            try:
                col.append(None if b < 0 else unquote(text[a:b].decode("utf-8", errors="replace")))
            except ValueError as exc:  # an escape the kernel does not check in string values
                line, col = text.count(b"\n", 0, a) + 1, a - text.rfind(b"\n", 0, a)
                raise DataError(f"{path}:{line}:{col}: attribute "
                                f"{attributes[j].name!r}: {exc} ({shorten(text[a:b])})") from None
        strings[j] = col
    return ArffData(str(path), relation, attributes, X, strings, sparse, relation_line, lines)


def read_arff(path, sparse: bool | None = None) -> ArffData:
    """Read an ARFF file (optionally compressed)."""
    return parse_arff(read_bytes(path), str(path), sparse)
