"""Algorithm 3 of MLDF (Yang, Wu, Jiang & Zhou 2019) for one or several measures at once.

Each measure M gives its own cascade ("branch"), but the forests of a layer do not depend on M:
layer t's forests are fit on ``[X, G^{t-1}]`` with seeds drawn from the estimator's RandomState in
layer order, and M enters only through feature reuse (Algorithms 1-2, from layer 3 on) and the
stopping rule.  So the branches of all six measures share layers 1-3 (theta_1 = theta_2 = 0 makes
G^1 = H^1 and G^2 = H^2 for every measure) and any later layer whose input G^{t-1} happens to agree.

:func:`grow` runs Algorithm 3 for every measure in lockstep: at layer t it draws the layer's seeds
once, groups the active branches by their training input G^{t-1} (exact equality) and computes the
out-of-fold representation H^t once per group; each branch then applies its own threshold, reuse,
training measure and stopping rule.  The seeds a branch sees are the ones a separate fit with the
same ``random_state`` draws (one draw per layer grown), so every branch is exactly the cascade a
single-measure fit would grow.  :func:`refit` fits the kept layers on the whole training part once
per shared layer, and :func:`predict` walks each branch on new rows, computing a shared layer's
forests once per distinct input.
"""
from __future__ import annotations

import numpy as np

from mlbench.methods.trees.mldf_confidence import (MEASURE_AXIS, check_measure, log_confidence,
                                                   log_mean)
from mlbench.methods.trees.mldf_measures import aggregate, is_better, per_unit, worse_mask
from mlbench.methods.trees.pct import fit_forest, forest_proba

_SEED_MAX = np.iinfo(np.int32).max


def reuse(H, G_prev, log_alpha, log_theta, measure):
    """Algorithm 1: G = H, with the columns/rows whose confidence is below theta from G_prev."""
    measure = check_measure(measure)
    G = H.copy()
    if G_prev is None or not np.isfinite(log_theta):
        return G
    low = log_alpha < log_theta
    if MEASURE_AXIS[measure] == "label":
        G[:, low] = G_prev[:, low]
    else:
        G[low] = G_prev[low]
    return G


def _same(a, b):
    return a is b or (a is not None and b is not None and np.array_equal(a, b))


def _stack(X, G):
    return X if G is None else np.hstack([X, G])


class Branch:
    """The state of Algorithm 3 for one measure: training G^{t-1}, per-unit measure, p[1..t]."""

    def __init__(self, measure):
        self.measure = measure
        self.G = None          # G^{t-1} on the training rows (out-of-fold)
        self.m_prev = None     # the measure per unit on G^{t-1}
        self.m_prev_H = None   # the measure per unit on H^{t-1}
        self.perf = []         # p[t], the training measure of G^t
        self.thetas = []       # log theta_t
        self.nodes = []        # index of layer t's shared computation (see grow)
        self.best = np.nan
        self.best_t = 0
        self.done = False

    def step(self, t, H, node, Y, feature_reuse, patience, reference="G"):
        """Lines 5-13 of Algorithm 3 for layer t, given the layer's out-of-fold H^t.  Algorithm 2
        collects the units whose measure on H^t is worse than "m^{t-1}", read as the measure on
        G^{t-1} (``reference="G"``) or on H^{t-1} (``"H"``)."""
        m_now = per_unit(H, Y, self.measure)
        log_alpha = log_confidence(H, self.measure)
        log_theta = -np.inf
        if feature_reuse and t > 2:  # Algorithm 2, determined for t > 2 (line 5)
            previous = self.m_prev if reference == "G" else self.m_prev_H
            log_theta = log_mean(log_alpha[worse_mask(m_now, previous, self.measure)])
        self.m_prev_H = m_now
        self.G = reuse(H, self.G, log_alpha, log_theta, self.measure)
        self.m_prev = per_unit(self.G, Y, self.measure)
        self.perf.append(aggregate(self.m_prev))
        self.thetas.append(log_theta)
        self.nodes.append(node)
        if is_better(self.perf[-1], self.best, self.measure):
            self.best, self.best_t = self.perf[-1], t
        elif t - self.best_t >= patience:
            self.done = True

    @property
    def kept(self):
        """L, the number of layers kept (line 16)."""
        return max(self.best_t, 1)


def grow(est, X, Y, measures, rng):
    """Algorithm 3 for each measure in ``measures`` (canonical names), sharing equal layers.

    ``est`` supplies ``max_layers``, ``patience``, ``feature_reuse``, ``threshold_reference``,
    ``_n_forests()`` and
    ``_out_of_fold(Z, Y, t, seeds, fold_seed)``.  Returns the branches and the list of shared layer
    computations ``nodes`` (dicts with ``t``, ``seeds`` and the training input ``G_in``).
    """
    branches = [Branch(m) for m in measures]
    nodes = []
    for t in range(1, int(est.max_layers) + 1):
        active = [b for b in branches if not b.done]
        if not active:
            break
        layer_seeds = rng.randint(_SEED_MAX, size=est._n_forests() + 1)
        done_here = []  # (G_in, node index, H)
        for b in active:
            hit = next((d for d in done_here if _same(d[0], b.G)), None)
            if hit is None:
                H = est._out_of_fold(_stack(X, b.G), Y, t, layer_seeds[:-1], layer_seeds[-1])
                nodes.append({"t": t, "seeds": layer_seeds[:-1], "G_in": b.G})
                hit = (b.G, len(nodes) - 1, H)
                done_here.append(hit)
            b.step(t, hit[2], hit[1], Y, est.feature_reuse, int(est.patience),
                   est.threshold_reference)
    return branches, nodes


def refit(est, X, Y, branches, nodes):
    """Line 16 and the final models: each branch's kept layers 1..L refit on the whole training
    part, one fit per shared layer.  Returns one list of layers per branch (dicts with
    ``forests``, ``log_threshold`` and ``node``)."""
    fitted = {}
    out = []
    for b in branches:
        layers = []
        for t in range(1, b.kept + 1):
            k = b.nodes[t - 1]
            if k not in fitted:
                node = nodes[k]
                forests = est._forests(node["t"], node["seeds"])
                Z = _stack(X, node["G_in"])
                for forest in forests:
                    fit_forest(forest, Z, Y)
                fitted[k] = forests
            layers.append({"forests": fitted[k], "log_threshold": float(b.thetas[t - 1]),
                           "node": k})
        out.append(layers)
    return out


def predict(X, cascades):
    """G^L on new rows for each ``(measure, layers)`` in ``cascades``; a layer shared by several
    branches is evaluated once per distinct input."""
    cache = {}  # node -> [(G_in, H)]
    out = []
    for measure, layers in cascades:
        G = None
        for layer in layers:
            seen = cache.setdefault(layer.get("node", id(layer)), [])
            H = next((h for g, h in seen if _same(g, G)), None)
            if H is None:
                Z = _stack(X, G)
                H = np.mean([forest_proba(f, Z) for f in layer["forests"]], axis=0)
                seen.append((G, H))
            log_theta = layer["log_threshold"]
            log_alpha = log_confidence(H, measure) if np.isfinite(log_theta) else None
            G = reuse(H, G, log_alpha, log_theta, measure)
        out.append(G)
    return out
