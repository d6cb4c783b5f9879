"""A class hierarchy (tree or DAG) over a dataset's labels.

Built from ``(parent, child)`` edges.  Nodes keep the order in which they are given (the dataset's
label order when built by a loader).  Definitions used throughout mlbench:

- a *root* is a node without a parent; a *leaf* a node without a child;
- ``depth(v)`` is the number of edges on the longest path from a root to ``v`` (roots have depth 0;
  in a DAG, where several paths may exist, the longest one counts);
- ``ancestors(v)`` are all nodes from which ``v`` can be reached (``v`` excluded).

Every hierarchy has an implicit **root** above its roots (the files leave it out: Clus HMC drops its
``root``, MULAN XML starts at the top-level labels); it is no node of ``nodes`` and never a label,
but graph distances pass through it, so ``gamma(a, b)`` between two top-level nodes is 2
(HierCost, Charuvaka & Rangwala 2015, Sec. 2: the number of edges on the undirected path).

Label columns: ``labels`` names the node of each column of a label matrix ``Y``.  By default every
node, in node order (the layout loaders produce, closed upward); :meth:`with_labels` gives a view
whose columns are a subset (e.g. the terminal classes only, see
:func:`mlbench.data.preprocess` step ``terminal_labels``).  The matrices below are computed once,
vectorised, and cached, so they serve hierarchies of thousands of nodes (the GO DAGs, ~4000).

An example labelled with a node is also labelled with all its ancestors (the hierarchy constraint),
which :meth:`Hierarchy.close` applies to a 0/1 label matrix.
"""
from __future__ import annotations

import copy
from collections.abc import Iterable

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

from mlbench.errors import DataError


class Hierarchy:
    """Nodes, parents, children, depth, leaves, ancestors and distances of a tree or DAG."""

    def __init__(self, edges: Iterable[tuple[str, str]], nodes: Iterable[str] | None = None):
        graph = nx.DiGraph()
        if nodes is not None:
            graph.add_nodes_from(nodes)
        graph.add_edges_from((str(p), str(c)) for p, c in edges)
        if not nx.is_directed_acyclic_graph(graph):
            cycle = nx.find_cycle(graph)
            raise DataError(f"class hierarchy has a cycle through {cycle[0][0]!r}")
        self.graph = graph
        self.nodes: list[str] = list(graph.nodes)
        self.index = {v: i for i, v in enumerate(self.nodes)}
        self.labels: list[str] = list(self.nodes)
        self._depth = None
        self._cache: dict = {}

    @classmethod
    def flat(cls, names: Iterable[str]) -> Hierarchy:
        """Labels without structure: every label is a top-level node (distance 2 between any two)."""
        return cls([], list(names))

    @classmethod
    def from_separator(cls, names: Iterable[str], sep: str = ".") -> Hierarchy:
        """Two or more levels from label names with a separator (enron's ``A.A1`` under ``A``).

        A name ``a.b.c`` becomes a child of ``a.b``, itself of ``a``; missing prefixes are added as
        nodes.  ``labels`` stay the given names in their order.
        """
        names = [str(n) for n in names]
        nodes, edges, seen = [], [], set()
        for name in names:
            parts = name.split(sep)
            for k in range(1, len(parts) + 1):
                v = sep.join(parts[:k])
                if v not in seen:
                    seen.add(v)
                    nodes.append(v)
                    if k > 1:
                        edges.append((sep.join(parts[:k - 1]), v))
        h = cls(edges, nodes)
        return h.with_labels(names)

    # -- structure -------------------------------------------------------------------------
    @property
    def edges(self) -> list[tuple[str, str]]:
        return list(self.graph.edges)

    def parents(self, node) -> list[str]:
        return list(self.graph.predecessors(node))

    def children(self, node) -> list[str]:
        return list(self.graph.successors(node))

    @property
    def roots(self) -> list[str]:
        return [v for v in self.nodes if self.graph.in_degree(v) == 0]

    @property
    def leaves(self) -> list[str]:
        return [v for v in self.nodes if self.graph.out_degree(v) == 0]

    @property
    def is_tree(self) -> bool:
        """True when every node has at most one parent (a forest of trees)."""
        return all(self.graph.in_degree(v) <= 1 for v in self.nodes)

    def depth(self, node) -> int:
        if self._depth is None:
            depth = {}
            for v in nx.topological_sort(self.graph):
                preds = list(self.graph.predecessors(v))
                depth[v] = 1 + max(depth[p] for p in preds) if preds else 0
            self._depth = depth
        return self._depth[node]

    @property
    def max_depth(self) -> int:
        """Depth of the deepest node (0 for a flat label set)."""
        return max((self.depth(v) for v in self.nodes), default=0)

    def ancestors(self, node) -> set[str]:
        return nx.ancestors(self.graph, node)

    # -- vectorised matrices (cached) ------------------------------------------------------
    def _cached(self, key, build):
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def ancestor_matrix(self) -> np.ndarray:
        """Boolean (n_nodes, n_nodes) A with A[i, j] = node j is node i or one of its ancestors.

        Built in one pass in topological order: a node's row is its own bit OR its parents' rows.
        """
        def build():
            n = len(self.nodes)
            A = np.eye(n, dtype=bool)
            for v in nx.topological_sort(self.graph):
                i = self.index[v]
                for p in self.graph.predecessors(v):
                    A[i] |= A[self.index[p]]
            return A
        return self._cached("ancestors", build).copy()

    def _anc(self):
        self.ancestor_matrix()
        return self._cache["ancestors"]

    def distance_matrix(self) -> np.ndarray:
        """(n_nodes, n_nodes) int32 gamma(a, b): edges on the shortest undirected path via the root.

        The implicit root is joined to every top-level node; breadth-first search from every node
        (scipy's csgraph, in C).
        """
        def build():
            n = len(self.nodes)
            rows = [self.index[p] for p, _ in self.graph.edges] + [n] * len(self.roots)
            cols = [self.index[c] for _, c in self.graph.edges] + [self.index[r] for r in self.roots]
            G = sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n + 1, n + 1)).tocsr()
            D = shortest_path(G, method="D", directed=False, unweighted=True)
            return D.astype(np.int32)
        return self._cached("distance", build)[:-1, :-1]

    def root_distance(self) -> np.ndarray:
        """gamma(root, v) for every node: the shortest path length from the implicit root."""
        self.distance_matrix()
        return self._cache["distance"][-1, :-1]

    def common_ancestors_matrix(self) -> np.ndarray:
        """(n_nodes, n_nodes) number of common ancestors: |anc(a) & anc(b)|, counting the root.

        ``anc(v)`` are v's proper ancestors plus the implicit root (which every pair shares); a node
        is not its own ancestor.  This is alpha of HierCost eq. (6).
        """
        def build():
            strict = self._anc() & ~np.eye(len(self.nodes), dtype=bool)
            S = strict.astype(np.float32)
            return (S @ S.T).astype(np.int32) + 1
        return self._cached("common", build)

    def gamma(self, a, b) -> int:
        """Undirected graph distance between nodes ``a`` and ``b``."""
        return int(self.distance_matrix()[self.index[a], self.index[b]])

    def n_common_ancestors(self, a, b) -> int:
        return int(self.common_ancestors_matrix()[self.index[a], self.index[b]])

    # -- label columns ---------------------------------------------------------------------
    def with_labels(self, labels: Iterable[str]) -> Hierarchy:
        """A view of this hierarchy whose label columns are ``labels`` (node names)."""
        labels = [str(v) for v in labels]
        missing = [v for v in labels if v not in self.index]
        if missing:
            raise DataError(f"labels not in the hierarchy: {', '.join(map(repr, missing[:3]))}")
        view = copy.copy(self)
        view.labels = labels
        return view

    @property
    def label_index(self) -> np.ndarray:
        """Node index of each label column."""
        return np.array([self.index[v] for v in self.labels], dtype=np.int64)

    def label_ancestor_matrix(self) -> np.ndarray:
        """Boolean (n_labels, n_nodes): row k = the node of column k and its ancestors (no root)."""
        return self._anc()[self.label_index]

    def label_distance(self) -> np.ndarray:
        """(n_labels, n_labels) gamma between the label columns' nodes."""
        li = self.label_index
        return self.distance_matrix()[np.ix_(li, li)]

    def label_common_ancestors(self) -> np.ndarray:
        li = self.label_index
        return self.common_ancestors_matrix()[np.ix_(li, li)]

    def check_labels(self, n_labels: int, what: str = "Y") -> None:
        if n_labels != len(self.labels):
            raise DataError(f"{what} has {n_labels} label columns but the hierarchy maps "
                            f"{len(self.labels)}")

    def most_specific(self, Y) -> np.ndarray:
        """0/1 Y (n, n_labels) keeping only positives with no positive descendant among the columns.

        These are an example's own classes (the l_i of HierCost); the rest are implied ancestors.
        """
        Y = np.asarray(Y) != 0
        self.check_labels(Y.shape[1])
        li = self.label_index
        # strict[k, m] = column m is a proper ancestor of column k
        strict = self._anc()[np.ix_(li, li)] & (li[:, None] != li[None, :])
        implied = (Y.astype(np.float32) @ strict.astype(np.float32)) > 0
        return (Y & ~implied).astype(np.int8)

    def is_closed(self, Y) -> bool:
        """True when every positive column's ancestors that are columns are positive too."""
        Y = np.asarray(Y) != 0
        li = self.label_index
        strict = self._anc()[np.ix_(li, li)] & (li[:, None] != li[None, :])
        needed = (Y.astype(np.float32) @ strict.astype(np.float32)) > 0
        return bool(not (needed & ~Y).any())

    def close(self, Y: np.ndarray) -> np.ndarray:
        """Y (n, n_labels) 0/1 with every positive column's ancestor columns set to 1."""
        Y = np.asarray(Y) != 0
        li = self.label_index
        A = self._anc()[np.ix_(li, li)].astype(np.float32)
        return ((Y.astype(np.float32) @ A) > 0).astype(np.int8)

    def __len__(self):
        return len(self.nodes)

    def __repr__(self):
        kind = "tree" if self.is_tree else "DAG"
        return (f"Hierarchy({kind}, {len(self.nodes)} nodes, {len(self.leaves)} leaves, "
                f"depth {self.max_depth})")
