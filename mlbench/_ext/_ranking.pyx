"""Per-instance statistics of the label-ranking measures, all four in one pass over each row.

For instance i with relevant labels Y+ (y_ij = 1) and irrelevant labels Y- and scores f_j, the rank
of label j is rank(j) = |{k : f_k >= f_j}| (1 = best).  Tied scores all take the *worst* rank of
their group, so a tie is never resolved in the method's favour (see mlbench/metrics/ranking.py).
The kernel returns, per instance,

* one_error: 1 when some irrelevant label scores at least as high as the best relevant one;
* coverage: max over Y+ of rank(j) - 1;
* ranking_loss: |{(u, v) in Y+ x Y- : f_u <= f_v}| / (|Y+| |Y-|);
* average_precision: mean over j in Y+ of |{k in Y+ : f_k >= f_j}| / rank(j);

and a flag ``valid`` that is 0 (and the four values NaN) when Y+ or Y- is empty.

Algorithm (why it is fast): only the relevant scores are sorted (descending, qsort on doubles, so
no global state and no GIL).  Each irrelevant score v is then placed by a binary search among them:
p = |{u in Y+ : f_u > v}|, and v lies at or above exactly the relevant labels at sorted positions
>= p.  A histogram of p and its running sum give, for each relevant label, how many irrelevant
labels are at or above it.  Cost per row O(L log |Y+|) instead of O(L log L) for a full sort;
multi-label data have few relevant labels per instance, so this is close to one pass over the row.
"""
from libc.stdlib cimport free, malloc, qsort
from libc.math cimport NAN
from libc.string cimport memset

import numpy as np

from mlbench._ext._typedefs cimport float64_t, intp_t, uint8_t


cdef int _descending(const void* a, const void* b) noexcept nogil:
    cdef float64_t x = (<const float64_t*> a)[0]
    cdef float64_t y = (<const float64_t*> b)[0]
    return (x < y) - (x > y)


cdef void _ranking_rows(const uint8_t[:, ::1] Y, const float64_t[:, ::1] S,
                        uint8_t[::1] valid, float64_t[::1] one_error, float64_t[::1] coverage,
                        float64_t[::1] ranking_loss, float64_t[::1] avg_precision,
                        float64_t* rel, intp_t* above) noexcept nogil:
    cdef intp_t n = Y.shape[0], L = Y.shape[1]
    cdef intp_t i, j, t, lo, hi, mid, n_rel, n_irr, cum_irr, group_end
    cdef float64_t v, misordered, ap, nan = NAN
    for i in range(n):
        n_rel = 0
        for j in range(L):
            if Y[i, j]:
                rel[n_rel] = S[i, j]
                n_rel += 1
        n_irr = L - n_rel
        if n_rel == 0 or n_irr == 0:
            valid[i] = 0
            one_error[i] = nan
            coverage[i] = nan
            ranking_loss[i] = nan
            avg_precision[i] = nan
            continue
        valid[i] = 1
        qsort(rel, n_rel, sizeof(float64_t), _descending)
        # above[p] = number of irrelevant labels whose first relevant at or below them is position p
        memset(above, 0, (n_rel + 1) * sizeof(intp_t))
        for j in range(L):
            if Y[i, j]:
                continue
            v = S[i, j]
            lo = 0
            hi = n_rel
            while lo < hi:              # first position whose relevant score is <= v
                mid = (lo + hi) >> 1
                if rel[mid] > v:
                    lo = mid + 1
                else:
                    hi = mid
            above[lo] += 1
        # walk relevant labels best first; cum_irr = irrelevant labels scoring >= rel[t]
        cum_irr = 0
        misordered = 0.0
        ap = 0.0
        group_end = 0
        for t in range(n_rel):
            cum_irr += above[t]
            misordered += cum_irr
            if t >= group_end:          # end of the group of relevant scores tied with rel[t]
                group_end = t + 1
                while group_end < n_rel and rel[group_end] == rel[t]:
                    group_end += 1
            # relevant labels at or above rel[t]: group_end; rank(t) = group_end + cum_irr.  cum_irr
            # is the same for the whole tie group: an irrelevant score equal to the group's lands at
            # the group's first position, and no p falls strictly inside a group.
            ap += (<float64_t> group_end) / (group_end + cum_irr)
        one_error[i] = 1.0 if above[0] > 0 else 0.0
        coverage[i] = n_rel + cum_irr - 1
        ranking_loss[i] = misordered / (<float64_t> n_rel * n_irr)
        avg_precision[i] = ap / n_rel


def ranking_stats(const uint8_t[:, ::1] Y, const float64_t[:, ::1] S):
    """(valid, one_error, coverage, ranking_loss, average_precision) per row of a 0/1 ``Y`` and
    scores ``S`` (both C-contiguous, same shape; ``S`` without NaN)."""
    cdef intp_t n = Y.shape[0], L = Y.shape[1]
    if S.shape[0] != n or S.shape[1] != L:
        raise ValueError("Y and S must have the same shape")
    valid = np.empty(n, dtype=np.uint8)
    out = np.empty((4, n), dtype=np.float64)
    cdef uint8_t[::1] valid_v = valid
    cdef float64_t[:, ::1] out_v = out
    cdef float64_t* rel = <float64_t*> malloc(max(L, 1) * sizeof(float64_t))
    cdef intp_t* above = <intp_t*> malloc((L + 1) * sizeof(intp_t))
    if rel == NULL or above == NULL:
        free(rel)
        free(above)
        raise MemoryError()
    try:
        with nogil:
            _ranking_rows(Y, S, valid_v, out_v[0], out_v[1], out_v[2], out_v[3], rel, above)
    finally:
        free(rel)
        free(above)
    return valid.astype(bool), out[0], out[1], out[2], out[3]
