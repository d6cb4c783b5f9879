# Kernel of MLTSVM (mlbench/methods/svm/mltsvm.py): projected successive over-relaxation on the box-
# constrained dual of one label's twin-SVM problem.  The sweep is sequential (each coordinate sees
# the ones updated before it), so it runs here in C, nogil.
from libc.math cimport sqrt

from mlbench._ext._typedefs cimport float64_t, intp_t


def sor_box(const float64_t[:, ::1] G, const float64_t[:, ::1] P, const float64_t[::1] diag,
            float64_t[::1] alpha, float64_t[::1] u, double omega, double c, double tol,
            intp_t max_iter):
    """Minimise 1/2 a^T Q a - sum(a) over 0 <= a <= c with Q = G P^T, by projected SOR, in place.

    ``G`` and ``P`` are (n, m), ``diag`` = Q_jj; row j of Q is ``G[j] . P[k]`` over k, never formed: the kernel keeps
    ``u = P^T a`` (length m, passed in consistent with ``alpha``), so Q[j] . a = G[j] . u.  One sweep:
    for j = 0..n-1, a_j <- clip(a_j - omega (G[j] . u - 1) / Q_jj, 0, c), then u += (change) P[j].
    Stops after the first sweep whose change ||a_new - a_old||_2 is <= tol, or after max_iter
    sweeps; returns the number of sweeps.
    """
    cdef intp_t n = G.shape[0], m = G.shape[1]
    cdef intp_t it = 0, j, k
    cdef double q, qjj, new, delta, change
    with nogil:
        while it < max_iter:
            it += 1
            change = 0.0
            for j in range(n):
                qjj = diag[j]
                q = 0.0
                for k in range(m):
                    q += G[j, k] * u[k]
                if qjj <= 0.0:
                    continue
                new = alpha[j] - omega * (q - 1.0) / qjj
                if new < 0.0:
                    new = 0.0
                elif new > c:
                    new = c
                delta = new - alpha[j]
                if delta != 0.0:
                    alpha[j] = new
                    change += delta * delta
                    for k in range(m):
                        u[k] += delta * P[j, k]
            if sqrt(change) <= tol:
                break
    return it
