"""mldr.datasets ``.rda`` files read without R.

An ``.rda`` file is R's serialization format (XDR, format version 2 or 3) of a pairlist of named
objects, usually xz- (also gzip- or bzip2-) compressed.  mldr.datasets stores one ``mldr`` object: a
named list whose ``dataset`` is a data.frame of every column (features, labels, then ``.labelcount``
and ``.SCUMBLE``), ``attributesIndexes`` the 1-based feature columns, ``attributes`` each column's
ARFF type (``numeric`` or ``{v1,v2,...}``) and ``labels`` a data.frame whose ``index`` column gives
the 1-based label columns (its row names are the label names).

Why not the ``rdata`` package: it materializes everything (an RCV1 subset is 2.3 GB of doubles once
decompressed, 47 000 columns) and took minutes on small files.  This reader streams the
decompressed bytes, keeps only the nonzeros of long numeric columns, and understands just the
subset of the format these files use (vectors, lists, pairlists, symbols, references, attributes,
environments, ALTREP compact sequences); anything else is a DataError.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import struct
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from mlbench.data.arff import _split_quoted, shorten, unquote
from mlbench.errors import DataError

# SEXP type codes (R Internals, "Serialization Formats")
NILSXP, SYMSXP, LISTSXP, CLOSXP, ENVSXP, PROMSXP, LANGSXP = 0, 1, 2, 3, 4, 5, 6
CHARSXP, LGLSXP, INTSXP, REALSXP, CPLXSXP, STRSXP = 9, 10, 13, 14, 15, 16
DOTSXP, VECSXP, EXPRSXP, RAWSXP, S4SXP = 17, 19, 20, 24, 25
REFSXP, NILVALUE, GLOBALENV, UNBOUNDVALUE, MISSINGARG = 255, 254, 253, 252, 251
BASENAMESPACE, NAMESPACESXP, PACKAGESXP, PERSISTSXP = 250, 249, 248, 247
EMPTYENV, BASEENV, ATTRLANGSXP, ATTRLISTSXP, ALTREP = 242, 241, 240, 239, 238
NA_INTEGER = -(2 ** 31)
_PAIRLISTS = (LISTSXP, LANGSXP, CLOSXP, PROMSXP, DOTSXP, ATTRLANGSXP, ATTRLISTSXP)
SPARSE_MIN_LENGTH = 1000   # numeric vectors at least this long are kept as nonzeros only
MAX_DEPTH = 200            # nesting of R objects (an mldr object is about 6 deep)
# what a corrupt file can make the decoding below raise; reported as one DataError line
_CORRUPT = (OSError, EOFError, lzma.LZMAError, struct.error, ValueError, TypeError, IndexError,
            KeyError, AttributeError, OverflowError, RecursionError, ZeroDivisionError)


@dataclass
class RObj:
    """An R value with its attributes (``names``, ``class``, ``row.names``, ``levels`` ...)."""

    value: object
    attrs: dict = field(default_factory=dict)


@dataclass
class SparseVec:
    """A long numeric vector kept as its nonzero positions and values (NaN counts as nonzero)."""

    length: int
    index: np.ndarray
    data: np.ndarray


class _Reader:
    CHUNK = 1 << 22

    def __init__(self, stream, path):
        self.f = stream
        self.path = path
        self.refs = []
        self.buf = b""
        self.pos = 0
        self.depth = 0

    def _fill(self, n):
        """Make at least n bytes available at self.pos (False if the stream ends first).

        Reads in chunks: a declared size is trusted only as far as the stream really holds data,
        so a 2 KB file declaring a 2**31-element vector fails at its end instead of allocating.
        """
        if self.pos + n <= len(self.buf):
            return True
        chunks, have = [self.buf[self.pos:]], len(self.buf) - self.pos
        while have < n:
            more = self.f.read(self.CHUNK)
            if not more:
                break
            chunks.append(more)
            have += len(more)
        self.buf, self.pos = b"".join(chunks), 0
        return len(self.buf) >= n

    def read(self, n):
        if not self._fill(n):
            raise DataError(f"{self.path}:1:1: truncated R data file")
        b = self.buf[self.pos:self.pos + n]
        self.pos += n
        return b

    def strings(self, n):
        """n CHARSXP items.  Fast path: when all have the same length k (e.g. "0"/"1" columns)
        they form a fixed-stride block of 8 + k bytes, read with one structured numpy view; a
        long one is returned as a numpy bytes array (decoding millions of str is the slow part)."""
        if n and self._fill(8):
            k = struct.unpack_from(">i", self.buf, self.pos + 4)[0]
            if 0 <= k <= 64 and self._fill((8 + k) * n):
                dt = np.dtype([("flags", ">i4"), ("len", ">i4"), ("s", f"S{k}")])
                block = np.frombuffer(self.buf, dtype=dt, count=n, offset=self.pos)
                if (block["len"] == k).all():
                    self.pos += (8 + k) * n
                    if n >= SPARSE_MIN_LENGTH:
                        return block["s"].copy()  # a long column stays a bytes array
                    return [b.decode("utf-8", errors="replace") for b in block["s"].tolist()]
        out = []  # grown as items arrive (n is a declared, untrusted count)
        for _ in range(n):
            _, m = struct.unpack(">ii", self.read(8))
            out.append(self.read(m).decode("utf-8", errors="replace") if m >= 0 else None)
        return out

    def int(self):
        return struct.unpack(">i", self.read(4))[0]

    def length(self):
        n = self.int()
        if n == -1:
            hi, lo = struct.unpack(">II", self.read(8))
            n = (hi << 32) + lo
        if n < 0:
            raise DataError(f"{self.path}:1:1: negative R vector length {n}")
        return n

    def item(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise DataError(f"{self.path}:1:1: R objects nested deeper than {MAX_DEPTH} levels")
        try:
            return self.from_flags(self.int())
        finally:
            self.depth -= 1

    def attributes(self, has_attr):
        if not has_attr:
            return {}
        pl = self.item()
        return dict(pl.value) if isinstance(pl, RObj) and isinstance(pl.value, list) else {}

    def from_flags(self, flags):
        t = flags & 0xFF
        has_attr, has_tag = flags & (1 << 9), flags & (1 << 10)
        if t in (NILVALUE, NILSXP):
            return None
        if t in (EMPTYENV, BASEENV, GLOBALENV, UNBOUNDVALUE, MISSINGARG, BASENAMESPACE):
            return RObj(f"<special {t}>")
        if t == REFSXP:
            idx = flags >> 8
            if idx == 0:
                idx = self.int()
            if not 1 <= idx <= len(self.refs):
                raise DataError(f"{self.path}:1:1: R reference {idx} to an undefined object")
            return self.refs[idx - 1]
        if t == SYMSXP:
            sym = self.item()
            self.refs.append(sym)
            return sym
        if t in (PACKAGESXP, NAMESPACESXP, PERSISTSXP):
            if self.int() != 0:
                raise DataError(f"{self.path}:1:1: unsupported R namespace reference")
            obj = RObj([self.item() for _ in range(self.int())])
            self.refs.append(obj)
            return obj
        if t == ENVSXP:
            self.int()  # locked
            env = RObj({})
            self.refs.append(env)
            self.item()  # enclosure
            frame, hashtab = self.item(), self.item()
            env.attrs = self.attributes(True)
            for part in (frame, hashtab):
                if isinstance(part, RObj) and isinstance(part.value, list):
                    env.value.update(p for p in part.value if isinstance(p, tuple))
            return env
        if t in _PAIRLISTS:
            return self.pairlist(flags)
        if t == CHARSXP:
            n = self.int()
            if n == -1:
                return None
            if n < 0:
                raise DataError(f"{self.path}:1:1: negative R string length {n}")
            return self.read(n).decode("utf-8", errors="replace")
        if t in (LGLSXP, INTSXP):
            v = np.frombuffer(self.read(4 * self.length()), dtype=">i4").astype(np.float64)
            raw_na = v == NA_INTEGER
            if raw_na.any():
                v[raw_na] = np.nan
            return self.vector(v, has_attr, t)
        if t == REALSXP:
            v = np.frombuffer(self.read(8 * self.length()), dtype=">f8").astype(np.float64)
            return self.vector(v, has_attr, t)
        if t == CPLXSXP:
            v = np.frombuffer(self.read(16 * self.length()), dtype=">c16").astype(np.complex128)
            return RObj(v, self.attributes(has_attr))
        if t == RAWSXP:
            return RObj(self.read(self.length()), self.attributes(has_attr))
        if t == STRSXP:
            out = self.strings(self.length())
            return RObj(out, self.attributes(has_attr))
        if t in (VECSXP, EXPRSXP):
            n = self.length()
            items = [self.item() for _ in range(n)]
            return RObj(items, self.attributes(has_attr))
        if t == S4SXP:
            return RObj(None, self.attributes(has_attr))
        if t == ALTREP:
            info, state, extra = self.item(), self.item(), self.item()
            attrs = dict(extra.value) if isinstance(extra, RObj) and isinstance(extra.value, list) \
                else {}
            return self.altrep(info, state, attrs)
        raise DataError(f"{self.path}:1:1: unsupported R object type {t}")

    def vector(self, v, has_attr, t):
        attrs = self.attributes(has_attr)
        if len(v) >= SPARSE_MIN_LENGTH and "levels" not in attrs:
            nz = np.flatnonzero(v != 0)
            if len(nz) < 0.25 * len(v):
                return RObj(SparseVec(len(v), nz, v[nz]), attrs)
        return RObj(v, attrs)

    def pairlist(self, flags):
        # iterative over the CDR chain: long pairlists must not recurse
        items = []
        while True:
            self.attributes(flags & (1 << 9))  # attributes of a pairlist cell are not needed
            tag = self.item() if flags & (1 << 10) else None
            items.append((tag, self.item()))
            flags = self.int()
            if (flags & 0xFF) in (NILVALUE, NILSXP):
                return RObj(items)
            if (flags & 0xFF) not in _PAIRLISTS:
                items.append((None, self.from_flags(flags)))
                return RObj(items)

    def altrep(self, info, state, attrs):
        cls = info.value[0][1] if isinstance(info, RObj) and info.value else None
        if cls in ("compact_intseq", "compact_realseq"):
            n, start, step = (float(x) for x in state.value[:3])
            return RObj(start + step * np.arange(int(n), dtype=np.float64), attrs)
        if isinstance(cls, str) and cls.startswith("wrap_"):
            inner = state.value[0] if isinstance(state, RObj) else state
            inner.attrs.update(attrs)
            return inner
        if cls == "deferred_string":
            arg = state.value[0][1] if isinstance(state.value, list) else state
            vals = arg.value if isinstance(arg, RObj) else arg
            return RObj([None if np.isnan(x) else f"{x:g}" for x in np.asarray(vals)], attrs)
        raise DataError(f"{self.path}:1:1: unsupported R ALTREP class {cls!r}")


def _open(path):
    with open(path, "rb") as fh:
        magic = fh.read(6)
    if magic[:6] == b"\xfd7zXZ\x00":
        return lzma.open(path, "rb")
    if magic[:2] == b"\x1f\x8b":
        return gzip.open(path, "rb")
    if magic[:3] == b"BZh":
        return bz2.open(path, "rb")
    return open(path, "rb")


def read_rda(path) -> dict:
    """The named objects of an ``.rda`` file (values as :class:`RObj`)."""
    try:
        with _open(path) as f:
            head = f.read(5)
            if head not in (b"RDX2\n", b"RDX3\n"):
                raise DataError(f"{path}:1:1: not an R data file (header {head!r})")
            if f.read(2) != b"X\n":
                raise DataError(f"{path}:1:1: only XDR-serialized R data is supported")
            r = _Reader(f, path)
            version = r.int()
            r.int()
            r.int()  # writer and minimal reader versions
            if version == 3:
                r.read(r.int())  # native encoding
            top = r.item()
    except _CORRUPT as exc:
        raise DataError(f"{path}:1:1: corrupt R data file ({type(exc).__name__}: "
                        f"{shorten(str(exc))})") from None
    if not isinstance(top, RObj) or not isinstance(top.value, list):
        raise DataError(f"{path}:1:1: no named objects in the R data file")
    return {tag: value for tag, value in top.value}


def _named(obj: RObj) -> dict:
    names = obj.attrs.get("names")
    if names is None:
        raise DataError("mldr object without names")
    return dict(zip(names.value, obj.value))


def _column(obj: RObj, n: int):
    """(indices, values) of the nonzeros of a numeric data.frame column."""
    v = obj.value
    if isinstance(v, SparseVec):
        if v.length != n:
            raise DataError(f"data.frame column of length {v.length}, expected {n}")
        return v.index, v.data
    v = np.asarray(v, dtype=np.float64)
    if len(v) != n:
        raise DataError(f"data.frame column of length {len(v)}, expected {n}")
    nz = np.flatnonzero(v != 0)
    return nz, v[nz]


def _nominal_column(obj: RObj, values: list[str], name: str):
    """Numeric codes (index in ``values``) of a character or factor column."""
    v = obj.value
    if "levels" in obj.attrs:  # factor: 1-based codes into levels
        levels = obj.attrs["levels"].value
        lookup = np.array([values.index(lv) if lv in values else -1 for lv in levels] + [-1])
        codes = np.asarray(v, dtype=np.float64)
        out = np.full(len(codes), np.nan)
        ok = ~np.isnan(codes)
        if ((codes[ok] < 1) | (codes[ok] > len(levels))).any():
            raise DataError(f"factor column {name!r} holds a code outside its levels")
        out[ok] = lookup[codes[ok].astype(int) - 1]
    elif isinstance(v, (list, np.ndarray)) and (isinstance(v, list) or v.dtype.kind == "S"):
        arr = np.asarray([b"\0NA" if s is None else s.encode() for s in v]) \
            if isinstance(v, list) else v
        uniq, inv = np.unique(arr, return_inverse=True)
        index = {s: k for k, s in enumerate(values)}
        codes = np.array([np.nan if u == b"\0NA" else index.get(u.decode(), -1) for u in uniq],
                         dtype=np.float64)
        out = codes[inv.ravel()]
    else:  # numbers: each must equal one declared value, whose index is the code
        n = len(v) if not isinstance(v, SparseVec) else v.length
        idx, data = _column(obj, n)
        index = {}
        for k, s in enumerate(values):
            try:
                index.setdefault(float(s), k)
            except ValueError:
                pass
        out = np.full(n, float(index.get(0.0, -1)))  # the implicit zeros are the value "0"
        out[idx] = [np.nan if np.isnan(x) else index.get(float(x), -1) for x in data]
    if (out == -1).any():
        raise DataError(f"column {name!r} holds a value outside its declared list")
    nz = np.flatnonzero(out != 0)
    return nz, out[nz]


def read_mldr(path):
    """(X as CSC, Y, feature names, label names, nominal) of an mldr.datasets ``.rda`` file."""
    try:
        return _read_mldr(path)
    except DataError as exc:
        msg = str(exc)
        raise DataError(msg if msg.startswith(str(path)) else f"{path}:1:1: {msg}") from None
    except _CORRUPT as exc:  # an object of the right shape holding values of the wrong kind
        raise DataError(f"{path}:1:1: not a valid mldr object ({type(exc).__name__}: "
                        f"{shorten(str(exc))})") from None


def _read_mldr(path):
    objects = read_rda(path)
    mldr = next((v for v in objects.values() if isinstance(v, RObj) and "names" in v.attrs), None)
    if mldr is None:
        raise DataError(f"{path}:1:1: no mldr object in the R data file")
    try:
        parts = _named(mldr)
        ds = parts["dataset"]
        columns = ds.value
        col_names = list(ds.attrs["names"].value)
        first = columns[0].value
        n = first.length if isinstance(first, SparseVec) else len(first)
        feat_idx = [int(i) - 1 for i in np.asarray(parts["attributesIndexes"].value)]
        types = dict(zip(parts["attributes"].attrs["names"].value, parts["attributes"].value))
        labels = parts["labels"]
        lab = _named(labels)
        label_idx = [int(i) - 1 for i in np.asarray(lab["index"].value)]
    except (KeyError, AttributeError, TypeError, IndexError) as exc:
        raise DataError(f"{path}:1:1: not an mldr object ({exc})") from None
    rows, cols, vals, nominal, names = [], [], [], {}, []
    for k, j in enumerate(feat_idx):
        name = col_names[j]
        names.append(name)
        spec = (types.get(name) or "numeric").strip()
        if spec.startswith("{"):
            if not spec.endswith("}"):
                raise DataError(f"attribute {name!r}: nominal type without a closing '}}' "
                                f"({shorten(spec)})")
            values = [unquote(v) for v in _split_quoted(spec[1:-1])]
            nominal[k] = values
            idx, v = _nominal_column(columns[j], values, name)
        else:
            idx, v = _column(columns[j], n)
        rows.append(idx)
        cols.append(np.full(len(idx), k))
        vals.append(v)
    X = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(n, len(feat_idx)))
    Y = np.zeros((n, len(label_idx)), dtype=np.int8)
    for k, j in enumerate(label_idx):
        col = columns[j]
        if isinstance(col.value, list) or (isinstance(col.value, np.ndarray)
                                           and col.value.dtype.kind == "S"):
            v = np.asarray([b"" if x is None else str(x).encode() for x in col.value]
                           if isinstance(col.value, list) else col.value)
            if not np.isin(v, (b"0", b"1")).all():
                raise DataError(f"label column {col_names[j]!r} holds a value other than '0' "
                                f"or '1'")
            Y[:, k] = v == b"1"
        else:
            idx, v = _column(col, n)
            if not np.all(v == 1):
                raise DataError(f"label column {col_names[j]!r} holds a value other than 0 or 1")
            Y[idx, k] = 1
    label_names = [col_names[j] for j in label_idx]
    return X, Y, names, label_names, nominal
