"""What every hierarchical method shares: the hierarchy, terminal classes, rho tuning, SCut.

Conventions (HierCost, Charuvaka & Rangwala 2015):

* ``fit(X, Y, validation=None, hierarchy=None)``: ``hierarchy`` maps the columns of Y to nodes
  (:class:`mlbench.data.hierarchy.Hierarchy`, ``labels``); without one the labels are flat (every
  label a top-level node).  An example's own classes are its most specific positive columns; the
  *terminal classes* T are the columns that are some training example's own class, and one model is
  learnt per terminal class (Sec. 4).  Y may be closed upward (every ancestor column positive, the
  loaders' layout) or hold own classes only (the ``terminal_labels`` preprocessing step);
  predictions follow the same layout (closed predictions are closed again).
* Single-label data (one own class per training example) predicts the arg-max class, eq. (2);
  multi-label data predicts class n when its margin exceeds a per-class SCut threshold t_n tuned on
  the validation part for F1 (Sec. 4.3, Yang 2001), t_n = 0 for a class with at most one training
  example (and, our choice, for one without validation positives).
* rho is chosen from ``rhos`` (powers of ten) by validation micro-F1 over the terminal classes
  (accuracy for single-label data), then the model is refit on training + validation (Sec. 5.3).
  The validation part is the one the runner passes (the dataset's given valid part when it has one,
  see :mod:`mlbench.data.splits`), else ``validation_fraction`` of the rows drawn with
  ``random_state``.  The SCut thresholds tuned with the chosen rho are kept for the refit model.
"""
from __future__ import annotations

from abc import ABCMeta, abstractmethod

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlbench.data.hierarchy import Hierarchy
from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier, check_multilabel_Y

#: the regularisation grid (powers of ten) when a method is not given one
DEFAULT_RHOS = (1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)


def _stack(A, B):
    return sp.vstack([A, B], format="csr") if sp.issparse(A) else np.vstack([A, B])


def scut_thresholds(M, S, n_train, min_train=2, fbr=None):
    """Per-class SCut: the threshold on margins M (n, T) maximising F1 of ``M > t`` against S.

    For each class the candidates cut the sorted validation margins between distinct values (and
    above the largest: predict none); ties go to the larger threshold.  Classes with fewer than
    ``min_train`` training examples or no validation positive get 0.

    ``fbr`` (SCutFBR.1, Yang 2001, "A study of thresholding strategies for text categorization"):
    a class whose best validation F1 is below ``fbr`` falls back to the rank-1 cut, the threshold
    that passes only its highest-scoring validation example (between the two highest distinct
    margins): SCut's optimum on a few validation positives over-fits, typically to a low
    threshold that floods the class with false positives.
    """
    M = np.asarray(M, dtype=np.float64)
    S = np.asarray(S, dtype=bool)
    n, T = M.shape
    out = np.zeros(T)
    for j in range(T):
        P = int(S[:, j].sum())
        if P == 0 or n_train[j] < min_train:
            continue
        order = np.argsort(-M[:, j], kind="stable")
        s = M[order, j]
        tp = np.concatenate([[0], np.cumsum(S[order, j])])      # top-k predicted, k = 0..n
        k = np.arange(n + 1)
        f1 = 2.0 * tp / (k + P)
        valid = np.ones(n + 1, dtype=bool)
        valid[1:n] = s[:-1] > s[1:]                              # cut only between distinct values
        f1[~valid] = -1.0
        best = int(np.argmax(f1))
        if fbr is not None and f1[best] < float(fbr):
            best = 1 + int(np.argmax(s[1:] < s[0])) if s[-1] < s[0] else 0
        if best == 0:
            out[j] = s[0] + 1.0
        elif best == n:
            out[j] = s[-1] - 1.0
        else:
            out[j] = 0.5 * (s[best - 1] + s[best])
    return out


def micro_f1(S_true, S_pred):
    S_true, S_pred = np.asarray(S_true, bool), np.asarray(S_pred, bool)
    tp = np.sum(S_true & S_pred)
    denom = S_true.sum() + S_pred.sum()
    return 1.0 if denom == 0 else 2.0 * tp / denom


class HierarchicalClassifier(MultiLabelClassifier, metaclass=ABCMeta):
    """Base of the family: subclasses implement ``_train`` and ``_margins`` (and may override
    ``_own_predictions`` when they do not threshold margins)."""

    #: whether multi-label predictions come from SCut thresholds on margins
    _scut = True

    _estimator_checks = {"params": {"rhos": (1.0,), "max_iter": 50}}

    # -- subclass interface ------------------------------------------------------------------
    @abstractmethod
    def _train(self, X, S, rho, warm):
        """Implemented by each subclass."""

    @abstractmethod
    def _margins(self, model, X):
        """Implemented by each subclass."""

    def _own_predictions(self, model, X, thresholds):
        M = self._margins(model, X)
        if self.single_label_:
            P = np.zeros(M.shape, dtype=np.int8)
            P[np.arange(M.shape[0]), np.argmax(M, axis=1)] = 1
            return P
        return (M > thresholds[None, :]).astype(np.int8)

    # -- fitting ---------------------------------------------------------------------------
    def _hierarchy_for(self, hierarchy, n_labels):
        if hierarchy is None:
            return Hierarchy.flat([str(j) for j in range(n_labels)])
        if not isinstance(hierarchy, Hierarchy):
            raise ConfigError(f"{type(self).__name__}: hierarchy must be a Hierarchy")
        hierarchy.check_labels(n_labels)
        return hierarchy

    def fit(self, X, Y, validation=None, hierarchy=None):
        X, Y = self._validate_fit(X, Y)
        rng = check_random_state(self.random_state)
        h = self._hierarchy_for(hierarchy, Y.shape[1])
        if validation is not None:
            Xv = self._validate_predict_like(validation[0])
            Yv = check_multilabel_Y(validation[1], Xv.shape[0])
            if Yv.shape[1] != Y.shape[1]:
                raise ValueError("validation labels have a different number of columns")
            Xall, Yall, n_fit = _stack(X, Xv), np.vstack([Y, Yv]), X.shape[0]
        else:
            Xall, Yall, n_fit = X, Y, None
        S_all = h.most_specific(Yall)
        self.hier_ = h
        self.terminal_ = np.flatnonzero(S_all.any(axis=0))
        if self.terminal_.size == 0:
            raise ValueError("no label has a positive example")
        self.closed_ = h.is_closed(Yall)
        self.single_label_ = bool(np.all(S_all.sum(axis=1) == 1))
        S_all = S_all[:, self.terminal_]
        self._prepare(S_all)
        rhos = sorted({float(r) for r in np.atleast_1d(self._rho_grid())}, reverse=True)
        if any(r <= 0 for r in rhos):
            raise ValueError("rhos must be positive")
        n = Xall.shape[0]
        if n_fit is None and (len(rhos) > 1 or not self.single_label_):
            n_valid = int(round(self.validation_fraction * n))
            if 2 <= n_valid <= n - 2:
                perm = rng.permutation(n)
                order = np.concatenate([perm[n_valid:], perm[:n_valid]])
                Xall, S_all = Xall[order], S_all[order]
                n_fit = n - n_valid
        self.thresholds_ = np.zeros(self.terminal_.size)
        scores = {}
        if n_fit is not None:
            Xf, Sf, Xv, Sv = Xall[:n_fit], S_all[:n_fit], Xall[n_fit:], S_all[n_fit:]
            n_train = Sf.sum(axis=0)
            warm, best = None, None
            for rho in rhos:
                model = self._train(Xf, Sf, rho, warm)
                warm = model
                th = (scut_thresholds(self._margins(model, Xv), Sv, n_train,
                                      fbr=getattr(self, "scut_fbr", None))
                      if (self._scut and not self.single_label_) else self.thresholds_)
                score = micro_f1(Sv, self._own_predictions(model, Xv, th))
                scores[rho] = float(score)
                if best is None or score > best[0]:
                    best = (score, rho, model, th)
            _, self.rho_, warm, self.thresholds_ = best
        else:
            self.rho_, warm = rhos[len(rhos) // 2], None
        self._last_iters = 1
        self.model_ = self._train(Xall, S_all, self.rho_, warm)
        self.n_iter_ = int(self._last_iters)   # Algorithm 1's largest iteration count in the refit
        self.fit_info_ = {"rho": self.rho_, "validation_micro_f1": scores,
                          "n_validation": 0 if n_fit is None else int(Xall.shape[0] - n_fit),
                          "n_terminal": int(self.terminal_.size), "single_label": self.single_label_}
        return self

    def _validate_predict_like(self, X):
        from sklearn.utils.validation import check_array

        return check_array(X, accept_sparse=("csr",), dtype=np.float64)

    def _rho_grid(self):
        return self.rhos

    def _prepare(self, S):
        """Hook: per-dataset quantities computed once from the own classes of every row."""

    # -- prediction ------------------------------------------------------------------------
    def _expand(self, P_terminal):
        P = np.zeros((P_terminal.shape[0], self.n_labels_), dtype=np.int8)
        P[:, self.terminal_] = P_terminal
        return self.hier_.close(P) if self.closed_ else P

    def predict(self, X):
        check_is_fitted(self)
        X = self._validate_predict(X)
        return self._expand(self._own_predictions(self.model_, X, self.thresholds_)).astype(int)

    def decision_function(self, X):
        """Margins (n, L); a non-terminal column of closed data scores the best terminal below it."""
        check_is_fitted(self)
        X = self._validate_predict(X)
        M = self._margins(self.model_, X)
        out = np.full((M.shape[0], self.n_labels_), -np.inf)
        out[:, self.terminal_] = M
        if self.closed_:
            A = self.hier_.label_ancestor_matrix()[:, self.hier_.label_index]   # (L, L) anc-or-self
            for j in np.flatnonzero(~np.isin(np.arange(self.n_labels_), self.terminal_)):
                below = np.flatnonzero(A[self.terminal_, j])
                if below.size:
                    out[:, j] = M[:, below].max(axis=1)
        return out
