"""Unconstrained limited-memory BFGS for smooth convex objectives with millions of parameters.

Nocedal & Wright, *Numerical Optimization* (2nd ed.), Algorithm 7.4 (the two-loop recursion for
H_k g_k) inside Algorithm 7.5 (L-BFGS), with the initial scaling H_k^0 = (s.y / y.y) I of their
Eq. 7.20 and a backtracking line search on the Armijo condition (their Eq. 3.4, c1 = 1e-4).  The
curvature pair of a step is kept only when s.y > 0, which holds for every step of a convex
objective that moves, so the Wolfe curvature condition is not needed to keep H_k positive
definite.

Stopping rules are those of scipy's L-BFGS-B at its defaults, so a fit stops where L-BFGS-B's
would: max |g| <= ``gtol`` (1e-5), or a relative decrease (f_k - f_k+1) / max(|f_k|, |f_k+1|, 1)
<= ``ftol`` (factr 1e7 times machine epsilon), or ``max_iter`` iterations.

Optional diagonal preconditioning (``precondition``): the initial matrix becomes
H_k^0 = gamma_k D^-1, with D the diagonal of the Hessian at the current point (refreshed every
``refresh`` iterations) and gamma_k = s.y / (y.D^-1 y), the scaling of Eq. 7.20 measured in the
metric of D (a diagonal initial matrix as in Gilbert & Lemarechal, "Some numerical experiments
with variable-storage quasi-Newton algorithms", Math. Programming 45, 1989).  This changes the
iterates, not the minimiser or the stopping rules.  Why: with ten stored pairs, L-BFGS with a
scalar H_k^0 corrects only ten directions of curvature.  mlcrf's objective has over a thousand
coordinates far flatter than the rest: on an enron fold at C = 0.01 the edge biases' diagonal
curvature is 1 to 107 (median 1.3) and the node biases' 1 to 106 (median 10), against at least
1/C = 100 for every feature weight (and a top eigenvalue of 4,600 in one label's weight block).
The plain loop was still descending after 500 iterations on 8 of 10 enron folds.  The Hessian's
diagonal puts those coordinates on one scale.

Why not scipy's L-BFGS-B: its Fortran bookkeeping for bounds (generalised Cauchy point, subspace
minimisation) costs several passes over the parameter vector per call and was about two thirds of
an mlcrf fit on rcv1subset1 (one million parameters).  Here the recursion is one compiled kernel
(``mlbench/_ext/_lbfgs.pyx``) that reads each stored vector twice per iteration and allocates
nothing; ``two_loop_numpy`` is the same recursion in NumPy, its reference.
"""
from __future__ import annotations

from collections import deque
from types import SimpleNamespace

import numpy as np

from mlbench._ext._lbfgs import two_loop

FTOL = 1e7 * np.finfo(float).eps      # scipy L-BFGS-B's default factr * eps
GTOL = 1e-5                           # scipy L-BFGS-B's default pgtol


def lbfgs(fun, x0, args=(), max_iter=500, memory=10, gtol=GTOL, ftol=FTOL, c1=1e-4, max_backtracks=40,
          precondition=None, refresh=10):
    """Minimise ``fun(x, *args) -> (f, grad)`` from ``x0``.

    ``precondition(x, *args)``, if given, returns the diagonal of the Hessian at ``x`` (positive;
    entries below 1e-12 of its largest are raised to that), evaluated every ``refresh`` iterations.

    Returns a namespace like scipy's OptimizeResult: ``x``, ``fun``, ``jac``, ``nit``, ``nfev``,
    ``success``, ``message``.

    The pairs live in the rows of two preallocated arrays (``memory`` + 1 rows: a new pair is
    written into a free row before its s.y decides whether it is kept), so an iteration allocates
    no history vector; ``two_loop``, the recursion's kernel (``mlbench/_ext/_lbfgs.pyx``), reads
    them there.
    """
    x = np.array(x0, dtype=np.float64)
    f, g = fun(x, *args)
    nfev = 1
    n, R = x.size, memory + 1
    S, Yd, sy = np.empty((R, n)), np.empty((R, n)), np.ones(R)
    pairs, free = deque(), list(range(memory, -1, -1))     # rows in use (oldest first), rows free
    d, x_new = np.empty(n), np.empty(n)
    message, success, nit = "max_iter reached", False, 0
    D_inv = None
    while True:
        if max(g.max(), -g.min()) <= gtol:
            message, success = "projected gradient below gtol", True
            break
        if nit >= max_iter:
            break
        if precondition is not None and nit % refresh == 0:
            D = np.asarray(precondition(x, *args), dtype=np.float64)
            D_inv = 1.0 / np.maximum(D, 1e-12 * D.max())
        two_loop(g, S, Yd, sy, np.fromiter(pairs, dtype=np.intp, count=len(pairs)), D_inv, d)
        slope = g @ d
        if not slope < 0:                              # lost descent (rounding): restart from -g
            free.extend(pairs), pairs.clear()
            np.negative(g, out=d)
            slope = -(g @ g)
        # the first step has no curvature estimate: move by a unit length, as L-BFGS-B does
        # (with a preconditioner, the first step is the Newton step of the diagonal model)
        step = 1.0 if pairs or D_inv is not None else 1.0 / np.sqrt(-slope)
        for _ in range(max_backtracks):
            np.multiply(d, step, out=x_new)
            x_new += x                                 # x + step d, rounded as written
            f_new, g_new = fun(x_new, *args)
            nfev += 1
            if f_new <= f + c1 * step * slope:
                break
            step *= 0.5
        else:
            message = "line search found no decrease"
            break
        nit += 1
        row = free.pop()
        s, y = np.subtract(x_new, x, out=S[row]), np.subtract(g_new, g, out=Yd[row])
        sy[row] = s @ y
        if sy[row] > 0:
            pairs.append(row)
            if len(pairs) > memory:
                free.append(pairs.popleft())
        else:
            free.append(row)
        decrease = (f - f_new) / max(abs(f), abs(f_new), 1.0)
        x, x_new, f, g = x_new, x, f_new, g_new
        if decrease <= ftol:
            message, success = "relative reduction of f below ftol", True
            break
    return SimpleNamespace(x=x, fun=f, jac=g, nit=nit, nfev=nfev, success=success, message=message)


def two_loop_numpy(g, S, Yd, sy, order, D_inv, out):
    """The two-loop recursion written with NumPy, a dot product and an update per step (each
    makes a temporary): the kernel ``two_loop``'s contract, kept as its reference in the tests
    and as the previous implementation in ``benchmarks/bench_mlcrf.py``."""
    q = g.copy()
    alpha = []
    for row in reversed(order):
        a = (1.0 / sy[row]) * (S[row] @ q)
        q -= a * Yd[row]
        alpha.append(a)
    if D_inv is not None:
        q *= D_inv
    if len(order):
        newest = Yd[order[-1]]
        q *= sy[order[-1]] / (newest @ (newest if D_inv is None else D_inv * newest))
    for row, a in zip(order, reversed(alpha)):
        q += (a - (1.0 / sy[row]) * (Yd[row] @ q)) * S[row]
    np.negative(q, out=out)
    return out
