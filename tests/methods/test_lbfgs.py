"""The L-BFGS loop used by mlcrf: same minimiser as scipy's L-BFGS-B, honest result fields, and its
two-loop kernel against the recursion written with NumPy."""
import numpy as np
import pytest
from scipy.optimize import minimize

from mlbench.methods.probabilistic import _lbfgs
from mlbench.methods.probabilistic._lbfgs import lbfgs

rng = np.random.RandomState(0)
A = rng.randn(80, 12)
y = (A @ rng.randn(12) + rng.randn(80) > 0).astype(float)


def logistic_l2(w, A, y, lam):
    """Penalised logistic loss and gradient (convex, smooth)."""
    z = A @ w
    f = np.logaddexp(0.0, z).sum() - y @ z + 0.5 * lam * (w @ w)
    g = A.T @ (1.0 / (1.0 + np.exp(-z)) - y) + lam * w
    return f, g


def test_same_minimiser_as_lbfgsb():
    for lam in (0.1, 1.0, 10.0):
        ours = lbfgs(logistic_l2, np.zeros(12), args=(A, y, lam))
        ref = minimize(logistic_l2, np.zeros(12), args=(A, y, lam), jac=True, method="L-BFGS-B")
        assert ours.success
        np.testing.assert_allclose(ours.x, ref.x, atol=1e-4)
        assert abs(ours.fun - ref.fun) <= 1e-7 * abs(ref.fun)
        np.testing.assert_allclose(logistic_l2(ours.x, A, y, lam)[1], ours.jac)


def test_quadratic_solved_and_iterations_capped():
    H = np.diag(np.linspace(1.0, 50.0, 30))
    b = np.arange(30.0)
    quad = lambda x: (0.5 * x @ H @ x - b @ x, H @ x - b)
    res = lbfgs(quad, np.zeros(30), gtol=1e-9, ftol=0.0, max_iter=500)
    np.testing.assert_allclose(res.x, b / np.diag(H), atol=1e-7)
    capped = lbfgs(quad, np.zeros(30), max_iter=3)
    assert capped.nit == 3 and not capped.success and capped.nfev >= 4


def test_starting_at_the_minimum_takes_no_step():
    res = lbfgs(lambda x: (x @ x, 2 * x), np.zeros(5))
    assert res.nit == 0 and res.nfev == 1 and res.success


def test_preconditioned_same_minimiser_and_exact_diagonal_gives_the_newton_step():
    """With the Hessian's diagonal as preconditioner: the same minimiser as L-BFGS-B; on a
    diagonal quadratic the first step is the Newton step, so one iteration solves it."""
    for lam in (0.1, 1.0, 10.0):
        diag = lambda w, A, y, lam: (A * A).T @ (lambda p: p * (1 - p))(1.0 / (1.0 + np.exp(-(A @ w)))) + lam
        ours = lbfgs(logistic_l2, np.zeros(12), args=(A, y, lam), precondition=diag, refresh=3)
        ref = minimize(logistic_l2, np.zeros(12), args=(A, y, lam), jac=True, method="L-BFGS-B")
        assert ours.success
        np.testing.assert_allclose(ours.x, ref.x, atol=1e-4)
        assert abs(ours.fun - ref.fun) <= 1e-7 * abs(ref.fun)
    h = np.logspace(0, 6, 40)                 # curvatures over six decades
    b = np.linspace(-3.0, 3.0, 40)
    quad = lambda x: (0.5 * x @ (h * x) - b @ x, h * x - b)
    res = lbfgs(quad, np.zeros(40), precondition=lambda x: h, gtol=1e-9)
    assert res.nit == 1 and res.success
    np.testing.assert_allclose(res.x, b / h, rtol=1e-12)
    plain = lbfgs(quad, np.zeros(40), gtol=1e-9, max_iter=5)
    assert not plain.success


def test_preconditioner_floor_keeps_zero_curvature_entries_finite():
    """A diagonal entry of 0 (a flat coordinate) is raised to 1e-12 of the largest, not divided by."""
    quad = lambda x: (0.5 * (x[0] ** 2 + 1e-3 * x[1] ** 2) - x[0] - 1e-3 * x[1],
                      np.array([x[0] - 1.0, 1e-3 * (x[1] - 1.0)]))
    res = lbfgs(quad, np.zeros(2), precondition=lambda x: np.array([1.0, 0.0]), gtol=1e-10, ftol=0.0)
    assert res.success and np.all(np.isfinite(res.x))
    np.testing.assert_allclose(res.x, [1.0, 1.0], atol=1e-6)


def _pairs(n, rows, seed=0):
    r = np.random.RandomState(seed)
    S = r.randn(rows, n)
    Y = S * r.rand(rows, n) + 0.1 * r.randn(rows, n)          # s.y > 0 for these pairs
    return S, Y, np.einsum("ij,ij->i", S, Y), r.randn(n), r.rand(n) + 0.5


def test_two_loop_kernel_matches_the_numpy_recursion():
    """The fused kernel gives the recursion's direction up to rounding, for any number of pairs,
    rows in any order of the ring, with and without the preconditioner, and lengths that are not
    multiples of its four partial sums."""
    for n in (1, 7, 1001):
        S, Y, sy, g, d_inv = _pairs(n, 11)
        assert np.all(sy > 0)
        order = np.array([3, 7, 0, 1, 9, 2, 5, 6, 10, 4], dtype=np.intp)
        for D in (None, d_inv):
            for k in (0, 1, 2, 10):
                got = _lbfgs.two_loop(g, S, Y, sy, order[:k].copy(), D, np.empty(n))
                ref = _lbfgs.two_loop_numpy(g, S, Y, sy, order[:k], D, np.empty(n))
                np.testing.assert_allclose(got, ref, rtol=1e-11, atol=1e-13 * np.abs(ref).max())
        # no pairs: the steepest descent direction, scaled by D^-1 when given (exact)
        np.testing.assert_array_equal(_lbfgs.two_loop(g, S, Y, sy, order[:0].copy(), None, np.empty(n)), -g)
        np.testing.assert_array_equal(_lbfgs.two_loop(g, S, Y, sy, order[:0].copy(), d_inv, np.empty(n)),
                                      -(g * d_inv))


def test_two_loop_kernel_checks_its_arguments():
    S, Y, sy, g, d_inv = _pairs(5, 3)
    order = np.array([0, 1], dtype=np.intp)
    bad = [dict(order=np.array([0, 3], dtype=np.intp)),       # not a row of S
           dict(order=np.array([-1], dtype=np.intp)),
           dict(D=np.ones(4)),                                  # preconditioner of the wrong length
           dict(out=np.empty(6)),
           dict(Y=Y[:, :4].copy()),
           dict(sy=sy[:2].copy())]
    for change in bad:
        a = dict(g=g, S=S, Y=Y, sy=sy, order=order, D=None, out=np.empty(5))
        a.update(change)
        with pytest.raises(ValueError):
            _lbfgs.two_loop(a["g"], a["S"], a["Y"], a["sy"], a["order"], a["D"], a["out"])
    with pytest.raises(ValueError, match="must not be g"):
        _lbfgs.two_loop(g, S, Y, sy, order, None, g)


def test_ring_of_pairs_on_a_nonconvex_function():
    """Rosenbrock's function with three stored pairs: rows are reused as pairs are dropped, and the
    loop still reaches the minimum."""
    def rosen(x):
        f = np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
        g = np.zeros_like(x)
        g[:-1] = -400 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2 * (1 - x[:-1])
        g[1:] += 200 * (x[1:] - x[:-1] ** 2)
        return f, g
    res = lbfgs(rosen, np.full(6, -1.2), memory=3, gtol=1e-8, ftol=0.0, max_iter=2000)
    assert res.success and res.nit > 3
    np.testing.assert_allclose(res.x, np.ones(6), atol=1e-6)
    ref = minimize(rosen, np.full(6, -1.2), jac=True, method="L-BFGS-B", options={"maxcor": 3})
    np.testing.assert_allclose(res.x, ref.x, atol=1e-4)
