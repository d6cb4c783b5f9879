"""Cython kernels of the SOSHF structured forests (Daniels & Metaxas, AAAI 2019).

* :func:`adam_hellinger` - one stage of the sparse Hellinger optimisation (eqs. 3-9) by Adam, the
  hot loop of tree growing (every internal node runs it twice);
* :func:`apply_tree` - routes rows through an oblique tree (``[x, 1] . w >= 0`` goes right).

Both mirror the NumPy reference in ``mlbench.methods.trees.hellinger`` step by step; only the order
of floating-point summation differs (the reference uses BLAS matrix products), so results agree to
rounding, not bit for bit.
"""
import numpy as np

cimport numpy as cnp
from libc.math cimport fabs, log1p, exp, sqrt, tanh, pow
from libc.stdlib cimport malloc, free
from scipy.linalg.cython_blas cimport daxpy, ddot

from mlbench._ext._typedefs cimport float64_t, intp_t

cnp.import_array()

cdef double RATE_FLOOR = 1e-12


cdef inline double _alpha_at(intp_t it, double alpha0, double growth, intp_t every,
                             double alpha_max) noexcept nogil:
    cdef double a = alpha0 * pow(growth, <double>(it // every))
    return a if a < alpha_max else alpha_max


cdef inline void _chain_coefs(const double* z, const signed char[::1] pos, const intp_t* perm,
                              intp_t lo, intp_t hi, intp_t n_pos, intp_t n_neg, double alpha,
                              double* c_pos, double* c_neg) noexcept nogil:
    """From the batch's soft assignments z = tanh(alpha x.w) (eq. 3): the soft rates of eq. 5 and
    the factors dL/dtpr, dL/dfpr of eq. 7 times alpha / 2 / class size, per positive / negative row."""
    cdef double s_tp = 0.0, s_fp = 0.0, s_ntp = 0.0, s_nfp = 0.0, t
    cdef double a_, b_, c_, e_
    cdef intp_t r
    for r in range(lo, hi):
        t = z[r - lo]
        if pos[perm[r]]:
            s_tp += (t + 1.0) * 0.5
            s_ntp += (1.0 - t) * 0.5
        else:
            s_fp += (t + 1.0) * 0.5
            s_nfp += (1.0 - t) * 0.5
    a_ = sqrt(max(s_tp / n_pos, RATE_FLOOR))
    b_ = sqrt(max(s_fp / n_neg, RATE_FLOOR))
    c_ = sqrt(max(s_ntp / n_pos, RATE_FLOOR))
    e_ = sqrt(max(s_nfp / n_neg, RATE_FLOOR))
    c_pos[0] = 0.5 * alpha * ((b_ - a_) / a_ + (c_ - e_) / c_) / n_pos
    c_neg[0] = 0.5 * alpha * ((a_ - b_) / b_ + (e_ - c_) / e_) / n_neg


cdef inline void _adam_step(double* w, double* g, double* m, double* v, intp_t p, intp_t steps,
                            double gamma, double eta, double lr, double beta1, double beta2,
                            double eps) noexcept nogil:
    """Add the smooth l1 gradient of eq. 8 (plus sign, Schmidt et al.; the bias, last, is not
    penalised) to g, then take Adam step number ``steps`` (bias-corrected moments)."""
    cdef intp_t j
    cdef double bc1 = 1.0 - pow(beta1, <double>steps)
    cdef double bc2 = 1.0 - pow(beta2, <double>steps)
    if gamma > 0.0:
        for j in range(p - 1):
            g[j] += gamma * tanh(eta * w[j] * 0.5)
    for j in range(p):
        m[j] = beta1 * m[j] + (1.0 - beta1) * g[j]
        v[j] = beta2 * v[j] + (1.0 - beta2) * g[j] * g[j]
        w[j] -= lr * (m[j] / bc1) / (sqrt(v[j] / bc2) + eps)


cdef void _adam(const float64_t[:, ::1] X, const signed char[::1] pos, float64_t[::1] w,
                const intp_t[:, ::1] perms, const intp_t[::1] bounds, intp_t n_iter,
                double gamma, double eta, double lr, double beta1, double beta2, double eps,
                double alpha0, double growth, intp_t every, double alpha_max,
                double* z, double* g, double* m, double* v) noexcept nogil:
    # Row-level BLAS (ddot for a margin, daxpy for a gradient term) inside one nogil loop: the rows
    # of a mini-batch are scattered (a permutation), so there is no matrix to hand to dgemv, but the
    # per-row calls keep SIMD speed on wide nodes while avoiding the NumPy temporaries and call
    # overhead that dominate the reference on the many small nodes deep in a tree.
    cdef intp_t p = X.shape[1]
    cdef int n_blas = <int> p, one = 1
    cdef intp_t k = bounds.shape[0] - 1
    cdef intp_t it, b, r, i, j, lo, hi, n_pos, n_neg, row, steps = 0
    cdef intp_t n_perm = perms.shape[0]
    cdef double alpha, t, c_pos, c_neg, coef, zi
    for j in range(p):
        m[j] = 0.0
        v[j] = 0.0
    for it in range(n_iter):
        b = it % k
        lo = bounds[b]
        hi = bounds[b + 1]
        row = (it // k) % n_perm
        n_pos = 0
        for r in range(lo, hi):
            n_pos += pos[perms[row, r]]
        n_neg = (hi - lo) - n_pos
        if n_pos == 0 or n_neg == 0:
            continue
        alpha = _alpha_at(it, alpha0, growth, every, alpha_max)
        # pass 1: the soft assignments of eq. 3 (the rates of eq. 5 follow in _chain_coefs)
        for r in range(lo, hi):
            i = perms[row, r]
            z[r - lo] = tanh(alpha * ddot(&n_blas, <double*> &X[i, 0], &one, &w[0], &one))
        _chain_coefs(z, pos, &perms[row, 0], lo, hi, n_pos, n_neg, alpha, &c_pos, &c_neg)
        # pass 2: gradient, eq. 4 chained with eq. 7
        for j in range(p):
            g[j] = 0.0
        for r in range(lo, hi):
            i = perms[row, r]
            t = z[r - lo]
            coef = (1.0 - t * t) * (c_pos if pos[i] else c_neg)
            daxpy(&n_blas, &coef, <double*> &X[i, 0], &one, g, &one)
        steps += 1
        _adam_step(&w[0], g, m, v, p, steps, gamma, eta, lr, beta1, beta2, eps)


def adam_hellinger(const float64_t[:, ::1] X, const signed char[::1] pos, w,
                   const intp_t[:, ::1] perms, const intp_t[::1] bounds, intp_t n_iter, *,
                   double gamma=0.0, double eta=1e6, double lr=0.05, double beta1=0.9,
                   double beta2=0.999, double eps=1e-8, double alpha0=0.1, double growth=1.5,
                   intp_t every=10, double alpha_max=4.0):
    """One Adam stage of eq. 9; same arguments and result as ``hellinger.adam_reference``.

    ``X`` (N, P) includes the bias column last; ``pos`` is 1 for cluster +1, 0 otherwise.
    Returns a new weight vector (the input is not modified).
    """
    cdef intp_t p = X.shape[1]
    if X.shape[0] != pos.shape[0]:
        raise ValueError("X and pos disagree on the number of rows")
    out = np.array(w, dtype=np.float64, copy=True)
    if out.shape[0] != p:
        raise ValueError("w must have one entry per column of X")
    cdef float64_t[::1] wv = out
    cdef intp_t max_batch = 0, b
    for b in range(bounds.shape[0] - 1):
        max_batch = max(max_batch, bounds[b + 1] - bounds[b])
    cdef double* z = <double*> malloc(max(max_batch, 1) * sizeof(double))
    cdef double* buf = <double*> malloc(3 * p * sizeof(double))
    if z == NULL or buf == NULL:
        free(z)
        free(buf)
        raise MemoryError()
    try:
        with nogil:
            _adam(X, pos, wv, perms, bounds, n_iter, gamma, eta, lr, beta1, beta2, eps,
                  alpha0, growth, every, alpha_max, z, buf, buf + p, buf + 2 * p)
    finally:
        free(z)
        free(buf)
    return out


def apply_tree(const float64_t[:, ::1] X, const intp_t[::1] features, const float64_t[:, ::1] W,
               const intp_t[::1] split_row, const intp_t[::1] left, const intp_t[::1] right):
    """Leaf node id of every row of ``X``.

    Node ``n`` is a leaf when ``split_row[n] < 0``; otherwise row ``split_row[n]`` of ``W`` holds the
    weights over ``X[:, features]`` followed by the bias, and ``[x, 1] . w >= 0`` goes to ``right[n]``.
    """
    cdef intp_t n = X.shape[0], q = features.shape[0]
    out = np.empty(n, dtype=np.intp)
    cdef intp_t[::1] leaf = out
    cdef intp_t i, j, node, row
    cdef double s
    with nogil:
        for i in range(n):
            node = 0
            row = split_row[0]
            while row >= 0:
                s = W[row, q]
                for j in range(q):
                    s += W[row, j] * X[i, features[j]]
                node = right[node] if s >= 0.0 else left[node]
                row = split_row[node]
            leaf[i] = node
    return out


cdef void _adam_sparse(const float64_t[::1] data, const intp_t[::1] indices,
                       const intp_t[::1] indptr, const signed char[::1] pos, float64_t[::1] w,
                       const intp_t[:, ::1] perms, const intp_t[::1] bounds, intp_t n_iter,
                       double gamma, double eta, double lr, double beta1, double beta2,
                       double eps, double alpha0, double growth, intp_t every, double alpha_max,
                       double* z, double* g, double* m, double* v) noexcept nogil:
    # :func:`_adam` with the node's rows in CSR form: a margin is a sum over the row's nonzeros and
    # a gradient term is added to those coordinates only, so an iteration costs the batch's
    # nonzeros plus one pass over the weights, not batch size x features (bag-of-words nodes are
    # ~90% zeros).  Only the order of the floating-point sums differs from _adam.
    cdef intp_t p = w.shape[0]
    cdef intp_t k = bounds.shape[0] - 1
    cdef intp_t it, b, r, i, j, q, lo, hi, n_pos, n_neg, row, steps = 0
    cdef intp_t n_perm = perms.shape[0]
    cdef double alpha, t, c_pos, c_neg, coef, zi
    for j in range(p):
        m[j] = 0.0
        v[j] = 0.0
    for it in range(n_iter):
        b = it % k
        lo = bounds[b]
        hi = bounds[b + 1]
        row = (it // k) % n_perm
        n_pos = 0
        for r in range(lo, hi):
            n_pos += pos[perms[row, r]]
        n_neg = (hi - lo) - n_pos
        if n_pos == 0 or n_neg == 0:
            continue
        alpha = _alpha_at(it, alpha0, growth, every, alpha_max)
        for r in range(lo, hi):
            i = perms[row, r]
            zi = 0.0
            for q in range(indptr[i], indptr[i + 1]):
                zi += data[q] * w[indices[q]]
            z[r - lo] = tanh(alpha * zi)
        _chain_coefs(z, pos, &perms[row, 0], lo, hi, n_pos, n_neg, alpha, &c_pos, &c_neg)
        for j in range(p):
            g[j] = 0.0
        for r in range(lo, hi):
            i = perms[row, r]
            t = z[r - lo]
            coef = (1.0 - t * t) * (c_pos if pos[i] else c_neg)
            for q in range(indptr[i], indptr[i + 1]):
                g[indices[q]] += coef * data[q]
        steps += 1
        _adam_step(&w[0], g, m, v, p, steps, gamma, eta, lr, beta1, beta2, eps)


def adam_hellinger_sparse(X, const signed char[::1] pos, w, const intp_t[:, ::1] perms,
                          const intp_t[::1] bounds, intp_t n_iter, *, double gamma=0.0,
                          double eta=1e6, double lr=0.05, double beta1=0.9, double beta2=0.999,
                          double eps=1e-8, double alpha0=0.1, double growth=1.5,
                          intp_t every=10, double alpha_max=4.0):
    """:func:`adam_hellinger` for a scipy CSR ``X`` (N, P), bias column last and stored."""
    cdef intp_t p = X.shape[1]
    if X.shape[0] != pos.shape[0]:
        raise ValueError("X and pos disagree on the number of rows")
    out = np.array(w, dtype=np.float64, copy=True)
    if out.shape[0] != p:
        raise ValueError("w must have one entry per column of X")
    cdef const float64_t[::1] data = np.ascontiguousarray(X.data, dtype=np.float64)
    cdef const intp_t[::1] indices = np.ascontiguousarray(X.indices, dtype=np.intp)
    cdef const intp_t[::1] indptr = np.ascontiguousarray(X.indptr, dtype=np.intp)
    cdef float64_t[::1] wv = out
    cdef intp_t max_batch = 0, b
    for b in range(bounds.shape[0] - 1):
        max_batch = max(max_batch, bounds[b + 1] - bounds[b])
    cdef double* z = <double*> malloc(max(max_batch, 1) * sizeof(double))
    cdef double* buf = <double*> malloc(3 * p * sizeof(double))
    if z == NULL or buf == NULL:
        free(z)
        free(buf)
        raise MemoryError()
    try:
        with nogil:
            _adam_sparse(data, indices, indptr, pos, wv, perms, bounds, n_iter, gamma, eta, lr,
                         beta1, beta2, eps, alpha0, growth, every, alpha_max, z, buf, buf + p,
                         buf + 2 * p)
    finally:
        free(z)
        free(buf)
    return out
