"""Label-space clustering of a structured-tree node (Daniels & Metaxas, AAAI 2019, "Step 1").

A structured tree turns the label vectors at a node into one binary label by 2-means in label space
(Dollar & Zitnick 2013).  The cost-sensitive variant first weighs each label by the IDF of eq. 1::

    IDF(i) = beta * g_i / max_j g_j + (1 - beta) * l_i / max_j l_j,
    g_i = log(1 + N_g / n_gi),   l_i = log(1 + N_l / n_li)

with global counts (the forest's training set) and node-local counts.  A label with no positive
instance has an infinite ratio; at the node its column is constant (all zero), so it cannot move
the clustering: we give it weight 0 and leave it out of the maxima.

Weighted k-means minimises ``sum_n sum_i IDF(i) (y_ni - c_ki)^2``, i.e. plain k-means on the columns
scaled by ``sqrt(IDF)``.  The 2-means itself (k-means++ seeding, Lloyd iterations until the
assignment stops changing) is written out vectorised because it runs at every node of every tree:
scikit-learn's ``KMeans`` costs milliseconds of validation per call, which would dominate the forest.
tests/methods/test_soshf_trees.py checks it reaches scikit-learn's inertia on toy data.
"""
from __future__ import annotations

import numpy as np


def _normalised_log_idf(n_total, n_pos):
    n_pos = np.asarray(n_pos, dtype=np.float64)
    out = np.zeros(n_pos.shape)
    has = n_pos > 0
    out[has] = np.log1p(n_total / n_pos[has])
    top = out.max() if out.size else 0.0
    return out / top if top > 0 else out


def idf_weights(n_global, pos_global, n_local, pos_local, beta=0.5):
    """Eq. 1: per-label cost from global (``n_global``, ``pos_global``) and node-local counts."""
    return (beta * _normalised_log_idf(n_global, pos_global)
            + (1.0 - beta) * _normalised_log_idf(n_local, pos_local))


def two_means(Z, rng, max_iter=100):
    """2-means of the rows of ``Z``; boolean membership of the second cluster, or None if one cluster.

    Seeding is k-means++ (Arthur & Vassilvitskii 2007): a uniformly drawn first centre, the second
    drawn with probability proportional to the squared distance to the first.
    """
    n = Z.shape[0]
    first = Z[rng.integers(n)]
    d = ((Z - first) ** 2).sum(axis=1)
    total = d.sum()
    if total <= 0.0:
        return None
    second = Z[rng.choice(n, p=d / total)]
    centres = np.stack([first, second])
    member = None
    for _ in range(max_iter):
        d0 = ((Z - centres[0]) ** 2).sum(axis=1)
        d1 = ((Z - centres[1]) ** 2).sum(axis=1)
        new = d1 < d0
        if member is not None and np.array_equal(new, member):
            break
        member = new
        if member.all() or not member.any():
            return None
        centres = np.stack([Z[~member].mean(axis=0), Z[member].mean(axis=0)])
    return member


def cluster_labels(Y_node, rng, weights=None):
    """The node's binary problem: 2-means of the label vectors, optionally IDF-weighted (eq. 1)."""
    Z = Y_node.astype(np.float64)
    if weights is not None:
        Z = Z * np.sqrt(weights)
    return two_means(Z, rng)
