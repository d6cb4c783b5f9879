"""One RBF Gram matrix shared by the many SVCs a method fits on the same training rows.

Binary relevance, CLR, HOMER and the label-powerset family fit one ``svc`` base learner (an RBF
``SVC``, :class:`~mlbench.methods.base.PlattSVC`) per label, label pair or labelset model, each
on the same rows or a subset of them, and libsvm computes the kernel values of each fit again
(six times per fit with Platt probabilities: five internal cross-validation fits and the final
one).  :class:`GramRBF` computes K_ij = exp(-gamma ||x_i - x_j||^2) of the training rows once
(scikit-learn's ``rbf_kernel``); each SVC is fitted on ``K[rows][:, rows]`` as a precomputed
kernel and then turned into the ordinary RBF ``PlattSVC`` it stands for: its support vectors are
the training rows libsvm chose, with the same dual coefficients, intercepts and Platt
sigmoids, so ``predict``, ``predict_proba`` and pickling are those of a model fitted on ``X``.

The SMO solution depends on the kernel values only, and those agree with libsvm's own to the
last bits (the same ||x||^2 + ||y||^2 - 2 x.y form, summed in another order), so the models
equal the directly fitted ones up to float rounding (tests/methods/test_gram.py compares them).
A Gram matrix larger than :data:`MAX_BYTES` is not built (the fits compute their kernels as
before), nor one for a base other than ``svc`` with the RBF kernel and a numeric or ``"auto"``
gamma.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import rbf_kernel

from mlbench.methods.base import make_base_learner

#: the largest Gram matrix built (bytes; n rows take 8 n^2): 4 GiB, 23,170 training rows
MAX_BYTES = 4 * 2 ** 30


class GramRBF:
    """The RBF kernel of the rows ``X`` at the ``svc`` base's gamma, computed on first use.

    Build it with :meth:`for_base` (None when the base is not an RBF ``svc`` or the matrix would
    exceed :data:`MAX_BYTES`); :meth:`take` gives the Gram of a subset of the rows (rows may
    repeat), :meth:`fit` an SVC on it.
    """

    def __init__(self, X, gamma, K=None):
        self.X = X
        self.gamma = float(gamma)
        self._K = K

    @classmethod
    def for_base(cls, base, base_params, X, max_bytes=None):
        if not (isinstance(base, str) and base == "svc"):
            return None
        params = make_base_learner("svc", **(base_params or {})).get_params()
        gamma = params["gamma"]
        if params["kernel"] != "rbf" or isinstance(gamma, str) and gamma != "auto":
            return None
        if 8 * X.shape[0] ** 2 > (MAX_BYTES if max_bytes is None else max_bytes):
            return None
        return cls(X, 1.0 / X.shape[1] if gamma == "auto" else gamma)

    @property
    def K(self):
        if self._K is None:
            self._K = rbf_kernel(self.X, gamma=self.gamma)
        return self._K

    def take(self, rows):
        """The Gram of ``X[rows]`` (a copy of the rows' entries, not recomputed)."""
        rows = np.asarray(rows)
        return GramRBF(self.X[rows], self.gamma, K=self.K[np.ix_(rows, rows)])

    def fit(self, base_params, y, seed):
        """A :class:`~mlbench.methods.base.PlattSVC` on the rows with ``base_params`` and
        ``random_state=seed``, fitted on this Gram matrix; returned as the RBF model on ``X``."""
        rbf = make_base_learner("svc", random_state=seed, **(base_params or {}))
        pre = make_base_learner("svc", random_state=seed,
                                **{**(base_params or {}), "kernel": "precomputed"})
        pre.fit(self.K, y)
        if pre.support_.size == 0:   # no support vector (not seen with a non-constant y)
            return rbf.fit(self.X, y)
        return _as_rbf(pre, rbf, self.X, self.gamma)


class ChainGram:
    """The Gram matrices a classifier chain's SVCs need: of X, then of X with the first chained
    0/1 label appended, and so on.  Appending a 0/1 column adds 1 to the squared distance of the
    rows where it differs, so each matrix is exp(-gamma (D2 + H)) with D2 the squared distances
    of X (scikit-learn's ``euclidean_distances``, as ``rbf_kernel`` computes them) and H the
    Hamming distances of the chained labels so far: one (n, n) update per label, no distance
    recomputed.  Build it with :meth:`for_base` (None when :class:`GramRBF` would be, or when two
    (n, n) matrices exceed :data:`MAX_BYTES`)."""

    def __init__(self, X, gamma):
        from sklearn.metrics.pairwise import euclidean_distances

        self.gamma = float(gamma)
        self.A = euclidean_distances(X, squared=True)

    @classmethod
    def for_base(cls, base, base_params, X):
        gram = GramRBF.for_base(base, base_params, X, max_bytes=MAX_BYTES / 2)
        return None if gram is None else cls(X, gram.gamma)

    def gram(self, Xj):
        """The :class:`GramRBF` of ``Xj``: X with the columns appended so far."""
        return GramRBF(Xj, self.gamma, K=np.exp(-self.gamma * self.A))

    def append(self, column):
        """Account for one more 0/1 column of the rows."""
        c = np.asarray(column)
        self.A += c[:, None] != c[None, :]


def _as_rbf(pre, rbf, X, gamma):
    """``rbf`` (unfitted, RBF kernel) given the fitted state of ``pre`` (the same SVC fitted on
    the precomputed Gram of ``X``): scikit-learn's attributes as its own ``fit`` on ``X`` sets
    them (sklearn/svm/_base.py, ``BaseLibSVM.fit``, ``_dense_fit`` and ``_sparse_fit``)."""
    state = {k: v for k, v in vars(pre).items() if k.endswith("_") and not k.startswith("__")
             or k in ("_n_support", "_probA", "_probB", "_num_iter", "_intercept_",
                      "_effective_probability")}
    vars(rbf).update(state)
    sparse = sp.issparse(X)
    dual = np.asarray(pre._dual_coef_)             # (n_classes - 1, n_SV), libsvm's signs
    if sparse:
        n_class, n_sv = dual.shape
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sort_indices()
        # _sparse_fit's layout: every coefficient stored, zeros included
        dual = sp.csr_matrix((dual.ravel(), np.tile(np.arange(n_sv), n_class),
                              np.arange(0, n_class * n_sv + 1, n_sv)),
                             shape=(n_class, n_sv))
        support_vectors = X[pre.support_]
    else:
        support_vectors = np.ascontiguousarray(np.asarray(X, dtype=np.float64)[pre.support_])
    rbf._sparse = sparse
    rbf.support_vectors_ = support_vectors
    rbf._dual_coef_ = dual
    rbf.dual_coef_ = -dual if len(rbf.classes_) == 2 else dual
    rbf._gamma = gamma
    rbf.shape_fit_ = X.shape
    rbf.n_features_in_ = X.shape[1]
    return rbf
