"""``check_method``: the contract a method must meet to run in mlbench, for a method author's tests.

    from mlbench.testing import check_method
    check_method(MyClassifier())          # raises AssertionError naming the first broken rule

It fits the estimator on a small synthetic multi-label problem (dense, then CSR) and checks what
the runner relies on: ``fit(X, Y)`` returns, and ``predict`` and the scores of ``predict_proba`` /
``decision_function`` (when present) meet the output contract that the runner enforces on every cell,
with the same code (:mod:`mlbench.experiment.outputs`: 0/1 predictions of shape (n, L), finite
scores, probabilities in [0, 1], scikit-learn's and scikit-multilearn's conventions understood), and
two fits with the same ``random_state`` predict the same.  It returns what it found, e.g.
``{"scores": "decision_function", "sparse": True}``.
"""
from __future__ import annotations

import copy

import numpy as np
import scipy.sparse as sp


def _data(n, n_features, n_labels, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    W = rng.normal(size=(n_features, n_labels))
    Y = (X @ W + 0.5 * rng.normal(size=(n, n_labels)) > 0).astype(np.int8)
    Y[0], Y[1] = 1, 0                      # every label has both values
    return X, Y


def check_method(estimator, *, n=80, n_features=5, n_labels=3, random_state=0):
    """Check ``estimator`` against mlbench's method contract (see the module docstring)."""
    from mlbench.experiment import outputs

    X, Y = _data(n, n_features, n_labels, random_state)
    name = type(estimator).__name__
    for what in ("fit", "predict"):
        assert callable(getattr(estimator, what, None)), f"{name} has no {what}()"
    est = copy.deepcopy(estimator)
    assert est.fit(X[:60], Y[:60]) is not None, f"{name}.fit(X, Y) must return the estimator"
    found = {"scores": outputs.score_source(est), "sparse": False,
             "random_state": hasattr(est, "random_state")}
    try:   # the runner's own checks (mlbench.experiment.outputs)
        outputs.method_predictions(est, X[60:], n - 60, n_labels, name)
        outputs.method_scores(est, X[60:], n - 60, n_labels, name)
    except outputs.OutputContractError as exc:
        raise AssertionError(str(exc)) from None
    if found["random_state"]:
        a, b = copy.deepcopy(estimator), copy.deepcopy(estimator)
        for e in (a, b):
            e.random_state = 7
            e.fit(X[:60], Y[:60])
        same = np.array_equal(*(outputs.method_predictions(e, X[60:], n - 60, n_labels, name)
                                for e in (a, b)))
        assert same, f"{name}: two fits with random_state=7 predict differently"
    try:
        copy.deepcopy(estimator).fit(sp.csr_matrix(X[:60]), Y[:60])
        found["sparse"] = True
    except (TypeError, ValueError):
        found["sparse"] = False            # the runner densifies X for it
    return found
