"""``check_method``: the contract a method must meet to run in mlbench, for a method author's tests.

    from mlbench.testing import check_method
    check_method(MyClassifier())          # raises AssertionError naming the first broken rule

It fits the estimator on a small synthetic multi-label problem (dense, then CSR) and checks what
the runner relies on: ``fit(X, Y)`` returns, ``predict`` gives an (n, L) 0/1 matrix, the scores of
``predict_proba`` / ``decision_function`` (when present) are finite with shape (n, L) (or
scikit-learn's per-label list of (n, 2) arrays), and two fits with the same ``random_state`` predict
the same.  It returns what it found, e.g. ``{"scores": "decision_function", "sparse": True}``.
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
    from mlbench.experiment.cell import _scores

    X, Y = _data(n, n_features, n_labels, random_state)
    name = type(estimator).__name__
    for what in ("fit", "predict"):
        assert callable(getattr(estimator, what, None)), f"{name} has no {what}()"
    est = copy.deepcopy(estimator)
    assert est.fit(X[:60], Y[:60]) is not None, f"{name}.fit(X, Y) must return the estimator"
    P = np.asarray(est.predict(X[60:]).toarray() if sp.issparse(est.predict(X[60:])) else est.predict(X[60:]))
    assert P.shape == (n - 60, n_labels), f"{name}.predict gave shape {P.shape}, not {(n - 60, n_labels)}"
    assert np.isin(P, (0, 1)).all(), f"{name}.predict must give 0/1 values"
    found = {"scores": None, "sparse": False, "random_state": hasattr(est, "random_state")}
    S = _scores(est, X[60:])
    if S is not None:
        found["scores"] = "predict_proba" if callable(getattr(est, "predict_proba", None)) \
            else "decision_function"
        assert S.shape == (n - 60, n_labels), f"{name}.{found['scores']} gave shape {S.shape}"
        assert np.isfinite(S).all(), f"{name}.{found['scores']} gave non-finite scores"
    if found["random_state"]:
        a, b = copy.deepcopy(estimator), copy.deepcopy(estimator)
        for e in (a, b):
            e.random_state = 7
            e.fit(X[:60], Y[:60])
        assert np.array_equal(np.asarray(a.predict(X[60:])), np.asarray(b.predict(X[60:]))), \
            f"{name}: two fits with random_state=7 predict differently"
    try:
        copy.deepcopy(estimator).fit(sp.csr_matrix(X[:60]), Y[:60])
        found["sparse"] = True
    except (TypeError, ValueError):
        found["sparse"] = False            # the runner densifies X for it
    return found
