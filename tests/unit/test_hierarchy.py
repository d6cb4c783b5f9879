"""Hierarchy: distances vs networkx, common ancestors, own classes, label views, separators."""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from mlbench.data.hierarchy import Hierarchy
from mlbench.errors import DataError

# two top-level trees:  a -> a1 -> (a11, a12), a -> a2 ;  b -> b1
TREE = [("a", "a1"), ("a1", "a11"), ("a1", "a12"), ("a", "a2"), ("b", "b1")]
# a DAG: d has two parents
DAG = [("x", "y"), ("x", "z"), ("y", "d"), ("z", "d"), ("w", "z")]


def _nx_distances(edges, nodes):
    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    g.add_edges_from(("ROOT", v) for v in nodes if not any(c == v for _, c in edges))
    return dict(nx.all_pairs_shortest_path_length(g))


@pytest.mark.parametrize("edges", [TREE, DAG])
def test_distances_match_networkx(edges):
    h = Hierarchy(edges)
    ref = _nx_distances(edges, h.nodes)
    D = h.distance_matrix()
    for a in h.nodes:
        for b in h.nodes:
            assert D[h.index[a], h.index[b]] == ref[a][b]
        assert h.root_distance()[h.index[a]] == ref["ROOT"][a]


def test_tree_distances_by_hand():
    h = Hierarchy(TREE)
    assert h.gamma("a11", "a12") == 2
    assert h.gamma("a11", "a2") == 3
    assert h.gamma("a11", "b1") == 5          # up to the implicit root and down
    assert h.gamma("a", "b") == 2


def test_common_ancestors_count_the_root():
    h = Hierarchy(TREE)
    assert h.n_common_ancestors("a11", "a12") == 3   # a1, a, root
    assert h.n_common_ancestors("a11", "a2") == 2    # a, root
    assert h.n_common_ancestors("a11", "b1") == 1    # root
    assert h.n_common_ancestors("a11", "a11") == 3
    d = Hierarchy(DAG)
    assert d.n_common_ancestors("d", "z") == 3       # x, w, root


def test_ancestor_matrix_dag():
    h = Hierarchy(DAG)
    A = h.ancestor_matrix()
    row = {v for v in h.nodes if A[h.index["d"], h.index[v]]}
    assert row == {"d", "y", "z", "x", "w"}


def test_most_specific_close_and_is_closed():
    h = Hierarchy(TREE)
    idx = h.index
    Y = np.zeros((2, len(h)), dtype=np.int8)
    for v in ("a", "a1", "a11"):
        Y[0, idx[v]] = 1
    for v in ("a", "a2", "b", "b1"):
        Y[1, idx[v]] = 1
    S = h.most_specific(Y)
    assert {h.nodes[j] for j in np.flatnonzero(S[0])} == {"a11"}
    assert {h.nodes[j] for j in np.flatnonzero(S[1])} == {"a2", "b1"}
    assert h.is_closed(Y) and not h.is_closed(S)
    assert np.array_equal(h.close(S), Y)


def test_label_view_maps_columns():
    h = Hierarchy(TREE)
    v = h.with_labels(["a12", "a11", "b1"])
    assert v.labels == ["a12", "a11", "b1"] and h.labels == h.nodes
    assert v.label_distance()[0, 1] == 2 and v.label_distance()[1, 2] == 5
    with pytest.raises(DataError, match="not in the hierarchy"):
        h.with_labels(["nope"])
    with pytest.raises(DataError, match="label columns"):
        v.most_specific(np.zeros((1, 2)))


def test_separator_and_flat():
    h = Hierarchy.from_separator(["A.A1", "A.A2", "B.B1", "C"])
    assert h.labels == ["A.A1", "A.A2", "B.B1", "C"]
    assert set(h.nodes) == {"A", "A.A1", "A.A2", "B", "B.B1", "C"}
    assert h.gamma("A.A1", "A.A2") == 2 and h.gamma("A.A1", "C") == 3
    f = Hierarchy.flat(["p", "q", "r"])
    assert f.max_depth == 0 and f.gamma("p", "q") == 2


def test_thousands_of_nodes_quickly():
    rng = np.random.default_rng(0)
    edges = [(f"n{rng.integers(0, i)}", f"n{i}") for i in range(1, 3000)]
    h = Hierarchy(edges)
    D = h.distance_matrix()
    assert D.shape == (3000, 3000) and D[0, 0] == 0
    C = h.common_ancestors_matrix()
    assert C[h.index["n0"], h.index["n0"]] == 1
