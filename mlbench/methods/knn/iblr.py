"""IBLR: instance-based learning by logistic regression.

Source: Cheng & Hüllermeier, "Combining instance-based learning and logistic regression for
multilabel classification", Machine Learning 76(2-3), 2009: the IBLR model and its features.

Each instance x is described by label statistics of its k nearest training neighbours N_k(x)
(excluding x itself for a training point):

    omega_j(x) = sum_{x' in N_k(x)} w(x, x') y_j(x') / sum_{x' in N_k(x)} w(x, x'),  j = 1..L,

the (weighted) fraction of neighbours carrying label j.  For every label i a logistic regression
models log(pi_i / (1 - pi_i)) = a_0^(i) + sum_j a_j^(i) omega_j(x), so the neighbours' evidence
for *every* label enters the model of label i and the regression learns how much each counts
(label dependence).  ``include_features=True`` also appends the original features (the paper's
IBLR+).  Weights: ``"uniform"`` (w = 1) or ``"distance"`` (w = 1/d; a
neighbour at distance 0 then takes all the weight).  The paper writes y in {-1, +1} and sums
rather than averages; the fraction used here is an affine rescaling of that statistic.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils._available_if import available_if

from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.knn.mlknn import fit_neighbours, neighbour_matrix
from mlbench.methods.registry import register
from mlbench.methods.components.binary import C_GRID, uses
from mlbench.methods.transformation.br import BinaryRelevance

_WEIGHTS = ("uniform", "distance")


def neighbour_label_fractions(dist, idx, Y_train, weights="uniform"):
    """omega_j(x) for every query row: weighted fraction of its neighbours with label j, (n, L)."""
    if weights == "uniform":
        W = np.ones(idx.shape)
    else:
        with np.errstate(divide="ignore"):
            W = 1.0 / dist
        exact = np.isinf(W)
        hit = exact.any(axis=1)
        W[hit] = exact[hit]  # a neighbour at distance 0 takes all the weight
    W /= W.sum(axis=1, keepdims=True)
    return np.asarray(neighbour_matrix(idx, Y_train.shape[0], W) @ Y_train.astype(np.float64))


class IBLR(MultiLabelClassifier):
    """IBLR (Cheng & Hüllermeier 2009): per-label logistic regression on neighbour label fractions.

    Parameters
    ----------
    k : int, default 10
        Number of neighbours (the paper's and the MC paper's choice).
    weights : "uniform" or "distance", default "uniform"
        Weight of each neighbour in the fractions.
    include_features : bool, default False
        Also give the regression the original features (IBLR+).
    base : str or estimator, default "lr"
        The per-label model (the paper: logistic regression).
    base_params : dict or None
        Parameters for a named base learner.
    metric : str, default "euclidean"
        Distance of the neighbour search.
    random_state : int, RandomState or None
        Seeds the per-label learners.

    ``fit_info_["C"]`` lists each label's C when the base chose one by cross-validation (``lr-cv``).
    """

    def __init__(self, *, k=10, weights="uniform", include_features=False, base="lr",
                 base_params=None, metric="euclidean", random_state=None):
        self.k = k
        self.weights = weights
        self.include_features = include_features
        self.base = base
        self.base_params = base_params
        self.metric = metric
        self.random_state = random_state

    def _design(self, X, dist, idx):
        Phi = neighbour_label_fractions(dist, idx, self.Y_train_, self.weights)
        if not self.include_features:
            return Phi
        if sp.issparse(X):
            return sp.hstack([sp.csr_matrix(Phi), X], format="csr")
        return np.hstack([Phi, X])

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        if self.weights not in _WEIGHTS:
            raise ValueError(f"weights must be one of {_WEIGHTS}, got {self.weights!r}")
        self.nn_, self.k_ = fit_neighbours(X, self.k, self.metric)
        self.Y_train_ = Y
        dist, idx = self.nn_.kneighbors()  # training points are not their own neighbours
        self.br_ = BinaryRelevance(base=self.base, base_params=self.base_params,
                                   random_state=self.random_state)
        self.br_.fit(self._design(X, dist, idx), Y)
        self.threshold_ = self.br_.threshold_
        self.fit_info_ = dict(self.br_.fit_info_)
        return self

    def _transform(self, X):
        X = self._validate_predict(X)
        dist, idx = self.nn_.kneighbors(X, self.k_)
        return self._design(X, dist, idx)

    @available_if(uses("proba"))
    def predict_proba(self, X):
        """P(y_i = 1 | omega(x)) per label, (n, L)."""
        Z = self._transform(X)
        return self.br_.predict_proba(Z)

    @available_if(uses("decision"))
    def decision_function(self, X):
        """Per-label margin of a base learner without probabilities, (n, L)."""
        Z = self._transform(X)
        return self.br_.decision_function(Z)

    @available_if(uses("proba"))
    def joint_log_proba(self, X, Y):
        """log P(Y = y | x): the per-label regressions are independent given omega(x)."""
        Z = self._transform(X)
        return self.br_.joint_log_proba(Z, Y)

    def predict(self, X):
        """Each label's regression prediction, (n, L) 0/1."""
        Z = self._transform(X)
        return self.br_.predict(Z)


register("iblr", IBLR, family="knn", paper="platform", params={"k": 10, "base": "lr"},
         grid={"base_params": C_GRID},
         description="IBLR (Cheng & Hüllermeier 2009): logistic regression on the k=10 "
                     "neighbours' label fractions")
