"""A class hierarchy (tree or DAG) over a dataset's labels.

Built from ``(parent, child)`` edges.  Nodes keep the order in which they are given (the dataset's
label order when built by a loader).  Definitions used throughout mlbench:

- a *root* is a node without a parent; a *leaf* a node without a child;
- ``depth(v)`` is the number of edges on the longest path from a root to ``v`` (roots have depth 0;
  in a DAG, where several paths may exist, the longest one counts);
- ``ancestors(v)`` are all nodes from which ``v`` can be reached (``v`` excluded).

An example labelled with a node is also labelled with all its ancestors (the hierarchy constraint),
which :meth:`Hierarchy.close` applies to a 0/1 label matrix.
"""
from __future__ import annotations

from collections.abc import Iterable

import networkx as nx
import numpy as np

from mlbench.errors import DataError


class Hierarchy:
    """Nodes, parents, children, depth and leaves of a tree or DAG from ``(parent, child)`` edges."""

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
        self._depth = None

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

    def ancestor_matrix(self) -> np.ndarray:
        """Boolean (n_nodes, n_nodes) A with A[i, j] = node j is node i or one of its ancestors."""
        n = len(self.nodes)
        A = np.eye(n, dtype=bool)
        for v in self.nodes:
            i = self.index[v]
            for a in nx.ancestors(self.graph, v):
                A[i, self.index[a]] = True
        return A

    def close(self, Y: np.ndarray) -> np.ndarray:
        """Y (n, n_nodes) 0/1 in node order with every positive node's ancestors set to 1."""
        Z = np.asfortranarray(np.asarray(Y, dtype=np.int8) != 0)
        # children before parents: each node passes its (already closed) column to its parents
        for v in reversed(list(nx.topological_sort(self.graph))):
            j = self.index[v]
            for p in self.graph.predecessors(v):
                Z[:, self.index[p]] |= Z[:, j]
        return np.ascontiguousarray(Z, dtype=np.int8)

    def __len__(self):
        return len(self.nodes)

    def __repr__(self):
        kind = "tree" if self.is_tree else "DAG"
        return (f"Hierarchy({kind}, {len(self.nodes)} nodes, {len(self.leaves)} leaves, "
                f"depth {self.max_depth})")
