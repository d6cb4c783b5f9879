"""Accelerated proximal gradient (FISTA) with backtracking: the one solver engine of the family.

Minimises F(x) = f(x) + g(x) with f convex and differentiable and g convex with a cheap proximal
operator.  Iteration (I-MTSL paper, Eq. 6; Beck & Teboulle, SIAM J. Imaging Sci. 2009, FISTA with
backtracking)::

    x_k     = prox_{g / L_k}(y_k - grad f(y_k) / L_k)
    eta_k+1 = (1 + sqrt(1 + 4 eta_k^2)) / 2
    y_k+1   = x_k + ((eta_k - 1) / eta_k+1) (x_k - x_k-1)

L_k is the smallest L_{k-1} * backtrack^i for which the quadratic upper bound
f(x_k) <= f(y_k) + <grad f(y_k), x_k - y_k> + L_k / 2 ||x_k - y_k||^2 holds.  Optional adaptive
restart (O'Donoghue & Candès, Found. Comput. Math. 2015, gradient scheme): when the momentum points
uphill, <y_k - x_k, x_k - x_k-1> > 0, the sequence eta restarts at 1; this keeps the O(1/k^2)
behaviour and removes the oscillations of the accelerated sequence on well-conditioned problems.

The variables are any NumPy arrays (a matrix of task parameters, a batch of matrices, a packed
vector); ``smooth(x, grad)`` returns f(x) (and grad f(x) when ``grad`` is true) so each trial point of
the line search costs one function evaluation only.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class FistaResult:
    """Solution ``x``, its objective, the iterations used, whether ``tol`` was met, the final L, and
    the last relative step ||x_k - x_k-1|| / max(1, ||x_k-1||) (the quantity ``tol`` bounds)."""

    x: np.ndarray
    objective: float
    n_iter: int
    converged: bool
    lipschitz: float
    history: list = field(default_factory=list)
    rel_change: float = float("nan")


def fista(smooth, prox, x0, *, nonsmooth=None, lipschitz=1.0, max_iter=1000, tol=1e-6,
          backtrack=2.0, restart=True, record=False, affine=None):
    """Minimise ``smooth + nonsmooth`` from ``x0``.

    Parameters
    ----------
    smooth : callable ``(x, grad: bool) -> f`` or ``(f, grad_f)``
    prox : callable ``(v, step) -> argmin_x g(x) + ||x - v||^2 / (2 step)``
    nonsmooth : callable ``x -> g(x)`` or None
        Only for the reported objective and ``history``; the iteration does not need it.
    lipschitz : float
        Initial estimate of the Lipschitz constant of grad f (a warm start passes the last one).
    max_iter, tol : int, float
        Stop when ||x_k - x_k-1|| <= tol * max(1, ||x_k-1||) or after ``max_iter`` iterations.
    backtrack : float > 1
        Factor by which L grows in the line search.
    restart : bool
        Adaptive (gradient) restart of the momentum.
    record : bool
        Keep F(x_k) of every iteration in ``history``.
    affine : callable ``x -> A(x)`` or None
        An affine map through which ``smooth`` sees x (the logits X W + b of the logistic losses);
        then ``smooth`` is called as ``smooth(x, grad, A(x))``.  Why: y_k+1 is an affine combination
        (weights summing to 1) of x_k and x_k-1, so A(y_k+1) is the same combination of A(x_k) and
        A(x_k-1), which the line search has already computed; this saves one of the three matrix
        products per iteration.  The iterates are the same up to rounding.
    """
    g = nonsmooth if nonsmooth is not None else (lambda x: 0.0)
    x = np.array(x0, dtype=np.float64, copy=True)
    y = x.copy()
    L = float(lipschitz)
    t = 1.0
    history = []
    f_x = None
    converged = False
    k = 0
    rel_change = float("nan")
    if affine is None:
        def value(v, grad, _Av):
            return smooth(v, grad)
        A_x = A_y = None
    else:
        value = smooth
        A_x = affine(x)
        A_y = A_x
    for k in range(1, max_iter + 1):
        f_y, grad_y = value(y, True, A_y)
        while True:
            x_new = prox(y - grad_y / L, 1.0 / L)
            d = x_new - y
            A_new = None if affine is None else affine(x_new)
            f_new = value(x_new, False, A_new)
            bound = f_y + np.vdot(grad_y, d) + 0.5 * L * np.vdot(d, d)
            # relative slack: rounding in f must not make the line search loop for ever
            if f_new <= bound + 1e-12 * max(1.0, abs(f_y)) or not np.isfinite(L):
                break
            L *= backtrack
        step = x_new - x
        change = float(np.sqrt(np.vdot(step, step)))
        scale = max(1.0, float(np.sqrt(np.vdot(x, x))))
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        if restart and np.vdot(y - x_new, step) > 0:
            t_new, y, A_y = 1.0, x_new.copy(), A_new
        else:
            beta = (t - 1.0) / t_new
            y = x_new + beta * step
            if affine is not None:
                A_y = A_new + beta * (A_new - A_x)
        x, t, f_x, A_x = x_new, t_new, f_new, A_new
        if record:
            history.append(float(f_new + g(x_new)))
        rel_change = change / scale
        if change <= tol * scale:
            converged = True
            break
    if f_x is None:
        f_x = value(x, False, A_x)
    return FistaResult(x, float(f_x + g(x)), k, converged, L, history, rel_change)
