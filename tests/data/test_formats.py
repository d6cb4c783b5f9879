"""MEKA, MULAN XML, Clus HMC, the Hierarchy and the .rda reader on tiny hand-made inputs."""
import lzma
import struct

import numpy as np
import pytest

from mlbench.data import clus_hmc, meka, mulan_xml
from mlbench.data.arff import parse_arff
from mlbench.data.hierarchy import Hierarchy
from mlbench.data.rda import read_mldr
from mlbench.errors import DataError

MEKA_FIRST = b"""@relation 'Toy: -C 2 -split-number 3'
@attribute L1 {0,1}
@attribute L2 {0,1}
@attribute f1 numeric
@data
1,0,0.5
0,1,1.5
"""


def test_meka_labels_first_and_last():
    d = parse_arff(MEKA_FIRST, "m.arff")
    assert meka.label_columns(d) == [0, 1]
    d.relation = "Toy: -C -1"
    assert meka.label_columns(d) == [2]
    X, Y, names, _ = mulan_xml.split_features_labels(d, meka.label_columns(parse_arff(MEKA_FIRST)))
    assert names == ["f1"] and Y.tolist() == [[1, 0], [0, 1]] and X[:, 0].tolist() == [0.5, 1.5]


def test_meka_without_label_count():
    d = parse_arff(MEKA_FIRST.replace(b"-C 2", b"-X 2"), "m.arff")
    with pytest.raises(DataError, match="no '-C N' label count"):
        meka.label_columns(d)


def test_mulan_xml_nested_labels_and_missing(tmp_path):
    xml = tmp_path / "l.xml"
    xml.write_text('<?xml version="1.0"?><labels xmlns="http://mulan.sourceforge.net/labels">'
                   '<label name="L1"><label name="L2"></label></label></labels>')
    names, edges = mulan_xml.read_labels(xml)
    assert names == ["L1", "L2"] and edges == [("L1", "L2")]
    d = parse_arff(MEKA_FIRST, "m.arff")
    assert mulan_xml.label_columns(d, names) == [0, 1]
    with pytest.raises(DataError, match="labels missing from m.arff: 'L9'"):
        mulan_xml.label_columns(d, ["L1", "L9"], "l.xml")


TREE = b"""@relation t
@attribute f numeric
@attribute class hierarchical 01,01/01,01/02,02,02/01,02/01/05
@data
1.0,01/01@02/01/05
2.0,01/02
3.0,?
"""

DAG = b"""@relation g
@attribute f numeric
@attribute class hierarchical root/A,root/B,A/C,B/C,C/D
@data
1,D
2,A@B
"""


def test_clus_tree_labels_close_upward():
    d = parse_arff(TREE, "t.arff")
    Y, h, col = clus_hmc.labels(d)
    assert col == 1 and h.nodes == ["01", "01/01", "01/02", "02", "02/01", "02/01/05"]
    assert Y.tolist() == [[1, 1, 0, 1, 1, 1], [1, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 0]]
    assert h.is_tree and h.max_depth == 2 and h.leaves == ["01/01", "01/02", "02/01/05"]


def test_clus_dag_drops_artificial_root():
    d = parse_arff(DAG, "g.arff")
    Y, h, _ = clus_hmc.labels(d)
    assert h.nodes == ["A", "B", "C", "D"] and not h.is_tree
    assert sorted(h.parents("C")) == ["A", "B"] and h.roots == ["A", "B"]
    assert Y.tolist() == [[1, 1, 1, 1], [1, 1, 0, 0]]
    assert h.depth("D") == 2


def test_clus_unknown_class():
    d = parse_arff(TREE.replace(b"01/02\n", b"03/07\n"), "t.arff")
    line = TREE.split(b"03/07" if b"03/07" in TREE else b"01/02\n")[0].count(b"\n") + 1
    with pytest.raises(DataError, match=rf"t.arff:{line}:1: data row 2 names a class missing "
                                        r"from the declared hierarchy \('03/07'\)"):
        clus_hmc.labels(d)


def test_hierarchy_cycle_rejected():
    with pytest.raises(DataError, match="cycle"):
        Hierarchy([("a", "b"), ("b", "a")])


def test_hierarchy_ancestor_matrix():
    h = Hierarchy([("a", "b"), ("b", "c")])
    A = h.ancestor_matrix()
    assert A[h.index["c"]].tolist() == [True, True, True]
    assert A[h.index["a"]].tolist() == [True, False, False]


# --- a minimal R XDR writer, enough for an mldr-shaped object --------------------------------
def _i(v):
    return struct.pack(">i", v)


def _char(s):
    return _i(9 | (1 << 18)) + _i(len(s)) + s.encode() if s is not None else _i(9) + _i(-1)


def _str(vals, attrs=b""):
    return _i(16 | (512 if attrs else 0)) + _i(len(vals)) + b"".join(map(_char, vals)) + attrs


def _real(vals, attrs=b""):
    head = _i(14 | (512 if attrs else 0)) + _i(len(vals))
    return head + struct.pack(f">{len(vals)}d", *vals) + attrs


def _int(vals, attrs=b""):
    head = _i(13 | (512 if attrs else 0)) + _i(len(vals))
    return head + struct.pack(f">{len(vals)}i", *vals) + attrs


def _pairlist(items):
    out = b""
    for tag, value in items:
        out += _i(2 | 1024) + _i(1) + _char(tag) + value
    return out + _i(254)


def _list(items, names):
    attrs = _pairlist([("names", _str(names))])
    return _i(19 | 512) + _i(len(items)) + b"".join(items) + attrs


def test_rda_mldr_object(tmp_path):
    # dataset: f1 numeric, f2 nominal {a,b} as character, labels L1, L2 (numeric 0/1)
    dataset = _list([_real([0.5, 0.0, 2.0]), _str(["a", "b", None]), _real([1, 0, 1]),
                     _real([0, 0, 1])], ["f1", "f2", "L1", "L2"])
    labels = _list([_int([3, 4])], ["index"])
    attributes = _str(["numeric", "{a,b}", "{0,1}", "{0,1}"],
                      _pairlist([("names", _str(["f1", "f2", "L1", "L2"]))]))
    mldr = _list([_str(["toy"]), dataset, _int([1, 2]), attributes, labels],
                 ["name", "dataset", "attributesIndexes", "attributes", "labels"])
    body = b"RDX2\nX\n" + _i(2) + _i(0x040000) + _i(0x020300) + _pairlist([("toy", mldr)])
    path = tmp_path / "toy.rda"
    path.write_bytes(lzma.compress(body))
    X, Y, names, lnames, nominal = read_mldr(path)
    assert names == ["f1", "f2"] and lnames == ["L1", "L2"] and nominal == {1: ["a", "b"]}
    np.testing.assert_array_equal(X.toarray(), [[0.5, 0], [0, 1], [2, np.nan]])
    assert Y.tolist() == [[1, 0], [0, 0], [1, 1]]


def test_rda_truncated(tmp_path):
    path = tmp_path / "bad.rda"
    path.write_bytes(lzma.compress(b"RDX2\nX\n" + _i(2) + _i(0)))
    with pytest.raises(DataError, match="truncated R data file"):
        read_mldr(path)
