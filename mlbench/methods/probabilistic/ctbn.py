"""``sc``: a single conditional tree-structured Bayesian network (CTBN).

Batal, Hong & Hauskrecht (CIKM 2013), the base model of the MC paper (Hong, Batal & Hauskrecht,
CIKM 2014; "SC" in its tables).  Each label has at most one parent label; node i holds one L2
logistic regression P(y_i | x, y_parent = v) per value v of its parent (``node_model``, see
:mod:`._tree`) and P(y | x) is their product (Eq. 4).

* Structure (section 5.3.1): the training data are split into a fitting part and a held-out part
  (``holdout_fraction``); the weight of edge j -> i is the weighted conditional log-likelihood of Y_i
  given (X, Y_j) on the held-out part, the self-loop weight uses X alone, and the structure is the
  maximum-weight directed spanning tree (Chu-Liu/Edmonds, Eq. 11 as a sum of edge weights).  Instance
  weights omega(n) enter both the fits and the scores (:func:`learn_ctbn`; ``sc`` uses uniform
  weights, ``mc`` the boosting-like weights of section 5.3.2).
* Parameters: the node regressions refitted on all training data for the chosen structure.
* Prediction: the exact MAP vector (Eq. 1) by max-sum over the tree, linear in L; ``predict_proba``
  gives exact marginals P(y_i = 1 | x); ``joint_log_proba`` gives log P(y | x).
* Regularisation: ``C="cv"`` picks one C per label from ``Cs`` by ``cv``-fold internal
  cross-validation of P(y_i | x) (MC paper, section 6.1); the node of label i uses it.
"""
from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier, check_multilabel_Y
from mlbench.methods.components.logistic import (DEFAULT_CS, JOINT_MODE_XFAIL, check_Cs, check_min_rows,
                                                     choose_C, single_blas_thread)
from mlbench.methods.probabilistic._tree import (
    NODE_MODELS, best_structure, edge_weights, fit_tree_params, topological_order, tree_loglik,
    tree_map, tree_marginals)
from mlbench.methods.components.validation import check_fraction
from mlbench.methods.registry import register


def check_node_model(value):
    if value not in NODE_MODELS:
        raise ConfigError(f"node_model must be one of {', '.join(NODE_MODELS)}, got {value!r}")


@single_blas_thread
def learn_ctbn(X, Y, weight, Cs, holdout_fraction, rng, node_model="per_parent"):
    """Structure by maximum branching over held-out edge weights, then parameters on all of (X, Y).

    ``weight`` is omega(n) (non-negative, summing to 1); the final fits use omega(n) * N.
    """
    parent = best_structure(edge_weights(X, Y, weight, Cs, holdout_fraction, rng, node_model))
    return fit_tree_params(X, Y, parent, weight * len(weight), Cs, node_model=node_model)


class CTBNClassifier(MultiLabelClassifier):
    """A single CTBN (see module docstring).

    Parameters
    ----------
    C : float or "cv"
        Inverse L2 strength of every node regression, or "cv" for per-label internal CV over ``Cs``.
    Cs : sequence of float
        Grid searched when ``C="cv"``.
    cv : int
        Folds of that internal cross-validation.
    holdout_fraction : float
        Share of the training rows held out to score the candidate edges.
    node_model : "per_parent" or "shared"
        One regression per parent value (the CTBN of Batal et al.), or one regression on
        (x, y_parent) whose parent term only shifts the intercept (the earlier form, for ablations).
    random_state : int, RandomState or None
    """

    _estimator_checks = {"params": {"C": 1.0}, "xfail": JOINT_MODE_XFAIL}

    def __init__(self, *, C="cv", Cs=DEFAULT_CS, cv=3, holdout_fraction=1 / 3,
                 node_model="per_parent", random_state=None):
        self.C = C
        self.Cs = Cs
        self.cv = cv
        self.holdout_fraction = holdout_fraction
        self.node_model = node_model
        self.random_state = random_state

    @single_blas_thread
    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        check_Cs(self.C, self.Cs)
        check_fraction("holdout_fraction", self.holdout_fraction)
        check_node_model(self.node_model)
        check_min_rows("sc", X.shape[0], 2)
        rng = check_random_state(self.random_state)
        self.C_ = choose_C(X, Y, self.C, self.Cs, self.cv, random_state=rng.randint(2**31 - 1))
        n = X.shape[0]
        self.tree_ = learn_ctbn(X, Y, np.full(n, 1.0 / n), self.C_, self.holdout_fraction, rng,
                                self.node_model)
        self.order_ = topological_order(self.tree_.parent)
        self.fit_info_ = {"parent": self.tree_.parent.tolist(), "C": self.C_.tolist()}
        return self

    def _inputs(self, X):
        X = self._validate_predict(X)
        return self.tree_.inputs(X)

    def predict(self, X):
        """Exact MAP label vectors (n, L) by max-sum over the tree."""
        Y, _ = tree_map(*self._inputs(X), self.tree_.parent, self.order_)
        return Y.astype(int)

    def predict_proba(self, X):
        """Exact marginals P(y_i = 1 | x), shape (n, L)."""
        return tree_marginals(*self._inputs(X), self.tree_.parent, self.order_)

    def joint_log_proba(self, X, Y):
        """log P(Y = y | x) per row (Eq. 4)."""
        check_is_fitted(self)
        A, D = self._inputs(X)
        Y = check_multilabel_Y(Y, A.shape[0])
        return tree_loglik(A, D, self.tree_.parent, Y)


register("sc", CTBNClassifier, family="probabilistic", paper="mc",
         description="single conditional tree Bayesian network (CTBN), L2 LR nodes, exact MAP")
