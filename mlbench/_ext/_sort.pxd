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
