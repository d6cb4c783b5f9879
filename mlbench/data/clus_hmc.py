"""Clus HMC ARFF: hierarchical multi-label data as written by Clus and used by C-HMCNN.

The class attribute is declared ``@ATTRIBUTE class hierarchical SPEC`` where SPEC is a comma
separated list in one of two forms:

- tree: each item is a path from a top-level class, ``01,01/01,01/01/03`` (node = the full path,
  its parent = the path without its last step);
- DAG (the Gene Ontology datasets): each item is a ``parent/child`` pair of terms,
  ``root/GO0003674,GO0003674/GO0003774``; the artificial ``root`` (an ancestor of everything, so
  positive for every example) is dropped, leaving the ontologies' own roots as roots.

Each data row ends with its classes separated by ``@`` (``01/01/03@02/01``).  Labels are all the
hierarchy's nodes, in declaration order; an example is positive for each class it names and every
ancestor of those (the hierarchy constraint).
"""
from __future__ import annotations

import numpy as np

from mlbench.data.arff import STRING, ArffData, _split_quoted, shorten
from mlbench.data.hierarchy import Hierarchy
from mlbench.errors import DataError

ROOT = "root"


def class_attribute(data: ArffData) -> int:
    """Index of the (single) hierarchical attribute."""
    cols = [j for j, a in enumerate(data.attributes) if a.type_name == "hierarchical"]
    if len(cols) != 1:
        raise DataError(f"{data.where()}: expected one 'hierarchical' attribute, found {len(cols)}")
    return cols[0]


def parse_spec(spec: str, dag: bool | None = None, path: str = "") -> Hierarchy:
    """The Hierarchy declared by a ``hierarchical`` attribute's SPEC (tree paths or DAG pairs).

    ``path`` names the declaration in errors (``file:line:column``).
    """
    try:
        items = [s.strip() for s in _split_quoted(spec.strip()) if s.strip()]
    except ValueError as exc:
        raise DataError(f"{path}: malformed hierarchical class declaration ({exc})") from None
    if not items:
        raise DataError(f"{path}: empty hierarchical class declaration")
    if dag is None:
        dag = any(s.startswith(ROOT + "/") for s in items)
    nodes, edges = [], []
    seen = set()

    def add(v):
        if v not in seen:
            seen.add(v)
            nodes.append(v)

    for item in items:
        parts = item.split("/")
        if dag:
            if len(parts) != 2 or not all(parts):
                raise DataError(f"{path}: DAG class item {item!r} is not 'parent/child'")
            parent, child = parts
            if parent != ROOT:
                add(parent)
                edges.append((parent, child))
            add(child)
        else:
            if not all(parts):
                raise DataError(f"{path}: malformed class path {item!r}")
            for k in range(1, len(parts) + 1):
                add("/".join(parts[:k]))
                if k > 1:
                    edges.append(("/".join(parts[:k - 1]), "/".join(parts[:k])))
    return Hierarchy(edges, nodes)


def labels(data: ArffData, dag: bool | None = None):
    """(Y, hierarchy, class column) of a Clus HMC file; Y (n, n_nodes) int8 closed upward."""
    col = class_attribute(data)
    attr = data.attributes[col]
    if attr.kind != STRING:
        raise DataError(f"{data.where(attr.line)}: hierarchical attribute {attr.name!r} not read as text")
    hier = parse_spec(attr.spec, dag, data.where(attr.line))
    index = hier.index
    n = data.X.shape[0]
    direct = np.zeros((n, len(hier)), dtype=np.int8)
    for i, value in enumerate(data.strings[col]):
        if value is None or value == "":
            continue
        for term in value.split("@"):
            term = term.strip()
            if term == ROOT or not term:
                continue
            k = index.get(term)
            if k is None:
                line = data.string_lines[col][i] if col in data.string_lines else 0
                raise DataError(f"{data.where(line)}: data row {i + 1} names a class missing "
                                f"from the declared hierarchy ({shorten(term)})")
            direct[i, k] = 1
    return hier.close(direct), hier, col
