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
        pre = _precomputed_svc(base_params, seed, self.K, y)
        if pre.support_.size == 0:   # no support vector (not seen with a non-constant y)
            return rbf.fit(self.X, y)
        return _as_rbf(pre, rbf, self.X, self.gamma)


class SupportSet:
    """Binary RBF SVCs fitted on subsets of one :class:`GramRBF`'s rows, kept as arrays.

    A method that fits very many binary SVCs on subsets of the same training rows (CLR: one per
    pair of labels, 482,653 on delicious) would otherwise keep a scikit-learn model per fit
    (kilobytes each, with its own copy of its support vectors) and compute the kernel between new
    rows and each model's support vectors once per model.  Here a model is its support rows
    (indices into the Gram's rows), dual coefficients and intercept, and :meth:`decisions` gives
    every model's decision value ``sum_s a_s K(x, x_s) + b`` (``SVC.decision_function``) from one
    kernel matrix between the new rows and the union of the support rows.

    :meth:`fit` runs the libsvm fit :meth:`GramRBF.fit` runs, on the same kernel values, so the
    models are the same; a decision value is the same terms added in another order, equal to float
    rounding.  ``decision >= 0`` is the model's ``predict`` of class 1 (libsvm predicts class 0
    when its own decision value, the negative of scikit-learn's, is above 0).  A target with one
    value gives a model without support rows whose decision is +1 (value 1) or -1 (value 0), as
    :class:`~mlbench.methods.components.binary.ConstantBinary`'s.  Call :meth:`finish` after the
    last fit; it packs the models and lets go of the Gram matrix.
    """

    def __init__(self, gram):
        self.gram = gram
        self.gamma = gram.gamma
        self._support, self._coef, self._intercept = [], [], []

    def fit(self, rows, y, base_params, seed):
        """Fit the ``svc`` base with ``base_params`` and ``random_state=seed`` on the Gram's rows
        ``rows`` (None: every row) with the 0/1 targets ``y``; returns the model's index."""
        y = np.asarray(y)
        if y.size == 0 or np.all(y == y[0]):
            support, coef, b = np.empty(0, np.intp), np.empty(0), 1.0 if y.size and y[0] else -1.0
        else:
            K = self.gram.K if rows is None else self.gram.K[np.ix_(rows, rows)]
            pre = _precomputed_svc(base_params, seed, K, y)
            support = pre.support_ if rows is None else np.asarray(rows)[pre.support_]
            coef, b = pre.dual_coef_[0], float(pre.intercept_[0])
        self._support.append(np.asarray(support, dtype=np.intp))
        self._coef.append(np.asarray(coef, dtype=np.float64))
        self._intercept.append(b)
        return len(self._intercept) - 1

    def finish(self):
        counts = np.array([s.size for s in self._support], dtype=np.intp)
        support = np.concatenate(self._support) if self._support else np.empty(0, np.intp)
        used, column = np.unique(support, return_inverse=True)
        X = self.gram.X[used]
        self.X_ = sp.csr_matrix(X) if sp.issparse(X) else np.ascontiguousarray(X)
        n_models = counts.size
        # model m's coefficients on the support rows, (models x support rows)
        self.coef_ = sp.csr_matrix((np.concatenate(self._coef) if self._coef else np.empty(0),
                                    column.ravel(), np.r_[0, np.cumsum(counts)]),
                                   shape=(n_models, used.size))
        self.intercept_ = np.array(self._intercept, dtype=np.float64)
        del self.gram, self._support, self._coef, self._intercept
        return self

    @property
    def n_models(self):
        return self.intercept_.size

    def decisions(self, X, block_bytes=2 ** 27):
        """Yield ``(rows, D)`` over blocks of the rows of ``X``: ``D[r, m]`` is model m's decision
        value on row ``rows[r]``; a block holds at most ``block_bytes`` of values."""
        width = max(self.n_models, self.X_.shape[0], 1)
        step = max(1, int(block_bytes // (8 * width)))
        for start in range(0, X.shape[0], step):
            rows = np.arange(start, min(start + step, X.shape[0]))
            if self.X_.shape[0] == 0:     # every model constant
                yield rows, np.tile(self.intercept_, (rows.size, 1))
                continue
            K = rbf_kernel(self.X_, X[rows], gamma=self.gamma)     # (support rows, block)
            yield rows, np.asarray(self.coef_ @ K).T + self.intercept_


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


def _precomputed_svc(base_params, seed, K, y):
    """The ``svc`` base with ``base_params`` and ``random_state=seed`` fitted on the Gram ``K``."""
    return make_base_learner("svc", random_state=seed,
                             **{**(base_params or {}), "kernel": "precomputed"}).fit(K, y)


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
