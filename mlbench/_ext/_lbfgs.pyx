"""L-BFGS's two-loop recursion (Nocedal & Wright, *Numerical Optimization*, 2nd ed., Algorithm 7.4)
in 2k + 1 passes over the vectors instead of about 4k.

``two_loop`` returns d = -H g for the k stored pairs (s_i, y_i), with the initial matrix
H^0 = gamma I, or gamma diag(D^-1) when a preconditioner's inverse diagonal is given, and
gamma = s.y / (y.D^-1 y) of the newest pair (their Eq. 7.20, in the metric of D).

Why a kernel: each step of the recursion is a dot product with the current vector q followed by an
update of q, and the next step's dot product needs the updated q.  Written with NumPy, each step
reads q twice, reads the history vector twice, and makes a temporary (a * y) that is written and
read again.  Here the update of step t and the dot product of step t + 1 share one pass: read q,
the pair's y (or s) and the next pair's s (or y), write q.  The scaling by H^0 and the first dot
product of the second loop share a pass the same way, and so does the copy of g with the first dot
product.  At mlcrf's sizes (1.4 million parameters, ten pairs: 230 MB of history) the recursion
is bound by memory traffic, which this roughly halves.

Arithmetic: the elementwise updates round exactly as NumPy's (``q - a * y``, ``(q * D^-1) *
gamma``, ``q + c * s``; baseline x86-64 has no fused multiply-add for the compiler to contract
them into).  The dot products are summed here in four interleaved partial sums, BLAS in its own
blocked order, so the two differ by rounding, as two BLAS libraries do.
"""
from mlbench._ext._typedefs cimport float64_t, intp_t

import numpy as np


cdef inline float64_t _reduce4(float64_t* acc) noexcept nogil:
    return (acc[0] + acc[1]) + (acc[2] + acc[3])


cdef float64_t _copy_dot(float64_t* q, const float64_t* g, const float64_t* s, intp_t n) noexcept nogil:
    """q = g; return s.g"""
    cdef float64_t acc[4]
    cdef intp_t j, r
    acc[0] = acc[1] = acc[2] = acc[3] = 0.0
    for j in range(0, n - n % 4, 4):
        for r in range(4):
            q[j + r] = g[j + r]
            acc[r] += s[j + r] * g[j + r]
    for j in range(n - n % 4, n):
        q[j] = g[j]
        acc[0] += s[j] * g[j]
    return _reduce4(acc)


cdef float64_t _weighted_sq(const float64_t* y, const float64_t* w, bint weighted, intp_t n) noexcept nogil:
    """y.diag(w) y (w ignored unless ``weighted``)"""
    cdef float64_t acc[4]
    cdef intp_t j, r
    acc[0] = acc[1] = acc[2] = acc[3] = 0.0
    if weighted:
        for j in range(0, n - n % 4, 4):
            for r in range(4):
                acc[r] += y[j + r] * (w[j + r] * y[j + r])
        for j in range(n - n % 4, n):
            acc[0] += y[j] * (w[j] * y[j])
    else:
        for j in range(0, n - n % 4, 4):
            for r in range(4):
                acc[r] += y[j + r] * y[j + r]
        for j in range(n - n % 4, n):
            acc[0] += y[j] * y[j]
    return _reduce4(acc)


cdef float64_t _axpy_dot(float64_t* q, float64_t a, const float64_t* u, const float64_t* v,
                         const float64_t* w, bint weighted, float64_t scale, intp_t n) noexcept nogil:
    """q = ((q + a u) * w) * scale (w ignored unless ``weighted``); return v.q (the new q).
    Between the recursion's steps scale = 1 (exact); where H^0 is applied, scale = gamma."""
    cdef float64_t acc[4]
    cdef intp_t j, r
    acc[0] = acc[1] = acc[2] = acc[3] = 0.0
    for j in range(0, n - n % 4, 4):
        for r in range(4):
            q[j + r] = q[j + r] + a * u[j + r]
            if weighted:
                q[j + r] = q[j + r] * w[j + r]
            q[j + r] = q[j + r] * scale
            acc[r] += v[j + r] * q[j + r]
    for j in range(n - n % 4, n):
        q[j] = q[j] + a * u[j]
        if weighted:
            q[j] = q[j] * w[j]
        q[j] = q[j] * scale
        acc[0] += v[j] * q[j]
    return _reduce4(acc)


def two_loop(const float64_t[::1] g, const float64_t[:, ::1] S, const float64_t[:, ::1] Y,
             const float64_t[::1] sy, const intp_t[::1] order, d_inv, float64_t[::1] out):
    """Write d = -H g into ``out`` (length n, not aliasing g) and return ``out``.

    ``S`` and ``Y`` hold the pairs in rows (shape (rows, n)); ``order`` lists the rows in use,
    oldest first; ``sy[row]`` = s.y of that pair (positive; rho = 1 / s.y).  ``d_inv``: the
    preconditioner's inverse diagonal (length n) or None.  With no pairs, d = -g, or -D^-1 g.
    """
    cdef intp_t n = g.shape[0], k = order.shape[0], t, row
    cdef bint weighted = d_inv is not None
    if out.shape[0] != n or S.shape[1] != n or Y.shape[1] != n or S.shape[0] != Y.shape[0]:
        raise ValueError(f"two_loop: g has {n} entries, out {out.shape[0]}, S is {S.shape[0]} x "
                         f"{S.shape[1]}, Y {Y.shape[0]} x {Y.shape[1]}")
    if sy.shape[0] < S.shape[0]:
        raise ValueError(f"two_loop: sy has {sy.shape[0]} entries for {S.shape[0]} rows")
    for t in range(k):
        if not 0 <= order[t] < S.shape[0]:
            raise ValueError(f"two_loop: order[{t}] = {order[t]} is not a row of S ({S.shape[0]} rows)")
    if weighted and np.shape(d_inv) != (n,):
        raise ValueError(f"two_loop: d_inv has shape {np.shape(d_inv)}, g {n} entries")
    cdef const float64_t[::1] w = d_inv if weighted else g     # g: never read
    if n == 0:
        return out
    if &out[0] == &g[0]:
        raise ValueError("two_loop: out must not be g")
    cdef float64_t* q = &out[0]
    cdef float64_t[::1] alpha = np.empty(k)
    cdef float64_t gamma, beta
    if k == 0:
        with nogil:
            for t in range(n):
                q[t] = -(g[t] * w[t]) if weighted else -g[t]
        return out
    with nogil:
        # first loop, newest pair to oldest: alpha_t = rho_t s_t.q, q -= alpha_t y_t
        row = order[k - 1]
        alpha[k - 1] = (1.0 / sy[row]) * _copy_dot(q, &g[0], &S[row, 0], n)
        gamma = sy[row] / _weighted_sq(&Y[row, 0], &w[0], weighted, n)
        for t in range(k - 1, 0, -1):
            alpha[t - 1] = (1.0 / sy[order[t - 1]]) * _axpy_dot(q, -alpha[t], &Y[order[t], 0], &S[order[t - 1], 0],
                                                                 &w[0], False, 1.0, n)
        # q = H^0 q, fused with the first loop's last update and the second loop's first dot
        row = order[0]
        beta = (1.0 / sy[row]) * _axpy_dot(q, -alpha[0], &Y[row, 0], &Y[row, 0], &w[0], weighted, gamma, n)
        # second loop, oldest pair to newest: beta_t = rho_t y_t.q, q += (alpha_t - beta_t) s_t
        for t in range(k - 1):
            beta = (1.0 / sy[order[t + 1]]) * _axpy_dot(q, alpha[t] - beta, &S[order[t], 0], &Y[order[t + 1], 0],
                                                        &w[0], False, 1.0, n)
        row = order[k - 1]
        for t in range(n):
            q[t] = -(q[t] + (alpha[k - 1] - beta) * S[row, t])
    return out
