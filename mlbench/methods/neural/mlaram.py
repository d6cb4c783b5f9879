"""ML-ARAM: multi-label fuzzy adaptive resonance associative map (Benites & Sapozhnikova, "HARAM:
A Hierarchical ARAM Neural Network for Large-Scale Text Classification", ICDM Workshops 2015; the
flat ML-ARAM network of that paper, without its extra clustering layer), as scikit-multilearn
0.2.0's ``MLARAM`` implements it, which is what the comprehensive study (Bogatinovski et al.,
Expert Systems with Applications 2022) ran: ``MLARAM(vigilance=rho, threshold=t)`` with
rho in {0.8, 0.85, 0.9, 0.95} and t in {0.0001, 0.02, 0.05, 0.1, 0.2, ..., 0.9, 0.95}.

**Inputs.**  When the training features leave [0, 1], every value is rescaled by the training
set's overall minimum and maximum (one scalar pair for all features, as scikit-multilearn does);
each row ``x`` is complement-coded, ``I = (x, 1 - x)``, so ``|I| = d`` for x in [0, 1].

**Training** (one pass over the rows, in order).  A prototype (neuron) j holds a weight vector
``w_j`` (length 2d) and a label-count vector ``c_j`` (length L).  For row i with label set y_i only
the prototypes created for the same label set compete.  For those, with ``|a|`` the L1 norm and
``^`` the element-wise minimum,

* choice     ``T_j = |I ^ w_j| / |w_j|``,
* match      ``M_j = |I ^ w_j| / |I|``;

among them, in decreasing order of T_j (exact ties: the newest prototype first, which is what the
reference's reversed ``argsort`` gives while it sorts at most 16 prototypes), the first with
``M_j > rho`` wins and learns fast, ``w_j <- I ^ w_j``, ``c_j <- c_j + y_i``.  If no prototype
of that label set exists, or none passes the vigilance test, a new prototype ``w = I, c = y_i``
is created.

**Scores.**  For a test row with input I the activation of every prototype is
``A_j = |I ^ w_j| / (|w_j| + 1e-13)``.  With ``A_max`` and ``A_min`` the largest and smallest
activations, the prototypes with ``(A_max - A_j) / A_max <= t (A_max - A_min)`` take part, and the
score of label l is the activation-weighted mean of their label counts,
``s_l = sum_j A_j c_j(l) / sum_j A_j``, returned by ``decision_function`` (scikit-multilearn calls
it ``predict_proba``, but the scores are not probabilities: once a prototype has learnt several
rows its label counts exceed 1).

**Prediction.**  Labels are sorted by score; the cut goes at the largest drop between two
consecutive scores (the first largest drop), and the labels above it are predicted.

Differences from scikit-multilearn 0.2.0, none of which changes a result on inputs that it handles:
test inputs are rescaled with the *training* minimum and maximum and clipped to [0, 1]
(scikit-multilearn rescales a test batch by its own extremes, so a row's prediction depended on
the other rows of the batch); the label matrix passed to ``fit`` is not modified (scikit-multilearn
adds the label counts into the caller's Y rows); in training only the prototypes of the row's label
set are scored (scikit-multilearn scores those too, in a Python loop over them), and the scores of
all test rows are formed together (scikit-multilearn loops over rows and voting prototypes).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from mlbench.errors import ConfigError
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.registry import register

#: the constant added to each prototype's norm in the activation (scikit-multilearn's ``_alpha``)
ALPHA = 1e-13
#: test rows scored together by ``decision_function``
BLOCK = 256


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)


def largest_gap_cut(scores):
    """0/1 rows: per row, the labels above the largest drop of the sorted scores (module doc)."""
    n, L = scores.shape
    order = np.argsort(-scores, axis=1, kind="stable")
    ranked = np.take_along_axis(scores, order, axis=1)
    out = np.zeros((n, L), dtype=int)
    if L == 1:
        out[:] = 1
        return out
    drops = ranked[:, :-1] - ranked[:, 1:]
    n_top = np.argmax(drops, axis=1) + 1           # argmax: the first of equal largest drops
    top = np.arange(L)[None, :] < n_top[:, None]
    np.put_along_axis(out, order, top.astype(int), axis=1)
    return out


class MLARAM(MultiLabelClassifier):
    """ML-ARAM (Benites & Sapozhnikova 2015), scikit-multilearn 0.2.0's variant (module doc).

    Parameters
    ----------
    vigilance : float in [0, 1), default 0.9
        rho: a prototype learns a row only if their match exceeds it (higher: more prototypes).
    threshold : float >= 0, default 0.02
        t: how far below the best activation a prototype may be and still vote on the scores.
    """

    _accept_sparse = ("csr", "csc")

    def __init__(self, *, vigilance=0.9, threshold=0.02):
        self.vigilance = vigilance
        self.threshold = threshold

    def _inputs(self, X):
        X = _dense(X)
        if self.scale_ is not None:
            lo, span = self.scale_
            X = np.clip((X - lo) / span, 0.0, 1.0)
        return np.hstack([X, 1.0 - X])

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        if not 0.0 <= float(self.vigilance) < 1.0:
            raise ConfigError(f"MLARAM: vigilance must be in [0, 1), got {self.vigilance!r}")
        if not float(self.threshold) >= 0.0:
            raise ConfigError(f"MLARAM: threshold must be >= 0, got {self.threshold!r}")
        Xd = _dense(X)
        lo, hi = float(Xd.min()), float(Xd.max())
        outside = lo < 0.0 or hi > 1.0
        self.scale_ = (lo, (hi - lo) or 1.0) if outside else None
        inputs = self._inputs(Xd)
        rho = float(self.vigilance)
        # label set (its bytes) -> indices of its prototypes in weights / counts
        groups: dict[bytes, list] = {}
        weights, counts = [], []
        for i in range(inputs.shape[0]):
            I = inputs[i]
            key = Y[i].tobytes()
            members = groups.get(key)
            if members is not None:
                idx = np.asarray(members)
                W = np.asarray([weights[j] for j in idx])
                overlap = np.minimum(W, I).sum(axis=1)
                choice = overlap / W.sum(axis=1)
                match = overlap / I.sum()
                # decreasing choice; among equal choices the newest prototype first
                order = np.lexsort((-idx, -choice))
                passing = order[match[order] > rho]
                if choice.max() > 0 and passing.size:
                    win = idx[passing[0]]
                    weights[win] = np.minimum(weights[win], I)
                    counts[win] = counts[win] + Y[i]
                    continue
            groups.setdefault(key, []).append(len(weights))
            weights.append(I.copy())
            counts.append(Y[i].astype(np.float64))
        self.weights_ = np.asarray(weights)
        self.label_counts_ = np.asarray(counts)
        return self

    def activations(self, X):
        """A_j for every test row and prototype, (n, n_prototypes)."""
        X = self._validate_predict(X)
        check_is_fitted(self, "weights_")
        return self._activations(self._inputs(X))

    def _activations(self, inputs):
        # one row at a time into a reused buffer: the (prototypes x 2d) minimum is summed along its
        # rows exactly as the reference sums it (a 3-D batched sum adds in another order, and
        # activations that differ in the last bit can reorder tied prototypes)
        W = self.weights_
        out = np.empty((inputs.shape[0], W.shape[0]))
        buf = np.empty_like(W)
        for i, I in enumerate(inputs):
            np.minimum(I, W, out=buf)
            out[i] = buf.sum(axis=1)
        out /= W.sum(axis=1) + ALPHA
        return out

    def decision_function(self, X):
        """Activation-weighted label counts of the prototypes near the winner (module doc).

        The sums run over the voting prototypes in decreasing order of activation (the order of
        ``argsort`` reversed), as scikit-multilearn adds them, so that scores that tie in exact
        arithmetic tie, or not, the same way in both and the largest-gap cut agrees.  Rows are
        scored in blocks of ``BLOCK`` so that memory stays O(BLOCK x prototypes).
        """
        X = self._validate_predict(X)
        check_is_fitted(self, "weights_")
        inputs = self._inputs(X)
        scores = np.empty((inputs.shape[0], self.label_counts_.shape[1]))
        for s in range(0, inputs.shape[0], BLOCK):
            scores[s:s + BLOCK] = self._block_scores(self._activations(inputs[s:s + BLOCK]))
        return scores

    def _block_scores(self, A):
        n, n_proto = A.shape
        order = np.argsort(A, axis=1)[:, ::-1]
        As = np.take_along_axis(A, order, axis=1)
        best = As[:, :1]
        spread = best - As[:, -1:]
        with np.errstate(invalid="ignore", divide="ignore"):
            close = (best - As) / best <= float(self.threshold) * spread
        close[:, 0] = True                          # the winner always votes
        # the voters are the prefix before the first prototype that is too far
        n_votes = np.where(close.all(axis=1), n_proto, np.argmin(close, axis=1))
        C = self.label_counts_
        rows = np.arange(n)
        scores = As[:, :1] * C[order[:, 0]]
        total = As[:, 0].copy()
        for p in range(1, int(n_votes.max()) if n else 0):
            live = rows[n_votes > p]
            scores[live] += As[live, p, None] * C[order[live, p]]
            total[live] += As[live, p]
        with np.errstate(invalid="ignore", divide="ignore"):
            scores /= total[:, None]
        return np.nan_to_num(scores, nan=0.0)

    def predict(self, X):
        """The labels above the largest drop of each row's sorted scores."""
        return largest_gap_cut(self.decision_function(X))


register("mlaram", MLARAM, family="neural", paper="bogatinovski2022",
         params={"vigilance": 0.9, "threshold": 0.02},
         grid={"vigilance": [0.8, 0.85, 0.9, 0.95],
               "threshold": [0.0001, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]},
         description="ML-ARAM (Benites & Sapozhnikova 2015): fuzzy ARAM prototypes per label set, "
                     "scores from the prototypes near the winner, cut at the largest score gap")
