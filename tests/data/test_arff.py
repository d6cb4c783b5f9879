"""The Cython ARFF reader against liac-arff, and its error messages."""
import glob
import os
import re

import arff as liac
import numpy as np
import pytest

from mlbench.data.arff import NOMINAL, STRING, parse_arff, read_arff, read_bytes
from mlbench.errors import DataError

DENSE = b"""% a comment before the header
@relation 'toy: -C 2'

@attribute 'lab one' {0,1}
@attribute "lab two" {0,1}
@attribute x numeric
@attribute n INTEGER
@attribute colour {red, 'dark blue', "sea,green"}
@attribute s string

@data
% a comment inside the data
1,0, 1.5, 7.9,red,'hello world'
0,1,-2e-3,-7.9,'dark blue',plain
?,1,?,3,"sea,green",?

1,1,1e308,0,?,'it\\'s'
"""

SPARSE = b"""@relation sparse
@attribute a numeric
@attribute b {0,1}
@attribute c {x,y}
@attribute d real
@data
{0 2.5,1 1}
{}
{2 y, 3 -1}
1,0,x,4
"""


def liac_matrix(text):
    """liac-arff's values as a float matrix (None and strings -> NaN), and its full result."""
    ref = liac.loads(text.decode(), encode_nominal=True)
    rows = [[np.nan if v is None or isinstance(v, str) else float(v) for v in row]
            for row in ref["data"]]
    return np.array(rows, dtype=float), ref


def test_dense_matches_liac_arff():
    d = parse_arff(DENSE, "toy.arff")
    R, ref = liac_matrix(DENSE)
    assert d.X.shape == (4, 6)
    np.testing.assert_array_equal(d.X, R)
    assert d.names == [a[0] for a in ref["attributes"]]
    assert d.strings[5] == [row[5] for row in ref["data"]]
    assert d.relation == "toy: -C 2"
    assert [a.kind for a in d.attributes][4:] == [NOMINAL, STRING]
    assert d.attributes[4].values == ["red", "dark blue", "sea,green"]
    assert d.X[0, 3] == 7.0 and d.X[1, 3] == -7.0  # INTEGER truncates toward zero


def test_sparse_matches_liac_arff_and_is_csr():
    d = parse_arff(SPARSE, "s.arff")
    R, _ = liac_matrix(SPARSE)
    assert d.sparse_rows and d.X.format == "csr"
    np.testing.assert_array_equal(d.X.toarray(), R)
    assert d.X[2, 2] == 1.0  # nominal 'y' -> index 1


def test_sparse_data_can_be_forced_dense():
    d = parse_arff(SPARSE, "s.arff", sparse=False)
    assert isinstance(d.X, np.ndarray)
    np.testing.assert_array_equal(d.X, liac_matrix(SPARSE)[0])


def test_escaped_quote_in_name_is_resolved():
    text = b"@relation r\n@attribute 'Swainson\\'s Thrush' {0,1}\n@data\n1\n"
    assert parse_arff(text).names == ["Swainson's Thrush"]


def test_compressed_files(tmp_path):
    import bz2
    import gzip

    (tmp_path / "a.arff.bz2").write_bytes(bz2.compress(DENSE))
    (tmp_path / "a.arff.gz").write_bytes(gzip.compress(DENSE))
    for name in ("a.arff.bz2", "a.arff.gz"):
        np.testing.assert_array_equal(read_arff(tmp_path / name).X, parse_arff(DENSE).X)


@pytest.mark.parametrize("data, where, words", [
    (b"1,0,1,1,red,s\n1,0,1\n", "13:6", "expected 6 values, found 3"),
    (b"1,0,abc,1,red,s\n", "12:5", "'x': value is not a number ('abc')"),
    (b"1,0,1,1,purple,s\n", "12:9", "'colour': value not in its declared nominal list ('purple')"),
    (b"1,0,1,1,'red,s\n", "12:9", "unterminated quoted value"),
    (b"{0 1, 99 1}\n", "12:7", "sparse index out of range (the file declares 6 attributes) ('99 1')"),
])
def test_malformed_data_names_file_line_column_and_token(data, where, words):
    text = DENSE.split(b"@data")[0] + b"@data\n" + data
    with pytest.raises(DataError, match=re.escape(f"bad.arff:{where}: malformed ARFF data: ")) as e:
        parse_arff(text, "bad.arff")
    assert words in str(e.value)
    assert "\n" not in str(e.value)


def test_truncated_header():
    with pytest.raises(DataError, match=r"bad.arff:2:1: truncated ARFF: no @data section"):
        parse_arff(b"@relation r\n@attribute a numeric\n", "bad.arff")


def test_bad_attribute_type():
    with pytest.raises(DataError, match=r"bad.arff:2:1: malformed @attribute"):
        parse_arff(b"@relation r\n@attribute a complex\n@data\n", "bad.arff")


_ATTR = re.compile(r"""(?i)(\s*@attribute\s+)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\S+)"""
                   r"(\s+)(.*)$")


def _liac_text(text):
    """What liac-arff accepts: Clus 'hierarchical' -> string, names with % quoted, duplicate
    names made unique (liac-arff rejects all three; the values are unaffected)."""
    lines, seen = text.split("\n"), {}
    for i, line in enumerate(lines):
        if re.match(r"(?i)\s*@data", line):
            break
        m = _ATTR.match(line)
        if m:
            name, typ = m.group(2), m.group(4)
            if typ.lower().startswith("hierarchical"):
                typ = "string"
            if re.search(r"[%{},]", name) and name[0] not in "'\"":
                name = f"'{name}'"
            seen[name] = seen.get(name, -1) + 1
            if seen[name]:
                q = name[-1] if name[0] in "'\"" else ""
                name = f"{name[:len(name) - len(q)]}__dup{seen[name]}{q}"
            lines[i] = m.group(1) + name + m.group(3) + typ
    return "\n".join(lines)


def _mirror_arff_files():
    root = os.environ.get("MLBENCH_MIRROR")
    if not root or not os.path.isdir(root):
        return []
    return sorted(glob.glob(os.path.join(root, "**", "*.arff*"), recursive=True))


@pytest.mark.slow
@pytest.mark.mirror
def test_every_mirror_arff_matches_liac_arff():
    files = _mirror_arff_files()
    if not files:
        pytest.skip("MLBENCH_MIRROR is not set to the dataset mirror directory")
    for path in files:
        text = read_bytes(path)
        ours = parse_arff(text, path)
        ref = liac.loads(_liac_text(text.decode()), encode_nominal=True)
        R = np.array([[np.nan if v is None or isinstance(v, str) else float(v) for v in row]
                      for row in ref["data"]], dtype=float)
        X = ours.X.toarray() if ours.sparse_rows else ours.X
        assert X.shape == R.shape, path
        assert np.array_equal(X, R, equal_nan=True), path
        quoted = [m.group(2)[0] in "'\"" for m in map(_ATTR.match, text.decode().split("\n"))
                  if m]
        names = [re.sub(r"__dup\d+$", "", a[0]) for a in ref["attributes"]]
        # a quoted name has its escapes resolved (Weka), liac-arff keeps the backslash
        names = [n.replace("\\'", "'") if q else n for n, q in zip(names, quoted)]
        assert names == ours.names, path
        for j, col in ours.strings.items():
            assert col == [row[j] for row in ref["data"]], path
