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
  (Section 4.1); sqrt(d) candidate features per split; leaves of at least ``min_samples_leaf`` = 1
  training row (the paper gives no minimum; Clus, the RF-PCT code it cites, defaults to weight 2).

The prediction is G^L (per-label probabilities); ``predict`` keeps the labels with p > 0.5 (the rule
of Table 2's hamming-loss confidence; a tie at exactly 0.5 is negative).  ``fit_info_``
records ``layers`` (L, the number of layers kept), ``layers_grown`` and the training measure per layer.
Sparse input is densified (the cascade concatenates dense representations to it).

``mldf`` (:class:`MultiMeasureMLDF`) grows the cascades of several measures in one fit, sharing the
layers they have in common (``mldf_cascade.py``); each branch equals the single-measure fit with the
same ``random_state``.  The runner reports each measure from its branch (``measure_outputs``).
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
from mlbench.methods.trees import mldf_cascade
from mlbench.methods.trees.mldf_cascade import reuse  # noqa: F401  (Algorithm 1, public here)
from mlbench.methods.trees.mldf_confidence import check_measure
from mlbench.methods.trees.pct import fit_forest, forest_proba, make_forest

#: forest pairs of one layer: (split heuristic, randomisation) of each forest
BLOCKS = {
    "pct": (("variance", "rf"), ("variance", "erf")),
    "c45": (("entropy", "rf"), ("entropy", "erf")),
}

#: MLDF measure -> the results columns (mlbench.metrics names) that are that measure
METRIC_COLUMNS = {"hamming_loss": ("hamming_loss",), "one_error": ("one_error",),
                  "coverage": ("coverage_normalized", "coverage"),
                  "ranking_loss": ("ranking_loss",), "average_precision": ("average_precision",),
                  "macro_auc": ("macro_auc",)}

_ESTIMATOR_CHECKS = {
    "params": {"max_layers": 2, "n_folds": 2, "n_estimators_start": 3, "n_estimators_step": 1,
               "n_estimators_max": 4},
    "xfail": {"check_classifiers_multilabel_output_format_predict_proba":
              "forest probabilities reach exactly 0 and 1; the check wants the open interval "
              "(0, 1)"}}


class _Cascade(MultiLabelClassifier):
    """What the single- and multi-measure MLDF share: layer sizes, forests, out-of-fold H^t."""

    def _check_params(self, n_samples):
        if self.block not in BLOCKS:
            raise ConfigError(f"unknown MLDF block {self.block!r}; choose one of "
                              f"{', '.join(BLOCKS)}")
        for name in ("max_layers", "patience", "n_estimators_start", "n_estimators_max",
                     "max_depth_start", "min_samples_leaf"):
            if int(getattr(self, name)) < 1:
                raise ConfigError(f"MLDF: {name} must be at least 1")
        if self.threshold_reference not in ("G", "H"):
            raise ConfigError(f"MLDF: threshold_reference must be 'G' or 'H', got "
                              f"{self.threshold_reference!r}")
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

    def _n_forests(self):
        return len(BLOCKS[self.block])

    def _forests(self, t, seeds):
        n_est, depth = self._layer_size(t)
        return [make_forest(split, rnd, n_estimators=n_est, max_depth=depth,
                            min_samples_leaf=int(self.min_samples_leaf), n_jobs=self.n_jobs,
                            random_state=int(seed))
                for (split, rnd), seed in zip(BLOCKS[self.block], seeds)]

    def _out_of_fold(self, Z, Y, t, seeds, fold_seed):
        """H^t on the training rows: each fold predicted by the layer's forests fit on the others."""
        H = np.zeros(Y.shape)
        folds = KFold(n_splits=self.n_folds, shuffle=True, random_state=int(fold_seed))
        for train, held in folds.split(Z):
            Z_train, Y_train, Z_held = Z[train], Y[train], Z[held]
            for forest in self._forests(t, seeds):
                fit_forest(forest, Z_train, Y_train)
                H[held] += forest_proba(forest, Z_held)
        return H / self._n_forests()

    def _grow(self, X, Y, measures):
        """Algorithm 3 for ``measures`` and the refit of the kept layers; sets ``branches_``."""
        if sp.issparse(X):
            X = X.toarray()
        self._check_params(X.shape[0])
        rng = check_random_state(self.random_state)
        branches, nodes = mldf_cascade.grow(self, X, Y, measures, rng)
        layers = mldf_cascade.refit(self, X, Y, branches, nodes)
        self.branches_ = {b.measure: lay for b, lay in zip(branches, layers)}
        self.n_layer_fits_ = len(nodes)
        return branches

    @staticmethod
    def _info(b):
        return {"layers": b.kept, "layers_grown": len(b.perf),
                "train_measure": [None if np.isnan(v) else round(float(v), 6) for v in b.perf]}

    def _probas(self, X, measures):
        X = self._validate_predict(X)
        check_is_fitted(self, "branches_")
        if sp.issparse(X):
            X = X.toarray()
        return mldf_cascade.predict(X, [(m, self.branches_[m]) for m in measures])


class MLDF(_Cascade):
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
    threshold_reference : what Algorithm 2's "previous performance" m^{t-1} is measured on: ``"G"``
        (G^{t-1}, the representation layer t received; default) or ``"H"`` (H^{t-1}, the previous
        layer's own forests' output), the two readings of the algorithm (issue 22 ablation).
    min_samples_leaf : training rows at least in each leaf of every forest (1: trees grown to the
        depth limit; 2 is Clus's default minimal leaf weight, the issue 40 ablation).
    n_jobs : threads of each scikit-learn forest.
    """

    _estimator_checks = _ESTIMATOR_CHECKS
    #: added in issues 22 / 40 with the values every earlier result used: not recorded at them
    _unrecorded_defaults = {"threshold_reference": "G", "min_samples_leaf": 1}

    def __init__(self, *, measure="hamming_loss", block="pct", max_layers=20, patience=3,
                 n_folds=5, n_estimators_start=40, n_estimators_step=20, n_estimators_max=100,
                 max_depth_start=3, max_depth_step=3, feature_reuse=True, threshold_reference="G",
                 min_samples_leaf=1, n_jobs=1, random_state=None):
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
        self.threshold_reference = threshold_reference
        self.min_samples_leaf = min_samples_leaf
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        self.measure_ = check_measure(self.measure)
        (branch,) = self._grow(X, Y, [self.measure_])
        self.layers_ = self.branches_[self.measure_]
        self.train_measure_ = np.array(branch.perf)
        self.fit_info_ = {**self._info(branch), "measure": self.measure_}
        return self

    def predict(self, X):
        """Labels with probability above 0.5 (Table 2's rule, I[p > 0.5])."""
        return (self.predict_proba(X) > 0.5).astype(int)

    def predict_proba(self, X):
        """G^L: per-label probabilities from the kept layers, with the learnt feature reuse."""
        check_is_fitted(self, "branches_")
        return self._probas(X, [self.measure_])[0]


class MultiMeasureMLDF(_Cascade):
    """One MLDF per measure in ``measures``, grown together (see ``mldf_cascade.py``).

    Branch M equals ``MLDF(measure=M)`` with the same parameters and ``random_state``; the fit
    shares every layer the branches have in common (at least layers 1-3).  ``predict`` and
    ``predict_proba`` give the first measure's branch; :meth:`measure_outputs` gives every branch's
    predictions and probabilities keyed by the results columns of its measure, which the runner
    uses so that each measure is reported from the model grown for it (MLDF Section 4.1).
    ``fit_info_`` holds ``layers`` (kept), ``layers_grown`` and ``train_measure`` per results
    column, and ``layer_fits`` (shared out-of-fold layer computations) against
    ``layer_fits_separate`` (what separate fits would do).  Other parameters as :class:`MLDF`.
    """

    #: six cascades per fit: the checks take minutes, like the mldf-* variants' (slow tests)
    _estimator_checks = {**_ESTIMATOR_CHECKS, "slow": True}
    _unrecorded_defaults = {"threshold_reference": "G", "min_samples_leaf": 1}

    def __init__(self, *, measures=("hamming_loss", "one_error", "coverage", "ranking_loss",
                                    "average_precision", "macro_auc"),
                 block="pct", max_layers=20, patience=3, n_folds=5, n_estimators_start=40,
                 n_estimators_step=20, n_estimators_max=100, max_depth_start=3, max_depth_step=3,
                 feature_reuse=True, threshold_reference="G", min_samples_leaf=1, n_jobs=1,
                 random_state=None):
        self.measures = measures
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
        self.threshold_reference = threshold_reference
        self.min_samples_leaf = min_samples_leaf
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        names = [self.measures] if isinstance(self.measures, str) else list(self.measures or ())
        self.measures_ = list(dict.fromkeys(check_measure(m) for m in names))
        if not self.measures_:
            raise ConfigError("MLDF: measures must name at least one measure")
        branches = self._grow(X, Y, self.measures_)
        info = {"layers": {}, "layers_grown": {}, "train_measure": {}}
        for b in branches:
            for key, value in self._info(b).items():
                info[key][METRIC_COLUMNS[b.measure][0]] = value
        info["layer_fits"] = self.n_layer_fits_
        info["layer_fits_separate"] = sum(len(b.perf) for b in branches)
        self.fit_info_ = info
        return self

    def predict(self, X):
        """The first measure's branch, labels with probability above 0.5."""
        return (self.predict_proba(X) > 0.5).astype(int)

    def predict_proba(self, X):
        """The first measure's branch: its G^L."""
        check_is_fitted(self, "branches_")
        return self._probas(X, self.measures_[:1])[0]

    def measure_outputs(self, X):
        """``{results column: {"predictions": 0/1, "scores": probabilities}}`` from each measure's
        own branch (the runner uses them in place of ``predict`` / ``predict_proba``)."""
        check_is_fitted(self, "branches_")
        out = {}
        for measure, P in zip(self.measures_, self._probas(X, self.measures_)):
            for column in METRIC_COLUMNS[measure]:
                out[column] = {"predictions": (P > 0.5).astype(int), "scores": P}
        return out


_VARIANTS = {"hl": "hamming_loss", "oe": "one_error", "cov": "coverage", "rl": "ranking_loss",
             "ap": "average_precision", "auc": "macro_auc"}

for _short, _measure in _VARIANTS.items():
    register(f"mldf-{_short}", MLDF, family="trees", paper="mldf",
             params={"measure": _measure, "block": "pct"},
             description=f"multi-label deep forest (RF-PCT + ERF-PCT layers) grown for {_measure}")
register("mldf", MultiMeasureMLDF, family="trees", paper="mldf",
         params={"block": "pct"},
         description="multi-label deep forest grown for each of the six MLDF measures in one fit "
                     "(shared layers); each measure is reported from its own cascade")
register("mldf-c45", MultiMeasureMLDF, family="trees", paper="mldf",
         params={"block": "c45"},
         description="mldf with RFML-C4.5 + ERFML-C4.5 layers (Section 4.6, flexibility): the six "
                     "measures' cascades in one fit, each measure from its own")
