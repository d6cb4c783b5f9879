"""MLDF: Multi-Label Deep Forest (Yang, Wu, Jiang & Zhou, "Multi-Label Learning with Deep Forest", 2019).

A cascade of layers (Section 3.1, Figure 1).  Layer t holds two forests of multi-label trees: one
RF-PCT and one ERF-PCT (``block="pct"``), or one RFML-C4.5 and one ERFML-C4.5 (``block="c45"``,
Section 4.6); see ``pct.py``.  Layer t's input is the raw features X (t = 1) or [X, G^{t-1}].

* Representation H^t: the average of the two forests' per-label probabilities.  For the training
  rows it is produced by k-fold cross-validation (out-of-fold predictions, k = 5, Section 3.3); for
  new rows by the layer's forests refit on the whole training part.
* Measure-aware feature reuse (Algorithm 1): G^t = H^t, except that the columns (label-based
  measure) or rows (instance-based measure) whose confidence alpha (Table 2, ``mldf_confidence.py``)
  is below the layer's threshold theta_t are copied from G^{t-1}.  The confidences need no labels, so
  the same rule runs on new data; for a label-based measure the confidence of a column is computed over
  the rows being predicted together (the batch), as the algorithm prescribes.
* Threshold (Algorithm 2): theta_t is the mean of the confidences of the training columns/rows whose
  measure (``mldf_measures.py``) on H^t is worse than on G^{t-1}.  Algorithm 3 (line 5) determines it
  only for t > 2; theta_1 = theta_2 = 0 (no reuse), as does ``feature_reuse=False`` (the ablation of
  Section 4.3).  Confidences and thresholds are compared in log space.
* Measure-aware layer growth (Algorithm 3): at most T = ``max_layers`` = 20 layers; after layer t the
  training measure p[t] is computed on the out-of-fold G^t; growth stops when the best value has not
  improved for ``patience`` = 3 layers, and only layers 1..L (L = the best layer) are kept.
* Layer t has ``min(40 + 20 (t-1), 100)`` trees per forest and maximum tree depth ``3 + 3 (t-1)``
  (Section 4.1); sqrt(d) candidate features per split.

The prediction is G^L (per-label probabilities); ``predict`` keeps the labels with p > 0.5 (the rule
of Table 2's hamming-loss confidence; a tie at exactly 0.5 is negative).  ``fit_info_``
records ``layers`` (L, the number of layers kept), ``layers_grown`` and the training measure per layer.
Sparse input is densified (the cascade concatenates dense representations to it).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.registry import register
from mlbench.methods.trees.mldf_confidence import (MEASURE_AXIS, check_measure, log_confidence,
                                                   log_mean)
from mlbench.methods.trees.mldf_measures import aggregate, is_better, per_unit, worse_mask
from mlbench.methods.trees.pct import fit_forest, forest_proba, make_forest

#: forest pairs of one layer: (split heuristic, randomisation) of each forest
BLOCKS = {
    "pct": (("variance", "rf"), ("variance", "erf")),
    "c45": (("entropy", "rf"), ("entropy", "erf")),
}

_SEED_MAX = np.iinfo(np.int32).max


def reuse(H, G_prev, log_alpha, log_theta, measure):
    """Algorithm 1: G = H with the columns/rows whose confidence is below theta taken from G_prev."""
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


class MLDF(MultiLabelClassifier):
    """Multi-Label Deep Forest optimising ``measure`` (see the module docstring for the algorithm).

    Parameters
    ----------
    measure : the measure the layer growth and feature reuse aim at: ``hamming_loss``,
        ``one_error``, ``coverage``, ``ranking_loss``, ``average_precision`` or ``macro_auc``.
    block : ``"pct"`` (RF-PCT + ERF-PCT per layer) or ``"c45"`` (RFML-C4.5 + ERFML-C4.5).
    max_layers : T (20).  patience : layers without improvement before stopping (3).
    n_folds : folds of the out-of-fold representation (5).
    n_estimators_start, n_estimators_step, n_estimators_max : trees per forest (40, +20, <= 100).
    max_depth_start, max_depth_step : tree depth limit (3, +3 per layer).
    feature_reuse : apply Algorithms 1-2 (True) or keep theta = 0 in every layer (False).
    n_jobs : threads of each scikit-learn forest.
    """

    _estimator_checks = {
        "params": {"max_layers": 2, "n_folds": 2, "n_estimators_start": 3, "n_estimators_step": 1,
                   "n_estimators_max": 4},
        "xfail": {"check_classifiers_multilabel_output_format_predict_proba":
                  "forest probabilities reach exactly 0 and 1; the check wants the open interval "
                  "(0, 1)"}}

    def __init__(self, *, measure="hamming_loss", block="pct", max_layers=20, patience=3,
                 n_folds=5, n_estimators_start=40, n_estimators_step=20, n_estimators_max=100,
                 max_depth_start=3, max_depth_step=3, feature_reuse=True, n_jobs=1,
                 random_state=None):
        self.measure = measure
        self.block = block
        self.max_layers = max_layers
        self.patience = patience
        self.n_folds = n_folds
        self.n_estimators_start = n_estimators_start
        self.n_estimators_step = n_estimators_step
        self.n_estimators_max = n_estimators_max
        self.max_depth_start = max_depth_start
        self.max_depth_step = max_depth_step
        self.feature_reuse = feature_reuse
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- configuration ------------------------------------------------------------------------
    def _check_params(self, n_samples):
        self.measure_ = check_measure(self.measure)
        if self.block not in BLOCKS:
            raise ConfigError(f"unknown MLDF block {self.block!r}; choose one of "
                              f"{', '.join(BLOCKS)}")
        for name in ("max_layers", "patience", "n_estimators_start", "n_estimators_max",
                     "max_depth_start"):
            if int(getattr(self, name)) < 1:
                raise ConfigError(f"MLDF: {name} must be at least 1")
        if int(self.n_folds) < 2:
            raise ConfigError(f"MLDF: n_folds must be at least 2, got {self.n_folds}")
        if n_samples < int(self.n_folds):
            raise ValueError(f"MLDF's {self.n_folds}-fold representations need at least "
                             f"{self.n_folds} training rows, got n_samples={n_samples}")

    def _layer_size(self, t):
        """(trees per forest, max depth) of layer t (1-based), Section 4.1."""
        n_est = min(self.n_estimators_start + self.n_estimators_step * (t - 1),
                    self.n_estimators_max)
        return int(n_est), int(self.max_depth_start + self.max_depth_step * (t - 1))

    def _forests(self, t, seeds):
        n_est, depth = self._layer_size(t)
        return [make_forest(split, rnd, n_estimators=n_est, max_depth=depth, n_jobs=self.n_jobs,
                            random_state=int(seed))
                for (split, rnd), seed in zip(BLOCKS[self.block], seeds)]

    def _out_of_fold(self, Z, Y, t, seeds, fold_seed):
        """H^t on the training rows: each fold predicted by the layer's forests fit on the others."""
        H = np.zeros(Y.shape)
        folds = KFold(n_splits=self.n_folds, shuffle=True, random_state=int(fold_seed))
        for train, held in folds.split(Z):
            for forest in self._forests(t, seeds):
                fit_forest(forest, Z[train], Y[train])
                H[held] += forest_proba(forest, Z[held])
        return H / len(BLOCKS[self.block])

    # -- Algorithm 3 ----------------------------------------------------------------------------
    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        if sp.issparse(X):
            X = X.toarray()
        self._check_params(X.shape[0])
        rng = check_random_state(self.random_state)
        measure = self.measure_

        inputs, seeds, thetas, perf = [], [], [], []
        G_prev = m_prev = None
        best, best_t = np.nan, 0
        for t in range(1, int(self.max_layers) + 1):
            layer_seeds = rng.randint(_SEED_MAX, size=len(BLOCKS[self.block]) + 1)
            Z = X if G_prev is None else np.hstack([X, G_prev])
            H = self._out_of_fold(Z, Y, t, layer_seeds[:-1], layer_seeds[-1])
            m_now = per_unit(H, Y, measure)
            log_alpha = log_confidence(H, measure)
            log_theta = -np.inf
            if self.feature_reuse and t > 2:  # Algorithm 2, determined for t > 2 (Alg. 3, line 5)
                log_theta = log_mean(log_alpha[worse_mask(m_now, m_prev, measure)])
            G = reuse(H, G_prev, log_alpha, log_theta, measure)
            m_prev = per_unit(G, Y, measure)
            perf.append(aggregate(m_prev))
            inputs.append(Z)
            seeds.append(layer_seeds[:-1])
            thetas.append(log_theta)
            G_prev = G
            if is_better(perf[-1], best, measure):
                best, best_t = perf[-1], t
            elif t - best_t >= int(self.patience):
                break
        best_t = max(best_t, 1)

        # Only the kept layers 1..L are refit on the whole training part (line 16 drops the others).
        self.layers_ = []
        for t in range(1, best_t + 1):
            forests = self._forests(t, seeds[t - 1])
            for forest in forests:
                fit_forest(forest, inputs[t - 1], Y)
            self.layers_.append({"forests": forests, "log_threshold": float(thetas[t - 1])})
        self.train_measure_ = np.array(perf)
        self.fit_info_ = {
            "layers": best_t,
            "layers_grown": len(perf),
            "measure": measure,
            "train_measure": [None if np.isnan(v) else round(float(v), 6) for v in perf],
        }
        return self

    def predict(self, X):
        """Labels with probability above 0.5 (Table 2's rule, I[p > 0.5])."""
        return (self.predict_proba(X) > 0.5).astype(int)

    def predict_proba(self, X):
        """G^L: per-label probabilities from the kept layers, with the learnt feature reuse."""
        X = self._validate_predict(X)
        check_is_fitted(self, "layers_")
        if sp.issparse(X):
            X = X.toarray()
        G = None
        for layer in self.layers_:
            Z = X if G is None else np.hstack([X, G])
            H = np.mean([forest_proba(f, Z) for f in layer["forests"]], axis=0)
            log_theta = layer["log_threshold"]
            log_alpha = log_confidence(H, self.measure_) if np.isfinite(log_theta) else None
            G = reuse(H, G, log_alpha, log_theta, self.measure_)
        return G


_VARIANTS = {"hl": "hamming_loss", "oe": "one_error", "cov": "coverage", "rl": "ranking_loss",
             "ap": "average_precision", "auc": "macro_auc"}

for _short, _measure in _VARIANTS.items():
    register(f"mldf-{_short}", MLDF, family="trees", paper="mldf",
             params={"measure": _measure, "block": "pct"},
             description=f"multi-label deep forest (RF-PCT + ERF-PCT layers) grown for {_measure}")
register("mldf-c45", MLDF, family="trees", paper="mldf",
         params={"measure": "hamming_loss", "block": "c45"},
         description="multi-label deep forest with RFML-C4.5 + ERFML-C4.5 layers (Section 4.6); "
                     "set the measure per protocol")
