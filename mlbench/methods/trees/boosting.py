"""AdaBoost.MH with decision stumps, the study's ``ada300``.

Source: Schapire & Singer, "BoosTexter: a boosting-based system for text categorization", Machine
Learning 39(2/3), 2000 (AdaBoost.MH: boosting over the example-label pairs); configuration of
Bogatinovski, Todorovski, Dzeroski & Kocev, "Comprehensive comparative study of multi-label
classification methods", Expert Systems with Applications 203, 2022 (AdaBoost.MH of MULAN, 300
iterations).  MULAN's ``AdaBoostMH`` is its ``IncludeLabelsClassifier`` around Weka's
``AdaBoostM1`` with Weka's default weak learner, ``DecisionStump``; this module follows that
construction.

Pairs.  Every training row i and label j form one binary example ((x_i, j), y_ij): N L examples
whose inputs are x plus the label's identity (a nominal attribute).  Each starts with weight 1.

Weak learner.  A stump splits the pairs in two, either by a feature, x_f <= c (c the midpoint
between two consecutive distinct values of x_f), or by the label, "label = j" against the other
labels; it is the split of least conditional entropy of the weighted classes,

    sum_{b in branches} [W_b log W_b - W_b+ log W_b+ - W_b- log W_b-],

(W_b+ / W_b-: the weight of the positive / negative pairs in branch b, W_b their sum), and each
branch predicts its weighted majority class (a tie is negative).  A feature split acts on all the
labels of a row, so its branch weights are sums of the per-row sums w+_i = sum_j w_ij y_ij and
w-_i = sum_j w_ij (1 - y_ij): all cut points of a feature are scored from one cumulative sum over
the rows in that feature's order (presorted once), never over the N L pairs.

Boosting (AdaBoost.M1, discrete).  In round t the stump h_t has weighted error e_t (the weight of
the pairs it gets wrong over the total); if e_t = 0 or e_t >= 1/2 boosting stops (a first stump
is then kept as the whole model, with its branch class fractions as the scores); otherwise
beta_t = log((1 - e_t) / e_t), the wrong pairs' weights are multiplied by (1 - e_t) / e_t and all
weights are rescaled to their previous total.  The model's score for (x, j) is the logistic
function of S(x, j) = sum_t beta_t (2 h_t(x, j) - 1) (Weka's normalised exponentiated vote sums),
and label j is predicted when S(x, j) >= 0, i.e. score >= 0.5 (MULAN's bipartition).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.utils.validation import check_is_fitted

from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.registry import register

#: features scored per block (bounds the (block, n) cumulative-sum temporaries)
_BLOCK_CELLS = 2**22


def _xlogx(a):
    return np.where(a > 0, a * np.log(np.where(a > 0, a, 1.0)), 0.0)


def _branch_cost(pos, neg):
    """W log W - W+ log W+ - W- log W- (elementwise): a branch's weighted class entropy x W."""
    return _xlogx(pos + neg) - _xlogx(pos) - _xlogx(neg)


class _Presorted:
    """X's columns sorted once: the row order of every feature and where its values change.

    When every column takes at most two values (bag-of-words data), only the indicator of each
    column's upper value is kept (sparse): a feature's one cut point is then scored from
    ``H.T @ w``, O(nnz) per round instead of O(n d)."""

    def __init__(self, X):
        lo, hi = X.min(axis=0), X.max(axis=0)
        self.two_valued = bool(np.all((X == lo) | (X == hi)))
        if self.two_valued:
            self.H = sp.csc_matrix(X == hi)
            self.splittable = hi > lo
            self.mid = (lo + hi) / 2.0
            return
        self.order = np.argsort(X, axis=0, kind="stable").T.copy()        # (d, n)
        xs = np.take_along_axis(X.T, self.order, axis=1)                   # (d, n) sorted values
        self.cut = xs[:, 1:] > xs[:, :-1]                # a split may follow position k
        self.mid = (xs[:, 1:] + xs[:, :-1]) / 2.0


def _best_feature_split(pre, wpos, wneg):
    """(cost, feature, threshold) of the best feature stump (first best on ties)."""
    tot_p, tot_n = wpos.sum(), wneg.sum()
    if pre.two_valued:
        rp, rn = pre.H.T @ wpos, pre.H.T @ wneg            # the upper value's branch
        cost = _branch_cost(tot_p - rp, tot_n - rn) + _branch_cost(rp, rn)
        cost = np.where(pre.splittable, cost, np.inf)
        f = int(np.argmin(cost)) if cost.size else 0
        return (cost[f], f, pre.mid[f]) if cost.size else (np.inf, -1, 0.0)
    d, n = pre.order.shape
    best = (np.inf, -1, 0.0)
    block = max(1, _BLOCK_CELLS // max(n, 1))
    for start in range(0, d, block):
        order = pre.order[start:start + block]
        lp = np.cumsum(wpos[order], axis=1)[:, :-1]
        ln = np.cumsum(wneg[order], axis=1)[:, :-1]
        cost = _branch_cost(lp, ln) + _branch_cost(tot_p - lp, tot_n - ln)
        cost = np.where(pre.cut[start:start + block], cost, np.inf)
        if cost.size == 0:
            continue
        k = int(np.argmin(cost))                   # first best in (feature, position) order
        f, pos = divmod(k, n - 1)
        if cost[f, pos] < best[0]:
            best = (cost[f, pos], start + f, pre.mid[start + f, pos])
    return best


class AdaBoostMH(MultiLabelClassifier):
    """AdaBoost.MH over (example, label) pairs with entropy decision stumps (see module doc).

    Parameters
    ----------
    n_estimators : int, default 300
        Boosting rounds T (the study: 300).

    Fitted: ``stumps_`` (kind ``"feature"`` / ``"label"``, index, threshold, left and right
    class), ``betas_``.  The fit is deterministic (no random choice): ties between equally good
    stumps go to the first feature, lowest cut point, and feature stumps before label stumps.
    """

    def __init__(self, *, n_estimators=300):
        self.n_estimators = n_estimators

    _estimator_checks = {"params": {"n_estimators": 10}}

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        if not isinstance(self.n_estimators, (int, np.integer)) or self.n_estimators < 1:
            raise ValueError(f"n_estimators must be a positive integer, got {self.n_estimators!r}")
        X = X.toarray() if sp.issparse(X) else X
        Yb = Y.astype(bool)
        n, L = Y.shape
        pre = _Presorted(X)
        W = np.ones((n, L))
        self.stumps_, self.betas_, self.first_distribution_ = [], [], None
        for t in range(self.n_estimators):
            total = W.sum()
            wpos = np.where(Yb, W, 0.0)
            wneg = W - wpos
            cost, f, c = _best_feature_split(pre, wpos.sum(1), wneg.sum(1))
            # label stumps: "label = j" against the rest
            lp, ln = wpos.sum(0), wneg.sum(0)
            lcost = _branch_cost(lp, ln) + _branch_cost(lp.sum() - lp, ln.sum() - ln)
            j = int(np.argmin(lcost))
            if lcost[j] < cost:
                side = np.zeros(L, dtype=bool)
                side[j] = True                               # "left" = label j
                left_p, left_n = lp[j], ln[j]
                stump = ("label", j, 0.0)
                in_left = np.broadcast_to(side, (n, L))
            else:
                in_left_rows = X[:, f] <= c
                left_p, left_n = wpos[in_left_rows].sum(), wneg[in_left_rows].sum()
                stump = ("feature", f, c)
                in_left = np.broadcast_to(in_left_rows[:, None], (n, L))
            right_p, right_n = wpos.sum() - left_p, wneg.sum() - left_n
            lc, rc = int(left_p > left_n), int(right_p > right_n)
            pred = np.where(in_left, lc, rc).astype(bool)
            wrong = pred != Yb
            err = W[wrong].sum() / total
            if t == 0:
                left_tot, right_tot = left_p + left_n, right_p + right_n
                self.first_distribution_ = (left_p / left_tot if left_tot > 0 else 0.0,
                                            right_p / right_tot if right_tot > 0 else 0.0)
            if err >= 0.5 or err == 0.0:
                if t == 0:
                    self.stumps_.append(stump + (lc, rc))
                break
            self.stumps_.append(stump + (lc, rc))
            self.betas_.append(np.log((1.0 - err) / err))
            W[wrong] *= (1.0 - err) / err
            W *= total / W.sum()
        return self

    def _stump_votes(self, stump, X, L):
        kind, idx, c, lc, rc = stump
        if kind == "label":
            left = np.zeros((X.shape[0], L), dtype=bool)
            left[:, idx] = True
        else:
            col = X[:, [idx]]
            col = col.toarray() if sp.issparse(col) else col
            left = np.broadcast_to(col <= c, (X.shape[0], L))
        return np.where(left, lc, rc)

    def decision_scores(self, X):
        """S(x, j) = sum_t beta_t (2 h_t(x, j) - 1), shape (n, L)."""
        check_is_fitted(self, "stumps_")
        X = self._validate_predict(X)
        S = np.zeros((X.shape[0], self.n_labels_))
        for stump, beta in zip(self.stumps_, self.betas_):
            S += beta * (2.0 * self._stump_votes(stump, X, self.n_labels_) - 1.0)
        return S

    def predict_proba(self, X):
        """The logistic function of S(x, j); a model of one stump gives its branch fractions."""
        check_is_fitted(self, "stumps_")
        if not self.betas_:
            X = self._validate_predict(X)
            left = self._stump_votes(self.stumps_[0][:3] + (1, 0), X, self.n_labels_)
            return np.where(left == 1, *self.first_distribution_).astype(np.float64)
        return expit(self.decision_scores(X))

    def predict(self, X):
        """Label j when S(x, j) >= 0 (MULAN: P(1) >= P(0))."""
        check_is_fitted(self, "stumps_")
        if not self.betas_:
            return (self.predict_proba(X) >= 0.5).astype(int)
        return (self.decision_scores(X) >= 0).astype(int)


register("ada300", AdaBoostMH, family="trees", paper="bogatinovski2022",
         params={"n_estimators": 300},
         description="AdaBoost.MH (Schapire & Singer 2000) as MULAN builds it: discrete AdaBoost "
                     "of entropy decision stumps over (example, label) pairs, 300 rounds")
