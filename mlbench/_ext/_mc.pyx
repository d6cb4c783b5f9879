# Kernels of the mixture of conditional tree Bayesian networks (MC; Hong, Batal & Hauskrecht 2014).
#
# Why Cython: prediction runs a 150-step annealing chain per test row, each step re-scoring the
# mixture (K components x L nodes); in NumPy every step is a round of small array operations over
# all rows, dominated by call overhead.  Here each row's chain is a tight scalar loop without the
# GIL.  The same holds for the E-step's component log-likelihoods, evaluated many times per EM run.
# NumPy references: mlbench/methods/probabilistic/_mixture.py (tests hold the two equal).
#
# Layout: A (K, n, L) node logits with the parent off (a root's logit); D (K, n, L) the change of
# the logit when the parent is on (0 for roots; per row, since each parent value has its own
# regression); parent (K, L) parent label or -1; Y (n, L) int8 label vectors.
import numpy as np
cimport numpy as cnp
from libc.math cimport exp, log, log1p

from mlbench._ext._typedefs cimport float64_t, intp_t

cnp.import_array()


cdef inline float64_t _log_sigmoid(float64_t z) noexcept nogil:
    # log(1 / (1 + exp(-z))) without overflow on either side
    if z >= 0:
        return -log1p(exp(-z))
    return z - log1p(exp(z))


cdef inline float64_t _tree_ll(const float64_t[:, :, ::1] A, const float64_t[:, :, ::1] D,
                               const intp_t[:, ::1] parent, intp_t k, intp_t n,
                               const signed char* y, intp_t L) noexcept nogil:
    # log P(y | x_n, T_k) = sum_i log P(y_i | x_n, y_parent)  (MC paper, Eq. 4)
    cdef float64_t s = 0.0, z
    cdef intp_t i, p
    for i in range(L):
        z = A[k, n, i]
        p = parent[k, i]
        if p >= 0 and y[p]:
            z += D[k, n, i]
        s += _log_sigmoid(z if y[i] else -z)
    return s


def component_loglik(const float64_t[:, :, ::1] A, const float64_t[:, :, ::1] D,
                     const intp_t[:, ::1] parent, const signed char[:, ::1] Y):
    """(n, K) array of log P(y_n | x_n, T_k)."""
    cdef intp_t K = A.shape[0], n_rows = A.shape[1], L = A.shape[2], n, k
    out = np.empty((n_rows, K), dtype=np.float64)
    cdef float64_t[:, ::1] o = out
    with nogil:
        for n in range(n_rows):
            for k in range(K):
                o[n, k] = _tree_ll(A, D, parent, k, n, &Y[n, 0], L)
    return out


cdef inline float64_t _node_ll(const float64_t[:, :, ::1] A, const float64_t[:, :, ::1] D,
                               const intp_t[:, ::1] parent, intp_t k, intp_t n, intp_t i,
                               const signed char* y) noexcept nogil:
    # log P(y_i | x_n, y_parent) in tree k
    cdef float64_t z = A[k, n, i]
    cdef intp_t p = parent[k, i]
    if p >= 0 and y[p]:
        z += D[k, n, i]
    return _log_sigmoid(z if y[i] else -z)


cdef inline float64_t _flip_delta(const float64_t[:, :, ::1] A, const float64_t[:, :, ::1] D,
                                  const intp_t[:, ::1] parent, const intp_t[:, ::1] child_ptr,
                                  const intp_t[::1] child_idx, intp_t k, intp_t n, intp_t j,
                                  signed char* y) noexcept nogil:
    # change of log P(y | x_n, T_k) when y_j flips: only node j and the children of j change
    cdef float64_t old = 0.0, new = 0.0
    cdef intp_t c
    old = _node_ll(A, D, parent, k, n, j, y)
    for c in range(child_ptr[k, j], child_ptr[k, j + 1]):
        old += _node_ll(A, D, parent, k, n, child_idx[c], y)
    y[j] = 1 - y[j]
    new = _node_ll(A, D, parent, k, n, j, y)
    for c in range(child_ptr[k, j], child_ptr[k, j + 1]):
        new += _node_ll(A, D, parent, k, n, child_idx[c], y)
    y[j] = 1 - y[j]
    return new - old


cdef inline float64_t _logsumexp(const float64_t* a, intp_t K) noexcept nogil:
    cdef intp_t k
    cdef float64_t mx = -1e308, s = 0.0
    for k in range(K):
        if a[k] > mx:
            mx = a[k]
    for k in range(K):
        s += exp(a[k] - mx)
    return mx + log(s)


def _children(const intp_t[:, ::1] parent):
    """Children of every node of every tree as CSR arrays (child_ptr (K, L+1), child_idx)."""
    K, L = parent.shape[0], parent.shape[1]
    ptr = np.zeros((K, L + 1), dtype=np.intp)
    idx = []
    for k in range(K):
        for j in range(L):
            kids = [i for i in range(L) if parent[k, i] == j]
            ptr[k, j + 1] = ptr[k, j] + len(kids)
            idx.extend(kids)
        if k + 1 < K:
            ptr[k + 1, 0] = ptr[k, L]
    return ptr, np.array(idx, dtype=np.intp)


def anneal(const float64_t[:, :, ::1] A, const float64_t[:, :, ::1] D, const intp_t[:, ::1] parent,
           const float64_t[::1] log_lambda, const signed char[:, ::1] Y0, const intp_t[:, ::1] flips,
           const float64_t[:, ::1] u, const float64_t[::1] temps):
    """Simulated-annealing MAP search per row (section 5.4); returns (best Y, best log-probability).

    Step t flips label flips[n, t]; the move is kept if it does not lower the mixture log-probability
    or if u[n, t] < exp(delta / temps[t]); the best vector visited is returned.  Each component's
    log-likelihood is updated incrementally: a flip of y_j only changes the factors of node j and
    of j's children (O(K (1 + children)) per step instead of O(K L)).
    """
    cdef intp_t K = A.shape[0], n_rows = A.shape[1], L = A.shape[2], T = temps.shape[0]
    cdef intp_t n, t, j, i, k
    cdef float64_t cur, new, delta, best
    ptr, idx = _children(parent)
    cdef const intp_t[:, ::1] child_ptr = ptr
    cdef const intp_t[::1] child_idx = idx if len(idx) else np.zeros(1, dtype=np.intp)
    Y = np.array(Y0, dtype=np.int8, copy=True)
    bestY = np.array(Y0, dtype=np.int8, copy=True)
    score = np.empty(n_rows, dtype=np.float64)
    cdef signed char[:, ::1] y = Y
    cdef signed char[:, ::1] by = bestY
    cdef float64_t[::1] sc = score
    cdef float64_t[::1] comp = np.empty(K, dtype=np.float64)    # log lambda_k + log P(y | x, T_k)
    cdef float64_t[::1] trial = np.empty(K, dtype=np.float64)
    with nogil:
        for n in range(n_rows):
            for k in range(K):
                comp[k] = log_lambda[k] + _tree_ll(A, D, parent, k, n, &y[n, 0], L)
            cur = _logsumexp(&comp[0], K)
            best = cur
            for t in range(T):
                j = flips[n, t]
                for k in range(K):
                    trial[k] = comp[k] + _flip_delta(A, D, parent, child_ptr, child_idx, k, n, j,
                                                     &y[n, 0])
                new = _logsumexp(&trial[0], K)
                delta = new - cur
                if delta >= 0 or u[n, t] < exp(delta / temps[t]):
                    y[n, j] = 1 - y[n, j]
                    cur = new
                    for k in range(K):
                        comp[k] = trial[k]
                    if cur > best:
                        best = cur
                        for i in range(L):
                            by[n, i] = y[n, i]
            sc[n] = best
    return bestY, score
