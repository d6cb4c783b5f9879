# scikit-learn's introsort of (value, row) pairs (sklearn/tree/_partitioner.pyx): median-of-three
# three-way quicksort, heapsort below depth 2 log2(n); a run of equal values costs one pass.
from libc.math cimport log

from mlbench._ext._typedefs cimport float32_t, float64_t, intp_t


cdef inline void _swap(float32_t* Xf, intp_t* s, intp_t i, intp_t j) noexcept nogil:
    Xf[i], Xf[j] = Xf[j], Xf[i]
    s[i], s[j] = s[j], s[i]


cdef inline float32_t _median3(float32_t* Xf, intp_t n) noexcept nogil:
    cdef float32_t a = Xf[0], b = Xf[n // 2], c = Xf[n - 1]
    if a < b:
        if b < c:
            return b
        elif a < c:
            return c
        return a
    elif b < c:
        if a < c:
            return a
        return c
    return b


cdef inline void _sift_down(float32_t* Xf, intp_t* s, intp_t start, intp_t end) noexcept nogil:
    cdef intp_t child, maxind, root = start
    while True:
        child = root * 2 + 1
        maxind = root
        if child < end and Xf[maxind] < Xf[child]:
            maxind = child
        if child + 1 < end and Xf[maxind] < Xf[child + 1]:
            maxind = child + 1
        if maxind == root:
            break
        _swap(Xf, s, root, maxind)
        root = maxind


cdef inline void _heapsort(float32_t* Xf, intp_t* s, intp_t n) noexcept nogil:
    cdef intp_t start = (n - 2) // 2, end = n
    while True:
        _sift_down(Xf, s, start, n)
        if start == 0:
            break
        start -= 1
    end = n - 1
    while end > 0:
        _swap(Xf, s, 0, end)
        _sift_down(Xf, s, 0, end)
        end -= 1


cdef inline void _introsort(float32_t* Xf, intp_t* s, intp_t n, int maxd) noexcept nogil:
    """Sort Xf[:n] ascending, moving s along (three-way partitions, heapsort below depth maxd)."""
    cdef float32_t pivot
    cdef intp_t i, l, r
    while n > 1:
        if maxd <= 0:
            _heapsort(Xf, s, n)
            return
        maxd -= 1
        pivot = _median3(Xf, n)
        i = l = 0
        r = n
        while i < r:
            if Xf[i] < pivot:
                _swap(Xf, s, i, l)
                i += 1
                l += 1
            elif Xf[i] > pivot:
                r -= 1
                _swap(Xf, s, i, r)
            else:
                i += 1
        _introsort(Xf, s, l, maxd)
        Xf += r
        s += r
        n -= r


cdef inline void sort_pairs(float32_t* Xf, intp_t* s, intp_t n) noexcept nogil:
    """Sort Xf[:n] ascending and s along with it (the order among equal values is free)."""
    if n > 1:
        _introsort(Xf, s, n, 2 * <int>(log(<float64_t>n) / log(2.0)))


# ---- LSD radix sort of (float32, row) pairs: O(n) instead of O(n log n) for a large node ----
# A float32 becomes a uint32 whose unsigned order is the float order (sign bit flipped for a
# positive value, every bit for a negative one; NaN is outside the callers' scope), so four stable
# passes of one byte each sort the pairs.  A byte that every key shares (the sign and exponent of
# values in one narrow range, the low bytes of 0/1 columns) skips its pass.  Equal floats may come
# out in another order than the introsort's (and -0.0 before 0.0): the callers read only the values
# and treat runs of equal values as one, so nothing they compute changes.

ctypedef unsigned int _u32

cdef inline void radix_sort_pairs(float32_t* Xf, intp_t* s, intp_t n, _u32* kbuf,
                                  intp_t* sbuf, intp_t radix_min) noexcept nogil:
    """:func:`sort_pairs`, by radix from ``radix_min`` pairs on (below it the introsort is
    faster: clearing four 256-bucket histograms dominates); ``kbuf`` and ``sbuf`` hold n."""
    cdef _u32* K = <_u32*>Xf
    cdef _u32* src_k = K
    cdef _u32* dst_k = kbuf
    cdef intp_t* src_s = s
    cdef intp_t* dst_s = sbuf
    cdef _u32* tk
    cdef intp_t* ts
    cdef intp_t counts[4][256]
    cdef intp_t i, d, b, total, c
    cdef _u32 key, shift
    if n < radix_min:
        sort_pairs(Xf, s, n)
        return
    for d in range(4):
        for b in range(256):
            counts[d][b] = 0
    for i in range(n):
        key = K[i]
        key ^= (<_u32>(-<int>(key >> 31))) | <_u32>0x80000000
        K[i] = key
        counts[0][key & 255] += 1
        counts[1][(key >> 8) & 255] += 1
        counts[2][(key >> 16) & 255] += 1
        counts[3][key >> 24] += 1
    for d in range(4):
        shift = 8 * d
        if counts[d][(src_k[0] >> shift) & 255] == n:
            continue  # every key has this byte: the pass would not move anything
        total = 0
        for b in range(256):
            c = counts[d][b]
            counts[d][b] = total
            total += c
        for i in range(n):
            key = src_k[i]
            b = (key >> shift) & 255
            c = counts[d][b]
            dst_k[c] = key
            dst_s[c] = src_s[i]
            counts[d][b] = c + 1
        tk = src_k
        src_k = dst_k
        dst_k = tk
        ts = src_s
        src_s = dst_s
        dst_s = ts
    for i in range(n):
        key = src_k[i]
        K[i] = key ^ ((key >> 31) - <_u32>1 | <_u32>0x80000000)
    if src_s != s:
        for i in range(n):
            s[i] = src_s[i]
