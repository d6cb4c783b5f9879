"""DBPNN: the C kernels equal the NumPy reference; the network learns; same seed, same numbers."""
import numpy as np
import pytest

from mlbench.errors import ConfigError
from mlbench.methods import registry
from mlbench.methods.neural import dbpnn as mod
from mlbench.metrics import get_measure

RNG = np.random.default_rng(0)
X = RNG.random((60, 5))
Y = np.column_stack([X[:, 0] > 0.5, X[:, 1] + X[:, 2] > 1.0, X[:, 3] < 0.3]).astype(int)
FAST = dict(n_hidden=6, pretrain_epochs=20, finetune_epochs=200, learning_rate=0.5)


def test_kernels_are_built():
    """`make` builds mlbench._ext._dbpnn; a silent NumPy fallback would hide a broken build."""
    assert mod._rbm_kernel is not None and mod._backprop_kernel is not None


def test_rbm_kernel_equals_numpy_reference():
    kw = dict(epochs=7, batch_size=4, lr=0.1, momentum=0.1, cost=2e-5)
    a = mod.train_rbm(X, 3, rng=np.random.default_rng(1), use_kernel=True, **kw)
    b = mod.train_rbm(X, 3, rng=np.random.default_rng(1), use_kernel=False, **kw)
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_backprop_kernel_equals_numpy_reference():
    rng = np.random.default_rng(2)
    shapes = [(6, 4), (5, 3), (4, 3)]
    w1 = [np.ascontiguousarray(rng.normal(size=s)) for s in shapes]
    w2 = [w.copy() for w in w1]
    v1 = [np.zeros(s) for s in shapes]
    v2 = [np.zeros(s) for s in shapes]
    order = rng.permutation(len(X))
    Yf = Y.astype(float)
    for _ in range(3):
        mod.backprop_epoch(w1, v1, X, Yf, order, 0.3, 0.2, use_kernel=True)
        mod.backprop_epoch(w2, v2, X, Yf, order, 0.3, 0.2, use_kernel=False)
    for a, b in zip(w1 + v1, w2 + v2):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("hidden", [(), (9,), (7, 6), (4, 5, 3)])
@pytest.mark.parametrize("n_rows", [0, 1, 2, 37])
def test_backprop_kernel_equals_numpy_reference_on_any_widths(hidden, n_rows):
    """The kernel sweeps each weight matrix once per row and sums four hidden errors side by side;
    on widths that leave every remainder of those blocks, and on 0, 1 and more rows, it is the
    same update as the reference."""
    rng = np.random.default_rng(n_rows)
    Xw = rng.random((40, 11))
    Yw = (rng.random((40, 5)) < 0.4).astype(float)
    units = [11, *hidden, 5]
    w1 = [np.ascontiguousarray(rng.normal(scale=0.5, size=(a + 1, b)))
          for a, b in zip(units, units[1:])]
    v1 = [np.ascontiguousarray(rng.normal(scale=0.1, size=w.shape)) for w in w1]
    w2, v2 = [w.copy() for w in w1], [v.copy() for v in v1]
    order = rng.integers(0, len(Xw), size=n_rows)
    for _ in range(2):
        mod.backprop_epoch(w1, v1, Xw, Yw, order, 0.3, 0.2, use_kernel=True)
        mod.backprop_epoch(w2, v2, Xw, Yw, order, 0.3, 0.2, use_kernel=False)
    for a, b in zip(w1 + v1, w2 + v2):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    if n_rows == 0:
        assert all((a == b).all() for a, b in zip(w1, w2))


def test_dbpnn_learns_and_is_reproducible():
    est = registry.make("dbpnn", random_state=0, **FAST).fit(X, Y)
    P = est.predict_proba(X)
    assert P.shape == Y.shape and np.all((P > 0) & (P < 1))
    assert get_measure("macro_auc")(Y, P) > 0.9
    again = registry.make("dbpnn", random_state=0, **FAST).fit(X, Y).predict_proba(X)
    np.testing.assert_array_equal(P, again)
    other = registry.make("dbpnn", random_state=1, **FAST).fit(X, Y).predict_proba(X)
    assert not np.array_equal(P, other)


def test_test_inputs_are_scaled_with_training_range():
    est = mod.DBPNN(**FAST, random_state=0).fit(X, Y)
    assert np.all(est._scale(X * 10) <= 1.0) and np.all(est._scale(-X) >= 0.0)


def test_bad_parameter_is_a_config_error():
    with pytest.raises(ConfigError):
        mod.DBPNN(n_hidden=0).fit(X, Y)
