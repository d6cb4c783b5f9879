"""ML-kNN: multi-label k nearest neighbours with Bayesian inference.

Source: Zhang & Zhou, "ML-KNN: A lazy learning approach to multi-label learning", Pattern
Recognition 40(7), 2007: the MAP rule and the paper's pseudo-code of ML-kNN, whose numbered
steps are cited below.

Notation: N(x) are the k nearest training neighbours of x, excluding x itself when x is a training
point; C_x(l) = sum over a in N(x) of y_a(l) is the number of neighbours carrying label l (step 8).
With smoothing s (s = 1 gives Laplace smoothing), training computes

* priors       P(H_1^l) = (s + sum_i y_i(l)) / (2 s + m),  P(H_0^l) = 1 - P(H_1^l)  (step 2);
* likelihoods  P(E_j^l | H_1^l) = (s + c_l[j]) / (s (k + 1) + sum_p c_l[p]), j = 0..k,
  where c_l[j] counts training points with label l and exactly j neighbours with label l
  (c'_l[j] likewise for points without l gives P(E_j^l | H_0^l))  (steps 9-13).

For a test point t (steps 14 on) the label is the MAP choice, by Bayes' rule y_t(l) = 1 iff
P(H_1^l) P(E_{C_t(l)}^l | H_1^l) >= P(H_0^l) P(E_{C_t(l)}^l | H_0^l), and its score (the paper's
ranking function) is the posterior P(H_1^l | E_{C_t(l)}^l).  Ties go to 1, as in
scikit-multilearn.  Equidistant neighbours are taken in the order scikit-learn's brute-force
search returns them, so on data with exact distance ties (e.g. integer features) a dense and a
sparse copy of the same data may pick different neighbours.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from mlbench.methods.base import MultiLabelClassifier, check_multilabel_Y
from mlbench.methods.registry import register


def fit_neighbours(X, k, metric="euclidean"):
    """A brute-force :class:`NearestNeighbors` on X (dense or CSR) with the effective k.

    The effective k is ``min(k, n - 1)``: a training point is never its own neighbour, so a
    training set of n points has at most n - 1 neighbours to give.
    """
    n = X.shape[0]
    if n < 2:
        raise ValueError("a k-nearest-neighbour method needs at least 2 training instances, "
                         f"got n_samples={n}")
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    k_eff = int(min(k, n - 1))
    # brute force: exact, works on CSR, and one matrix product per chunk of queries
    nn = NearestNeighbors(n_neighbors=k_eff, algorithm="brute", metric=metric).fit(X)
    return nn, k_eff


def neighbour_matrix(idx, n_train, weights=None):
    """The (n_query, n_train) CSR matrix with ``weights`` (default 1) at each row's neighbours."""
    n_query, k = idx.shape
    data = np.ones(idx.size) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    return sp.csr_matrix((data, idx.ravel(), np.arange(0, n_query * k + 1, k)),
                         shape=(n_query, n_train))


def neighbour_label_counts(idx, Y_train):
    """C_x(l) (step 8) per query row: how many of its neighbours carry each label, int (n, L)."""
    A = neighbour_matrix(idx, Y_train.shape[0])
    return np.rint(A @ Y_train.astype(np.float64)).astype(np.intp)


class MLkNN(MultiLabelClassifier):
    """ML-kNN (Zhang & Zhou 2007).

    Parameters
    ----------
    k : int, default 10
        Number of neighbours (the paper's and the MC paper's choice).
    s : float, default 1.0
        Smoothing of the prior and likelihood estimates (s = 1: Laplace smoothing); must be > 0.
    metric : str, default "euclidean"
        Distance of :class:`~sklearn.neighbors.NearestNeighbors`.
    """

    def __init__(self, *, k=10, s=1.0, metric="euclidean"):
        self.k = k
        self.s = s
        self.metric = metric

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        if not self.s > 0:
            raise ValueError(f"smoothing s must be positive, got {self.s!r}")
        s = float(self.s)
        n, L = Y.shape
        self.nn_, k = fit_neighbours(X, self.k, self.metric)
        self.k_ = k
        self.Y_train_ = Y
        self.prior_ = (s + Y.sum(axis=0)) / (2 * s + n)
        # training neighbours exclude the point itself (kneighbors without X does that)
        C = neighbour_label_counts(self.nn_.kneighbors(return_distance=False), Y)
        # c_l[j] and c'_l[j] (steps 9-10) for all labels at once: label l, count j -> bin l(k+1)+j
        flat = C + (k + 1) * np.arange(L)
        has = Y.astype(bool)
        c1 = np.bincount(flat[has], minlength=L * (k + 1)).reshape(L, k + 1)
        c0 = np.bincount(flat[~has], minlength=L * (k + 1)).reshape(L, k + 1)
        self.cond_true_ = (s + c1) / (s * (k + 1) + c1.sum(axis=1, keepdims=True))
        self.cond_false_ = (s + c0) / (s * (k + 1) + c0.sum(axis=1, keepdims=True))
        return self

    def _joint(self, X):
        """P(H_b^l) P(E_{C_x(l)}^l | H_b^l) for b = 1 and b = 0, each (n, L)."""
        X = self._validate_predict(X)
        C = neighbour_label_counts(self.nn_.kneighbors(X, self.k_, return_distance=False),
                                   self.Y_train_)
        labels = np.arange(self.n_labels_)
        p1 = self.prior_ * self.cond_true_[labels, C]
        p0 = (1.0 - self.prior_) * self.cond_false_[labels, C]
        return p1, p0

    def predict_proba(self, X):
        """The posterior P(H_1^l | E_{C_x(l)}^l) per label, (n, L)."""
        p1, p0 = self._joint(X)
        return p1 / (p1 + p0)

    def joint_log_proba(self, X, Y):
        """log P(Y = y | x) = sum_l log P(H_{y_l}^l | E_{C_x(l)}^l), labels independent given C."""
        p1, p0 = self._joint(X)
        Y = check_multilabel_Y(Y, p1.shape[0])
        num = np.where(Y == 1, p1, p0)
        return np.sum(np.log(num) - np.log(p1 + p0), axis=1)

    def predict(self, X):
        """MAP labels: 1 where P(H_1) P(E | H_1) >= P(H_0) P(E | H_0)."""
        p1, p0 = self._joint(X)
        return (p1 >= p0).astype(int)


register("mlknn", MLkNN, family="knn", paper="platform", params={"k": 10, "s": 1.0},
         grid={"k": [5, 10, 15, 20]},
         description="ML-kNN (Zhang & Zhou 2007), k=10, s=1, Euclidean distance")
