"""Split selection of Weka's J48 (C4.5 release 8) at one node, for numeric features.

:func:`select_split` does at one node what Weka's ``C45ModelSelection.selectModel`` does with a
``C45Split`` per attribute (weka/classifiers/trees/j48/, Weka 3.8), for features that are all
numeric and never missing, X given as CSR (a dense X is passed as CSR too: only its zeros are
implicit).  Written from those classes' rules; the arithmetic follows their order of operations so
that exact ties stay exact ties:

* a feature's candidate cuts lie between consecutive sorted values v < v' with v + 1e-5 < v'
  (closer values are never separated);
* a cut counts only if both sides weigh at least ``min_split`` = 0.1 W / K clipped to
  [M, 25] (W the node's weight, K the number of classes); the feature is skipped when the node
  has fewer than 2 min_split rows;
* information gain (oldEnt - newEnt) / W in bits, x log x taken as 0 below 1e-6; the first cut
  whose gain exceeds the best so far by more than 1e-6 is kept (Weka's ``Utils.gr``);
* MDL correction: the feature's gain loses log2(number of counted cuts) / W; a feature whose
  corrected gain is not above 1e-6 is not valid;
* gain ratio = gain / (split entropy / W);
* among valid features whose gain is at least their mean gain - 1e-3, the first whose gain ratio
  exceeds the best so far by more than 1e-6 wins; none above 0 means no split.

The sorted values are negatives, then the implicit zeros as one block, then positives.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport log
from libc.stdlib cimport qsort, malloc, free

cnp.import_array()

cdef double SMALL = 1e-6
cdef double LOG2 = log(2.0)


cdef struct Entry:
    double v
    double w
    int c


cdef int _cmp_entry(const void* a, const void* b) noexcept nogil:
    cdef double x = (<Entry*>a).v
    cdef double y = (<Entry*>b).v
    if x < y:
        return -1
    if x > y:
        return 1
    return 0


cdef inline double ln_func(double x) noexcept nogil:
    """Weka's ``EntropyBasedSplitCrit.lnFunc``: x ln x, 0 below 1e-6."""
    if x < 1e-6:
        return 0.0
    return x * log(x)


cdef inline bint gr(double a, double b) noexcept nogil:
    return a - b > SMALL


cdef inline bint gr_or_eq(double a, double b) noexcept nogil:
    return (b - a < SMALL) or (a >= b)


cdef inline bint sm_or_eq(double a, double b) noexcept nogil:
    return (a - b < SMALL) or (a <= b)


cdef inline bint eq(double a, double b) noexcept nogil:
    return (a == b) or ((a - b < SMALL) and (b - a < SMALL))


cdef double _gain(double* left, double* right, double left_w, double right_w, int K,
                  double total, double old_ent) noexcept nogil:
    """``InfoGainSplitCrit.splitCritValue(bags, totalNoInst, oldEnt)`` without missing values."""
    cdef double rv = 0.0
    cdef int j
    for j in range(K):
        rv = rv + ln_func(left[j])
    rv = rv - ln_func(left_w)
    for j in range(K):
        rv = rv + ln_func(right[j])
    rv = rv - ln_func(right_w)
    cdef double new_ent = -(rv / LOG2)
    cdef double numerator = (1.0 - 0.0) * (old_ent - new_ent)
    if eq(numerator, 0.0):
        return 0.0
    return numerator / total


def select_split(const cnp.int64_t[::1] indptr, const cnp.int32_t[::1] indices,
                 const double[::1] data, int n_features, const cnp.int64_t[::1] rows,
                 const cnp.int64_t[::1] y, const double[::1] w, int K, int min_obj,
                 bint mdl):
    """Weka's split choice at the node of ``rows``.

    Returns ``(feature, low, high, info_gain, gain_ratio)``: the chosen feature and the two
    neighbouring values its cut lies between (the caller turns them into Weka's split point), or
    feature -1 when the node stays a leaf.
    """
    cdef Py_ssize_t n = rows.shape[0]
    cdef Py_ssize_t i, k, p, r, f, m, pos
    cdef int j
    cdef double W = 0.0
    cdef cnp.ndarray[double, ndim=1] tot_a = np.zeros(K)
    cdef double* tot = <double*>tot_a.data
    for i in range(n):
        r = rows[i]
        tot[y[r]] += w[r]
        W += w[r]
    # counting sort of the node's nonzeros by feature
    cdef cnp.ndarray[cnp.int64_t, ndim=1] start_a = np.zeros(n_features + 1, dtype=np.int64)
    cdef cnp.int64_t* start = <cnp.int64_t*>start_a.data
    for i in range(n):
        r = rows[i]
        for p in range(indptr[r], indptr[r + 1]):
            start[indices[p] + 1] += 1
    for f in range(n_features):
        start[f + 1] += start[f]
    cdef Py_ssize_t nnz = start[n_features]
    cdef Entry* ent = <Entry*>malloc((nnz + 1) * sizeof(Entry))
    cdef cnp.ndarray[cnp.int64_t, ndim=1] fill_a = start_a[:n_features].copy()
    cdef cnp.int64_t* fill = <cnp.int64_t*>fill_a.data
    for i in range(n):
        r = rows[i]
        for p in range(indptr[r], indptr[r + 1]):
            f = indices[p]
            pos = fill[f]
            ent[pos].v = data[p]
            ent[pos].w = w[r]
            ent[pos].c = <int>y[r]
            fill[f] = pos + 1

    cdef double min_split = 0.1 * W / K
    if sm_or_eq(min_split, min_obj):
        min_split = min_obj
    elif gr(min_split, 25.0):
        min_split = 25.0
    # oldEnt of the node (all rows in one bag)
    cdef double rv = 0.0
    for j in range(K):
        rv = rv + ln_func(tot[j])
    cdef double old_ent = (ln_func(W) - rv) / LOG2

    cdef cnp.ndarray[double, ndim=1] gains_a = np.zeros(n_features)
    cdef cnp.ndarray[double, ndim=1] ratios_a = np.zeros(n_features)
    cdef cnp.ndarray[double, ndim=1] lows_a = np.zeros(n_features)
    cdef cnp.ndarray[double, ndim=1] highs_a = np.zeros(n_features)
    cdef cnp.ndarray[cnp.uint8_t, ndim=1] valid_a = np.zeros(n_features, dtype=np.uint8)
    cdef double[::1] gains = gains_a, ratios = ratios_a, lows = lows_a, highs = highs_a
    cdef cnp.uint8_t[::1] valid = valid_a
    cdef cnp.ndarray[double, ndim=1] left_a = np.zeros(K), right_a = np.zeros(K), zero_a = np.zeros(K)
    cdef double* left = <double*>left_a.data
    cdef double* right = <double*>right_a.data
    cdef double* zc = <double*>zero_a.data
    cdef double left_w, right_w, zero_w, best, g, prev_v, cur_v, best_left_w, denom
    cdef Py_ssize_t n_zero, n_cut, n_elem, e, s, t
    cdef bint sorted_, zero_done, have_prev
    cdef int n_valid = 0
    cdef double mean_gain = 0.0

    if not (2 * min_split - n > SMALL):          # Weka: Utils.sm(firstMiss, 2 * minSplit)
        for f in range(n_features):
            s = start[f]
            t = start[f + 1]
            m = t - s
            n_zero = n - m
            if m == 0 or (n_zero == 0 and m < 2):
                continue
            sorted_ = True
            for e in range(s + 1, t):
                if ent[e].v < ent[e - 1].v:
                    sorted_ = False
                    break
            if not sorted_:
                qsort(&ent[s], m, sizeof(Entry), _cmp_entry)
            for j in range(K):
                zc[j] = tot[j]
                left[j] = 0.0
                right[j] = tot[j]
            zero_w = W
            for e in range(s, t):
                zc[ent[e].c] -= ent[e].w
                zero_w -= ent[e].w
            left_w = 0.0
            right_w = W
            best = 0.0
            n_cut = 0
            have_prev = False
            zero_done = n_zero == 0
            prev_v = 0.0
            best_left_w = 0.0
            e = s
            # walk the sorted sequence: negatives, zero block, positives
            while e < t or not zero_done:
                if not zero_done and (e >= t or ent[e].v > 0.0):
                    cur_v = 0.0
                else:
                    cur_v = ent[e].v
                if have_prev and prev_v + 1e-5 < cur_v:
                    if gr_or_eq(left_w, min_split) and gr_or_eq(right_w, min_split):
                        g = _gain(left, right, left_w, right_w, K, W, old_ent)
                        if gr(g, best):
                            best = g
                            lows[f] = prev_v
                            highs[f] = cur_v
                            best_left_w = left_w
                        n_cut += 1
                # move the element left
                if not zero_done and (e >= t or ent[e].v > 0.0):
                    for j in range(K):
                        left[j] += zc[j]
                        right[j] -= zc[j]
                    left_w += zero_w
                    right_w -= zero_w
                    zero_done = True
                else:
                    left[ent[e].c] += ent[e].w
                    right[ent[e].c] -= ent[e].w
                    left_w += ent[e].w
                    right_w -= ent[e].w
                    e += 1
                prev_v = cur_v
                have_prev = True
            if n_cut == 0:
                continue
            if mdl:
                best = best - (log(<double>n_cut) / LOG2) / W
            if sm_or_eq(best, 0.0):
                continue
            gains[f] = best
            # GainRatioSplitCrit.splitCritValue(bags, totalnoInst, numerator)
            denom = 0.0
            if gr(W, 0.0):
                denom = denom - ln_func(best_left_w)
                denom = denom - ln_func(W - best_left_w)
                denom = denom - ln_func(0.0)
                denom = denom + ln_func(W)
            denom = denom / LOG2
            if eq(denom, 0.0):
                ratios[f] = 0.0
            else:
                ratios[f] = best / (denom / W)
            valid[f] = 1
            n_valid += 1
            mean_gain += best
    free(ent)
    if n_valid == 0:
        return -1, 0.0, 0.0, 0.0, 0.0
    mean_gain = mean_gain / n_valid
    cdef double min_result = 0.0
    cdef Py_ssize_t chosen = -1
    for f in range(n_features):
        if valid[f] and gains[f] >= mean_gain - 1e-3 and gr(ratios[f], min_result):
            chosen = f
            min_result = ratios[f]
    if eq(min_result, 0.0):
        return -1, 0.0, 0.0, 0.0, 0.0
    return chosen, lows[chosen], highs[chosen], gains[chosen], ratios[chosen]


def apply_csr(const cnp.int64_t[::1] indptr, const cnp.int32_t[::1] indices,
              const double[::1] data, const cnp.intp_t[::1] feature,
              const double[::1] threshold, const cnp.intp_t[::1] left,
              const cnp.intp_t[::1] right):
    """Leaf reached by each row of a CSR X (sorted indices): ``x[f] <= t`` goes left."""
    cdef Py_ssize_t n = indptr.shape[0] - 1
    cdef cnp.ndarray[cnp.intp_t, ndim=1] out_a = np.zeros(n, dtype=np.intp)
    cdef cnp.intp_t[::1] out = out_a
    cdef Py_ssize_t i, node, lo, hi, mid
    cdef double v
    cdef cnp.intp_t f
    with nogil:
        for i in range(n):
            node = 0
            while left[node] != -1:
                f = feature[node]
                lo = indptr[i]
                hi = indptr[i + 1]
                v = 0.0
                while lo < hi:                      # binary search of f in the row
                    mid = (lo + hi) // 2
                    if indices[mid] < f:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo < indptr[i + 1] and indices[lo] == f:
                    v = data[lo]
                node = left[node] if v <= threshold[node] else right[node]
            out[i] = node
    return out_a


def apply_dense(const double[:, :] X, const cnp.intp_t[::1] feature,
                const double[::1] threshold, const cnp.intp_t[::1] left,
                const cnp.intp_t[::1] right):
    """Leaf reached by each row of a dense X: ``x[f] <= t`` goes left."""
    cdef Py_ssize_t n = X.shape[0]
    cdef cnp.ndarray[cnp.intp_t, ndim=1] out_a = np.zeros(n, dtype=np.intp)
    cdef cnp.intp_t[::1] out = out_a
    cdef Py_ssize_t i, node
    with nogil:
        for i in range(n):
            node = 0
            while left[node] != -1:
                node = left[node] if X[i, feature[node]] <= threshold[node] else right[node]
            out[i] = node
    return out_a
