"""Entropy decision trees for COCOA's under-bagged ensembles, equal node for node to scikit-learn's.

COCOA grows ``L * (K + 1) * n_estimators`` small trees (7150 on yeast with the SOSHF protocol's
settings); with scikit-learn's ``DecisionTreeClassifier(criterion="entropy")`` almost all of its fit
time is spent inside the tree builder, which sorts the node's values of every feature at every node
and evaluates the entropy of both children (two logarithms per class) at every candidate threshold.

:func:`grow_tree` grows *the same tree* as scikit-learn 1.9's depth-first builder with the best
splitter and its stopping rules (``max_depth``, ``min_samples_leaf`` and ``min_samples_split =
2 * min_samples_leaf``, no weights, no missing values), faster:

* every feature is sorted once per tree (``order``), and a split partitions each feature's sorted
  segment stably into the two children, so no node sorts again (O(n p) per level instead of
  O(n log n p)); features already known to be constant in a node are not partitioned, because no
  descendant ever reads them;
* in a node of 64 rows or more, the run of each column's median value (the shared value of a
  sparse column, e.g. a standardised zero) is found by binary search, stepped over in one move, and
  its class counts taken from whichever side of it is shorter (bag-of-words columns: enron's trees
  grow 1.6x faster than without this);
* a candidate threshold is first scored with integer ``c log2 c`` tables (``T``), which equals the
  entropy proxy ``-(n_L H_L + n_R H_R)`` up to rounding; only candidates within ``margin`` of the
  best so far are scored again with scikit-learn's own floating-point formula, and that exact value
  decides, with scikit-learn's strict ``>`` (the first of equal candidates wins);
* the partitions are branch-free (a branch on the row's side mispredicts half the time).

:func:`grow_tree_binary` grows the same tree when every column is two-valued (bag-of-words data),
from bit sets instead of sorted columns (see the section before it).

The choice of each split therefore follows scikit-learn's exactly: the same xorshift stream
(``our_rand_r`` seeded with ``RandomState(seed).randint(0, 2**31 - 1)``) drives the same
Fisher-Yates visit of the features, with the same bookkeeping of constant features (which carries
from node to node), the same tie skipping (``FEATURE_THRESHOLD``), the same thresholds (mean of two
float32 values) and the same leaf test (impurity and improvement against ``EPSILON``).
``tests/methods/test_cocoa_fast.py`` compares every node with scikit-learn's on many seeds.
"""
import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY, log as ln
from libc.string cimport memcpy

from mlbench._ext._typedefs cimport float32_t, float64_t, intp_t, uint8_t

cnp.import_array()

from mlbench._ext._sort cimport sort_pairs
from mlbench._ext._sktree cimport (Draw, draw_constant, draw_finish, draw_keep, draw_more,
                                   draw_next, draw_start, uint32_t)

# scikit-learn's constants (sklearn/tree/_partitioner.pxd, _tree.pyx)
cdef float64_t FEATURE_THRESHOLD = 1e-7
cdef float64_t EPSILON = np.finfo("double").eps
cdef intp_t LEAF = -1


cdef inline float64_t _log2(float64_t x) noexcept nogil:
    # written as scikit-learn writes it (ln(x) / ln(2)), so the exact scores agree bit for bit
    return ln(x) / ln(2.0)


cdef inline float64_t _entropy(const float64_t* counts, intp_t n_classes,
                               float64_t n) noexcept nogil:
    """scikit-learn's Entropy impurity of one node (classes in order, empty classes skipped)."""
    cdef float64_t e = 0.0, c
    cdef intp_t k
    for k in range(n_classes):
        c = counts[k]
        if c > 0.0:
            c /= n
            e -= c * _log2(c)
    return e / 1.0  # divided by n_outputs (1) as scikit-learn does


cdef struct Record:
    intp_t start
    intp_t end
    intp_t parent
    intp_t is_left
    intp_t n_constant
    intp_t depth
    float64_t impurity


# -- the bookkeeping both builders share (scikit-learn's depth-first builder) --------------------
cdef inline intp_t _start(Record* stack, float64_t* T, intp_t n) noexcept nogil:
    """Fill the table T[i] = i log2 i (i = 0..n), push the root record; returns the stack size."""
    cdef intp_t i
    T[0] = 0.0
    for i in range(1, n + 1):
        T[i] = <float64_t>i * _log2(<float64_t>i)
    stack[0].start = 0
    stack[0].end = n
    stack[0].parent = -1
    stack[0].is_left = 0
    stack[0].n_constant = 0
    stack[0].impurity = 0.0
    stack[0].depth = 0
    return 1


cdef inline float64_t _improvement(intp_t start, intp_t best_pos, intp_t end, float64_t w_node,
                                   float64_t w_total, float64_t impurity, const float64_t* tot,
                                   const float64_t* best_cl, float64_t* cr,
                                   intp_t C) noexcept nogil:
    """scikit-learn's impurity improvement of the best split (0 when none was found)."""
    cdef float64_t wl, wr
    cdef intp_t k
    if best_pos >= end:
        return 0.0
    wl = <float64_t>(best_pos - start)
    wr = w_node - wl
    for k in range(C):
        cr[k] = tot[k] - best_cl[k]
    return ((w_node / w_total) * (impurity - (wr / w_node * _entropy(cr, C, wr))
                                  - (wl / w_node * _entropy(best_cl, C, wl))))


cdef inline void _link(Record* rec, intp_t node, intp_t* left, intp_t* right, float64_t* value,
                       const float64_t* tot, intp_t C, float64_t w_node) noexcept nogil:
    """Attach ``node`` to its parent and store its class fractions."""
    cdef intp_t k
    if rec.parent >= 0:
        if rec.is_left:
            left[rec.parent] = node
        else:
            right[rec.parent] = node
    for k in range(C):
        value[k] = tot[k] / w_node


cdef inline intp_t _push_children(Record* stack, intp_t top, Record* rec, intp_t node,
                                  intp_t best_pos, intp_t n_total, const float64_t* tot,
                                  const float64_t* best_cl, float64_t* cr, intp_t C,
                                  float64_t w_node) noexcept nogil:
    """Push the right child, then the left (so the left is grown first, scikit-learn's order)."""
    cdef intp_t k
    for k in range(C):
        cr[k] = tot[k] - best_cl[k]
    stack[top].start = best_pos
    stack[top].end = rec.end
    stack[top].parent = node
    stack[top].is_left = 0
    stack[top].n_constant = n_total
    stack[top].depth = rec.depth + 1
    stack[top].impurity = _entropy(cr, C, w_node - <float64_t>(best_pos - rec.start))
    top += 1
    stack[top].start = rec.start
    stack[top].end = best_pos
    stack[top].parent = node
    stack[top].is_left = 1
    stack[top].n_constant = n_total
    stack[top].depth = rec.depth + 1
    stack[top].impurity = _entropy(best_cl, C, <float64_t>(best_pos - rec.start))
    return top + 1


def grow_tree(const float32_t[:, ::1] Xl, intp_t[:, ::1] S, const intp_t[::1] y, intp_t n_classes,
              uint32_t rand_state, intp_t min_samples_leaf=1, intp_t max_depth=-1):
    """Grow one entropy tree; return ``(feature, threshold, left, right, value)`` arrays.

    ``Xl`` (p, n) holds the tree's rows feature by feature (float32, the values scikit-learn sees);
    ``S`` (p + 1, n) is overwritten: row f starts as the rows sorted by feature f, row p as
    0..n-1; ``y`` the class codes 0..n_classes-1; ``rand_state`` the splitter's xorshift seed;
    ``min_samples_leaf`` as scikit-learn's (``min_samples_split`` is then ``2 * min_samples_leaf``);
    ``max_depth`` as scikit-learn's, negative for none.
    ``left``/``right`` are -1 at leaves; ``value`` (nodes, n_classes) the class fractions of each
    node (scikit-learn's ``tree_.value``, which ``predict_proba`` returns for the leaf reached).
    """
    cdef intp_t p = Xl.shape[0], n = Xl.shape[1], max_nodes = 2 * n + 1
    feature_a = np.full(max_nodes, -2, dtype=np.intp)
    threshold_a = np.full(max_nodes, -2.0)
    left_a = np.full(max_nodes, LEAF, dtype=np.intp)
    right_a = np.full(max_nodes, LEAF, dtype=np.intp)
    value_a = np.zeros((max_nodes, n_classes))
    T_a = np.zeros(n + 1)
    features_a = np.arange(p, dtype=np.intp)
    constant_a = np.zeros(p, dtype=np.intp)
    stamp_a = np.full(p, -1, dtype=np.intp)
    goes_left_a = np.zeros(n, dtype=np.uint8)
    tmp_a = np.zeros(n, dtype=np.intp)
    counts_a = np.zeros(4 * n_classes)
    icounts_a = np.zeros(2 * n_classes, dtype=np.intp)
    stack_a = np.zeros(max_nodes * sizeof(Record), dtype=np.uint8)
    cdef intp_t[::1] feature = feature_a, left = left_a, right = right_a
    cdef intp_t[::1] features = features_a, constant_features = constant_a, stamp = stamp_a
    cdef intp_t[::1] tmp = tmp_a, icounts = icounts_a
    cdef float32_t[::1] dval = np.empty(p, dtype=np.float32)
    cdef float64_t[::1] threshold = threshold_a, T = T_a, counts = counts_a
    cdef float64_t[:, ::1] value = value_a
    cdef uint8_t[::1] goes_left = goes_left_a
    cdef uint8_t[::1] stack_mem = stack_a
    cdef Record* stack = <Record*>&stack_mem[0]
    cdef intp_t node_count
    with nogil:
        node_count = _grow(Xl, S, y, n_classes, rand_state, min_samples_leaf, max_depth, feature,
                           threshold, left, right, value, T, features, constant_features, stamp,
                           goes_left, tmp, counts, icounts, stack, dval)
    return (feature_a[:node_count], threshold_a[:node_count], left_a[:node_count],
            right_a[:node_count], value_a[:node_count])


cdef intp_t _grow(const float32_t[:, ::1] Xl, intp_t[:, ::1] S, const intp_t[::1] y,
                  intp_t C, uint32_t rand_state, intp_t msl, intp_t max_depth,
                  intp_t[::1] feature,
                  float64_t[::1] threshold, intp_t[::1] left, intp_t[::1] right,
                  float64_t[:, ::1] value, float64_t[::1] T,
                  intp_t[::1] features, intp_t[::1] constant_features, intp_t[::1] stamp,
                  uint8_t[::1] goes_left, intp_t[::1] tmp, float64_t[::1] counts,
                  intp_t[::1] icounts, Record* stack, float32_t[::1] dval) noexcept nogil:
    cdef intp_t p = Xl.shape[0], n = Xl.shape[1]
    cdef float64_t* tot = &counts[0]
    cdef float64_t* cl = &counts[C]
    cdef float64_t* cr = &counts[2 * C]
    cdef float64_t* best_cl = &counts[3 * C]
    # integer twins of the left and node class counts: the scan's table lookups index with them
    # directly (no float-to-int conversion per candidate); the exact score reads cl / cr
    cdef intp_t* icl = &icounts[0]
    cdef intp_t* itot = &icounts[C]
    cdef float64_t w_total = <float64_t>n, w_node, wl, wr, approx, exact, margin
    cdef float64_t best_proxy, best_approx, best_thr, impurity, improvement
    cdef const float32_t* xs
    cdef intp_t* seg
    cdef intp_t* sam
    cdef intp_t i, k, f, q, pos, p_prev, nl, nr, top = 0, node_count = 0, node
    cdef intp_t start, end, n_total
    cdef Draw draw
    cdef intp_t best_pos, best_f, a, b, t, g
    cdef bint is_leaf, first = True
    cdef float32_t dv
    cdef intp_t b0, b1
    cdef Record rec

    for f in range(p):
        dval[f] = Xl[f, S[f, n // 2]]
    top = _start(stack, &T[0], n)
    while top > 0:
        top -= 1
        rec = stack[top]
        start = rec.start
        end = rec.end
        sam = &S[p, 0]
        w_node = <float64_t>(end - start)
        for k in range(C):
            tot[k] = 0.0
        for i in range(start, end):
            tot[y[sam[i]]] += 1.0
        for k in range(C):
            itot[k] = <intp_t>tot[k]
        if first:
            rec.impurity = _entropy(tot, C, w_node)
            first = False
        impurity = rec.impurity
        # min_samples_split = max(2, 2 * min_samples_leaf); then the builder's impurity test
        is_leaf = ((end - start) < 2 or (end - start) < 2 * msl or impurity <= EPSILON
                   or 0 <= max_depth <= rec.depth)
        best_pos = end
        best_f = -2
        best_thr = -2.0
        n_total = rec.n_constant
        if not is_leaf:
            # ---- scikit-learn's node_split_best, with presorted segments ----
            draw_start(&draw, p, rec.n_constant)
            best_proxy = -INFINITY
            best_approx = best_proxy
            # the table score and the exact score differ by far less than this (both are within
            # a few ulp of (end - start) * log2(end - start) per term)
            margin = 1e-9 * (w_node + 16.0)
            while draw_more(&draw, p):
                f = draw_next(&draw, &features[0], &rand_state)
                if f < 0:
                    continue
                seg = &S[f, 0]
                xs = &Xl[f, 0]
                if xs[seg[end - 1]] <= xs[seg[start]] + FEATURE_THRESHOLD:
                    draw_constant(&draw, &features[0])
                    continue
                draw_keep(&draw, &features[0])
                for k in range(C):
                    icl[k] = 0
                # the run [b0, b1) of the column's median value (the shared value of a sparse
                # column): its inner ties are skipped in one step, and its counts come from the
                # shorter side
                dv = dval[f]
                b0 = start
                b1 = end if end - start >= 64 else start  # small nodes: not worth the searches
                while b0 < b1:
                    a = (b0 + b1) // 2
                    if xs[seg[a]] < dv:
                        b0 = a + 1
                    else:
                        b1 = a
                b1 = end if end - start >= 64 else start
                a = b0
                while a < b1:
                    t = (a + b1) // 2
                    if xs[seg[t]] <= dv:
                        a = t + 1
                    else:
                        b1 = t
                q = start
                pos = start
                while pos < end:
                    pos += 1
                    while pos < end and xs[seg[pos]] <= xs[seg[pos - 1]] + FEATURE_THRESHOLD:
                        if b0 < pos < b1:
                            pos = b1  # every comparison inside the run holds (equal values)
                        else:
                            pos += 1
                    p_prev = pos - 1
                    if pos == end:
                        continue
                    if pos - q > end - pos:
                        # left counts = node counts - counts right of pos (same integers, exact)
                        for k in range(C):
                            icl[k] = itot[k]
                        for i in range(pos, end):
                            icl[y[seg[i]]] -= 1
                        q = pos
                    while q < pos:
                        icl[y[seg[q]]] += 1
                        q += 1
                    nl = pos - start
                    nr = end - pos
                    if nl < msl or nr < msl:
                        continue
                    approx = -T[nl] - T[nr]
                    # COCOA's binary and tri-class targets, unrolled (the same sum, same order)
                    if C == 2:
                        approx += (T[icl[0]] + T[itot[0] - icl[0]]
                                   + T[icl[1]] + T[itot[1] - icl[1]])
                    elif C == 3:
                        approx += (T[icl[0]] + T[itot[0] - icl[0]]
                                   + T[icl[1]] + T[itot[1] - icl[1]]
                                   + T[icl[2]] + T[itot[2] - icl[2]])
                    else:
                        for k in range(C):
                            approx += T[icl[k]] + T[itot[k] - icl[k]]
                    if approx < best_approx - margin:
                        continue
                    for k in range(C):
                        cl[k] = <float64_t>icl[k]
                        cr[k] = <float64_t>(itot[k] - icl[k])
                    wl = <float64_t>nl
                    wr = w_node - wl
                    exact = -wr * _entropy(cr, C, wr) - wl * _entropy(cl, C, wl)
                    if exact > best_proxy:
                        best_proxy = exact
                        best_approx = approx
                        best_pos = pos
                        best_f = f
                        best_thr = xs[seg[p_prev]] / 2.0 + xs[seg[pos]] / 2.0
                        for k in range(C):
                            best_cl[k] = cl[k]
            improvement = _improvement(start, best_pos, end, w_node, w_total, impurity, tot,
                                       best_cl, cr, C)
            draw_finish(&draw, &features[0], &constant_features[0])
            n_total = draw.n_total
            is_leaf = best_pos >= end or improvement + EPSILON < 0.0
        node = node_count
        node_count += 1
        _link(&rec, node, &left[0], &right[0], &value[node, 0], tot, C, w_node)
        if is_leaf:
            continue
        feature[node] = best_f
        threshold[node] = best_thr
        # partition every still-useful feature's segment (and the sample row) stably
        seg = &S[best_f, 0]
        for i in range(start, end):
            goes_left[seg[i]] = i < best_pos
        for i in range(n_total):
            stamp[constant_features[i]] = node
        for f in range(p + 1):
            if f < p and (f == best_f or stamp[f] == node):
                continue
            seg = &S[f, 0]
            # branch-free: each row is written to both places and only the right counter moves
            # (seg[a] with a <= i was already read); a branch here mispredicted half the time
            a = start
            b = 0
            for i in range(start, end):
                t = seg[i]
                g = goes_left[t]
                seg[a] = t
                tmp[b] = t
                a += g
                b += 1 - g
            for i in range(b):
                seg[a + i] = tmp[i]
        top = _push_children(stack, top, &rec, node, best_pos, n_total, tot, best_cl, cr, C,
                             w_node)
    return node_count


def gather_transpose(const float32_t[:, ::1] X, const intp_t[::1] rows):
    """``X[rows].T`` as a C-contiguous (p, len(rows)) array, in one pass by 64 x 64 tiles (NumPy
    copies twice, the second time across the cache lines of a transposed view)."""
    cdef intp_t m = rows.shape[0], p = X.shape[1], i0, f0, i, f, i1, f1, r
    for i in range(m):
        if rows[i] < 0 or rows[i] >= X.shape[0]:
            raise IndexError(f"row {rows[i]} outside X's {X.shape[0]} rows")
    out_a = np.empty((p, m), dtype=np.float32)
    cdef float32_t[:, ::1] out = out_a
    with nogil:
        for i0 in range(0, m, 64):
            i1 = min(i0 + 64, m)
            for f0 in range(0, p, 64):
                f1 = min(f0 + 64, p)
                for i in range(i0, i1):
                    r = rows[i]
                    for f in range(f0, f1):
                        out[f, i] = X[r, f]
    return out_a


def subset_presorted(const float32_t[:, ::1] XT, const intp_t[:, ::1] S,
                     const intp_t[::1] features, const intp_t[::1] rows):
    """A bagged tree's input for :func:`grow_tree`, taken from columns sorted once for all trees.

    ``XT`` (P, n) holds all of X's columns (``gather_transpose(X, all rows)``), ``S`` (P, n) each
    of them sorted (:func:`presort`); the tree reads the columns ``features`` (in that order) of
    the rows ``rows`` (strictly increasing).  Returns ``(Xl, St)``: ``Xl[f] = XT[features[f],
    rows]`` and ``St`` (p + 1, m) whose row f lists the tree-local positions of ``rows`` in the
    order ``S[features[f]]`` sorts them, its last row 0..m-1: what ``presort`` of ``Xl`` gives up
    to the order among equal values, which the builder does not read.  O(p n) instead of a sort
    per column.  Every index is checked: a row of ``S`` that is not a permutation of 0..n-1 is an
    error.
    """
    cdef intp_t P = XT.shape[0], n = XT.shape[1], p = features.shape[0], m = rows.shape[0]
    cdef intp_t f, F, i, j, k, r, l, bad = 0
    if S.shape[0] != P or S.shape[1] != n:
        raise ValueError(f"subset_presorted: S is {S.shape[0]} x {S.shape[1]}, XT {P} x {n}")
    for f in range(p):
        if features[f] < 0 or features[f] >= P:
            raise IndexError(f"feature {features[f]} outside X's {P} columns")
    for i in range(m):
        if rows[i] < 0 or rows[i] >= n or (i > 0 and rows[i] <= rows[i - 1]):
            raise IndexError(f"rows must be increasing indices below {n}; got {rows[i]} at {i}")
    local_a = np.full(n, -1, dtype=np.intp)
    seen_a = np.full(n, -1, dtype=np.intp)
    Xl_a = np.empty((p, m), dtype=np.float32)
    St_a = np.empty((p + 1, m), dtype=np.intp)
    cdef intp_t[::1] local = local_a, seen = seen_a
    cdef float32_t[:, ::1] Xl = Xl_a
    cdef intp_t[:, ::1] St = St_a
    cdef const float32_t* x
    cdef const intp_t* s
    cdef intp_t* out
    with nogil:
        for i in range(m):
            local[rows[i]] = i
            St[p, i] = i
        for f in range(p):
            F = features[f]
            x = &XT[F, 0]
            for i in range(m):
                Xl[f, i] = x[rows[i]]
            s = &S[F, 0]
            out = &St[f, 0]
            k = 0
            for j in range(n):
                r = s[j]
                if r < 0 or r >= n or seen[r] == f:
                    bad = 1
                    break
                seen[r] = f
                l = local[r]
                if l >= 0:
                    if k >= m:
                        bad = 1
                        break
                    out[k] = l
                    k += 1
            if bad or k != m:
                bad = 1
                break
    if bad:
        raise ValueError("subset_presorted: a row of S is not a permutation of X's rows")
    return Xl_a, St_a


cdef inline intp_t _count_equal(const float32_t* x, intp_t n, float32_t v) noexcept nogil:
    cdef intp_t i, c = 0
    for i in range(n):
        c += x[i] == v
    return c


def presort_majority(const float32_t[:, ::1] Xl, intp_t[:, ::1] S):
    """Sort the rows of ``Xl`` (features x tree rows) that have a majority value into ``S``.

    Bag-of-words columns (and standardised ones: their zero becomes one other value) hold one value
    in most rows.  For such a column only the minority is sorted: the rows below the majority
    value, sorted, then the majority rows in row order, then the rows above it, sorted - O(n + k
    log k) for k minority rows instead of a sort of all n.  The order among equal values is free
    (see :func:`grow_tree`).  The candidate is the value shared by two of the first, middle and
    last rows (a majority value is, nearly always), else Boyer-Moore's majority vote; it is kept
    if it fills more than half the row.  Returns a uint8 mask of the features done; the others
    are left to the caller.
    """
    cdef intp_t p = Xl.shape[0], n = Xl.shape[1], f, i, count, lo, hi, ne
    cdef float32_t cand, v
    if S.shape[0] < p or S.shape[1] != n:
        raise ValueError(f"presort_majority: S is {S.shape[0]} x {S.shape[1]}, Xl {p} x {n}")
    done_a = np.zeros(p, dtype=np.uint8)
    cdef uint8_t[::1] done = done_a
    cdef float32_t[::1] buf = np.empty(max(n, 1), dtype=np.float32)
    cdef intp_t[::1] idx = np.empty(max(n, 1), dtype=np.intp)
    cdef intp_t[::1] eq = np.empty(max(n, 1), dtype=np.intp)
    cdef const float32_t* x
    cdef intp_t* out
    if n == 0:
        return done_a
    with nogil:
        for f in range(p):
            x = &Xl[f, 0]
            cand = x[n // 2]
            if x[0] == x[n - 1]:
                cand = x[0]
            count = _count_equal(x, n, cand)
            if 2 * count <= n:
                count = 0
                for i in range(n):
                    if count == 0:
                        cand = x[i]
                        count = 1
                    elif x[i] == cand:
                        count += 1
                    else:
                        count -= 1
                count = _count_equal(x, n, cand)
                if 2 * count <= n:
                    continue
            out = &S[f, 0]
            # one pass: the rows below the majority value to the front of buf/idx, those above
            # it to the back, the majority rows to eq (in row order)
            lo = 0
            hi = n
            ne = 0
            for i in range(n):
                v = x[i]
                if v == cand:
                    eq[ne] = i
                    ne += 1
                elif v < cand:
                    buf[lo] = v
                    idx[lo] = i
                    lo += 1
                else:
                    hi -= 1
                    buf[hi] = v
                    idx[hi] = i
            if lo + (n - hi) + ne != n:
                continue    # a NaN compares neither way: left to the caller's sort
            sort_pairs(&buf[0], &idx[0], lo)
            sort_pairs(&buf[hi], &idx[hi], n - hi)
            memcpy(out, &idx[0], lo * sizeof(intp_t))
            memcpy(&out[lo], &eq[0], ne * sizeof(intp_t))
            memcpy(&out[lo + ne], &idx[hi], (n - hi) * sizeof(intp_t))
            done[f] = 1
    return done_a


ctypedef fused real_t:
    float32_t
    float64_t


def apply_tree(const real_t[:, :] X, const intp_t[::1] feature,
               const float64_t[::1] threshold, const intp_t[::1] left, const intp_t[::1] right):
    """Leaf reached by each row of ``X`` (``x_f <= t``: left).

    ``X`` is float32, or float64 in any memory layout: each value read is rounded to float32 first,
    which is what scikit-learn's conversion of the whole of X to float32 gives, without the copy
    (a classifier chain asks its trees about column slices of one float64 array).
    """
    cdef intp_t n = X.shape[0], i, node
    out_a = np.empty(n, dtype=np.intp)
    cdef intp_t[::1] out = out_a
    with nogil:
        for i in range(n):
            node = 0
            while left[node] != LEAF:
                if <float32_t>X[i, feature[node]] <= threshold[node]:
                    node = left[node]
                else:
                    node = right[node]
            out[i] = node
    return out_a


# ---- two-valued columns (bag-of-words, 0/1 indicators): class counts by bit operations ---------
#
# When every column takes at most two values on a tree's rows (enron and medical after the soshf
# preprocessing; chained 0/1 labels), each feature has exactly one candidate threshold in a node,
# between its two values, and the split's class counts are the node's counts of rows holding the
# high value.  :func:`grow_tree_binary` reads those counts from bit sets (one bit per tree row)
# instead of keeping a sorted copy of every feature and partitioning it at every split: the presort,
# the per-feature scans and the per-feature partitions of :func:`grow_tree` all disappear, which
# made enron's trees about ten times faster.  Everything that decides the tree - the xorshift
# visit of the features, the constant-feature bookkeeping, the table pre-filter, the exact score
# with its strict ``>``, the threshold (mean of the two float32 values), the leaf tests - is the
# code of :func:`_grow` above, so the tree is the same one (tests/methods/test_cocoa_fast.py).

ctypedef unsigned long long uint64_t

cdef uint64_t _M1 = 0x5555555555555555
cdef uint64_t _M2 = 0x3333333333333333
cdef uint64_t _M4 = 0x0F0F0F0F0F0F0F0F
cdef uint64_t _H01 = 0x0101010101010101


cdef inline intp_t _popcount(uint64_t x) noexcept nogil:
    # portable SWAR popcount: the extensions are built without -mpopcnt, and the builtin would
    # then be a library call
    x = x - ((x >> 1) & _M1)
    x = (x & _M2) + ((x >> 2) & _M2)
    x = (x + (x >> 4)) & _M4
    return <intp_t>((x * _H01) >> 56)


def two_valued_columns(const float32_t[:, ::1] X):
    """``(lo, hi, H)`` when every column of ``X`` takes at most two values, else ``None``.

    ``lo``/``hi`` (float32, p) are each column's smallest and largest value; ``H`` (n, p) uint8 is
    1 where ``X[i, f] == hi[f] > lo[f]``.  Both passes run along X's rows without branches, so
    the compiler vectorises them.
    """
    cdef intp_t n = X.shape[0], p = X.shape[1], i, f
    cdef uint8_t bad = 0
    cdef float32_t v, a, b
    if n == 0:
        return None
    lo_a = np.empty(p, dtype=np.float32)
    hi_a = np.empty(p, dtype=np.float32)
    H_a = np.empty((n, p), dtype=np.uint8)
    cdef float32_t[::1] lo_v = lo_a, hi_v = hi_a
    cdef uint8_t[:, ::1] H_v = H_a
    cdef float32_t* lo = &lo_v[0]
    cdef float32_t* hi = &hi_v[0]
    cdef const float32_t* row
    cdef uint8_t* h
    with nogil:
        row = &X[0, 0]
        for f in range(p):
            lo[f] = row[f]
            hi[f] = row[f]
        for i in range(1, n):
            row = &X[i, 0]
            for f in range(p):
                v = row[f]
                a = lo[f]
                b = hi[f]
                lo[f] = v if v < a else a
                hi[f] = v if v > b else b
        for i in range(n):
            row = &X[i, 0]
            h = &H_v[i, 0]
            for f in range(p):
                v = row[f]
                h[f] = (v == hi[f]) & (hi[f] != lo[f])
                bad |= (v != hi[f]) & (v != lo[f])
            if bad:
                break
    return None if bad else (lo_a, hi_a, H_a)


def pack_rows(const uint8_t[:, ::1] H, const intp_t[::1] rows):
    """Bit sets of ``rows`` for :func:`grow_tree_binary`: (p, ceil(m / 64)) uint64 whose bit i of
    column f is ``H[rows[i], f]``."""
    cdef intp_t p = H.shape[1], m = rows.shape[0], W = (m + 63) // 64, f, i, w
    B_a = np.zeros((p, W), dtype=np.uint64)
    cdef uint64_t[:, ::1] B_v = B_a
    cdef uint64_t* B = &B_v[0, 0]
    cdef const uint8_t* h
    cdef uint64_t sh
    with nogil:
        for i in range(m):
            h = &H[rows[i], 0]
            w = i >> 6
            sh = i & 63
            for f in range(p):
                B[f * W + w] |= (<uint64_t>h[f]) << sh
    return B_a


def grow_tree_binary(const uint64_t[:, ::1] B, const float32_t[::1] lo, const float32_t[::1] hi,
                     const intp_t[::1] y, intp_t n_classes, uint32_t rand_state,
                     intp_t min_samples_leaf=1, intp_t max_depth=-1):
    """:func:`grow_tree` for two-valued columns; same result.

    ``B`` from :func:`pack_rows` (bit i = the tree's row i holds ``hi``), ``lo``/``hi`` from
    :func:`two_valued_columns` (a column may be constant on the tree's rows: its bits are then all
    equal); ``y`` (n) holds the class codes of the tree's rows.
    """
    cdef intp_t p = B.shape[0], W = B.shape[1], n = y.shape[0], max_nodes = 2 * n + 1
    if W != (n + 63) // 64 or lo.shape[0] != p or hi.shape[0] != p:
        raise ValueError("B, lo, hi and y disagree on the number of rows or features")
    feature_a = np.full(max_nodes, -2, dtype=np.intp)
    threshold_a = np.full(max_nodes, -2.0)
    left_a = np.full(max_nodes, LEAF, dtype=np.intp)
    right_a = np.full(max_nodes, LEAF, dtype=np.intp)
    value_a = np.zeros((max_nodes, n_classes))
    T_a = np.zeros(n + 1)
    features_a = np.arange(p, dtype=np.intp)
    constant_a = np.zeros(p, dtype=np.intp)
    order_a = np.arange(n, dtype=np.intp)
    tmp_a = np.zeros(n, dtype=np.intp)
    counts_a = np.zeros(5 * n_classes)
    nodebits_a = np.zeros((n_classes, W), dtype=np.uint64)
    stack_a = np.zeros(max_nodes * sizeof(Record), dtype=np.uint8)
    cdef intp_t[::1] feature = feature_a, left = left_a, right = right_a
    cdef intp_t[::1] features = features_a, constant_features = constant_a
    cdef intp_t[::1] order = order_a, tmp = tmp_a
    cdef float64_t[::1] threshold = threshold_a, T = T_a, counts = counts_a
    cdef float64_t[:, ::1] value = value_a
    cdef uint64_t[:, ::1] nodebits = nodebits_a
    cdef uint8_t[::1] stack_mem = stack_a
    cdef Record* stack = <Record*>&stack_mem[0]
    cdef intp_t node_count
    with nogil:
        node_count = _grow_binary(B, lo, hi, y, n_classes, rand_state, min_samples_leaf, max_depth,
                                  feature, threshold, left, right, value, T, features,
                                  constant_features, order, tmp, counts, nodebits, stack)
    return (feature_a[:node_count], threshold_a[:node_count], left_a[:node_count],
            right_a[:node_count], value_a[:node_count])


cdef intp_t _grow_binary(const uint64_t[:, ::1] B, const float32_t[::1] lo,
                         const float32_t[::1] hi, const intp_t[::1] y, intp_t C,
                         uint32_t rand_state, intp_t msl, intp_t max_depth,
                         intp_t[::1] feature,
                         float64_t[::1] threshold, intp_t[::1] left, intp_t[::1] right,
                         float64_t[:, ::1] value, float64_t[::1] T, intp_t[::1] features,
                         intp_t[::1] constant_features, intp_t[::1] order, intp_t[::1] tmp,
                         float64_t[::1] counts, uint64_t[:, ::1] nodebits,
                         Record* stack) noexcept nogil:
    cdef intp_t p = B.shape[0], W = B.shape[1], n = y.shape[0]
    cdef float64_t* tot = &counts[0]
    cdef float64_t* cl = &counts[C]
    cdef float64_t* cr = &counts[2 * C]
    cdef float64_t* best_cl = &counts[3 * C]
    cdef float64_t* hc = &counts[4 * C]
    cdef float64_t w_total = <float64_t>n, w_node, wl, wr, approx, exact, margin
    cdef float64_t best_proxy, best_approx, best_thr, impurity, improvement
    cdef const uint64_t* col
    cdef intp_t i, k, f, nl, nr, n_hi, m, top = 0, node_count = 0, node, r
    cdef intp_t start, end, n_total
    cdef Draw draw
    cdef intp_t best_pos, best_f, a, b, w, w_lo, w_hi, g
    cdef bint is_leaf, first = True, by_rows
    cdef uint64_t word
    cdef Record rec

    top = _start(stack, &T[0], n)
    while top > 0:
        top -= 1
        rec = stack[top]
        start = rec.start
        end = rec.end
        m = end - start
        w_node = <float64_t>m
        for k in range(C):
            tot[k] = 0.0
        for i in range(start, end):
            tot[y[order[i]]] += 1.0
        if first:
            rec.impurity = _entropy(tot, C, w_node)
            first = False
        impurity = rec.impurity
        is_leaf = m < 2 or m < 2 * msl or impurity <= EPSILON or 0 <= max_depth <= rec.depth
        best_pos = end
        best_f = -2
        best_thr = -2.0
        n_total = rec.n_constant
        if not is_leaf:
            # the node's rows as one bit set per class, over the words they occupy; a small node
            # is counted row by row instead (fewer operations than C * words popcounts)
            by_rows = m < 2 * C * W
            w_lo = W
            w_hi = 0
            if not by_rows:
                for k in range(C):
                    for w in range(W):
                        nodebits[k, w] = 0
                for i in range(start, end):
                    r = order[i]
                    nodebits[y[r], r >> 6] |= (<uint64_t>1) << (r & 63)
                    w_lo = min(w_lo, r >> 6)
                    w_hi = max(w_hi, (r >> 6) + 1)
            # ---- scikit-learn's node_split_best; one candidate per feature ----
            draw_start(&draw, p, rec.n_constant)
            best_proxy = -INFINITY
            best_approx = best_proxy
            margin = 1e-9 * (w_node + 16.0)
            while draw_more(&draw, p):
                f = draw_next(&draw, &features[0], &rand_state)
                if f < 0:
                    continue
                n_hi = 0
                if hi[f] > lo[f] + FEATURE_THRESHOLD:
                    col = &B[f, 0]
                    for k in range(C):
                        hc[k] = 0.0
                    if by_rows:
                        for i in range(start, end):
                            r = order[i]
                            if (col[r >> 6] >> (r & 63)) & 1:
                                hc[y[r]] += 1.0
                                n_hi += 1
                    else:
                        for k in range(C):
                            a = 0
                            for w in range(w_lo, w_hi):
                                a += _popcount(col[w] & nodebits[k, w])
                            hc[k] = <float64_t>a
                            n_hi += a
                # the constant test of scikit-learn (max <= min + FEATURE_THRESHOLD in the node)
                if n_hi == 0 or n_hi == m:
                    draw_constant(&draw, &features[0])
                    continue
                draw_keep(&draw, &features[0])
                # the one candidate: rows holding lo go left (x <= threshold), the others right
                nl = m - n_hi
                nr = n_hi
                if nl < msl or nr < msl:
                    continue
                for k in range(C):
                    cl[k] = tot[k] - hc[k]
                approx = -T[nl] - T[nr]
                for k in range(C):
                    approx += T[<intp_t>cl[k]] + T[<intp_t>hc[k]]
                if approx < best_approx - margin:
                    continue
                for k in range(C):
                    cr[k] = hc[k]
                wl = <float64_t>nl
                wr = w_node - wl
                exact = -wr * _entropy(cr, C, wr) - wl * _entropy(cl, C, wl)
                if exact > best_proxy:
                    best_proxy = exact
                    best_approx = approx
                    best_pos = start + nl
                    best_f = f
                    best_thr = lo[f] / 2.0 + hi[f] / 2.0
                    for k in range(C):
                        best_cl[k] = cl[k]
            improvement = _improvement(start, best_pos, end, w_node, w_total, impurity, tot,
                                       best_cl, cr, C)
            draw_finish(&draw, &features[0], &constant_features[0])
            n_total = draw.n_total
            is_leaf = best_pos >= end or improvement + EPSILON < 0.0
        node = node_count
        node_count += 1
        _link(&rec, node, &left[0], &right[0], &value[node, 0], tot, C, w_node)
        if is_leaf:
            continue
        feature[node] = best_f
        threshold[node] = best_thr
        # stable partition of the node's rows: low value left, high value right
        col = &B[best_f, 0]
        a = start
        b = 0
        for i in range(start, end):
            r = order[i]
            g = (col[r >> 6] >> (r & 63)) & 1  # branch-free, as in _grow
            order[a] = r
            tmp[b] = r
            a += 1 - g
            b += g
        for i in range(b):
            order[a + i] = tmp[i]
        top = _push_children(stack, top, &rec, node, best_pos, n_total, tot, best_cl, cr, C,
                             w_node)
    return node_count
