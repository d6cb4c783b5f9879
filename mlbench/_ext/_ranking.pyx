"""Ranking kernels: the label-ranking measures per instance (``ranking_stats``) and the AUC of
each label over the instances (``label_auc``).

``ranking_stats`` computes the statistics of all four label-ranking measures in one pass per row.

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
            if n_rel <= 16:
                # few relevant labels (the usual case): a branch-free count beats a binary search,
                # whose comparisons the CPU cannot predict
                for t in range(n_rel):
                    lo += rel[t] > v
            else:
                hi = n_rel
                while lo < hi:          # first position whose relevant score is <= v
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


cdef int _ascending(const void* a, const void* b) noexcept nogil:
    cdef float64_t x = (<const float64_t*> a)[0]
    cdef float64_t y = (<const float64_t*> b)[0]
    return (x > y) - (x < y)


cdef inline intp_t _count_below(const float64_t* b, intp_t m, float64_t v) noexcept nogil:
    """|{k : b[k] < v}| of an ascending array b of length m >= 1.

    Branch-free binary search (the ternary becomes a conditional move): the comparisons are
    unpredictable, and a mispredicted branch per step would cost more than the step itself.
    """
    cdef const float64_t* first = b
    cdef intp_t half
    while m > 1:
        half = m >> 1
        first = first + half if first[half - 1] < v else first
        m -= half
    return (first - b) + (first[0] < v)


cdef void _auc_rows(const uint8_t[:, ::1] Yt, const float64_t[:, ::1] St, float64_t* bucket,
                   float64_t* wins) noexcept nogil:
    cdef intp_t L = Yt.shape[0], n = Yt.shape[1]
    cdef intp_t i, j, k, m, n_pos, below, below_eq
    cdef uint8_t minority
    cdef float64_t v
    for j in range(L):
        n_pos = 0
        for i in range(n):
            n_pos += Yt[j, i]
        minority = n_pos <= n - n_pos      # the class with fewer instances: its scores get sorted
        m = 0
        for i in range(n):
            if Yt[j, i] == minority:
                bucket[m] = St[j, i]
                m += 1
        wins[j] = 0.0
        if m == 0:
            continue
        qsort(bucket, m, sizeof(float64_t), _ascending)
        for i in range(n):                  # place each score of the other class among them
            if Yt[j, i] == minority:
                continue
            v = St[j, i]
            if m <= 16:                     # small bucket: branch-free counts (see _ranking_rows)
                below = 0
                below_eq = 0
                for k in range(m):
                    below += bucket[k] < v
                    below_eq += bucket[k] <= v
            else:
                below = _count_below(bucket, m, v)
                below_eq = below
                while below_eq < m and bucket[below_eq] == v:   # ties: rare, so predictable
                    below_eq += 1
            # pairs this score orders correctly against the other class, ties counting one half
            if minority:                    # bucket = positives, v a negative's: positives above win
                wins[j] += (m - below_eq) + 0.5 * (below_eq - below)
            else:                           # bucket = negatives, v a positive's: negatives below win
                wins[j] += below + 0.5 * (below_eq - below)


def label_auc(Y, S):
    """AUC of every column of ``S`` against the 0/1 column of ``Y`` (same shape, ``S`` without NaN),
    ties counting 1/2; NaN for a column without both classes.

    Per label only the scores of the smaller class are sorted; each score of the other class is
    then placed among them by binary search, counting the pairs it orders correctly.  Labels are
    mostly rare, so this is O(n log n+) per label instead of a full sort of n scores.  The matrices
    are transposed first so that each label's scores are contiguous and its sorted bucket stays in
    cache while its column is scanned (reading columns of the row-major matrix, or keeping every
    label's bucket live at once, made each probe a cache miss: several times slower).
    """
    Yt_arr = np.ascontiguousarray(np.asarray(Y, dtype=np.uint8).T)
    St_arr = np.ascontiguousarray(np.asarray(S, dtype=np.float64).T)
    if Yt_arr.shape != St_arr.shape:
        raise ValueError("Y and S must have the same shape")
    cdef const uint8_t[:, ::1] Yt = Yt_arr
    cdef const float64_t[:, ::1] St = St_arr
    cdef intp_t L = Yt.shape[0], n = Yt.shape[1]
    bucket_arr = np.empty(max(n, 1), dtype=np.float64)
    cdef float64_t[::1] bucket = bucket_arr
    wins_arr = np.zeros(L, dtype=np.float64)
    cdef float64_t[::1] wins = wins_arr
    if L > 0 and n > 0:
        with nogil:
            _auc_rows(Yt, St, &bucket[0], &wins[0])
    n_pos = Yt_arr.sum(axis=1, dtype=np.intp)
    pairs = n_pos * (n - n_pos).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = wins_arr / pairs
    auc[pairs == 0] = np.nan
    return auc
