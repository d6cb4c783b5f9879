"""MLFE: sparse reconstruction, closed-form enrichment, tuned kernel regression."""
import numpy as np
import pytest
from sklearn.linear_model import Lasso

from mlbench.errors import ConfigError
from mlbench.methods import registry
from mlbench.methods.embedding.mlfe import MLFE, _Fit, sparse_reconstruction
from mlbench.metrics import get_measure

RNG = np.random.default_rng(0)
X = RNG.standard_normal((50, 4))
Y = np.column_stack([X[:, 0] > 0, X[:, 1] + X[:, 2] > 0, X[:, 3] > 0.5]).astype(int)


def test_reconstruction_is_the_lasso_without_self():
    R = sparse_reconstruction(X, 0.5, n_neighbors=None)
    assert np.all(np.diag(R) == 0)
    others = np.delete(np.arange(len(X)), 3)
    ref = Lasso(alpha=0.5 / X.shape[1], fit_intercept=False, tol=1e-12,
                max_iter=100000).fit(X[others].T, X[3]).coef_
    np.testing.assert_allclose(R[3, others], ref, atol=1e-6)


def test_neighbour_restriction_keeps_weights_on_neighbours():
    R = sparse_reconstruction(X, 0.1, n_neighbors=5)
    assert np.all((R != 0).sum(axis=1) <= 5)


def test_enrichment_solves_its_normal_equations():
    Ypm = 2.0 * Y - 1
    fit = _Fit(X, Ypm, 0.5, 1.0, 2.0, None)
    R = sparse_reconstruction(X, 0.5, None)
    F = RNG.standard_normal(Ypm.shape)
    U = fit.enrich(3.0, 10.0, 1.0, F)
    IR = np.eye(len(X)) - R
    grad = 3.0 * IR.T @ IR @ U + 10.0 * (U - Ypm) + 1.0 * (U - F)
    np.testing.assert_allclose(grad, 0.0, atol=1e-8)


def test_mlfe_learns_tunes_and_is_reproducible():
    est = registry.make("mlfe", random_state=0, beta1=[1, 5], beta2=[1, 10], beta3=[1])
    S = est.fit(X, Y).decision_function(X)
    assert S.shape == Y.shape
    assert get_measure("macro_auc")(Y, S) > 0.85
    assert est.betas_[0] in (1, 5) and est.betas_[1] in (1, 10) and est.betas_[2] == 1
    assert set(np.unique(est.predict(X))) <= {0, 1}
    again = registry.make("mlfe", random_state=0, beta1=[1, 5], beta2=[1, 10], beta3=[1])
    np.testing.assert_array_equal(S, again.fit(X, Y).decision_function(X))


def test_bad_parameters_are_config_errors():
    with pytest.raises(ConfigError):
        MLFE(rho=0).fit(X, Y)
    with pytest.raises(ConfigError):
        MLFE(validation_fraction=1.5).fit(X, Y)
    with pytest.raises(ConfigError):
        MLFE(tune_measure="nope").fit(X, Y)
