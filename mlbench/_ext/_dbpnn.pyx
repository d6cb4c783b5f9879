# Kernels of DBPNN and BPNN (mlbench/methods/neural/): CD-1 RBM pre-training and online
# back-propagation.  Both are sequential stochastic updates, one row at a time: on DBPNN's 10-unit
# layers NumPy would spend each step in call overhead, and on BPNN's wide ones (0.15-0.25 x the
# features) the arithmetic is memory-bound, so the loops run in C, nogil, each weight matrix swept
# once per row.
from libc.math cimport exp
from libc.stdlib cimport free, malloc

from mlbench._ext._typedefs cimport float64_t, intp_t

import numpy as np


cdef inline double _sigmoid(double a) noexcept nogil:
    if a >= 0:
        return 1.0 / (1.0 + exp(-a))
    cdef double e = exp(a)
    return e / (1.0 + e)


def rbm_cd1(const float64_t[:, ::1] Vb, float64_t[:, ::1] W, intp_t epochs, intp_t batch_size,
            double scale, double momentum, double cost):
    """Mean-field CD-1 on ``Vb`` (n x (v+1), last column 1), updating ``W`` ((v+1) x (h+1)) in place.

    Per batch B: Z0 = s(B W), X1 = s(Z0 W^T), Z1 = s(X1 W) (bias columns fixed to 1);
    dW = scale * ((B^T Z0 - X1^T Z1) / |B| - cost * W) + momentum * dW_prev; W += dW.
    """
    cdef intp_t n = Vb.shape[0], v1 = Vb.shape[1], h1 = W.shape[1]
    cdef intp_t e, s, b, nb, i, j, k
    cdef double acc, g
    cdef double[:, ::1] Z0 = np.empty((batch_size, h1))
    cdef double[:, ::1] X1 = np.empty((batch_size, v1))
    cdef double[:, ::1] Z1 = np.empty((batch_size, h1))
    cdef double[:, ::1] dW = np.zeros((v1, h1))
    with nogil:
        for e in range(epochs):
            s = 0
            while s < n:
                nb = batch_size if s + batch_size <= n else n - s
                for b in range(nb):
                    for j in range(h1):
                        acc = 0.0
                        for i in range(v1):
                            acc = acc + Vb[s + b, i] * W[i, j]
                        Z0[b, j] = _sigmoid(acc)
                    Z0[b, h1 - 1] = 1.0
                    for i in range(v1):
                        acc = 0.0
                        for j in range(h1):
                            acc = acc + Z0[b, j] * W[i, j]
                        X1[b, i] = _sigmoid(acc)
                    X1[b, v1 - 1] = 1.0
                    for j in range(h1):
                        acc = 0.0
                        for i in range(v1):
                            acc = acc + X1[b, i] * W[i, j]
                        Z1[b, j] = _sigmoid(acc)
                    Z1[b, h1 - 1] = 1.0
                for i in range(v1):
                    for j in range(h1):
                        g = 0.0
                        for b in range(nb):
                            g = g + Vb[s + b, i] * Z0[b, j] - X1[b, i] * Z1[b, j]
                        dW[i, j] = scale * (g / nb - cost * W[i, j]) + momentum * dW[i, j]
                        W[i, j] = W[i, j] + dW[i, j]
                s = s + nb


cdef inline void _layer_sums(const double* a, const double* W, double* out, intp_t n_in,
                             intp_t n_out) noexcept nogil:
    """``out = a W`` for ``a`` of n_in + 1 inputs (bias last), row by row through W (contiguous,
    vectorised); each output still adds its inputs in order i = 0, 1, ..., as a dot product does."""
    cdef intp_t i, j
    cdef double v
    for j in range(n_out):
        out[j] = 0.0
    for i in range(n_in + 1):
        v = a[i]
        for j in range(n_out):
            out[j] += v * W[i * n_out + j]


cdef inline void _hidden_error(const double* a, double* delta, double back) noexcept nogil:
    delta[0] = a[0] * (1.0 - a[0]) * back


def backprop_online(list weights, list velocity, const float64_t[:, ::1] X,
                    const float64_t[:, ::1] Y, const intp_t[::1] order, double lr,
                    double momentum):
    """One online epoch of squared-error back-propagation through sigmoid layers, in place.

    ``weights[k]`` is ((units_k + 1) x units_{k+1}) with the bias as the last row; ``velocity[k]``
    the previous step of the same shape.  For each row i in ``order``: forward pass, output error
    ``delta = y (1 - y) (t - y)``, hidden errors through the not-yet-updated weights, then
    ``step = lr * a^T delta + momentum * step_prev`` and ``W += step`` for every layer.

    Each weight matrix is swept once per row, not twice: a hidden layer's errors are computed
    row by row of the weights above it just before that row is updated, and the first layer's
    update is done in the same sweep as the next row's input sums (which need the updated weights).
    Every number is computed from the same operands in the same order as by the separate passes.
    """
    cdef intp_t n_layers = len(weights)
    cdef intp_t k, i, j, r, idx, nx, n_rows = order.shape[0], d = X.shape[1], h
    cdef intp_t[::1] units = np.empty(n_layers + 1, dtype=np.intp)
    cdef intp_t[::1] offs = np.empty(n_layers + 1, dtype=np.intp)
    units[0] = d
    for k in range(n_layers):
        units[k + 1] = weights[k].shape[1]
    offs[0] = 0
    for k in range(n_layers):
        offs[k + 1] = offs[k] + units[k] + 1
    # activations of every layer (with a bias unit), and deltas, in flat buffers; ``nxt`` holds the
    # next row's inputs while the first layer's weights are updated
    cdef double* act = <double*> malloc((offs[n_layers] + units[n_layers] + 1) * sizeof(double))
    cdef double* dlt = <double*> malloc((offs[n_layers] + units[n_layers] + 1) * sizeof(double))
    cdef double* nxt = <double*> malloc((d + 1) * sizeof(double))
    cdef double** Wp = <double**> malloc(n_layers * sizeof(double*))
    cdef double** Sp = <double**> malloc(n_layers * sizeof(double*))
    cdef double[:, ::1] tmp
    cdef intp_t i0, m
    cdef double acc, acc1, acc2, acc3, a, an, step
    cdef double* above
    cdef double* w
    cdef double* sv
    cdef double* sums
    cdef double* below
    try:
        for k in range(n_layers):
            tmp = weights[k]
            Wp[k] = &tmp[0, 0]
            tmp = velocity[k]
            Sp[k] = &tmp[0, 0]
        with nogil:
            if n_rows > 0:
                for i in range(d):
                    act[i] = X[order[0], i]
                act[d] = 1.0
                _layer_sums(act, Wp[0], act + offs[1], d, units[1])
            for r in range(n_rows):
                idx = order[r]
                # act[offs[1]:] holds the first layer's sums for row idx
                for k in range(n_layers):
                    if k > 0:
                        _layer_sums(act + offs[k], Wp[k], act + offs[k + 1], units[k],
                                    units[k + 1])
                    for j in range(units[k + 1]):
                        act[offs[k + 1] + j] = _sigmoid(act[offs[k + 1] + j])
                    act[offs[k + 1] + units[k + 1]] = 1.0
                k = n_layers
                for j in range(units[k]):
                    a = act[offs[k] + j]
                    dlt[offs[k] + j] = a * (1.0 - a) * (Y[idx, j] - a)
                for k in range(n_layers - 1, 0, -1):
                    # rows i of W_k, four at a time: the errors of units i of layer k (through the
                    # old weights; the bias unit has none), then the rows' updates.  The four sums
                    # run side by side (independent chains, each in order j = 0, 1, ...)
                    h = units[k + 1]
                    above = dlt + offs[k + 1]
                    for i0 in range(0, units[k] + 1, 4):
                        m = min(4, units[k] + 1 - i0)
                        if i0 + 4 <= units[k]:
                            w = Wp[k] + i0 * h
                            acc = acc1 = acc2 = acc3 = 0.0
                            for j in range(h):
                                acc = acc + above[j] * w[j]
                                acc1 = acc1 + above[j] * w[h + j]
                                acc2 = acc2 + above[j] * w[2 * h + j]
                                acc3 = acc3 + above[j] * w[3 * h + j]
                            _hidden_error(act + offs[k] + i0, dlt + offs[k] + i0, acc)
                            _hidden_error(act + offs[k] + i0 + 1, dlt + offs[k] + i0 + 1, acc1)
                            _hidden_error(act + offs[k] + i0 + 2, dlt + offs[k] + i0 + 2, acc2)
                            _hidden_error(act + offs[k] + i0 + 3, dlt + offs[k] + i0 + 3, acc3)
                        else:
                            for i in range(i0, min(i0 + m, units[k])):
                                w = Wp[k] + i * h
                                acc = 0.0
                                for j in range(h):
                                    acc = acc + above[j] * w[j]
                                _hidden_error(act + offs[k] + i, dlt + offs[k] + i, acc)
                        for i in range(i0, i0 + m):
                            w = Wp[k] + i * h
                            sv = Sp[k] + i * h
                            a = act[offs[k] + i]
                            for j in range(h):
                                step = lr * a * above[j] + momentum * sv[j]
                                w[j] += step
                                sv[j] = step
                # the first layer: update row i, then add the next row's input i to its sums
                # (after the last row, its own inputs: sums no one reads, one sweep per epoch)
                h = units[1]
                sums = act + offs[1]
                below = dlt + offs[1]
                nx = order[r + 1] if r + 1 < n_rows else idx
                for i in range(d):
                    nxt[i] = X[nx, i]
                nxt[d] = 1.0
                for j in range(h):
                    sums[j] = 0.0
                for i in range(d + 1):
                    w = Wp[0] + i * h
                    sv = Sp[0] + i * h
                    a = act[i]
                    an = nxt[i]
                    for j in range(h):
                        step = lr * a * below[j] + momentum * sv[j]
                        w[j] += step
                        sv[j] = step
                        sums[j] += an * w[j]
                for i in range(d + 1):
                    act[i] = nxt[i]
    finally:
        free(act)
        free(dlt)
        free(nxt)
        free(Wp)
        free(Sp)
