"""The lasso by least-angle regression (LARS with the lasso modification), for many problems that
share one dictionary: MLFE's step 1, which rebuilds each training row from all the others.

Problem ``i`` of ``m``: with ``z_j`` the standardised rows,

    w_i = argmin_w 1/2 ||z_i - sum_{j != i} w_j z_j||^2 + lam_i ||w||_1,

solved by the homotopy of Efron, Hastie, Johnstone & Tibshirani, "Least angle regression" (Ann.
Statist. 32(2), 2004), section 3.1 (the lasso modification: a coefficient that reaches zero leaves
the active set), followed from ``lam_max`` down to ``lam_i`` and stopped there exactly (the last
segment interpolated, as every LARS implementation does).  The steps are scikit-learn's
``lars_path(method="lasso")`` (the correlation ``C`` as the largest over the inactive set, the step
lengths ``min+ (C -+ c_j) / (A -+ a_j)``, the drop step ``min+ -w_a / d_a``, the Cholesky pivot test
``< 1e-7`` and the early stop when ``C`` grows), so the solution is the same to rounding.  Two
things make it cheap:

* **One dictionary, a batch of problems.**  Every problem's dictionary is the same matrix (row
  ``i`` left out by never letting it enter), so the correlations ``a = Z u`` of all rows with the
  equiangular direction ``u`` are computed for ``batch`` problems in one pass over Z.  (On
  Corel16k, 8 problems at a time is the best trade between that pass and keeping each problem's
  Cholesky factor in cache: 400 rows of 5,506 take 9.8 CPU s against 17.0 for 1 and 12.6 for 32;
  4 and 16 are within noise of 8.)
* **Sparse-aware.**  With ``Z = (X - 1 mu^T) diag(1/s)`` and X sparse (Corel16k: 1.7% nonzero),
  ``Z u = X (u / s) - (mu . u / s) 1`` costs the nonzeros of X, not m x d.  Dense data (``Zd``)
  take one BLAS ``dgemm`` per step for the batch instead.

Active-set Cholesky factors are updated by one triangular solve per added variable and by Givens
rotations per dropped one (Golub & Van Loan, "Matrix Computations", 4th ed., section 6.5.4).

A problem whose active set becomes degenerate (a Cholesky pivot below ``1e-7``: duplicated rows),
whose ``C`` grows, or that needs more than ``max_steps`` steps is reported in ``status`` (1) and its
row of W left zero: the caller solves those with another solver.  All indices are checked before
any work.
"""
import numpy as np

cimport numpy as cnp
from libc.math cimport fabs, sqrt, INFINITY
from scipy.linalg.cython_blas cimport dgemm, dtrsv

cnp.import_array()

cdef double TINY32 = np.finfo(np.float32).tiny
cdef double EPS32 = np.finfo(np.float32).eps
cdef double EPS64 = np.finfo(np.float64).eps
cdef enum:
    LANES = 8          # slots summed together in the sparse pass
    ARGMAX_LANES = 4   # running maxima of the correlation update


cdef inline void forward(double[:, ::1] L, Py_ssize_t n, double* y) noexcept nogil:
    """y <- L[:n, :n]^-1 y (L lower triangular, row-major: BLAS sees its transpose)."""
    cdef int nn = <int>n, lda = <int>L.shape[1], one = 1
    if n > 0:
        dtrsv(b"U", b"T", b"N", &nn, &L[0, 0], &lda, y, &one)


cdef inline void backward(double[:, ::1] L, Py_ssize_t n, double* y) noexcept nogil:
    """y <- L[:n, :n]^-T y."""
    cdef int nn = <int>n, lda = <int>L.shape[1], one = 1
    if n > 0:
        dtrsv(b"U", b"N", b"N", &nn, &L[0, 0], &lda, y, &one)


cdef void sparse_pass(Py_ssize_t m, const cnp.intp_t* indptr, const cnp.intp_t* indices,
                      const double* data, const double* V, const double* off, double* A,
                      Py_ssize_t width) noexcept nogil:
    """A (m x width) = X V - 1 off^T for CSR X (m rows) and V (d x width), LANES columns at a
    time in local accumulators that the compiler keeps in registers (each column's sum in the
    order of the row's entries, as a plain loop would take it: the same rounding)."""
    cdef Py_ssize_t j, p, g, b0
    cdef unsigned int c
    cdef double v
    cdef double acc[LANES]
    cdef const double* vf
    for j in range(m):
        for g in range(width // LANES):
            b0 = g * LANES
            for c in range(LANES):
                acc[c] = -off[b0 + c]
            for p in range(indptr[j], indptr[j + 1]):
                v = data[p]
                vf = V + indices[p] * width + b0
                for c in range(LANES):
                    acc[c] += v * vf[c]
            for c in range(LANES):
                A[j * width + b0 + c] = acc[c]


cdef Py_ssize_t step_argmax(double* cov, const double* A, Py_ssize_t stride,
                            const signed char* state, double gam, Py_ssize_t m) noexcept nogil:
    """``cov[j] -= gam * A[j * stride]`` for every free j (``state[j] == 0``); returns the first
    free j of largest ``|cov[j]|`` (-1 when all are 0), as one running maximum over j would.
    ARGMAX_LANES running maxima over interleaved j (lane j mod ARGMAX_LANES), so that each
    comparison does not wait for the one before; ties between them go to the smallest j (a maximum
    still at 0 has index -1)."""
    cdef double best[ARGMAX_LANES]
    cdef Py_ssize_t at[ARGMAX_LANES]
    cdef Py_ssize_t j = 0, jj, k
    cdef unsigned int c
    cdef double v
    for c in range(ARGMAX_LANES):
        best[c] = 0.0
        at[c] = -1
    while j < m:
        for c in range(ARGMAX_LANES):
            jj = j + c
            if jj < m and state[jj] == 0:
                v = cov[jj] - gam * A[jj * stride]
                cov[jj] = v
                if fabs(v) > best[c]:
                    best[c] = fabs(v)
                    at[c] = jj
        j += ARGMAX_LANES
    k = at[0]
    v = best[0]
    for c in range(1, ARGMAX_LANES):
        if best[c] > v or (best[c] == v and at[c] < k):
            v = best[c]
            k = at[c]
    return k


def _step_argmax(double[::1] cov, double[::1] a, signed char[::1] state, double gam):
    """:func:`step_argmax` on contiguous arrays, for the tests (updates ``cov`` in place)."""
    if a.shape[0] != cov.shape[0] or state.shape[0] != cov.shape[0] or cov.shape[0] == 0:
        raise ValueError("_step_argmax: inconsistent shapes")
    return step_argmax(&cov[0], &a[0], 1, &state[0], gam, cov.shape[0])


cdef void cholesky_delete(double[:, ::1] L, Py_ssize_t n, Py_ssize_t out) noexcept nogil:
    """Remove variable ``out`` from the factor L[:n, :n] of G_AA (now L[:n-1, :n-1]): the rows
    below move up, and Givens rotations on columns (k, k+1) zero the superdiagonal they leave."""
    cdef Py_ssize_t i, k
    cdef double x, y, r, c, s
    for i in range(out, n - 1):
        for k in range(i + 2):
            L[i, k] = L[i + 1, k]
    for i in range(out, n - 1):
        x = L[i, i]
        y = L[i, i + 1]
        r = sqrt(x * x + y * y)
        if r == 0.0:
            continue
        c = x / r
        s = y / r
        for k in range(i, n - 1):
            x = L[k, i]
            y = L[k, i + 1]
            L[k, i] = c * x + s * y
            L[k, i + 1] = -s * x + c * y
        L[i, i + 1] = 0.0


def lasso_rows(cnp.intp_t[::1] indptr, cnp.intp_t[::1] indices, double[::1] data,
               double[::1] mu, double[::1] inv_scale, double[:, ::1] G, double[::1] lams,
               double[:, ::1] W, Py_ssize_t max_steps, Py_ssize_t batch=8, Zd=None):
    """Solve every problem ``i`` with ``lams[i] > 0`` (see the module docstring); W[i] gets
    ``w_i`` (W must be zero on entry).  X is CSR (``indptr``, ``indices``, ``data``; m x d),
    ``mu`` and ``inv_scale`` (d) standardise it, ``G = Z Z^T`` (m x m).  ``lam`` is in the units
    of ``1/2 ||r||^2 + lam ||w||_1``.  Returns ``status`` (int8, m): 0 solved, 1 left to the
    caller (degenerate, or over ``max_steps``), 2 ``lams[i] <= 0`` (w_i = 0).  ``Zd``: the
    standardised rows as a dense C-contiguous (m, d) array, for dense data: the correlations are
    then one BLAS product per step instead of a pass over the CSR entries."""
    cdef Py_ssize_t m = indptr.shape[0] - 1
    cdef Py_ssize_t d = mu.shape[0]
    if m < 1 or inv_scale.shape[0] != d or G.shape[0] != m or G.shape[1] != m \
            or lams.shape[0] != m or W.shape[0] != m or W.shape[1] != m:
        raise ValueError("lasso_rows: inconsistent shapes")
    if indptr[0] != 0 or indptr[m] != indices.shape[0] or indices.shape[0] != data.shape[0]:
        raise ValueError("lasso_rows: malformed CSR index pointer")
    cdef Py_ssize_t j, p, f
    for j in range(m):
        if indptr[j + 1] < indptr[j]:
            raise ValueError("lasso_rows: CSR index pointer decreases")
    for p in range(indices.shape[0]):
        if indices[p] < 0 or indices[p] >= d:
            raise ValueError(f"lasso_rows: feature index {indices[p]} outside [0, {d})")
    if batch < 1:
        raise ValueError("lasso_rows: batch must be positive")
    cdef double[:, ::1] Zv
    cdef bint dense = Zd is not None
    if dense:
        Zv = Zd
        if Zv.shape[0] != m or Zv.shape[1] != d:
            raise ValueError("lasso_rows: inconsistent shapes")
    cdef int gm, gn, gk, ldv, ldz
    cdef double one_d = 1.0, zero_d = 0.0
    cdef Py_ssize_t kmax = min(d, m - 1) + 1
    # each slot holds a kmax x kmax factor: no more slots than fit in 256 MB (at least one)
    batch = max(1, min(batch, m, (256 << 20) // (8 * kmax * kmax)))
    cdef double dd = <double>d

    # per-slot state
    L_all = np.zeros((batch, kmax, kmax))
    cdef double[:, :, ::1] Ls = L_all
    cdef cnp.intp_t[:, ::1] act = np.zeros((batch, kmax), dtype=np.intp)
    cdef double[:, ::1] sgn = np.zeros((batch, kmax))
    cdef double[:, ::1] ls = np.zeros((batch, kmax))
    cdef double[:, ::1] coef = np.zeros((batch, kmax))
    cdef double[:, ::1] prev = np.zeros((batch, kmax))
    cdef double[:, ::1] cov = np.zeros((batch, m))
    cdef signed char[:, ::1] state = np.zeros((batch, m), dtype=np.int8)  # 0 free, 1 active, 2 self
    cdef cnp.intp_t[::1] row = np.full(batch, -1, dtype=np.intp)
    cdef cnp.intp_t[::1] n_act = np.zeros(batch, dtype=np.intp)
    cdef cnp.intp_t[::1] n_iter = np.zeros(batch, dtype=np.intp)
    cdef signed char[::1] dropped = np.zeros(batch, dtype=np.int8)
    cdef signed char[::1] busy = np.zeros(batch, dtype=np.int8)   # direction computed, wants a
    cdef double[::1] Cmax = np.zeros(batch)
    cdef double[::1] AA = np.zeros(batch)
    cdef double[::1] alpha_prev = np.zeros(batch)
    # the sparse pass's arrays have ``width`` >= batch columns, a multiple of LANES (zeros beyond)
    cdef Py_ssize_t width = (batch + LANES - 1) // LANES * LANES
    cdef double[:, ::1] V = np.zeros((d, width))        # u / s of each busy slot, by feature
    cdef double[::1] off = np.zeros(width)              # mu . (u / s)
    cdef double[:, ::1] Acorr = np.zeros((m, width))    # a = Z u, by row
    cdef double[::1] u = np.zeros(d)
    # the rows dropped on a slot's last step, their coefficients before and after it
    cdef cnp.intp_t[:, ::1] gone = np.zeros((batch, kmax), dtype=np.intp)
    cdef double[:, ::1] gprev = np.zeros((batch, kmax))
    cdef double[:, ::1] gcoef = np.zeros((batch, kmax))
    cdef cnp.intp_t[::1] ngone = np.zeros(batch, dtype=np.intp)
    cdef double[:, ::1] yv = np.zeros((batch, kmax))     # L^-1 sgn
    cdef signed char[::1] refresh = np.zeros(batch, dtype=np.int8)
    cdef double[::1] cnext = np.zeros(batch)            # the largest inactive c_j, signed
    cdef cnp.intp_t[::1] knext = np.zeros(batch, dtype=np.intp)
    status_arr = np.zeros(m, dtype=np.int8)
    cdef signed char[::1] status = status_arr

    cdef Py_ssize_t next_row = 0, b, a, n, i, k, q, nd
    cdef double C, Cv, alpha, alpha_min, ss, diag, v, s, g1, g2, gam, num, den, zpos, zv, lam
    cdef bint finished, any_busy
    cdef double[:, ::1] L

    with nogil:
        while True:
            # ---- phase A: every slot either finishes its row (and takes the next) or computes
            # its equiangular direction
            any_busy = False
            for b in range(batch):
                busy[b] = 0
                while True:
                    if row[b] < 0:
                        # take the next row that has a problem
                        while next_row < m and lams[next_row] <= 0:
                            status[next_row] = 2
                            next_row += 1
                        if next_row >= m:
                            break
                        i = next_row
                        next_row += 1
                        row[b] = i
                        for j in range(m):
                            cov[b, j] = G[j, i]
                            state[b, j] = 0
                        state[b, i] = 2
                        n_act[b] = 0
                        n_iter[b] = 0
                        dropped[b] = 0
                        ngone[b] = 0
                        refresh[b] = 0
                    i = row[b]
                    L = Ls[b]
                    n = n_act[b]
                    lam = lams[i]
                    # C: the largest |c_j| over the inactive rows (found by phase B's update
                    # pass, except for a row just taken)
                    if n_iter[b] == 0:
                        Cv = 0.0
                        k = -1
                        for j in range(m):
                            if state[b, j] == 0 and fabs(cov[b, j]) > fabs(Cv):
                                Cv = cov[b, j]
                                k = j
                        cnext[b] = Cv
                        knext[b] = k
                    Cv = cnext[b]
                    k = knext[b]
                    C = fabs(Cv)
                    alpha = C / dd
                    alpha_min = lam / dd
                    finished = False
                    if alpha <= alpha_min + EPS32:
                        ss = 1.0
                        if fabs(alpha - alpha_min) > EPS32 and n_iter[b] > 0:
                            ss = (alpha_prev[b] - alpha_min) / (alpha_prev[b] - alpha)
                        for a in range(n):
                            W[i, act[b, a]] = prev[b, a] + ss * (coef[b, a] - prev[b, a])
                        # a row dropped on the last step may be back inside the interpolation
                        for q in range(ngone[b]):
                            W[i, gone[b, q]] = gprev[b, q] + ss * (gcoef[b, q] - gprev[b, q])
                        finished = True
                    elif n_iter[b] >= max_steps or n >= m - 1 or k < 0:
                        status[i] = 1
                        finished = True
                    else:
                        if not dropped[b] and n + 1 >= kmax:
                            status[i] = 1                # the active rows span the space already
                            finished = True
                        elif not dropped[b]:
                            # add row k: one row of the Cholesky factor of G_AA
                            for a in range(n):
                                L[n, a] = G[k, act[b, a]]
                            forward(L, n, &L[n, 0])
                            v = 0.0
                            for a in range(n):
                                v += L[n, a] * L[n, a]
                            diag = sqrt(fabs(G[k, k] - v))
                            if diag < EPS64:
                                diag = EPS64
                            if diag < 1e-7:
                                status[i] = 1            # degenerate active set
                                finished = True
                            else:
                                L[n, n] = diag
                                act[b, n] = k
                                sgn[b, n] = 1.0 if Cv > 0 else (-1.0 if Cv < 0 else 0.0)
                                # y = L^-1 sgn grows by one entry (forward substitution's last)
                                v = sgn[b, n]
                                for a in range(n):
                                    v -= L[n, a] * yv[b, a]
                                yv[b, n] = v / diag
                                coef[b, n] = 0.0
                                prev[b, n] = 0.0
                                state[b, k] = 1
                                n += 1
                                n_act[b] = n
                        if not finished and n_iter[b] > 0 and alpha_prev[b] < alpha:
                            status[i] = 1                # C grew: the path is lost to rounding
                            finished = True
                        if not finished:
                            if refresh[b]:               # L changed by a drop
                                for a in range(n):
                                    yv[b, a] = sgn[b, a]
                                forward(L, n, &yv[b, 0])
                                refresh[b] = 0
                            for a in range(n):
                                ls[b, a] = yv[b, a]
                            backward(L, n, &ls[b, 0])
                            s = 0.0
                            for a in range(n):
                                s += ls[b, a] * sgn[b, a]
                            if not (s > 0.0 and s < INFINITY):
                                status[i] = 1
                                finished = True
                            else:
                                AA[b] = 1.0 / sqrt(s)
                                for a in range(n):
                                    ls[b, a] *= AA[b]
                                Cmax[b] = C
                                # u = sum_a ls_a z_a, as u / s and mu . (u / s)
                                for f in range(d):
                                    u[f] = 0.0
                                s = 0.0
                                for a in range(n):
                                    q = act[b, a]
                                    s += ls[b, a]
                                    for p in range(indptr[q], indptr[q + 1]):
                                        u[indices[p]] += ls[b, a] * data[p]
                                v = 0.0
                                for f in range(d):
                                    u[f] = (u[f] - s * mu[f]) * inv_scale[f]
                                    if dense:
                                        V[f, b] = u[f]
                                    else:
                                        V[f, b] = u[f] * inv_scale[f]
                                        v += mu[f] * V[f, b]
                                off[b] = v
                                alpha_prev[b] = alpha
                                busy[b] = 1
                                any_busy = True
                                break
                    if finished:
                        row[b] = -1
                        continue
                if row[b] < 0:
                    for f in range(d):
                        V[f, b] = 0.0
            if not any_busy:
                break
            # ---- the shared product: a = Z u for every busy slot, one pass over X
            if dense:       # Acorr (m x batch) = Zd (m x d) V (d x batch), in BLAS's column order
                gm = <int>batch
                gn = <int>m
                gk = <int>d
                ldv = <int>width
                ldz = <int>d
                dgemm(b"N", b"N", &gm, &gn, &gk, &one_d, &V[0, 0], &ldv, &Zv[0, 0], &ldz,
                      &zero_d, &Acorr[0, 0], &ldv)
            else:
                sparse_pass(m, &indptr[0], &indices[0], &data[0], &V[0, 0], &off[0],
                            &Acorr[0, 0], width)
            # ---- phase B: step lengths, the step, drops
            for b in range(batch):
                if not busy[b]:
                    continue
                i = row[b]
                L = Ls[b]
                n = n_act[b]
                C = Cmax[b]
                g1 = INFINITY
                g2 = INFINITY
                # the tests are combined by & (one branch, rarely taken) rather than by `and`,
                # whose branch on the sign of den is a coin toss for the predictor
                for j in range(m):
                    if state[b, j] != 0:
                        continue
                    num = C - cov[b, j]
                    den = AA[b] - Acorr[j, b] + TINY32
                    if (num > 0.0) & (den > 0.0) & (num < g1 * den):
                        g1 = num / den
                    num = C + cov[b, j]
                    den = AA[b] + Acorr[j, b] + TINY32
                    if (num > 0.0) & (den > 0.0) & (num < g2 * den):
                        g2 = num / den
                gam = C / AA[b]
                if g1 < gam:
                    gam = g1
                if g2 < gam:
                    gam = g2
                zpos = INFINITY
                for a in range(n):
                    zv = -coef[b, a] / (ls[b, a] + TINY32)
                    if zv > 0.0 and zv < zpos:
                        zpos = zv
                dropped[b] = 0
                if zpos < gam:
                    gam = zpos
                    dropped[b] = 1
                n_iter[b] += 1
                ngone[b] = 0
                for a in range(n):
                    prev[b, a] = coef[b, a]
                    coef[b, a] += gam * ls[b, a]
                k = step_argmax(&cov[b, 0], &Acorr[0, b], width, &state[b, 0], gam, m)
                Cv = cov[b, k] if k >= 0 else 0.0
                if dropped[b]:
                    nd = 0
                    for a in range(n - 1, -1, -1):
                        zv = -prev[b, a] / (ls[b, a] + TINY32)
                        if zv != zpos:
                            continue
                        gone[b, nd] = act[b, a]
                        gprev[b, nd] = prev[b, a]
                        gcoef[b, nd] = coef[b, a]
                        nd += 1
                        cholesky_delete(L, n, a)
                        for q in range(a, n - 1):
                            act[b, q] = act[b, q + 1]
                            sgn[b, q] = sgn[b, q + 1]
                            ls[b, q] = ls[b, q + 1]
                            coef[b, q] = coef[b, q + 1]
                            prev[b, q] = prev[b, q + 1]
                        n -= 1
                    n_act[b] = n
                    ngone[b] = nd
                    refresh[b] = 1
                    for q in range(nd):
                        # the dropped row's correlation afresh: z_k . (z_i - sum_a w_a z_a)
                        f = gone[b, q]
                        state[b, f] = 0
                        v = G[f, i]
                        for a in range(n):
                            v -= G[f, act[b, a]] * coef[b, a]
                        cov[b, f] = v
                        if fabs(v) > fabs(Cv) or (fabs(v) == fabs(Cv) and f < k):
                            Cv = v
                            k = f
                cnext[b] = Cv
                knext[b] = k
    return status_arr
