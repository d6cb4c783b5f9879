"""``mlcrf``: a pairwise conditional random field over the labels, conditioned on x.

In the spirit of Pakdaman, Batal, Liu, Hong & Hauskrecht, "An optimization-based framework to learn
conditional random fields for multi-label classification" (SDM 2014), the MLCRF of the MC paper's
comparison: node and edge potentials linear in x over every pair of labels,

    P(y | x) = exp(phi(y, x)) / Z(x),
    phi(y, x) = sum_i y_i (w_i . x + b_i) + sum_{i<j} y_i y_j (u_ij . x + c_ij).

(With binary labels, any pairwise table linear in x reduces to these unary and product terms.)

Learning maximises the L2-penalised pseudo-likelihood, a convex surrogate of the likelihood:

    sum_n sum_i log P(y_i | y_-i, x),  P(y_i = 1 | y_-i, x) = sigmoid(w_i.x + b_i + sum_j y_j (u_ij.x + c_ij)),

with L-BFGS on the analytic gradient (our unconstrained loop, ``_lbfgs.py``, with L-BFGS-B's
stopping rules: 1.4-1.6x faster per iteration at rcv1's million parameters), preconditioned by
the Hessian's diagonal, which is exact and cheap here (:func:`pseudo_loglik_hessian_diag`).  The
edge terms are computed per label over the rows where it is on (:class:`LabelBlocks`): a pair's
term enters a conditional logit only where the other label is 1.  Penalty:
(||W||^2 + ||U||^2) / (2 C) on the feature weights, ``edge_bias_penalty`` * ||c||^2 / 2 on the edge
biases (a Gaussian prior of precision 1 by default, independent of C), none on the node biases b_i
(as in scikit-learn's logistic regression).

Why the edge bias is penalised, and not with 1/C.  For a pair of labels that never co-occur in the
training rows the pseudo-likelihood keeps improving as c_ij goes to minus infinity, so without a
penalty it has no optimum.  On scene (93% of the images carry exactly one of six labels, and most
pairs never co-occur) the unpenalised fit ran L-BFGS to its cap with c_ij near -20 and node biases
near +6 that explain every conditional P(y_i | y_-i, x) without the features (|w_i| 0.01 to 0.6 at
C = 0.01): the MAP vector was decided by the biases, exact match .18 to .33 against .50 for binary
relevance.  Penalising c_ij with 1/C is no cure: c_ij is the pair's log odds ratio at the mean x
(features standardised), not a feature weight, and 1/C = 100 flattens it to -0.1 and loses the
labels' mutual exclusion (exact match .50, micro-F1 .45).  With the unit prior the same C gives
exact match .64, micro-F1 .70 (scene, one fold), and L-BFGS converges.

Regularisation (MC paper, section 6.1: chosen by cross-validation): ``C="cv"`` picks one C from
``Cs`` by ``cv``-fold internal cross-validation of the CRF itself, scored by the exact held-out
conditional log-likelihood sum_n log P(y_n | x_n) (the paper's CLL), walking the grid from the
strongest penalty up and stopping once the held-out loss gets worse (:func:`cv_choose_C`).  (The
per-label C of the independent regressions P(y_i | x), used before, is a proxy that ignores the
edge parameters.)

The grid is the logistic models' ``DEFAULT_CS``, 1e-4 to 100.  With the old grid, which began
at 0.01, the CV chose that end on every fold of the mc protocol, which shows no optimum.  With
the lower values, the rcv1 subsets choose 1e-3 on every fold (rcv1subset3 fold 0: held-out loss
13,182 / 11,217 / 12,040 at 1e-4 / 1e-3 / 0.01), so the old grid's end decided their choice;
emotions, yeast, scene, image and enron keep 0.01 with the loss rising on both sides (enron fold
0: 9,235 / 8,934 / 8,451 / 9,087 at 1e-4 / 1e-3 / 0.01 / 0.1).  On enron the internal partition
matters: with other internal folds (seed 0) that fold chooses 1e-3 (9,161 / 8,766 / 9,695).

Pakdaman et al. also select a sparse edge set; here every pair is kept and the penalty shrinks the
weak ones.  Inference is exact by enumerating the 2^L label vectors up to ``max_labels`` labels
(default 15): the MAP vector, log Z(x) for ``joint_log_proba`` and the marginals for
``predict_proba``.  Beyond (:mod:`._pairwise_search`): the MAP vector by simulated annealing
followed by iterated conditional modes, the marginals by Gibbs sampling with parallel tempering from the MAP vector
(``SWEEPS`` sweeps after ``BURN_IN``, seeded at fit), ``C="cv"`` scored by the held-out pseudo-log-likelihood
(the training criterion; the exact held-out CLL needs log Z), and no ``joint_log_proba`` (log Z is
not approximated, so the CLL-loss is reported as not available rather than approximate).
"""
from __future__ import annotations

from functools import partial

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, logsumexp
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted
from sklearn.utils._available_if import available_if

from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier, check_multilabel_Y
from mlbench.methods.probabilistic._lbfgs import lbfgs
from mlbench.methods.components.logistic import (DEFAULT_CS, JOINT_MODE_XFAIL, bernoulli_loglik, check_Cs, check_min_rows,
                                                     single_blas_thread)
from mlbench.methods.probabilistic._pairwise_search import (edge_matrices, map_search, row_chunks,
                                                            tempered_marginals)
from mlbench.methods.registry import register
from mlbench.methods.components.labelsets import all_label_vectors

#: tempered Gibbs sweeps (after the burn-in) for the marginals beyond ``max_labels`` labels
SWEEPS = 500
BURN_IN = 50

#: rows x label vectors held at once when enumerating
_CHUNK = 4_000_000


def pair_index(L):
    """Index arrays (I, J) of the label pairs i < j, in row-major order."""
    I, J = np.triu_indices(L, k=1)
    return I.astype(np.intp), J.astype(np.intp)


def unpack(theta, L, m):
    """Split theta into views (Wt (m, L), b (L,), U (P, m), c (P,)).

    The node weights are stored feature-major (W transposed) so that X @ Wt and the gradient
    X.T @ R are C-contiguous without a transpose copy: on rcv1 (47,236 features, 2.6 million
    parameters) the transposed copies took as long as the sparse products.  The edge weights are
    stored pair-major (one row per pair), the layout of :class:`LabelBlocks`, which reads and
    writes the rows of one label's pairs: feature-major, those were columns scattered over rows
    of length P, and gathering them took a quarter of each ``edge_logits`` call on enron.
    """
    P = L * (L - 1) // 2
    Wt = theta[: m * L].reshape(m, L)
    b = theta[m * L: m * L + L]
    U = theta[m * L + L: m * L + L + m * P].reshape(P, m)
    c = theta[m * L + L + m * P:]
    return Wt, b, U, c


#: bytes of gathered dense rows that :class:`LabelBlocks` keeps between uses
GATHER_BUDGET = 256 * 2**20


class LabelBlocks:
    """The rows of X gathered per label, for edge terms computed from the labels that are on.

    The edge term of the pair p = (i, j) enters label i's conditional logit only in rows with
    y_j = 1, and label j's only in rows with y_i = 1.  So the products over all P = L (L - 1) / 2
    pairs, X @ U (n x m x P) and X.T @ dE, can be taken per label j over its positive rows N_j
    instead: X[N_j] @ U[:, pairs of j] and X[N_j].T @ A[N_j], m (L - 1) sum_j |N_j| in all, a
    fraction 2 card / L of the dense products (card = mean labels per row; enron 0.13).
    Exact: the same sums in another order.  :func:`label_blocks` decides where it pays.

    The gathered rows X[N_j] (card times X's size in all) are kept while they fit in
    ``GATHER_BUDGET`` bytes; beyond, dense rows are gathered again at each use (an extra 1 / L of
    the product's work) and sparse rows are kept anyway (they are the size of X's nonzeros times card).
    """

    def __init__(self, X, Y, I, J):
        L = Y.shape[1]
        pair = np.zeros((L, L), dtype=np.intp)
        pair[I, J] = pair[J, I] = np.arange(len(I))
        self.X, self.n_features, self.n_pairs = X, X.shape[1], len(I)
        keep = sp.issparse(X) or np.count_nonzero(Y) * X.shape[1] * X.itemsize <= GATHER_BUDGET
        self.blocks = []   # (rows with y_j = 1, the other labels i, their pairs (i, j), X[rows] or None)
        for j in range(L):
            rows = np.flatnonzero(Y[:, j])
            if rows.size:
                others = np.delete(np.arange(L), j)
                self.blocks.append((rows, others, pair[j, others], X[rows] if keep else None))

    def _each(self):
        for rows, others, pairs, Xj in self.blocks:
            yield rows, others, pairs, self.X[rows] if Xj is None else Xj

    def edge_logits(self, logit, U, c):
        """Add every pair's edge input to the conditional logits, in place (U pair-major)."""
        for rows, others, pairs, Xj in self._each():
            logit[np.ix_(rows, others)] += np.asarray(Xj @ U[pairs].T) + c[pairs]

    def edge_products(self, A, square=False):
        """(G, g), pair-major: G[p] = sum_n x_n dE_np and g[p] = sum_n dE_np for
        dE_np = A_ni y_nj + A_nj y_ni (x_n squared elementwise if ``square``).

        Each label adds whole rows of G (its pairs); feature-major, they were columns scattered
        over rows of length P, and that scatter was half of this function on enron (22 of 42 ms
        per call)."""
        G = np.zeros((self.n_pairs, self.n_features))
        g = np.zeros(self.n_pairs)
        for rows, others, pairs, Xj in self._each():
            if square:
                Xj = Xj.multiply(Xj).tocsr() if sp.issparse(Xj) else Xj * Xj
            Aj = A[np.ix_(rows, others)]
            G[pairs] += np.asarray(Xj.T @ Aj).T
            g[pairs] += Aj.sum(axis=0)
        return G, g


#: largest fraction 2 card / L of the dense products at which :class:`LabelBlocks` is used: its
#: per-label loop has to save more than it costs.  Whole mlcrf fits with it against the dense
#: products (``benchmarks/bench_mlcrf.py --whole``): enron (0.13) 1.87x and rcv1subset3 (0.24)
#: 1.16x faster; scene (0.36) 0.96x, yeast (0.61) 0.89x and emotions (0.62) 0.67x.
BLOCKS_MAX_FRACTION = 0.3


def label_blocks(X, Y, I, J):
    """:class:`LabelBlocks` of (X, Y), or None where the blocks would not save enough work (their
    fraction 2 card / L of the dense products above ``BLOCKS_MAX_FRACTION``)."""
    n, L = Y.shape
    if L < 2 or n == 0 or 2 * np.count_nonzero(Y) > BLOCKS_MAX_FRACTION * n * L:
        return None
    return LabelBlocks(X, Y, I, J)


def _edge_products(X, Yf, I, J, A, blocks, X2=None):
    """dE.T @ X (pair-major, P x m) and dE's column sums for dE = A[:, I] Y[:, J] + A[:, J] Y[:, I]
    (X2 for X if given)."""
    if blocks is not None:
        return blocks.edge_products(A, square=X2 is not None)
    dE = A[:, I] * Yf[:, J] + A[:, J] * Yf[:, I]
    return np.asarray((X if X2 is None else X2).T @ dE).T, dE.sum(axis=0)


def pseudo_loglik_and_grad(theta, X, Y, I, J, reg_node, reg_pair, reg_edge_bias=1.0, blocks=None):
    """Negative penalised pseudo-log-likelihood and its gradient w.r.t. theta = (W, b, U, c).

    Penalty: sum_i reg_node[i] ||w_i||^2 / 2 + sum_p reg_pair[p] ||u_p||^2 / 2
    + reg_edge_bias ||c||^2 / 2.  ``blocks``: :func:`label_blocks` of (X, Y), for the edge terms.
    """
    L = Y.shape[1]
    m = X.shape[1]
    Wt, b, U, c = unpack(theta, L, m)
    Yf = Y.astype(np.float64)
    logit = conditional_logits(theta, X, Yf, I, J, blocks)
    f = -bernoulli_loglik(logit, Y).sum()
    R = Yf - expit(logit)                                          # d loglik / d logit
    f += 0.5 * (reg_node @ np.einsum("ij,ij->j", Wt, Wt) + reg_pair @ np.einsum("ij,ij->i", U, U)
                + reg_edge_bias * (c @ c))
    grad = np.empty_like(theta)
    gWt, gb, gU, gc = unpack(grad, L, m)
    # penalty gradient minus the likelihood's, written in place: two passes and no temporary
    np.multiply(Wt, reg_node, out=gWt)
    gWt -= np.asarray(X.T @ R)
    gb[:] = -R.sum(axis=0)
    G, dE_sum = _edge_products(X, Yf, I, J, R, blocks)
    np.multiply(U, reg_pair[:, None], out=gU)
    gU -= G
    gc[:] = -dE_sum + reg_edge_bias * c
    return f, grad


def conditional_logits(theta, X, Yf, I, J, blocks=None):
    """The logits of P(y_i = 1 | y_-i, x) per row and label, shape (n, L), for float labels Yf."""
    L = Yf.shape[1]
    Wt, b, U, c = unpack(theta, L, X.shape[1])
    logit = np.asarray(X @ Wt) + b
    if blocks is not None:
        blocks.edge_logits(logit, U, c)
        return logit
    P = len(I)
    E = np.asarray(X @ U.T) + c                                  # (n, P) edge inputs
    # pair (i, j) adds y_j * E_ij to label i's logit and y_i * E_ij to label j's
    MI = np.zeros((P, L))
    MI[np.arange(P), I] = 1.0
    MJ = np.zeros((P, L))
    MJ[np.arange(P), J] = 1.0
    logit += (E * Yf[:, J]) @ MI + (E * Yf[:, I]) @ MJ
    return logit


def pseudo_loglik_hessian_diag(theta, X, Y, I, J, reg_node, reg_pair, reg_edge_bias=1.0, blocks=None, *,
                               X2):
    """Diagonal of the Hessian of :func:`pseudo_loglik_and_grad`'s objective at theta (``X2`` is
    X squared elementwise).

    Each conditional logit is linear in theta, so label i's term contributes
    s_ni (d logit_ni / d theta_k)^2 to entry k, with s = p (1 - p): for w_ik that is
    s_ni x_nk^2; for u_pk of the pair p = (i, j), which enters label i's logit with y_nj x_nk and
    label j's with y_ni x_nk, it is (s_ni y_nj + s_nj y_ni) x_nk^2; the biases take x_nk = 1.
    The penalty adds its precision.  Used to precondition L-BFGS (:mod:`._lbfgs`).
    """
    L = Y.shape[1]
    Yf = Y.astype(np.float64)
    p = expit(conditional_logits(theta, X, Yf, I, J, blocks))
    S = p * (1.0 - p)
    out = np.empty_like(theta)
    dW, db, dU, dc = unpack(out, L, X.shape[1])
    dW[:] = np.asarray(X2.T @ S) + reg_node
    db[:] = S.sum(axis=0)
    T, T_sum = _edge_products(X, Yf, I, J, S, blocks, X2=X2)
    dU[:] = T + reg_pair[:, None]
    dc[:] = T_sum + reg_edge_bias
    return out


def used_features(X):
    """Sorted indices of the columns of ``X`` with at least one nonzero entry."""
    if sp.issparse(X):
        return np.unique(sp.csr_matrix(X).indices).astype(np.intp)
    return np.flatnonzero(np.any(np.asarray(X) != 0, axis=0)).astype(np.intp)


def restrict(theta, used, L, m):
    """theta restricted to the features ``used`` (the inverse of :func:`expand`)."""
    Wt, b, U, c = unpack(theta, L, m)
    return np.concatenate([Wt[used].ravel(), b, U[:, used].ravel(), c])


def expand(theta_used, used, L, m):
    """The full theta over ``m`` features, whose weights outside ``used`` are zero."""
    P = L * (L - 1) // 2
    full = np.zeros(L * m + L + P * m + P)
    Wt, b, U, c = unpack(full, L, m)
    Wu, bu, Uu, cu = unpack(theta_used, L, len(used))
    Wt[used], b[:], U[:, used], c[:] = Wu, bu, Uu, cu
    return full


def fit_pseudo_likelihood(X, Y, C, theta0=None, max_iter=500, edge_bias_penalty=1.0, precondition=True,
                          edge_blocks=True):
    """Minimise the penalised negative pseudo-log-likelihood with feature-weight strength ``C``.

    Returns (theta, result of :func:`~mlbench.methods.probabilistic._lbfgs.lbfgs`).  ``theta0``
    warm-starts L-BFGS, which stops by scipy L-BFGS-B's default rules and is preconditioned by the
    Hessian's diagonal (:func:`pseudo_loglik_hessian_diag`; ``precondition=False``: the plain
    loop).  The edge terms are taken per label over its positive rows (:class:`LabelBlocks`;
    ``edge_blocks=False``: the dense products over all pairs).  Both switches are kept as
    ``benchmarks/bench_mlcrf.py``'s previous implementations.

    Only the features nonzero in some row of ``X`` are optimised; the others' weights are 0.
    This is exact: such a weight enters the objective through its penalty alone, so its
    gradient is its penalty's, it is 0 at the optimum, and L-BFGS started at 0 never moves
    it.  Why: L-BFGS-B's own work is linear in the number of parameters and was 70% of a fit
    on rcv1subset1, whose training folds use 16-19 thousand of the 47,236 tf-idf features.
    """
    n, L = Y.shape
    m = X.shape[1]
    I, J = pair_index(L)
    P = len(I)
    used = used_features(X)
    Xu = X[:, used]
    if theta0 is None:
        theta0 = np.zeros(L * len(used) + L + P * len(used) + P)
    else:
        theta0 = restrict(theta0, used, L, m)
    diag = None
    if precondition:
        diag = partial(pseudo_loglik_hessian_diag, X2=Xu.multiply(Xu).tocsr() if sp.issparse(Xu) else Xu * Xu)
    res = lbfgs(pseudo_loglik_and_grad, theta0,
                args=(Xu, Y, I, J, np.full(L, 1.0 / C), np.full(P, 1.0 / C), float(edge_bias_penalty),
                      label_blocks(Xu, Y, I, J) if edge_blocks else None),
                max_iter=int(max_iter), precondition=diag)
    return expand(res.x, used, L, m), res


def log_joint_chunks(X, theta, L, allY):
    """Yield (row slice, log P(y | x) for those rows and every row of ``allY``), in row chunks so
    at most about ``_CHUNK`` values are held at once."""
    Wt, b, U, c = unpack(theta, L, X.shape[1])
    I, J = pair_index(L)
    Yv = allY.astype(np.float64)
    pairs = Yv[:, I] * Yv[:, J]
    step = max(1, _CHUNK // len(allY))
    for s in range(0, X.shape[0], step):
        rows = slice(s, min(s + step, X.shape[0]))
        A = np.asarray(X[rows] @ Wt) + b
        E = np.asarray(X[rows] @ U.T) + c
        phi = A @ Yv.T + E @ pairs.T
        yield rows, phi - logsumexp(phi, axis=1, keepdims=True)


def label_codes(Y):
    """Row index of each label vector of ``Y`` in :func:`all_label_vectors` (label 0 the top bit)."""
    L = Y.shape[1]
    return np.asarray(Y, dtype=np.int64) @ (1 << np.arange(L - 1, -1, -1))


def joint_loglik(X, Y, theta):
    """Exact log P(y_n | x_n) per row of (X, Y) under theta."""
    L = Y.shape[1]
    codes = label_codes(Y)
    out = np.empty(X.shape[0])
    for rows, J in log_joint_chunks(X, theta, L, all_label_vectors(L)):
        out[rows] = J[np.arange(J.shape[0]), codes[rows]]
    return out


def pseudo_loglik(X, Y, theta):
    """sum_n sum_i log P(y_ni | y_n,-i, x_n) under theta (no penalty)."""
    L = Y.shape[1]
    I, J = pair_index(L)
    zeros = np.zeros(len(I))
    return -pseudo_loglik_and_grad(theta, X, Y, I, J, np.zeros(L), zeros, 0.0)[0]


def cv_choose_C(X, Y, Cs, cv, max_iter, edge_bias_penalty, random_state, exact=True):
    """The C of ``Cs`` with the best ``cv``-fold held-out exact log-likelihood; (C, losses).

    ``exact=False`` scores the held-out pseudo-log-likelihood instead (no log Z needed).

    The grid is walked from the strongest penalty (smallest C) to the weakest, every fold's fit
    warm-started from its fit at the previous C, and the walk stops at the first C whose summed
    held-out loss is worse than the previous one's (the loss is taken to be unimodal in log C; the
    weak-penalty fits are the slowest, up to 8x the strongest on scene).  ``losses`` holds the
    summed held-out -log P(y | x) of each C tried, in ascending C; ties go to the smaller C.
    """
    grid = sorted(float(c) for c in Cs)
    folds = list(KFold(int(cv), shuffle=True, random_state=random_state).split(X))
    thetas = [None] * len(folds)
    loss = []
    for C in grid:
        total = 0.0
        for f, (tr, te) in enumerate(folds):
            thetas[f], _ = fit_pseudo_likelihood(X[tr], Y[tr], C, thetas[f], max_iter, edge_bias_penalty)
            total -= (joint_loglik(X[te], Y[te], thetas[f]).sum() if exact
                      else pseudo_loglik(X[te], Y[te], thetas[f]))
        loss.append(total)
        if len(loss) > 1 and loss[-1] > loss[-2]:
            break
    return grid[int(np.argmin(loss))], np.array(loss)


class PairwiseCRF(MultiLabelClassifier):
    """Pairwise multi-label CRF (see module docstring).

    Parameters
    ----------
    C : float or "cv"
        Inverse L2 strength of the pseudo-likelihood penalty, or "cv": chosen from ``Cs`` by
        ``cv``-fold internal cross-validation of the CRF's held-out conditional log-likelihood.
    Cs : sequence of float
        Grid for ``C="cv"``.
    cv : int
        Folds of that internal cross-validation.
    edge_bias_penalty : float
        Precision of the Gaussian prior on the edge biases c_ij (must be positive: see above).
    max_iter : int
        L-BFGS iterations per fit.
    max_labels : int
        Largest label count with exact inference by enumerating the 2^L vectors; beyond it, the
        approximations of the module docstring (0 forces them).
    random_state : int, RandomState or None
        The internal cross-validation's folds and (beyond ``max_labels``) the Gibbs sampler.
    """

    _estimator_checks = {"params": {"C": 1.0, "max_iter": 50}, "xfail": JOINT_MODE_XFAIL}

    def __init__(self, *, C="cv", Cs=DEFAULT_CS, cv=3, edge_bias_penalty=1.0, max_iter=500, max_labels=15,
                 random_state=None):
        self.C = C
        self.Cs = Cs
        self.cv = cv
        self.edge_bias_penalty = edge_bias_penalty
        self.max_iter = max_iter
        self.max_labels = max_labels
        self.random_state = random_state

    @single_blas_thread
    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        check_Cs(self.C, self.Cs)
        n, L = Y.shape
        exact = L <= int(self.max_labels)
        try:
            edge_bias_penalty = float(self.edge_bias_penalty)
        except (TypeError, ValueError):
            edge_bias_penalty = np.nan     # not a number: refused below with the one-line message
        if not edge_bias_penalty > 0:
            raise ConfigError(f"edge_bias_penalty must be positive, got {self.edge_bias_penalty!r}")
        rng = check_random_state(self.random_state)
        info = {}
        if isinstance(self.C, str):
            check_min_rows("mlcrf", n, int(self.cv))
            self.C_, loss = cv_choose_C(X, Y, self.Cs, self.cv, self.max_iter, self.edge_bias_penalty,
                                        rng.randint(2**31 - 1), exact=exact)
            info["cv_loss"] = [round(float(v), 3) for v in loss]
        else:
            self.C_ = float(self.C)
        theta, res = fit_pseudo_likelihood(X, Y, self.C_, None, self.max_iter, self.edge_bias_penalty)
        Wt, b, U, c = unpack(theta, L, X.shape[1])
        self.W_, self.b_, self.U_, self.c_ = Wt.T.copy(), b.copy(), U.copy(), c.copy()
        self.theta_ = theta
        self.pairs_ = pair_index(L)
        self.n_iter_ = max(1, int(res.nit))
        self.fit_info_ = {"C": self.C_, **info, "lbfgs_iterations": int(res.nit),
                          "converged": bool(res.success)}
        if not exact:
            self.fit_info_["inference"] = "approximate"
        self.sample_seed_ = rng.randint(2**31 - 1)     # drawn last: earlier draws stay as they were
        return self

    def _exact(self):
        check_is_fitted(self)
        return self.n_labels_ <= int(self.max_labels)

    def _potentials(self, X):
        """Per row slice: (slice, node inputs A (n, L), edge matrices B (n, L, L))."""
        I, J = self.pairs_
        for rows in row_chunks(X.shape[0], self.n_labels_):
            A = np.asarray(X[rows] @ self.W_.T) + self.b_
            E = np.asarray(X[rows] @ self.U_.T) + self.c_
            yield rows, A, edge_matrices(E, I, J, self.n_labels_)

    def _log_joint_all(self, X):
        X = self._validate_predict(X)
        allY = all_label_vectors(self.n_labels_)
        out = np.empty((X.shape[0], len(allY)))
        for rows, J in log_joint_chunks(X, self.theta_, self.n_labels_, allY):
            out[rows] = J
        return out, allY

    def predict(self, X):
        """The MAP label vector argmax_y phi(y, x): exact, or by ICM beyond ``max_labels``."""
        if not self._exact():
            X = self._validate_predict(X)
            rng = np.random.RandomState(self.sample_seed_)
            out = np.empty((X.shape[0], self.n_labels_), dtype=int)
            for rows, A, B in self._potentials(X):
                out[rows] = map_search(A, B, rng)
            return out
        J, allY = self._log_joint_all(X)
        return allY[J.argmax(axis=1)].astype(int)

    def predict_proba(self, X):
        """Marginals P(y_i = 1 | x), shape (n, L): exact, or by tempered Gibbs sampling beyond
        ``max_labels``."""
        if not self._exact():
            X = self._validate_predict(X)
            rng = np.random.RandomState(self.sample_seed_)
            out = np.empty((X.shape[0], self.n_labels_))
            for rows, A, B in self._potentials(X):
                out[rows] = tempered_marginals(A, B, map_search(A, B, rng), rng, SWEEPS, BURN_IN)
            return out
        J, allY = self._log_joint_all(X)
        return np.exp(J) @ allY

    def _has_exact_joint(self):
        return not hasattr(self, "n_labels_") or self.n_labels_ <= int(self.max_labels)

    @available_if(_has_exact_joint)
    def joint_log_proba(self, X, Y):
        """log P(Y = y | x) = phi(y, x) - log Z(x) per row."""
        X = self._validate_predict(X)
        Y = check_multilabel_Y(Y, X.shape[0])
        if Y.shape[1] != self.n_labels_:
            raise ValueError(f"Y has {Y.shape[1]} labels, the model was fitted on {self.n_labels_}")
        return joint_loglik(X, Y, self.theta_)


register("mlcrf", PairwiseCRF, family="probabilistic", paper="mc",
         description="pairwise CRF, node/edge potentials linear in x, penalised pseudo-likelihood, "
                     "C by held-out CLL, exact MAP (ICM and Gibbs beyond 15 labels)")
