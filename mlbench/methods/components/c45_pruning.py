"""C4.5's error-based pruning, shared by the J48 tree and the single PCT.

Quinlan's C4.5 (release 8) prunes a grown tree bottom-up with a pessimistic estimate of each
leaf's errors: a leaf with e training errors among n rows is charged e + U(n, e), U the extra
errors of the upper confidence bound at confidence CF.  Weka's J48 (``C45PruneableClassifierTree``
and ``Stats.addErrs``) and Clus (``C45Pruner``) implement the same procedure; both trees here call
:func:`collapse` and :func:`prune` on their own node class, which provides:

* ``children`` (empty list for a leaf), ``make_leaf()``;
* ``error()``: the node's training errors, ``estimated()``: its errors plus U (0 when empty);
* ``estimate_rows(rows, Y)``: ``estimated()`` of a leaf holding ``rows``;
* ``split(rows, X)``: ``rows`` divided among the children by the node's test;
* ``set_rows(rows, Y)``: the node's statistics recomputed from ``rows``;
* ``largest_child()``: the index of the child the tool calls largest (the tools break ties
  differently).

The comparisons take a tolerance ``tol``: Weka's ``Utils.smOrEq`` accepts a difference below
1e-6, Clus compares plainly (``tol=0``).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtri


def added_errors(n, e, cf=0.25, z=None):
    """Extra errors U(n, e) of C4.5's upper confidence bound at confidence ``cf``.

    ``z`` is the standard normal quantile of 1 - cf (computed from cf when not given).  Cases (Weka ``Stats.addErrs``): cf > 0.5
    adds nothing; e < 1 interpolates between the exact bound for no error, n (1 - cf^(1/n)), and
    U(n, 1); e + 0.5 >= n gives n - e; otherwise the normal approximation with continuity
    correction, f = (e + 0.5) / n and
    r = (f + z^2/(2n) + z sqrt(f/n - f^2/n + z^2/(4n^2))) / (1 + z^2/n), U = r n - e.
    """
    if cf > 0.5:
        return 0.0
    if z is None:
        z = float(ndtri(1.0 - cf))
    if e < 1:
        base = n * (1.0 - math.pow(cf, 1.0 / n))
        return base if e == 0 else base + e * (added_errors(n, 1.0, cf, z) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    f = (e + 0.5) / n
    r = (f + (z * z) / (2 * n) + z * math.sqrt((f / n) - (f * f / n) + (z * z / (4 * n * n)))) \
        / (1 + (z * z) / n)
    return (r * n) - e


def leaves(node):
    """The leaves under ``node``, left to right."""
    return [node] if not node.children else [leaf for c in node.children for leaf in leaves(c)]


def _le(a, b, tol):
    return a - b < tol or a <= b


def collapse(node):
    """Top-down: a node whose leaves' summed training errors are not below its own minus 1e-3
    becomes a leaf (its subtree is not visited).  Weka ``collapse``, Clus's second step."""
    if not node.children:
        return
    if sum(leaf.error() for leaf in leaves(node)) >= node.error() - 1e-3:
        node.make_leaf()
        return
    for c in node.children:
        collapse(c)


def branch_estimate(node, rows, X, Y):
    """Summed estimated errors of ``node``'s leaves with ``rows`` sent through it."""
    if not node.children:
        return node.estimate_rows(rows, Y)
    return sum(branch_estimate(c, r, X, Y) for c, r in zip(node.children, node.split(rows, X)))


def adapt(node, rows, X, Y):
    """Recompute the statistics of ``node`` and its subtree from ``rows``."""
    node.set_rows(rows, Y)
    if node.children:
        for c, r in zip(node.children, node.split(rows, X)):
            adapt(c, r, X, Y)


def prune(node, rows, X, Y, *, raising=True, tol=0.0):
    """Bottom-up error-based pruning of ``node``, which holds ``rows``.

    After its children are pruned, with A the node's estimated errors as a leaf, B the sum over
    its leaves and C that of its largest child's leaves with all the node's rows sent through that
    child (subtree raising; infinite when ``raising`` is off): A <= B + 0.1 and A <= C + 0.1 make
    the node a leaf; else C <= B + 0.1 replaces the node by its largest child, whose statistics are
    recomputed from the node's rows, and the node is pruned again.
    """
    if not node.children:
        return
    for c, r in zip(node.children, node.split(rows, X)):
        prune(c, r, X, Y, raising=raising, tol=tol)
    largest = node.children[node.largest_child()]
    as_branch = branch_estimate(largest, rows, X, Y) if raising else np.finfo(np.float64).max
    as_leaf = node.estimated()
    as_tree = sum(leaf.estimated() for leaf in leaves(node))
    if _le(as_leaf, as_tree + 0.1, tol) and _le(as_leaf, as_branch + 0.1, tol):
        node.make_leaf()
        return
    if _le(as_branch, as_tree + 0.1, tol):
        node.raise_child(largest)
        adapt(node, rows, X, Y)
        prune(node, rows, X, Y, raising=raising, tol=tol)
