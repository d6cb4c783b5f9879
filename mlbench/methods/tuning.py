"""Internal tuning of any estimator's parameters on the protocol's validation part.

:class:`Tuned` does for a user's method what the built-in tuned methods do inside their ``fit``
(:mod:`mlbench.methods.mtl.holdout`, :mod:`mlbench.methods.hierarchical._base`): every point of
its grid is fitted on the training part and scored on the validation part, the best point is
refitted on training + validation, and the choice goes to ``fit_info_`` (so to the row's
``extra`` column).  The validation part is the one the runner passes (``fit(X, Y,
validation=(Xv, Yv))``, the protocol's ``validation_fraction`` or the dataset's given part), else
``validation_fraction`` of the training rows drawn with ``random_state``.

A protocol asks for it with ``{name: SPEC, tune: {PARAM: [values, ...]}, tune_by: MEASURE}``
(``tune_by`` defaults to the protocol's first metric); on the command line it is the spec
``mlbench.methods.tuning:Tuned(estimator=SPEC, grid={'PARAM': (values, ...)}, metric='macro_f1')``.
Grid names follow scikit-learn's ``set_params``: ``estimator__C`` reaches a nested estimator.
"""
from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import ParameterGrid
from sklearn.utils import check_random_state
from sklearn.utils._available_if import available_if

from mlbench.errors import ConfigError


def _inner_has(name):
    return lambda self: hasattr(self.estimator_ if hasattr(self, "estimator_") else self.estimator,
                                name)


class Tuned(BaseEstimator):
    """``estimator`` with the parameters of ``grid`` chosen on a validation part by ``metric``.

    Parameters
    ----------
    estimator : estimator
        The multi-label estimator to tune (``fit(X, Y)``, ``predict``; scores for ranking measures).
    grid : dict
        Parameter name -> non-empty list (or tuple) of candidate values; every combination is tried,
        ties go to the first in :class:`~sklearn.model_selection.ParameterGrid` order.
    metric : str
        The measure to optimise (a registered name; its direction is the measure's own).  It must
        need predictions or scores.
    validation_fraction : float
        Share of the training rows held out when the runner passes no validation part.
    random_state : int or None
        Draws the held-out rows.
    """

    def __init__(self, estimator=None, grid=None, metric="macro_f1", validation_fraction=0.2,
                 random_state=None):
        self.estimator = estimator
        self.grid = grid
        self.metric = metric
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def _check(self):
        from mlbench.metrics import get_measure

        if self.estimator is None:
            raise ConfigError("Tuned needs an estimator")
        if not isinstance(self.grid, dict) or not self.grid or not all(
                isinstance(v, (list, tuple)) and len(v) > 0 for v in self.grid.values()):
            raise ConfigError(f"Tuned: grid must map parameter names to non-empty lists of values, "
                              f"got {self.grid!r}")
        measure = get_measure(self.metric)
        if measure.needs not in ("predictions", "scores"):
            raise ConfigError(f"Tuned: metric {self.metric!r} needs {measure.needs}; tune by a "
                              "measure of predictions or scores")
        if not 0.0 < float(self.validation_fraction) < 1.0:
            raise ConfigError(f"Tuned: validation_fraction must lie strictly between 0 and 1, got "
                              f"{self.validation_fraction!r}")
        bad = sorted(set(self.grid) - set(self.estimator.get_params(deep=True)))
        if bad:
            raise ConfigError(f"Tuned: {type(self.estimator).__name__} has no parameter {bad[0]!r}")
        return measure

    def _score(self, measure, est, X, Y):
        from mlbench.experiment import outputs

        n, L = Y.shape
        if measure.needs == "scores":
            value = outputs.method_scores(est, X, n, L, "tuned estimator")
            if value is None:
                raise ValueError(f"tuning by {measure.name} needs scores (predict_proba or "
                                 "decision_function)")
        else:
            value = outputs.method_predictions(est, X, n, L, "tuned estimator")
        return measure(Y, value)

    def fit(self, X, Y, validation=None):
        from mlbench.methods.mtl.holdout import holdout_parts

        measure = self._check()
        Y = np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y)
        points = list(ParameterGrid({k: list(v) for k, v in self.grid.items()}))
        rng = check_random_state(self.random_state)
        fraction = self.validation_fraction if len(points) > 1 else 0.0
        X_fit, Y_fit, X_val, Y_val, X_all, Y_all = holdout_parts(X, Y, validation, fraction, rng)
        best, scores = points[0], []
        if len(points) > 1 and X_val is not None:
            for point in points:
                est = clone(self.estimator).set_params(**point).fit(X_fit, Y_fit)
                score = self._score(measure, est, X_val, Y_val)
                scores.append(None if math.isnan(score) else round(float(score), 6))
            finite = [(s if measure.greater_is_better else -s, -i)
                      for i, s in enumerate(scores) if s is not None]
            if finite:
                best = points[-max(finite)[1]]
        self.best_params_ = best
        self.estimator_ = clone(self.estimator).set_params(**best).fit(X_all, Y_all)
        self.fit_info_ = {**{k: _plain(v) for k, v in best.items()}, "tuned_by": measure.name,
                          "validation_scores": scores,
                          "n_validation": 0 if X_val is None else int(X_val.shape[0])}
        return self

    def predict(self, X):
        return self.estimator_.predict(X)

    @available_if(_inner_has("predict_proba"))
    def predict_proba(self, X):
        return self.estimator_.predict_proba(X)

    @available_if(_inner_has("decision_function"))
    def decision_function(self, X):
        return self.estimator_.decision_function(X)

    @property
    def classes_(self):
        return self.estimator_.classes_


def _plain(value):
    """A chosen value as JSON can hold it (numbers, strings, lists; anything else by repr)."""
    if isinstance(value, (bool, int, float, str, type(None))):
        return value
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return repr(value)

