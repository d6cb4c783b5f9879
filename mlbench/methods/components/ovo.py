"""The predictions of a fitted multi-class RBF ``SVC``, computed for blocks of rows at once.

scikit-learn's ``SVC.predict`` asks libsvm for one row at a time, and libsvm evaluates the
k(k-1)/2 one-against-one machines of that row by reading their coefficients from a (k-1) x l matrix
and storing every decision value: with the thousands of classes of a label powerset
(:class:`~mlbench.methods.transformation.pruned_sets.PowersetModel`; 5,000 rows of delicious have
4,949 distinct labelsets, 12 million machines) prediction takes tenths of a second per row.
:func:`predict` computes the kernel values of a block of rows with scikit-learn's ``rbf_kernel`` and
counts the votes of all rows of the block in one pass over the machines
(:func:`mlbench._ext._ovo.ovo_votes`), each decision value summed in libsvm's order: the same
predictions as ``SVC.predict``, up to the float rounding of the kernel values (tested against it).
"""
from __future__ import annotations

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from mlbench._ext._ovo import ovo_votes

#: the kernel values of a block (support vectors x rows) take at most this many bytes: a block that
#: stays in a core's L2 cache while every machine reads it (benchmarks/bench_study_sets.py --ovo)
BLOCK_BYTES = 2 ** 21
#: at most this many rows per block (each coefficient is read once per block)
MAX_BLOCK_ROWS = 64


def applies(svc) -> bool:
    """True when :func:`predict` computes ``svc.predict``: a fitted RBF c-SVC (or subclass) with
    three or more classes and libsvm's voting (``break_ties=False``)."""
    return (isinstance(svc, SVC) and svc.kernel == "rbf" and not svc.break_ties
            and hasattr(svc, "classes_") and len(svc.classes_) > 2)


def predict(svc, X, block_bytes: int = BLOCK_BYTES):
    """``svc.predict(X)`` for a model :func:`applies` to, computed for blocks of rows."""
    if not applies(svc):
        raise ValueError("predict needs a fitted RBF SVC with three or more classes and "
                         "break_ties=False; call its own predict")
    coef = svc._dual_coef_
    coef = np.ascontiguousarray(coef.toarray() if hasattr(coef, "toarray") else coef,
                                dtype=np.float64)
    coef_t = np.ascontiguousarray(coef.T)
    start = np.r_[0, np.cumsum(svc._n_support)].astype(np.intp)
    intercept = np.ascontiguousarray(svc._intercept_, dtype=np.float64)
    sv = svc.support_vectors_
    n = X.shape[0]
    step = int(max(1, min(MAX_BLOCK_ROWS, block_bytes // (8 * max(sv.shape[0], 1)))))
    out = np.empty(n, dtype=np.intp)
    for first in range(0, n, step):
        rows = slice(first, min(first + step, n))
        K = np.ascontiguousarray(rbf_kernel(sv, X[rows], gamma=svc._gamma))
        out[rows] = np.argmax(ovo_votes(coef, coef_t, start, intercept, K), axis=0)
    return svc.classes_.take(out)
