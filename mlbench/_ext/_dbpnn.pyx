# Kernels of DBPNN (mlbench/methods/neural/dbpnn.py): CD-1 RBM pre-training and online
# back-propagation.  Both are sequential stochastic updates on tiny matrices (10-unit layers), so in
# NumPy each step costs more in call overhead than in arithmetic; these loops run them in C, nogil.
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


def backprop_online(list weights, list velocity, const float64_t[:, ::1] X,
                    const float64_t[:, ::1] Y, const intp_t[::1] order, double lr,
                    double momentum):
    """One online epoch of squared-error back-propagation through sigmoid layers, in place.

    ``weights[k]`` is ((units_k + 1) x units_{k+1}) with the bias as the last row; ``velocity[k]``
    the previous step of the same shape.  For each row i in ``order``: forward pass, output error
    ``delta = y (1 - y) (t - y)``, hidden errors through the not-yet-updated weights, then
    ``step = lr * a^T delta + momentum * step_prev`` and ``W += step`` for every layer.
    """
    cdef intp_t n_layers = len(weights)
    cdef intp_t k, i, j, r, idx, n_rows = order.shape[0]
    cdef intp_t[::1] units = np.empty(n_layers + 1, dtype=np.intp)
    cdef intp_t[::1] offs = np.empty(n_layers + 1, dtype=np.intp)
    units[0] = X.shape[1]
    for k in range(n_layers):
        units[k + 1] = weights[k].shape[1]
    offs[0] = 0
    for k in range(n_layers):
        offs[k + 1] = offs[k] + units[k] + 1
    # activations of every layer (with a bias unit), and deltas, in flat buffers
    cdef double* act = <double*> malloc((offs[n_layers] + units[n_layers] + 1) * sizeof(double))
    cdef double* dlt = <double*> malloc((offs[n_layers] + units[n_layers] + 1) * sizeof(double))
    cdef double** Wp = <double**> malloc(n_layers * sizeof(double*))
    cdef double** Sp = <double**> malloc(n_layers * sizeof(double*))
    cdef double[:, ::1] tmp
    cdef double acc, a, step
    try:
        for k in range(n_layers):
            tmp = weights[k]
            Wp[k] = &tmp[0, 0]
            tmp = velocity[k]
            Sp[k] = &tmp[0, 0]
        with nogil:
            for r in range(n_rows):
                idx = order[r]
                for i in range(units[0]):
                    act[i] = X[idx, i]
                act[units[0]] = 1.0
                for k in range(n_layers):
                    for j in range(units[k + 1]):
                        acc = 0.0
                        for i in range(units[k] + 1):
                            acc = acc + act[offs[k] + i] * Wp[k][i * units[k + 1] + j]
                        act[offs[k + 1] + j] = _sigmoid(acc)
                    act[offs[k + 1] + units[k + 1]] = 1.0
                k = n_layers
                for j in range(units[k]):
                    a = act[offs[k] + j]
                    dlt[offs[k] + j] = a * (1.0 - a) * (Y[idx, j] - a)
                for k in range(n_layers - 1, 0, -1):  # hidden errors (bias unit has none)
                    for i in range(units[k]):
                        acc = 0.0
                        for j in range(units[k + 1]):
                            acc = acc + dlt[offs[k + 1] + j] * Wp[k][i * units[k + 1] + j]
                        a = act[offs[k] + i]
                        dlt[offs[k] + i] = a * (1.0 - a) * acc
                for k in range(n_layers):
                    for i in range(units[k] + 1):
                        for j in range(units[k + 1]):
                            step = (lr * act[offs[k] + i] * dlt[offs[k + 1] + j]
                                    + momentum * Sp[k][i * units[k + 1] + j])
                            Wp[k][i * units[k + 1] + j] += step
                            Sp[k][i * units[k + 1] + j] = step
    finally:
        free(act)
        free(dlt)
        free(Wp)
        free(Sp)
