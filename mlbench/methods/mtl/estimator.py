"""Base class of the linear multi-task logistic methods: grid search on a hold-out, then refit.

A subclass lists its grid points in warm-start order (:meth:`_grid_points`) and fits one point
(:meth:`_fit_point`), returning (coef (d x Q), intercept (Q), info dict).  The ``state`` dict a
subclass gets is shared by all points of one search, so it can keep warm starts and caches (I-MTSL
learns the label graph of every lambda once); ``state["points"]`` lists the points that the state
will serve (all of the search's, or only the chosen one for the final refit, which gets a fresh
state).
"""
from __future__ import annotations

from abc import ABCMeta, abstractmethod

import numpy as np
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.components.validation import check_fraction
from mlbench.methods.mtl.holdout import holdout_parts, mean_label_accuracy
from mlbench.methods.mtl.logistic import predict_proba


def search_convergence(infos):
    """Convergence over a hold-out search: solver runs (grid points that reuse an earlier point's
    solution, ``info["reused"]``, are not counted again), how many stopped at the iteration cap
    without meeting the tolerance, and the most iterations one took (empty without a search)."""
    infos = [i for i in infos if "converged" in i and not i.get("reused")]
    flags = [i["converged"] for i in infos]
    if not flags:
        return {}
    return {"search_fits": len(flags), "search_unconverged": int(sum(not f for f in flags)),
            "search_max_iter": int(max(i.get("n_iter", 0) for i in infos))}


class HoldoutMTL(MultiLabelClassifier, metaclass=ABCMeta):
    """Shared ``fit``/``predict_proba``; subclasses set the grid and the single fit."""

    _estimator_checks = {"params": {"max_iter": 50}}

    @abstractmethod
    def _grid_points(self):
        """Implemented by each subclass."""

    @abstractmethod
    def _fit_point(self, X, Y, point, state, rng):
        """Implemented by each subclass."""

    def _check_params(self):
        check_fraction("validation_fraction", self.validation_fraction)

    def fit(self, X, Y, validation=None):
        """Fit on (X, Y); with several grid points, choose one on ``validation`` (or a random 20%)."""
        X, Y = self._validate_fit(X, Y)
        self._check_params()
        rng = check_random_state(self.random_state)
        points = self._grid_points()
        # Why one BLAS thread: the fits are many small matrix products; threads only add overhead
        # on the shared 2-core machine and would make the runner's --jobs count wrong.
        with threadpool_limits(limits=1, user_api="blas"):
            scores = []
            if len(points) > 1:
                X_fit, Y_fit, X_val, Y_val, X_all, Y_all = holdout_parts(
                    X, Y, validation, self.validation_fraction, rng)
            else:  # nothing to choose: no rows are held out (a given validation part joins training)
                X_fit, Y_fit, X_val, Y_val, X_all, Y_all = holdout_parts(X, Y, validation, 0.0, rng)
            best = points[0]
            search = []     # the solver's report of every grid point of the search
            if len(points) > 1 and X_val is not None:
                state = {"points": points}
                for point in points:
                    coef, b, point_info = self._fit_point(X_fit, Y_fit, point, state, rng)
                    search.append(point_info)
                    pred = predict_proba(X_val, coef, b) >= 0.5
                    scores.append(mean_label_accuracy(Y_val, pred))
                best = points[int(np.argmax(scores))]
            self.coef_, self.intercept_, info = self._fit_point(X_all, Y_all, best, {"points": [best]}, rng)
        self.fit_info_ = {**{k: round(float(v), 6) for k, v in best.items()}, **info,
                          **search_convergence(search)}
        self.n_iter_ = int(max(1, info.get("n_iter", 1)))  # solver iterations of the final fit
        if scores:
            self.fit_info_["validation_accuracy"] = round(float(max(scores)), 6)
            self.validation_scores_ = np.array(scores)
        self.best_params_ = dict(best)
        return self

    def predict_proba(self, X):
        """P(y_q = 1 | x) = sigmoid(x^T w_q + b_q), shape (n, Q)."""
        X = self._validate_predict(X)
        return predict_proba(X, self.coef_, self.intercept_)
