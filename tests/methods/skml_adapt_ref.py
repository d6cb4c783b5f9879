"""scikit-multilearn's MLARAM and MLTSVM as references for mlbench's ``mlaram`` and ``mltsvm``.

The ``test`` extra installs scikit-multilearn-ng; scikit-multilearn 0.2.0 (the same import name)
works too.  0.2.0's incompatibilities with current NumPy/SciPy are patched HERE, in the test
helper, never in the package:

* MLARAM calls ``scipy.ones`` (removed from SciPy) and ``ndarray.tostring`` (removed from NumPy 2):
  :func:`patched_mlaram` supplies ``numpy.ones`` and keys label sets by ``tobytes`` (the same bytes).
  It also adds label counts into the caller's Y rows, so it is given a copy.
* MLTSVM (a) takes ``Y[:, 1] == 0`` as the negatives of *every* label (a bug: label k's negatives
  are meant), (b) its SOR loop aliases the old and new iterates, so its stopping test measures only
  one sweep's clipping, and (c) it reads ``.A`` of its products, which dense arrays and SciPy >= 1.14's
  sparse matrices lack.  :class:`FixedMLTSVM` fixes (a), replaces the SOR by an exact solution of the
  same box-constrained dual (SciPy's L-BFGS-B to a tight tolerance, independent of mlbench's SOR
  kernel), and for (c) is given dense X while its dense inverse returns a ``numpy.matrix`` (the same
  inverse, whose products then have ``.A``).
"""
from __future__ import annotations

import types
from unittest import mock

import numpy as np
import scipy.optimize
import scipy.sparse as sp
from skmultilearn.adapt import mlaram as _mlaram_module
from skmultilearn.adapt import mltsvm as _mltsvm_module


def _dense(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A)


def _labelset_key(indicator):
    return indicator.nonzero()[0].tobytes()


def patched_mlaram(X_train, Y_train, X_test, vigilance, threshold):
    """scikit-multilearn's MLARAM fitted and applied: (predict 0/1, predict_proba, n_prototypes)."""
    fake_scipy = types.SimpleNamespace(ones=np.ones, sparse=sp)
    with mock.patch.object(_mlaram_module, "scipy", fake_scipy), \
            mock.patch.object(_mlaram_module, "_get_label_combination_representation",
                              _labelset_key):
        clf = _mlaram_module.MLARAM(vigilance=vigilance, threshold=threshold)
        clf.fit(np.asarray(X_train, dtype=float), np.array(Y_train, dtype=int, copy=True))
        return (_dense(clf.predict(X_test)).astype(int), _dense(clf.predict_proba(X_test)),
                len(clf.neurons))


def _solve_box_dual(Q, c):
    """min 1/2 a^T Q a - sum(a) over 0 <= a <= c, by L-BFGS-B to a tight tolerance."""
    n = Q.shape[0]
    res = scipy.optimize.minimize(lambda a: (0.5 * a @ Q @ a - a.sum(), Q @ a - 1.0),
                                  np.zeros(n), jac=True, method="L-BFGS-B",
                                  bounds=[(0.0, c)] * n,
                                  options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20000})
    return res.x.reshape(-1, 1)


def _negatives_of_label(X, Y, label_class):
    Y = _dense(Y)
    return X[np.where(Y[:, label_class] == 0)[0], :]


def _dense_inverse(M):
    return np.asmatrix(np.linalg.inv(_dense(M)))


class FixedMLTSVM(_mltsvm_module.MLTSVM):
    """MLTSVM 0.2.0 with label k's own negatives and its dual solved exactly (module doc)."""

    def _successive_overrelaxation(self, omegaW, Q):
        self.iteration_count.append(0)
        return _solve_box_dual(np.asarray(Q), self.c_k)

    def fit(self, X, Y):
        with mock.patch.object(_mltsvm_module, "_get_x_noclass_instances", _negatives_of_label), \
                mock.patch.object(_mltsvm_module, "inv_dense", _dense_inverse):
            return super().fit(np.asarray(_dense(X), dtype=float), Y)

    def predict(self, X):
        return super().predict(np.asarray(_dense(X), dtype=float))


def reference_mltsvm(X_train, Y_train, X_test, c_k, lambda_param):
    """FixedMLTSVM fitted and applied: (predict 0/1, [w_k, b_k] per label, decision threshold)."""
    clf = FixedMLTSVM(c_k=c_k, lambda_param=lambda_param)
    clf.fit(X_train, np.asarray(Y_train))
    return _dense(clf.predict(X_test)).astype(int), np.asarray(clf.wk_bk), clf.treshold
