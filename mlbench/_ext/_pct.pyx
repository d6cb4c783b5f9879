"""Multi-output variance trees on 0/1 targets, equal node for node to scikit-learn's.

RF-PCT and ERF-PCT (and every forest of the MLDF cascade) are scikit-learn's multi-output
regression forests (``criterion="squared_error"``) on the 0/1 label matrix Y (n, L).  There,
moving one row across a candidate threshold updates all L per-output sums (sklearn
``RegressionCriterion.update``), and the proxy score sums L squares, so a split search costs
O(n L) per candidate feature: on corel16k (153 labels) a fully grown tree took 27 times as long as
a single-output one.

Here the same sums are kept from the rows' *positive labels* only (Y as CSR; a corel16k row has
2.9 of 153).  With integer row weights (bootstrap counts) every per-label sum is an integer, and
the proxy's two sums of squares are updated exactly when a row of weight w moves left:

    Q_left  += sum_{k in P} (2 w S_left,k + w^2),    D += sum_{k in P} w S_total,k,
    Q_right  = Q_total - 2 D + Q_left                 (= sum_k (S_total,k - S_left,k)^2),

so a candidate costs O(|P|) per moved row.  scikit-learn adds the same integers in floating point
(exactly, below 2^53), so the proxy ``Q_left / W_left + Q_right / W_right``, the node values
``S_total,k / W``, and the impurities (written in scikit-learn's order of operations) are
bit-identical, and so is every split.

Everything else is scikit-learn 1.9's code path (sklearn/tree/_splitter.pyx, _partitioner.pyx,
_criterion.pyx, _tree.pyx): ``DepthFirstTreeBuilder`` (stack order, leaf tests against
``EPSILON``, ``min_impurity_decrease``), the Fisher-Yates visit of ``max_features`` features with
the constant-feature bookkeeping, ``node_split_best`` (sorted values, ``FEATURE_THRESHOLD`` tie
skipping, threshold = mean of two float32 values) and ``node_split_random`` (uniform threshold
between the node's min and max, drawn from the same xorshift stream).  The order of rows inside a
node differs from scikit-learn's, which changes nothing: every sum over a node is an exact integer.
``tests/methods/test_pct_fast.py`` compares every node array with scikit-learn's.

Scope (the caller checks it; anything else goes to scikit-learn): dense float32 X without NaN,
0/1 targets, integer weights, no monotonic constraints, no ``max_leaf_nodes``.
"""
import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY, pow

from mlbench._ext._sort cimport _u32, radix_sort_pairs
from mlbench._ext._sktree cimport (Draw, draw_constant, draw_finish, draw_keep, draw_more,
                                   draw_next, draw_start, rand_uniform, uint32_t)
from mlbench._ext._typedefs cimport float32_t, float64_t, int64_t, intp_t, uint8_t

cnp.import_array()

cdef float64_t FEATURE_THRESHOLD = 1e-7
cdef float64_t EPSILON = np.finfo("double").eps
cdef intp_t LEAF = -1
cdef intp_t UNDEFINED = -2


cdef struct Record:
    intp_t start
    intp_t end
    intp_t depth
    intp_t parent
    intp_t is_left
    intp_t n_constant
    float64_t impurity


cdef inline intp_t _push(Record* stack, intp_t top, intp_t start, intp_t end, intp_t depth,
                         intp_t parent, intp_t is_left, intp_t n_constant,
                         float64_t impurity) noexcept nogil:
    stack[top].start = start
    stack[top].end = end
    stack[top].depth = depth
    stack[top].parent = parent
    stack[top].is_left = is_left
    stack[top].n_constant = n_constant
    stack[top].impurity = impurity
    return top + 1


# ---- the criterion on positive labels ------------------------------------------------------------

cdef inline void _move(intp_t row, int64_t sign, const intp_t* yp, const intp_t* yi,
                       const int64_t* w, int64_t* S, const int64_t* S_total, int64_t* Q,
                       int64_t* D, int64_t* Wside) noexcept nogil:
    """Row ``row`` joins (sign 1) or leaves (sign -1) one side: that side's per-label sums S, its
    sum of squares Q = sum_k S_k^2 and D = sum_k S_k S_total,k move with the row's labels only."""
    cdef int64_t wr = sign * w[row]
    cdef intp_t j, k
    for j in range(yp[row], yp[row + 1]):
        k = yi[j]
        Q[0] += 2 * wr * S[k] + wr * wr
        D[0] += wr * S_total[k]
        S[k] += wr
    Wside[0] += wr


cdef inline void _clear(const intp_t* rows, intp_t a, intp_t b, const intp_t* yp,
                        const intp_t* yi, int64_t* S) noexcept nogil:
    """Zero S again after rows[a:b] were moved into it (touching their labels only)."""
    cdef intp_t p, j
    for p in range(a, b):
        for j in range(yp[rows[p]], yp[rows[p] + 1]):
            S[yi[j]] = 0


cdef inline float64_t _proxy(int64_t Q, int64_t D, bint right, int64_t Wside, int64_t QT,
                             int64_t W) noexcept nogil:
    """scikit-learn's MSE proxy_impurity_improvement from the exact sums of one side (the left
    child, or the right one when ``right``): the other side's sum of squares is
    sum_k (S_total,k - S_k)^2 = QT - 2 D + Q."""
    cdef int64_t QL = Q, QR = QT - 2 * D + Q, WL = Wside
    if right:
        QL, QR, WL = QR, Q, W - Wside
    return <float64_t>QL / <float64_t>WL + <float64_t>QR / <float64_t>(W - WL)


def grow_variance_tree(const float32_t[:, ::1] Xt, const intp_t[::1] yp, const intp_t[::1] yi,
                       intp_t n_outputs, const int64_t[::1] w, uint32_t rand_state,
                       intp_t max_features, intp_t max_depth, intp_t min_samples_leaf,
                       intp_t min_samples_split, float64_t min_impurity_decrease,
                       bint random_split, intp_t radix_min):
    """Grow one tree; returns ``(nodes, value, max_depth_seen)`` for scikit-learn's ``Tree``.

    ``Xt`` (p, n): X transposed (float32, the values scikit-learn compares); ``yp``/``yi``: the
    positive labels of each row as CSR (``yi[yp[i]:yp[i+1]]``, each in [0, n_outputs)); ``w`` (n):
    integer row weights (0: not in the tree); ``rand_state``: the splitter's xorshift seed;
    ``max_depth`` as scikit-learn's internal value (int32 max for none); ``min_samples_split``
    already ``max(min_samples_split, 2 * min_samples_leaf)``; ``random_split``: ExtraTree's
    splitter instead of the best one; ``radix_min``: nodes of at least this many rows sort their
    values by radix, smaller ones by introsort (the same tree either way).  ``nodes`` is a tuple
    of the node arrays (left, right, feature, threshold, impurity, n_node_samples,
    weighted_n_node_samples, missing_go_to_left); ``value`` (nodes, n_outputs) the node means.
    """
    cdef intp_t p = Xt.shape[0], n = Xt.shape[1], K = n_outputs
    cdef intp_t i, n_rows = 0
    # every index the kernel reads is checked here once (the loops run without bounds checks)
    if w.shape[0] != n or yp.shape[0] != n + 1 or K < 1:
        raise ValueError(f"grow_variance_tree: {n} rows in Xt, {w.shape[0]} weights, "
                         f"{yp.shape[0] - 1} label rows, {K} outputs")
    if yp[0] != 0 or yp[n] != yi.shape[0]:
        raise ValueError("grow_variance_tree: yp does not delimit yi")
    for i in range(n):
        if yp[i + 1] < yp[i]:
            raise ValueError("grow_variance_tree: yp decreases")
        if w[i] < 0:
            raise ValueError("grow_variance_tree: a negative row weight")
        if w[i] != 0:
            n_rows += 1
    for i in range(yi.shape[0]):
        if yi[i] < 0 or yi[i] >= K:
            raise ValueError(f"grow_variance_tree: label {yi[i]} outside [0, {K})")
    if n_rows == 0:
        raise ValueError("grow_variance_tree: no row has a positive weight")
    cdef intp_t no_label = 0
    cdef const intp_t* yi_ptr = &yi[0] if yi.shape[0] > 0 else &no_label
    cdef intp_t max_nodes = 2 * n_rows + 1
    left_a = np.full(max_nodes, LEAF, dtype=np.intp)
    right_a = np.full(max_nodes, LEAF, dtype=np.intp)
    feature_a = np.full(max_nodes, UNDEFINED, dtype=np.intp)
    threshold_a = np.full(max_nodes, <float64_t>UNDEFINED)
    impurity_a = np.zeros(max_nodes)
    n_node_a = np.zeros(max_nodes, dtype=np.intp)
    w_node_a = np.zeros(max_nodes)
    missing_left_a = np.zeros(max_nodes, dtype=np.uint8)
    value_a = np.empty((max_nodes, K))
    rows_a = np.flatnonzero(np.asarray(w)).astype(np.intp)
    cdef intp_t[::1] left = left_a, right = right_a, feature = feature_a, n_node = n_node_a
    cdef float64_t[::1] threshold = threshold_a, impurity = impurity_a, w_node = w_node_a
    cdef uint8_t[::1] missing_left = missing_left_a
    cdef float64_t[:, ::1] value = value_a
    cdef intp_t[::1] rows = rows_a
    cdef float32_t[::1] Xf = np.empty(max(n_rows, 1), dtype=np.float32)
    cdef _u32[::1] kbuf = np.empty(max(n_rows, 1), dtype=np.uint32)   # the radix sort's scratch
    cdef intp_t[::1] sbuf = np.empty(max(n_rows, 1), dtype=np.intp)
    cdef intp_t[::1] features = np.arange(p, dtype=np.intp)
    cdef intp_t[::1] constant_features = np.zeros(max(p, 1), dtype=np.intp)
    cdef int64_t[::1] S_side = np.zeros(max(K, 1), dtype=np.int64)
    cdef int64_t[::1] S_total = np.zeros(max(K, 1), dtype=np.int64)
    stack_a = np.zeros(max_nodes * sizeof(Record), dtype=np.uint8)
    cdef uint8_t[::1] stack_mem = stack_a
    cdef Record* stack = <Record*>&stack_mem[0]
    cdef intp_t node_count = 0, max_depth_seen = -1
    with nogil:
        _grow(Xt, &yp[0], yi_ptr, K, &w[0], rand_state, max_features, max_depth,
              min_samples_leaf, min_samples_split, min_impurity_decrease, random_split, radix_min,
              &rows[0], n_rows, &Xf[0], &kbuf[0], &sbuf[0], &features[0], &constant_features[0],
              &S_side[0], &S_total[0], stack, &left[0], &right[0], &feature[0], &threshold[0],
              &impurity[0], &n_node[0], &w_node[0], &missing_left[0], &value[0, 0], &node_count,
              &max_depth_seen)
    nodes = (left_a[:node_count], right_a[:node_count], feature_a[:node_count],
             threshold_a[:node_count], impurity_a[:node_count], n_node_a[:node_count],
             w_node_a[:node_count], missing_left_a[:node_count])
    return nodes, value_a[:node_count], max_depth_seen


cdef void _grow(const float32_t[:, ::1] Xt, const intp_t* yp, const intp_t* yi, intp_t K,
                const int64_t* w, uint32_t rand_state, intp_t max_features, intp_t max_depth,
                intp_t msl, intp_t mss, float64_t min_impurity_decrease, bint random_split,
                intp_t radix_min, intp_t* rows, intp_t n_rows, float32_t* Xf, _u32* kbuf,
                intp_t* sbuf, intp_t* features, intp_t* constant_features, int64_t* S_side,
                int64_t* S_total, Record* stack, intp_t* left, intp_t* right, intp_t* feature,
                float64_t* threshold, float64_t* impurity_out, intp_t* n_node, float64_t* w_node,
                uint8_t* missing_left, float64_t* value, intp_t* node_count_out,
                intp_t* max_depth_out) noexcept nogil:
    cdef intp_t p = Xt.shape[0]
    cdef intp_t top = 0, node_count = 0, max_depth_seen = -1, node
    cdef intp_t start, end, depth, k, j, q, pos, p_prev, n_left, n_right, r, a
    cdef intp_t f, n_total
    cdef Draw draw
    cdef int64_t W, WL, Ws, QT, Q, D, sq_total, sq_left, sq_side, sl, W_all = 0
    cdef float64_t imp, proxy, best_proxy, thr, best_thr, best_imp_left, best_imp_right
    cdef float64_t best_improvement, wl, wr, wn, imp_left, imp_right
    cdef float32_t vmin, vmax, v
    cdef const float32_t* xcol
    cdef intp_t best_f, best_pos, b
    cdef bint is_leaf, first = True, best_missing_left, on_right
    cdef Record rec

    for r in range(n_rows):
        W_all += w[rows[r]]
    top = _push(stack, 0, 0, n_rows, 0, UNDEFINED, 0, 0, INFINITY)
    while top > 0:
        top -= 1
        rec = stack[top]
        start = rec.start
        end = rec.end
        depth = rec.depth
        # criterion.init: the node's weight, per-label sums and sum of squares (0/1: sum w |P|)
        W = 0
        sq_total = 0
        for k in range(K):
            S_total[k] = 0
        for q in range(start, end):
            r = rows[q]
            W += w[r]
            sq_total += w[r] * (yp[r + 1] - yp[r])
            for j in range(yp[r], yp[r + 1]):
                S_total[yi[j]] += w[r]
        QT = 0
        for k in range(K):
            QT += S_total[k] * S_total[k]
        wn = <float64_t>W
        is_leaf = depth >= max_depth or end - start < mss or end - start < 2 * msl
        if first:
            imp = <float64_t>sq_total / wn
            for k in range(K):
                imp -= pow(<float64_t>S_total[k] / wn, 2.0)
            rec.impurity = imp / K
            first = False
        is_leaf = is_leaf or rec.impurity <= EPSILON
        best_pos = end
        best_f = 0
        best_thr = 0.0
        best_missing_left = False
        best_improvement = -INFINITY
        best_imp_left = INFINITY
        best_imp_right = INFINITY
        n_total = rec.n_constant
        if not is_leaf:
            # ---- node_split_best / node_split_random ----
            draw_start(&draw, p, rec.n_constant)
            best_proxy = -INFINITY
            while draw_more(&draw, max_features):
                f = draw_next(&draw, features, &rand_state)
                if f < 0:
                    continue
                xcol = &Xt[f, 0]
                if not random_split:
                    for q in range(start, end):
                        Xf[q] = xcol[rows[q]]
                    radix_sort_pairs(&Xf[start], &rows[start], end - start, kbuf, sbuf,
                                     radix_min)
                    if Xf[end - 1] <= Xf[start] + FEATURE_THRESHOLD:
                        draw_constant(&draw, features)
                        continue
                    draw_keep(&draw, features)
                    # the sums of one side, as scikit-learn's criterion.update keeps them: the
                    # left rows[start:q], or (once the next candidate is nearer the end) the
                    # right rows[q:end]; sparse 0/1 features split near the end
                    Q = 0
                    D = 0
                    Ws = 0
                    on_right = False
                    q = start
                    pos = start
                    while pos < end:
                        # partitioner.next_p
                        while pos + 1 < end and Xf[pos + 1] <= Xf[pos] + FEATURE_THRESHOLD:
                            pos += 1
                        p_prev = pos
                        pos += 1
                        if pos == end:
                            continue
                        n_left = pos - start
                        n_right = end - pos
                        if n_left < msl or n_right < msl:
                            continue
                        if not on_right and pos - q > end - pos:
                            _clear(rows, start, q, yp, yi, S_side)
                            Q = 0
                            D = 0
                            Ws = 0
                            for q in range(pos, end):
                                _move(rows[q], 1, yp, yi, w, S_side, S_total, &Q, &D, &Ws)
                            on_right = True
                            q = pos
                        elif on_right:
                            while q < pos:
                                _move(rows[q], -1, yp, yi, w, S_side, S_total, &Q, &D, &Ws)
                                q += 1
                        else:
                            while q < pos:
                                _move(rows[q], 1, yp, yi, w, S_side, S_total, &Q, &D, &Ws)
                                q += 1
                        proxy = _proxy(Q, D, on_right, Ws, QT, W)
                        if proxy > best_proxy:
                            best_proxy = proxy
                            best_f = f
                            best_pos = pos
                            best_thr = Xf[p_prev] / 2.0 + Xf[pos] / 2.0
                            best_missing_left = n_left > n_right
                    if on_right:
                        _clear(rows, q, end, yp, yi, S_side)
                    else:
                        _clear(rows, start, q, yp, yi, S_side)
                else:
                    # partitioner.find_min_max
                    vmin = xcol[rows[start]]
                    vmax = vmin
                    for q in range(start + 1, end):
                        v = xcol[rows[q]]
                        if v < vmin:
                            vmin = v
                        elif v > vmax:
                            vmax = v
                    if vmax <= vmin + FEATURE_THRESHOLD:
                        draw_constant(&draw, features)
                        continue
                    draw_keep(&draw, features)
                    thr = rand_uniform(vmin, vmax, &rand_state)
                    if thr == vmax:
                        thr = vmin
                    n_left = 0
                    for q in range(start, end):
                        n_left += xcol[rows[q]] <= thr
                    n_right = end - start - n_left
                    if n_left < msl or n_right < msl:
                        continue
                    # the sums of the smaller side (rows are not moved: their values decide)
                    on_right = n_left > n_right
                    Q = 0
                    D = 0
                    Ws = 0
                    for q in range(start, end):
                        if (xcol[rows[q]] <= thr) != on_right:
                            _move(rows[q], 1, yp, yi, w, S_side, S_total, &Q, &D, &Ws)
                    for q in range(start, end):
                        if (xcol[rows[q]] <= thr) != on_right:
                            for j in range(yp[rows[q]], yp[rows[q] + 1]):
                                S_side[yi[j]] = 0
                    proxy = _proxy(Q, D, on_right, Ws, QT, W)
                    if proxy > best_proxy:
                        best_proxy = proxy
                        best_f = f
                        best_pos = start + n_left
                        best_thr = thr
                        best_missing_left = n_left > n_right
            if best_pos < end:
                # partition_samples_final, then criterion.update and children_impurity
                xcol = &Xt[best_f, 0]
                a = start
                for q in range(start, end):
                    if xcol[rows[q]] <= best_thr:
                        rows[a], rows[q] = rows[q], rows[a]
                        a += 1
                # the left child's sums (from the smaller side), then children_impurity
                on_right = best_pos - start > end - best_pos
                Q = 0
                D = 0
                Ws = 0
                sq_side = 0
                if on_right:
                    a, b = best_pos, end
                else:
                    a, b = start, best_pos
                for q in range(a, b):
                    r = rows[q]
                    _move(r, 1, yp, yi, w, S_side, S_total, &Q, &D, &Ws)
                    sq_side += w[r] * (yp[r + 1] - yp[r])
                if on_right:
                    WL = W - Ws
                    sq_left = sq_total - sq_side
                else:
                    WL = Ws
                    sq_left = sq_side
                wl = <float64_t>WL
                wr = <float64_t>(W - WL)
                imp_left = <float64_t>sq_left / wl
                imp_right = <float64_t>(sq_total - sq_left) / wr
                for k in range(K):
                    sl = S_total[k] - S_side[k] if on_right else S_side[k]
                    imp_left -= pow(<float64_t>sl / wl, 2.0)
                    imp_right -= pow(<float64_t>(S_total[k] - sl) / wr, 2.0)
                best_imp_left = imp_left / K
                best_imp_right = imp_right / K
                if on_right:
                    _clear(rows, best_pos, end, yp, yi, S_side)
                else:
                    _clear(rows, start, best_pos, yp, yi, S_side)
                best_improvement = ((wn / <float64_t>W_all) *
                                    (rec.impurity - (wr / wn * best_imp_right)
                                     - (wl / wn * best_imp_left)))
            draw_finish(&draw, features, constant_features)
            n_total = draw.n_total
            is_leaf = best_pos >= end or best_improvement + EPSILON < min_impurity_decrease
        # tree._add_node
        node = node_count
        node_count += 1
        impurity_out[node] = rec.impurity
        n_node[node] = end - start
        w_node[node] = wn
        if rec.parent != UNDEFINED:
            if rec.is_left:
                left[rec.parent] = node
            else:
                right[rec.parent] = node
        if not is_leaf:
            feature[node] = best_f
            threshold[node] = best_thr
            missing_left[node] = best_missing_left
        for k in range(K):
            value[node * K + k] = <float64_t>S_total[k] / wn
        if not is_leaf:   # the right child, then the left (grown first)
            top = _push(stack, top, best_pos, end, depth + 1, node, 0, n_total, best_imp_right)
            top = _push(stack, top, start, best_pos, depth + 1, node, 1, n_total, best_imp_left)
        if depth > max_depth_seen:
            max_depth_seen = depth
    node_count_out[0] = node_count
    max_depth_out[0] = max_depth_seen


def leaf_csr(const float64_t[:, :, :] values, left_child):
    """``(data, indices, indptr)`` of ``values[:, :, 0]`` in CSR form with the rows of internal
    nodes (``left_child != -1``) left empty: what ``scipy.sparse.csr_matrix`` gives for that dense
    array after zeroing those rows (sorted column indices, no stored zeros, NaN kept), without
    copying, zeroing and scanning it through scipy's COO conversion, which took a sixth of an MLDF
    cell's forest fits on corel16k (``CompactForest``).  Indices are int32 when they fit, as scipy's
    would be."""
    cdef const intp_t[::1] lc = np.ascontiguousarray(left_child, dtype=np.intp)
    cdef intp_t n = values.shape[0], L = values.shape[1], i, k, nnz = 0, at = 0
    if lc.shape[0] != n or values.shape[2] < 1:
        raise ValueError(f"leaf_csr: values of shape ({n}, {L}, {values.shape[2]}) for {lc.shape[0]} nodes")
    with nogil:
        for i in range(n):
            if lc[i] == LEAF:
                for k in range(L):
                    if values[i, k, 0] != 0.0:
                        nnz += 1
    index_dtype = np.int32 if max(n, L, nnz) < 2**31 - 1 else np.int64
    data = np.empty(nnz, dtype=np.float64)
    indices = np.empty(nnz, dtype=index_dtype)
    indptr = np.zeros(n + 1, dtype=index_dtype)
    cdef float64_t[::1] d = data
    cdef intp_t[::1] cols = np.empty(nnz, dtype=np.intp)
    cdef intp_t[::1] starts = np.empty(n + 1, dtype=np.intp)
    with nogil:
        for i in range(n):
            starts[i] = at
            if lc[i] == LEAF:
                for k in range(L):
                    if values[i, k, 0] != 0.0:
                        d[at] = values[i, k, 0]
                        cols[at] = k
                        at += 1
        starts[n] = at
    indices[:] = cols
    indptr[:] = starts
    return data, indices, indptr
