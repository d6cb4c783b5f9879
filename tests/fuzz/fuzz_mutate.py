"""A seeded mutational generator for the fuzz targets: case ``i`` of seed ``s`` is always the same.

Byte-level mutations (flip, insert, delete, duplicate, truncate) plus structure-aware ones: a number
replaced by a hostile one (huge, hex, ``nan(...)``, overflowing), a sparse ARFF entry duplicated
or two swapped, XML nested deeply or given a DTD or an unknown encoding, an R XDR integer (a type,
flag or length) replaced by a boundary value.
"""
from __future__ import annotations

import random
import re
import struct

TOKENS = [b"{", b"}", b",", b"'", b'"', b"\\", b"?", b"%", b"\n", b" ", b"\t", b"\r", b"\x00",
          b"\xff", b"\xc3", b"0x10", b"nan(123)", b"nan", b"-inf", b"Infinity", b"1_0", b"1e309",
          b"99999999999999999999", b"18446744073709551617", b"-1", b"+.5", b"5.", b".", b"e5",
          b"@data\n", b"@attribute x numeric\n", b"@attribute y {a,b}\n", b"{0 1} {1 2}",
          b"'a'junk", b"'\\777'", b"'\\9'", b"\\u00e9", b"{}", b"0 1,", b"@relation 'r: -C 2'\n",
          b"\"", b"/", b"@", b"root/", b"<label name=\"x\">", b"</label>", b"<!DOCTYPE l []>",
          b"&e;", b"encoding=\"bogus\""]
NUMBERS = [b"0", b"1", b"-1", b"0x10", b"nan(123)", b"1e400", b"-0", b"00", b"9" * 25,
           b"18446744073709551616", b"2147483648", b"1.5", b"inf", b"1,5", b"1 5", b"1e", b"--1"]
INTS = [0, 1, -1, -2, 2, 255, 254, 238, 9, 16, 19, 2 ** 31 - 1, -2 ** 31, 2 ** 30, 1 << 8,
        (1 << 8) | 16, 0x7FFFFFFF, 1000, 10 ** 9]


def _flip(b, r):
    if b:
        i = r.randrange(len(b))
        b[i] = r.randrange(256) if r.random() < 0.5 else b[i] ^ (1 << r.randrange(8))


def _insert(b, r):
    i = r.randrange(len(b) + 1)
    b[i:i] = r.choice(TOKENS)


def _delete(b, r):
    if b:
        i = r.randrange(len(b))
        del b[i:i + r.choice((1, 1, 2, 5, 20, 200))]


def _lines(b, r):
    lines = bytes(b).split(b"\n")
    i, j = r.randrange(len(lines)), r.randrange(len(lines))
    if r.random() < 0.5:
        lines.insert(j, lines[i])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    b[:] = b"\n".join(lines)


def _truncate(b, r):
    if b:
        del b[r.randrange(len(b)):]


def _number(b, r):
    spans = [m.span() for m in re.finditer(rb"-?\d+(\.\d+)?", bytes(b)[:200_000])]
    if spans:
        s, e = r.choice(spans)
        b[s:e] = r.choice(NUMBERS)


def _sparse(b, r):
    rows = [m.span(1) for m in re.finditer(rb"\{([^{}\n]+)\}", bytes(b))]
    if not rows:
        return
    s, e = r.choice(rows)
    entries = bytes(b[s:e]).split(b",")
    k = r.randrange(len(entries))
    op = r.randrange(3)
    if op == 0:
        entries.insert(k, entries[k])                      # duplicated index
    elif op == 1 and len(entries) > 1:
        j = r.randrange(len(entries))
        entries[k], entries[j] = entries[j], entries[k]    # unsorted
    else:
        idx = entries[k].split()
        if idx:
            entries[k] = r.choice(NUMBERS) + b" " + b" ".join(idx[1:])
    b[s:e] = b",".join(entries)


def _xml(b, r):
    op = r.randrange(3)
    if op == 0:
        n = r.choice((10, 100, 1000, 5000))
        i = bytes(b).find(b"<label ")
        if i >= 0:
            b[i:i] = b'<label name="d">' * n + b"</label>" * n
    elif op == 1:
        b[0:0] = b'<?xml version="1.0" encoding="' + r.choice([b"bogus", b"utf-16", b"latin-1"]) \
            + b'"?>'
    else:
        b[0:0] = b'<!DOCTYPE labels [<!ENTITY e "xxxxxxxx">]>'


def _xdr_int(b, r):
    if len(b) >= 8:
        i = r.randrange(len(b) // 4) * 4
        b[i:i + 4] = struct.pack(">i", r.choice(INTS))


_YAML_TOKENS = [b"&a ", b"*a ", b"- ", b": ", b"{", b"}", b"[", b"]", b"\t", b"\xe9", b"!!python/object ",
                b"? ", b"name: x\n", b"'", b'"', b"|\n", b"---\n", b"<<: *a\n"]
_CSV_TOKENS = [b'"', b",", b"\r", b"\n", b'""', b"x" * 140_000, b"nan", b"inf", b"-1e400", b"\x00",
               b"ok", b"error", b"\xff\xfe"]


def _token(tokens):
    def op(b, r):
        i = r.randrange(len(b) + 1)
        b[i:i] = r.choice(tokens)
    return op


GENERIC = [_flip, _insert, _delete, _lines, _truncate, _number]
EXTRA = {"arff": [_sparse, _sparse], "xml": [_xml], "rda": [_xdr_int, _xdr_int, _xdr_int],
         "cache": [], "yaml": [_token(_YAML_TOKENS)] * 3, "csv": [_token(_CSV_TOKENS)] * 3}


def mutate(seed: bytes, seed_id: int, i: int, family: str) -> bytes:
    """Case ``i`` of the deterministic stream ``seed_id`` over ``seed``."""
    r = random.Random(f"{seed_id}:{i}")
    ops = GENERIC + EXTRA.get(family, [])
    if family in ("rda", "cache"):
        ops = [_flip, _flip, _insert, _delete, _truncate] + EXTRA[family]
    b = bytearray(seed)
    for _ in range(r.choice((1, 1, 1, 2, 3, 4))):
        r.choice(ops)(b, r)
    return bytes(b)
