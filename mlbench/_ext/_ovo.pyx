"""One-against-one votes of a multi-class SVM (libsvm's ``svm_predict_values``), many rows at once.

A c-SVC on k classes is k(k-1)/2 binary machines.  The machine of classes i < j (number p, in the
order i = 0..k-2, j = i+1..k-1) has the decision value

    d_p(x) = sum_{s in SV(i)} a[j-1, s] K(s, x) + sum_{s in SV(j)} a[i, s] K(s, x) - rho_p

with ``a`` libsvm's ``sv_coef`` (scikit-learn's ``_dual_coef_``, (k-1) x l, the support vectors
grouped by class) and ``rho_p = -_intercept_[p]``; class i gets the vote when d_p > 0, class j
otherwise, and the prediction is the first class with the most votes.  libsvm computes this per row,
allocating and filling k(k-1)/2 decision values each time and reading the coefficients of every
pair from a (k-1) x l matrix: a label powerset on 5,000 rows of delicious (4,949 classes, 12
million machines) spends 0.3 s per row, and delicious's training part has about 9,500 labelsets.  Here the rows come in blocks of B: each coefficient is read
once per block and multiplies B kernel values that lie next to each other (the kernel block is
l x B, in the L2 cache for the block sizes the caller uses), and no decision value is stored.

Each d_p is summed in libsvm's order (the class-i terms, then the class-j terms, then rho), so a
vote differs from libsvm's only where the kernel values do (the caller computes them with
scikit-learn's ``rbf_kernel``; libsvm with its own loop: float rounding).
"""
import numpy as np

from mlbench._ext._typedefs cimport float64_t, intp_t


cdef void _votes(const float64_t[:, ::1] coef, const float64_t[:, ::1] coef_t,
                 const intp_t[::1] start, const float64_t[::1] intercept,
                 const float64_t[:, ::1] K, intp_t[:, ::1] votes, float64_t* s) noexcept nogil:
    cdef intp_t k = start.shape[0] - 1, B = K.shape[1]
    cdef intp_t i, j, t, b, w, p = 0
    cdef float64_t c, r
    for i in range(k):
        for j in range(i + 1, k):
            for b in range(B):
                s[b] = 0.0
            for t in range(start[i], start[i + 1]):     # class i's support vectors: a[j-1, t]
                c = coef_t[t, j - 1]
                for b in range(B):
                    s[b] += c * K[t, b]
            for t in range(start[j], start[j + 1]):     # class j's: a[i, t]
                c = coef[i, t]
                for b in range(B):
                    s[b] += c * K[t, b]
            r = intercept[p]                            # -rho_p: s + r == s - rho_p exactly
            for b in range(B):                          # no branch: half the votes go each way
                w = s[b] + r > 0
                votes[i, b] += w
                votes[j, b] += 1 - w
            p += 1


def ovo_votes(const float64_t[:, ::1] coef, const float64_t[:, ::1] coef_t,
              const intp_t[::1] start, const float64_t[::1] intercept,
              const float64_t[:, ::1] K):
    """Votes (k, B) of the k classes on the B rows whose kernel values with the l support
    vectors are the columns of ``K`` (l, B).  ``coef``: ``_dual_coef_`` (k-1, l), ``coef_t`` its
    transpose (l, k-1), both C-contiguous; ``start``: (k+1,) the first support vector of each
    class, then l; ``intercept``: ``_intercept_`` (k(k-1)/2,)."""
    cdef intp_t k = start.shape[0] - 1, l = K.shape[0], B = K.shape[1], c
    if k < 2 or coef.shape[0] != k - 1 or coef.shape[1] != l:
        raise ValueError(f"coef has shape ({coef.shape[0]}, {coef.shape[1]}); {k} classes and "
                         f"{l} support vectors need ({k - 1}, {l})")
    if coef_t.shape[0] != l or coef_t.shape[1] != k - 1:
        raise ValueError(f"coef_t has shape ({coef_t.shape[0]}, {coef_t.shape[1]}), not "
                         f"({l}, {k - 1})")
    if intercept.shape[0] != k * (k - 1) // 2:
        raise ValueError(f"intercept has {intercept.shape[0]} values; {k} classes need "
                         f"{k * (k - 1) // 2}")
    if start[0] != 0 or start[k] != l:
        raise ValueError(f"start must run from 0 to {l}, got {start[0]} to {start[k]}")
    for c in range(k):
        if start[c + 1] < start[c]:
            raise ValueError(f"start must not decrease (class {c}: {start[c]} > {start[c + 1]})")
    votes = np.zeros((k, B), dtype=np.intp)
    cdef intp_t[:, ::1] votes_view = votes
    cdef float64_t[::1] s = np.empty(max(B, 1), dtype=np.float64)
    with nogil:
        _votes(coef, coef_t, start, intercept, K, votes_view, &s[0])
    return votes
