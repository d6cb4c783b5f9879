"""MULAN datasets: an ARFF file plus an XML file naming the label attributes.

The XML file (``<labels xmlns="http://mulan.sourceforge.net/labels"><label name="..."/>...``)
lists the label attributes; labels may nest (MULAN's hierarchical datasets), in which case the
nesting gives ``(parent, child)`` edges.  Every attribute not named there is a feature.  Label
columns are nominal ``{0,1}``: the label is 1 where the value is ``"1"``.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from mlbench.data.arff import NOMINAL, STRING, ArffData, shorten
from mlbench.errors import DataError


MAX_DEPTH = 64          # label nesting deeper than any real hierarchy (Yeast-GO is 17 deep)
MAX_BYTES = 64 << 20    # a label file is a few kilobytes; refuse to parse anything huge


def _parse(path):
    """The XML root; a DataError for anything unreadable, declaring a DTD or entities.

    Why no DTD: MULAN label files never have one, and refusing ``<!DOCTYPE``/``<!ENTITY``
    closes entity expansion and external-entity attacks without a dependency (defusedxml).
    """
    from mlbench.safety import read_bounded

    raw = read_bounded(path, MAX_BYTES, lambda why: DataError(f"{path}:1:1: MULAN label XML: {why}"))
    k = raw.find(b"<!")
    while k >= 0 and raw.startswith(b"<!--", k):
        k = raw.find(b"<!", k + 4)
    if k >= 0:
        line, col = raw.count(b"\n", 0, k) + 1, k - raw.rfind(b"\n", 0, k)
        raise DataError(f"{path}:{line}:{col}: DTD or entity declarations "
                        f"are not allowed in a MULAN label XML ({shorten(raw[k:k + 40])})")
    try:
        return ET.fromstring(raw, parser=ET.XMLParser())
    except ET.ParseError as exc:
        line, col = exc.position
        raise DataError(f"{path}:{line}:{col + 1}: malformed MULAN label XML "
                        f"({shorten(str(exc))})") from None
    except (LookupError, ValueError, UnicodeError) as exc:  # e.g. an unknown encoding
        raise DataError(f"{path}:1:1: cannot decode the MULAN label XML ({shorten(str(exc))})") \
            from None


def read_labels(path) -> tuple[list[str], list[tuple[str, str]]]:
    """Label names (document order) and (parent, child) edges of a MULAN XML label file.

    The walk is iterative with a depth limit (no RecursionError); a label named twice is an error.
    """
    root = _parse(Path(path))
    names, edges, seen = [], [], set()
    stack = [(iter(root), None, 0)]
    while stack:
        children, parent, depth = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            continue
        if not isinstance(child.tag, str) or child.tag.rsplit("}", 1)[-1] != "label":
            continue
        name = child.get("name")
        if name is None:
            raise DataError(f"{path}:1:1: <label> without a name attribute")
        if name in seen:
            raise DataError(f"{path}:1:1: label named twice ({shorten(name)})")
        if depth >= MAX_DEPTH:
            raise DataError(f"{path}:1:1: labels nested deeper than {MAX_DEPTH} levels")
        seen.add(name)
        names.append(name)
        if parent is not None:
            edges.append((parent, name))
        stack.append((iter(child), name, depth + 1))
    if not names:
        raise DataError(f"{path}:1:1: no <label> elements")
    return names, edges


def label_columns(data: ArffData, label_names, xml_path="") -> list[int]:
    """Column index of each label in ``data``; raises DataError naming labels the ARFF lacks."""
    index = {n: j for j, n in enumerate(data.names)}
    missing = [n for n in label_names if n not in index]
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise DataError(f"{xml_path or 'label XML'}: labels missing from {data.path}: "
                        f"{', '.join(map(repr, missing[:3]))}{more}")
    return [index[n] for n in label_names]


def _label_values(data: ArffData, j: int, col: np.ndarray) -> np.ndarray:
    """0/1 values of label attribute j from its column ``col`` of encoded values."""
    attr = data.attributes[j]
    if attr.kind == NOMINAL:
        ones = [k for k, v in enumerate(attr.values) if v.strip() in ("1", "1.0", "true", "yes")]
        if not ones:
            raise DataError(f"{data.path}: label {attr.name!r} has no value '1' in "
                            f"{{{','.join(attr.values)}}}")
        return np.isin(col, ones)
    if attr.kind == STRING:
        raise DataError(f"{data.path}: label {attr.name!r} is a string attribute")
    if np.isnan(col).any():
        raise DataError(f"{data.path}: label {attr.name!r} has missing values")
    return col != 0


def features(data: ArffData, exclude):
    """(X, feature_names, nominal) of every column not in ``exclude`` and not a string."""
    exclude = set(exclude)
    feat = [j for j, a in enumerate(data.attributes) if j not in exclude and a.kind != STRING]
    X = data.X[:, feat]
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
    else:
        X = np.ascontiguousarray(X, dtype=np.float64)
    names = [data.attributes[j].name for j in feat]
    nominal = {i: list(data.attributes[j].values) for i, j in enumerate(feat)
               if data.attributes[j].kind == NOMINAL}
    return X, names, nominal


def split_features_labels(data: ArffData, label_cols: list[int]):
    """(X, Y, feature_names, nominal) with features = every non-label, non-string column."""
    X, names, nominal = features(data, label_cols)
    block = data.X[:, label_cols]  # one column selection (per-column slicing of CSR is slow)
    block = block.toarray() if sp.issparse(block) else np.asarray(block)
    Y = np.zeros((data.X.shape[0], len(label_cols)), dtype=np.int8)
    for k, j in enumerate(label_cols):
        Y[:, k] = _label_values(data, j, block[:, k])
    return X, Y, names, nominal
