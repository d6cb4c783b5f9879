"""Example costs of HierCost (Charuvaka & Rangwala, ECML PKDD 2015, Sec. 4.1 and 4.3).

For the binary model of terminal class n, example i with own classes l_i (its most specific labels;
one for single-label data) gets a cost c_i^n.  With gamma the undirected graph distance and alpha
the number of common ancestors (:class:`mlbench.data.hierarchy.Hierarchy`):

* TrD, eq. (5): c = gamma(n, l_i) for negatives, gamma_max = max_{j in T} gamma(n, j) for positives;
* NCA, eq. (6): c = alpha_max - alpha(n, l_i) + 1 for negatives, alpha_max + 1 for positives, with
  alpha_max = max_{j in T} alpha(n, j) (eq. (6) writes alpha_j for alpha_i);
* ExTrD, eq. (7): c = k^gamma(n, l_i) for negatives, k^gamma_max for positives, k > 1 (eq. (7)
  prints "l_i != n" on both lines; the first is the positive case);
* IMB, eq. (8): c = 1 + L / (1 + exp(|N_i - N0|_+)), N_i the number of training examples of class
  l_i, N0 = 10, L = 20; it multiplies a hierarchical cost when both are used.

Several own classes: gamma and alpha are the minimum over the example's classes (Sec. 4.3); so is
N_i for IMB, which the paper defines for one class per example only (this implementation's reading,
by analogy; on multi-label data it weighs a whole row by its rarest class; ``imbalance_by="class"``
is the per-(example, class) alternative, see REPRODUCTION.md).
An example without any terminal class (our convention) is as far as possible: gamma = gamma_max,
alpha = 0, and N_i = 0 for IMB.
All costs are computed for every class at once, vectorised over the distinct label sets.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

HIERARCHICAL = ("lr", "trd", "nca", "extrd")


def _min_over_sets(S, M):
    """(N, T): row i = min over own classes l of M[l, :], for the 0/1 own-class matrix S (N, T)."""
    S = np.asarray(S, dtype=bool)
    sets, inverse = np.unique(S, axis=0, return_inverse=True)
    out = np.empty((sets.shape[0], M.shape[1]), dtype=np.float64)
    for u, row in enumerate(sets):
        labels = np.flatnonzero(row)
        out[u] = M[labels].min(axis=0) if labels.size else np.nan
    return out[np.ravel(inverse)]


def hierarchical_costs(S, dist, common, kind="trd", k=1.25):
    """(N, T) cost of example i for class n's model, eq. (5)-(7); ``lr``: all ones.

    ``S`` (N, T) own classes over the terminal classes; ``dist`` and ``common`` (T, T) gamma and
    alpha between terminal classes.
    """
    S = np.asarray(S, dtype=bool)
    if kind == "lr":
        return np.ones(S.shape, dtype=np.float64)
    if kind in ("trd", "extrd"):
        gmax = np.asarray(dist, dtype=np.float64).max(axis=1)      # gamma_max of each class n
        gamma = _min_over_sets(S, np.asarray(dist, dtype=np.float64))
        gamma = np.where(np.isnan(gamma), gmax[None, :], gamma)
        if kind == "trd":
            return np.where(S, gmax[None, :], gamma)
        return np.where(S, float(k) ** gmax[None, :], float(k) ** gamma)
    if kind == "nca":
        alpha = np.nan_to_num(_min_over_sets(S, np.asarray(common, dtype=np.float64)), nan=0.0)
        amax = np.asarray(common, dtype=np.float64).max(axis=1)
        return np.where(S, amax[None, :] + 1.0, amax[None, :] - alpha + 1.0)
    raise ValueError(f"unknown hierarchical cost {kind!r}; choose one of {', '.join(HIERARCHICAL)}")


def imbalance_costs(S, n0=10.0, L=20.0):
    """(N,) IMB cost of eq. (8) from the smallest class size among each example's own classes."""
    S = np.asarray(S, dtype=bool)
    sizes = S.sum(axis=0).astype(np.float64)
    Ni = np.where(S, sizes[None, :], np.inf).min(axis=1)
    Ni = np.where(np.isfinite(Ni), Ni, 0.0)
    return 1.0 + L * expit(-np.maximum(Ni - n0, 0.0))   # L / (1 + exp(.)), overflow-free


def class_imbalance_costs(S, n0=10.0, L=20.0):
    """(N, T) the per-(example, class) reading of IMB: eq. (8) with class n's own size N_n for the
    examples of class n in class n's model, 1 elsewhere (a rare class's examples weigh more only
    where they are positives; on multi-label data the per-example reading weighs a whole row, in
    every class's model, by its rarest class)."""
    S = np.asarray(S, dtype=bool)
    sizes = S.sum(axis=0).astype(np.float64)
    per_class = 1.0 + L * expit(-np.maximum(sizes - n0, 0.0))
    return np.where(S, per_class[None, :], 1.0)


IMBALANCE_BY = ("example", "class")


def example_costs(S, dist, common, kind="trd", imbalance=False, k=1.25, n0=10.0, L=20.0,
                  imbalance_by="example"):
    """(N, T) costs: the hierarchical cost, times IMB when ``imbalance`` (Sec. 4.1): per example
    (eq. (8) as written, :func:`imbalance_costs`) or per (example, class)
    (:func:`class_imbalance_costs`)."""
    if imbalance_by not in IMBALANCE_BY:
        raise ValueError(f"imbalance_by must be one of {', '.join(IMBALANCE_BY)}, "
                         f"got {imbalance_by!r}")
    C = hierarchical_costs(S, dist, common, kind, k)
    if imbalance and imbalance_by == "example":
        C = C * imbalance_costs(S, n0, L)[:, None]
    elif imbalance:
        C = C * class_imbalance_costs(S, n0, L)
    return C
