"""CLEMS: cost-sensitive label embedding with multidimensional scaling (Huang & Lin, "Cost-sensitive
label embedding for multi-label classification", Machine Learning 106, 2017), in the pipeline the
comprehensive study (Bogatinovski et al., Expert Systems with Applications 2022) ran through
scikit-multilearn: the CLEMS embedding of the label vectors under Hamming loss, one random forest
regressor (30 trees, sqrt(d) features per split) per embedding dimension from the features to the
embedding, and ML-kNN with k in {6, 8, ..., 20} as the classifier on the features concatenated
with the (true, then regressed) embedding.

**Embedding** (Huang & Lin, Sections 3-4).  Let u_1..u_K be the distinct training label vectors,
n_i how many training rows carry u_i, and c(a, b) the cost, here the Hamming loss
``mean(a != b)``.  MDS places 2K points in R^L (L = number of labels, the study's dimension): a
"truth" point t_i and a "prediction" point p_i per vector.  The target distance between t_i and
p_j is ``sqrt(c(u_i, u_j))``, weighted by n_i; pairs within the same half have weight 0.  The
weighted stress ``sum_{i<j} W_ij (||z_i - z_j|| - delta_ij)^2`` is minimised by SMACOF with weights
(Borg & Groenen, Modern Multidimensional Scaling, 2005, Section 8.2): with the weighted Laplacian
V (V_ij = -W_ij, V_ii = sum_j W_ij) and B(Z) (B_ij = -W_ij delta_ij / d_ij(Z), B_ii = -sum_{j != i}
B_ij), each step is the Guttman transform ``Z <- V^+ B(Z) Z``.  ``n_init`` random starts (uniform
in [0, 1)), each up to ``max_iter`` steps, stopping by the test of the weighted MDS the study
ran (:class:`_Stop`, ``"normalized"``); the start with the lowest stress is kept.  Only the
truth-prediction pairs carry weight, so the steps are computed per block (:func:`bipartite_smacof`, the same iterates as the general
:func:`weighted_smacof` about five times faster and in a quarter of the memory).  A training row with label vector u_i is
embedded at t_i.

**Regression and classification.**  Per embedding dimension a random forest maps x to that
coordinate.  ML-kNN (mlbench's ``mlknn``) is trained on ``[x_n, t(y_n)]`` and applied to
``[x, regressed t(x)]``; its posteriors are the scores and its MAP labels the predictions.

Differences from the study's scikit-multilearn 0.2.0 run, each a bug or a version change there:
it builds the embedder as ``CLEMS(hamming_loss, is_score=True)``, which turns the Hamming *loss*
into the cost ``1 - Hamming loss`` (identical vectors then lie far apart); its ``fit_transform``
finds each row's embedded point by a nearest-neighbour search of the raw label vector among the
embedded coordinates and then reads the index in the wrong half; its ML-kNN counts a training
row among its own neighbours (``ignore_first_neighbours=0``), mlbench's ``mlknn`` does not (as the
ML-kNN paper); and its weighted MDS module no longer imports with current scikit-learn.  mlbench
embeds as the CLEMS paper describes, with the Hamming loss as the cost.  Every random choice (MDS
starts, forest seeds) comes from ``random_state``.
"""
from __future__ import annotations

import copy
import time

import numpy as np
import scipy.sparse as sp
from sklearn.ensemble import RandomForestRegressor
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.knn.mlknn import MLkNN
from mlbench.methods.registry import register


def _distances(Z):
    """Euclidean distances between the rows of Z (no input validation: called every step)."""
    sq = np.einsum("ij,ij->i", Z, Z)
    D2 = sq[:, None] + sq[None, :] - 2.0 * (Z @ Z.T)
    np.maximum(D2, 0.0, out=D2)
    D2[np.diag_indices(len(Z))] = 0.0
    return np.sqrt(D2)


def weighted_stress(Z, delta, W):
    """sum over pairs i < j of W_ij (||z_i - z_j|| - delta_ij)^2."""
    return float((W * (_distances(Z) - delta) ** 2).sum() / 2.0)


#: the version of :func:`bipartite_smacof`'s saved state (part of its checkpoints' key): bump it
#: when the loop's iterates or its state change
_SMACOF_STATE = 1

#: the stopping tests of :func:`weighted_smacof` and :func:`bipartite_smacof` (``stop``)
STOPS = ("relative", "normalized")


class _Stop:
    """When SMACOF stops, and the stress it reports.

    ``"relative"``: after the transform whose stress ``new`` fell by less than ``eps`` of the one
    before, ``(old - new) / old < eps`` (Borg & Groenen's test); the stress reported is the
    returned points'.  ``"normalized"``: the test of the weighted MDS the study ran
    (scikit-multilearn's ``_mdsw``, taken from the CLEMS authors' code, itself an earlier
    scikit-learn ``smacof`` with weights): transform t divides the stress of the points it was applied
    to by the summed Euclidean norms of the points it gave, and stops when that fell by less than
    ``eps`` from transform t-1's; the stress reported is that of the points before the last
    transform (what that code returns and compares between starts).
    """

    def __init__(self, stop, eps):
        if stop not in STOPS:
            raise ConfigError(f"CLEMS: stop must be one of {', '.join(STOPS)}, got {stop!r}")
        self.stop, self.eps, self.previous = stop, float(eps), None

    def __call__(self, before, after, Z):
        """(done, reported stress) after a transform from points of stress ``before`` to ``Z``
        of stress ``after``."""
        if self.stop == "relative":
            return before <= 0 or (before - after) / before < self.eps, after
        ratio = before / np.sqrt(np.einsum("ij,ij->i", Z, Z)).sum()
        done = self.previous is not None and self.previous - ratio < self.eps
        self.previous = ratio
        return done, before


def weighted_smacof(delta, W, init, max_iter=300, eps=1e-3, stop="relative"):
    """SMACOF with weights from ``init`` (module doc): returns (Z, stress, n_iter).

    Stops by the test ``stop`` (:class:`_Stop`: ``"relative"``, ``(old - new) / old < eps``, or
    ``"normalized"``, the study's) or after ``max_iter`` Guttman transforms.
    """
    test = _Stop(stop, eps)
    n = W.shape[0]
    V = -W.copy()
    V[np.diag_indices(n)] = W.sum(axis=1)
    ones = np.full((n, n), 1.0 / n)
    V_pinv = np.linalg.inv(V + ones) - ones      # V^+ of a connected weighted Laplacian
    Z = np.array(init, dtype=np.float64)
    stress = reported = weighted_stress(Z, delta, W)
    it = 0
    for it in range(1, max_iter + 1):
        D = _distances(Z)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(D > 0, delta / D, 0.0)
        B = -W * ratio
        B[np.diag_indices(n)] = 0.0
        B[np.diag_indices(n)] = -B.sum(axis=1)
        Z = V_pinv @ (B @ Z)
        new = weighted_stress(Z, delta, W)
        done, reported = test(stress, new, Z)
        stress = new
        if done:
            break
    return Z, reported, it


def bipartite_smacof(cost, counts, init, max_iter=300, eps=1e-3, stop="relative"):
    """:func:`weighted_smacof` for CLEMS's weights, without its (2K, 2K) matrices.

    The 2K points are K truth points T and K prediction points P; the only weighted pairs are
    (t_i, p_j), with weight ``counts[i]`` and target distance ``cost[i, j]``.  The same Guttman
    transforms as :func:`weighted_smacof` (the same iterates up to float rounding), computed per
    block: with R_ij = n_i cost_ij / ||t_i - p_j|| (0 where the distance is 0), B(Z) Z is
    (diag(R 1) T - R P ; diag(R^T 1) P - R^T T), and V + J / 2K = diag(v) + U S U^T with
    v = (K n ; N 1), U = ((n ; 0), (0 ; 1), 1), S = ((0, -1, 0), (-1, 0, 0), (0, 0, 1 / 2K)),
    so V^+ M = (V + J/2K)^-1 M - J M / 2K by the Woodbury identity: O(K L) instead of O(K^2 L),
    and the cross distances (K, K) instead of all (2K, 2K).  Each step costs three (K, K, L)
    products where :func:`weighted_smacof` takes about sixteen, and memory is a quarter.
    Returns (Z, stress, n_iter) as :func:`weighted_smacof` does, stopping by the same ``stop``.

    Inside a run (:mod:`mlbench.checkpoint`) a start that runs for long saves its loop's state
    (the points, the stress, the stopping test's memory, the step) every few minutes and its
    result when it ends, under a key of its inputs; the same call in a rerun of the cell takes
    the steps from there, with the iterates of an uninterrupted run.
    """
    from mlbench import checkpoint

    test = _Stop(stop, eps)
    cost = np.asarray(cost, dtype=np.float64)
    n = np.asarray(counts, dtype=np.float64)
    K = n.size
    m = 2 * K
    v = np.r_[n * K, np.full(K, n.sum())]             # V's diagonal: each point's summed weight
    U = np.zeros((m, 3))
    U[:K, 0], U[K:, 1], U[:, 2] = n, 1.0, 1.0
    DinvU = U / v[:, None]
    S_inv = np.array([[0.0, -1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, float(m)]])
    cap = np.linalg.inv(S_inv + U.T @ DinvU)
    w = n[:, None]

    def v_pinv(M):
        DM = M / v[:, None]
        out = DM - DinvU @ (cap @ (U.T @ DM))
        return out - M.sum(axis=0) / m

    def cross(Z):
        T, P = Z[:K], Z[K:]
        D2 = (np.einsum("ij,ij->i", T, T)[:, None] + np.einsum("ij,ij->i", P, P)[None, :]
              - 2.0 * (T @ P.T))
        np.maximum(D2, 0.0, out=D2)
        return np.sqrt(D2)

    Z = np.array(init, dtype=np.float64)
    digest = checkpoint.key("bipartite_smacof", _SMACOF_STATE, cost, n, Z, int(max_iter),
                            float(eps), stop) if checkpoint.active() else None
    state = checkpoint.load("smacof", digest) if digest else None
    cpu0 = time.process_time() - (float(state["cpu_seconds"]) if state else 0.0)
    if state is not None and bool(state["done"]):
        return state["Z"], float(state["reported"]), int(state["it"])
    if state is None:
        first, stress, reported = 1, None, None
    else:
        Z, first = state["Z"], int(state["it"]) + 1
        stress, reported = float(state["stress"]), float(state["reported"])
        test.previous = None if np.isnan(state["previous"]) else float(state["previous"])
    D = cross(Z)
    if state is None:
        stress = reported = float((w * (D - cost) ** 2).sum())
    timer = checkpoint.Timer()
    it = first - 1
    for it in range(first, max_iter + 1):
        with np.errstate(divide="ignore", invalid="ignore"):
            R = np.where(D > 0, w * cost / D, 0.0)
        T, P = Z[:K], Z[K:]
        BZ = np.vstack([R.sum(axis=1)[:, None] * T - R @ P, R.sum(axis=0)[:, None] * P - R.T @ T])
        Z = v_pinv(BZ)
        D = cross(Z)
        new = float((w * (D - cost) ** 2).sum())
        done, reported = test(stress, new, Z)
        stress = new
        if done:
            break
        if timer.due() and it < max_iter:
            checkpoint.save("smacof", digest, Z=Z, it=it, stress=stress, reported=reported,
                            previous=np.nan if test.previous is None else test.previous,
                            done=False, cpu_seconds=time.process_time() - cpu0)
            timer.saved()
    if state is not None or timer.saved_any:      # a long start: keep its result for a rerun
        checkpoint.save("smacof", digest, Z=Z, it=it, stress=stress, reported=reported,
                        previous=np.nan, done=True, cpu_seconds=time.process_time() - cpu0)
    return Z, reported, it


def hamming_cost(A, B):
    """c(a, b) = mean(a != b) for every row of A against every row of B, (len(A), len(B))."""
    A, B = np.asarray(A, dtype=np.float64), np.asarray(B, dtype=np.float64)
    agree = A @ B.T + (1 - A) @ (1 - B).T
    return 1.0 - agree / A.shape[1]


class CLEMS(MultiLabelClassifier):
    """CLEMS embedding + per-dimension random forests + ML-kNN, the study's pipeline (module doc).

    Parameters
    ----------
    k : int, default 10
        Neighbours of the ML-kNN classifier (the study's grid: 6, 8, ..., 20).
    n_estimators : int, default 30
        Trees of each regression forest (the study: 30, ``max_features="sqrt"``).
    n_init, max_iter, eps : SMACOF starts (4), steps per start (300), tolerance (1e-3): the values
        of scikit-multilearn's weighted MDS.
    stop : "normalized" or "relative", default "normalized"
        SMACOF's stopping test (:class:`_Stop`): the test of the weighted MDS the study ran (the
        stress divided by the summed point norms; the CLEMS authors' code too), or the relative
        fall of the stress (Borg & Groenen), which mlbench's rows before 2026-11-29 used.  On 500
        delicious rows (500 labelsets, 983 labels) the normalized test stopped after 133 steps and
        the relative one had not stopped after 300.
    random_state : int, RandomState or None
    """

    #: parameters added after rows were computed, at the values those rows used
    _unrecorded_defaults = {"stop": "relative"}

    _accept_sparse = ("csr", "csc")
    _estimator_checks = {"params": {"n_estimators": 3, "n_init": 1, "max_iter": 20}}
    _last_stage_params = ("k",)

    def __init__(self, *, k=10, n_estimators=30, n_init=4, max_iter=300, eps=1e-3,
                 stop="normalized", random_state=None):
        self.k = k
        self.n_estimators = n_estimators
        self.n_init = n_init
        self.max_iter = max_iter
        self.eps = eps
        self.stop = stop
        self.random_state = random_state

    def embed_labels(self, Y, rng):
        """(truth points, prediction points, each row's vector index, stress) of Y's distinct vectors.

        Sets ``n_iter_``, the SMACOF steps of the start that was kept.
        """
        U, inverse, counts = np.unique(Y, axis=0, return_inverse=True, return_counts=True)
        K, L = U.shape
        cost = np.sqrt(hamming_cost(U, U))
        best = None
        for _ in range(int(self.n_init)):
            init = rng.random_sample((2 * K, L))
            # weighted_smacof with the truth/prediction weights, per block (same iterates)
            Z, stress, n_iter = bipartite_smacof(cost, counts, init, int(self.max_iter),
                                                 float(self.eps), self.stop)
            if best is None or stress < best[1]:
                best = (Z, stress, n_iter)
        self.n_iter_ = best[2]
        return best[0][:K], best[0][K:], np.ravel(inverse), best[1]

    @staticmethod
    def _augment(X, Z):
        return sp.hstack([X, sp.csr_matrix(Z)], format="csr") if sp.issparse(X) else np.hstack([X, Z])

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        for name in ("k", "n_estimators", "n_init", "max_iter"):
            if int(getattr(self, name)) < 1:
                raise ConfigError(f"CLEMS: {name} must be >= 1, got {getattr(self, name)!r}")
        rng = check_random_state(self.random_state)
        truth, prediction, row_point, self.stress_ = self.embed_labels(Y, rng)
        self.truth_points_, self.prediction_points_ = truth, prediction
        Z = truth[row_point]
        seeds = rng.randint(np.iinfo(np.int32).max, size=Z.shape[1])
        self.regressors_ = [
            RandomForestRegressor(n_estimators=int(self.n_estimators), max_features="sqrt",
                                  random_state=int(seed)).fit(X, Z[:, j])
            for j, seed in enumerate(seeds)]
        self._train = (self._augment(X, Z), Y)
        self.classifier_ = MLkNN(k=int(self.k)).fit(*self._train)
        return self

    def refit_last(self, **params):
        """This fitted CLEMS with other ``params`` of its last stage (``k``): a copy sharing the
        embedding and the forests, whose ML-kNN is fitted again on the same augmented training
        rows.  The same model as ``fit`` with those parameters (neither the embedding nor the
        forests depend on k, and ML-kNN draws nothing at random), without redoing the SMACOF and
        the forests; what :class:`~mlbench.methods.tuning.RandomSearch` asks for when it
        scores the study's grid of k."""
        check_is_fitted(self, "classifier_")
        other = sorted(set(params) - set(self._last_stage_params))
        if other:
            raise ConfigError(f"CLEMS.refit_last: {other[0]!r} is not a parameter of the last "
                              f"stage ({', '.join(self._last_stage_params)})")
        new = copy.copy(self).set_params(**params)
        if int(new.k) < 1:
            raise ConfigError(f"CLEMS: k must be >= 1, got {new.k!r}")
        new.classifier_ = MLkNN(k=int(new.k)).fit(*self._train)
        return new

    def embedding(self, X):
        """The regressed embedding of each row, (n, L)."""
        X = self._validate_predict(X)
        check_is_fitted(self, "regressors_")
        return np.column_stack([r.predict(X) for r in self.regressors_])

    def _augmented(self, X):
        X = self._validate_predict(X)
        return self._augment(X, self.embedding(X))

    def predict_proba(self, X):
        """ML-kNN's posterior P(label | neighbours) on [x, regressed embedding]."""
        Xz = self._augmented(X)
        return self.classifier_.predict_proba(Xz)

    def predict(self, X):
        """ML-kNN's MAP labels on [x, regressed embedding]."""
        Xz = self._augmented(X)
        return self.classifier_.predict(Xz)


register("clems", CLEMS, family="embedding", paper="bogatinovski2022",
         params={"k": 10, "n_estimators": 30},
         grid={"k": [6, 8, 10, 12, 14, 16, 18, 20]},
         description="CLEMS (Huang & Lin 2017): Hamming-cost label embedding by weighted MDS, a "
                     "30-tree random forest per dimension, ML-kNN on features + embedding")
