"""Decision thresholds: per-label F1-optimal ones on held-out scores, and MEKA's PCut1.

Used by the SOSHF forests and by ``rf-cost`` (Daniels & Metaxas, AAAI 2019: "we select thresholds
for making hard assignments by maximizing the f-measure of the predictions of the out-of-bag training
instances for each label").  Predicting positive when ``score >= t``, every distinct score is a
candidate; F1 = 2 TP / (predicted positives + actual positives) is evaluated for all of them at once
from a descending sort.  Rules where the F-measure is undefined: a label without out-of-bag
positives (or without out-of-bag rows) keeps the threshold 0.5; among equally good thresholds the
midpoint between the chosen score and the next lower distinct score is used, so a test score that
falls between two training scores is treated like the nearer side.

:func:`pcut1_threshold` and :class:`PCutThreshold` give MEKA's default ``PCut1`` rule, which the
study of Bogatinovski et al. (2022) applies to every method it ran in MEKA.
"""
from __future__ import annotations

import numpy as np


def best_f1_threshold(scores, y, default=0.5):
    """Threshold on ``scores`` maximising F1 against the 0/1 vector ``y`` (NaN scores are ignored)."""
    scores = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y)
    keep = ~np.isnan(scores)
    scores, y = scores[keep], y[keep]
    n_pos = int(y.sum())
    if n_pos == 0 or scores.size == 0:
        return default
    order = np.argsort(-scores, kind="stable")
    s = scores[order]
    tp = np.cumsum(y[order])
    # a cut is allowed only after the last copy of a score value
    last = np.r_[s[1:] != s[:-1], True]
    k = np.arange(1, s.size + 1)
    f1 = np.where(last, 2.0 * tp / (k + n_pos), -1.0)
    i = int(np.argmax(f1))
    if i + 1 < s.size:
        return 0.5 * (s[i] + s[i + 1])
    return s[i]


def oob_thresholds(scores, Y, default=0.5):
    """One F1-maximising threshold per label column (rows with NaN scores are not out-of-bag)."""
    return np.array([best_f1_threshold(scores[:, j], Y[:, j], default) for j in range(Y.shape[1])])


def pcut1_threshold(scores, label_cardinality):
    """MEKA's ``PCut1`` threshold: one threshold for all labels, chosen on the scores it is applied to.

    MEKA (``-threshold PCut1``, its default; ``ThresholdUtils.calibrateThreshold``) calibrates the
    threshold on the predicted scores of the test rows so that the predictions' label cardinality
    approximates ``label_cardinality``, the mean number of labels per training row.  With the
    N x L scores sorted ascending as s_0 <= ... <= s_{NL-1} and i = NL - round(LC * N), MEKA takes
    t = max((s_i + s_j) / 2, 1e-5) with j = max(i + 1, N - 1) (so, for distinct scores, round(LC * N)
    - 1 of them reach t), and these special cases: no rows -> 0.5; a single label (NL = N): i + 1 = N
    -> (s_{N-2} + s_{N-1}) / 2, i + 1 > N -> 1.0, else max((s_i + s_{i+1}) / 2, 1e-5); i >= NL - 1
    -> max((s_{NL-2} + s_{NL-1}) / 2, 1e-5).  The rule is reproduced as MEKA computes it, including
    the choice of s_i rather than s_{i-1} as the lower neighbour.  Java's ``Math.round`` rounds
    halves up (floor(x + 0.5)).  A label is predicted when its score is at least t.
    """
    s = np.sort(np.asarray(scores, dtype=np.float64), axis=None)
    n_rows = np.asarray(scores).shape[0]
    if n_rows == 0:
        return 0.5
    size = s.size
    i = size - int(np.floor(label_cardinality * n_rows + 0.5))
    i = max(i, 0)                    # a cardinality above L (never from training data)
    if n_rows == size:               # one label
        if i + 1 == n_rows:
            return (s[n_rows - 2] + s[n_rows - 1]) / 2.0 if n_rows > 1 else s[0] / 2.0
        if i + 1 >= n_rows:
            return 1.0
        return max((s[i] + s[i + 1]) / 2.0, 1e-5)
    if i >= size - 1:
        return max((s[size - 2] + s[size - 1]) / 2.0, 1e-5)
    return max((s[i] + s[max(i + 1, n_rows - 1)]) / 2.0, 1e-5)


#: scikit-learn estimator checks that a ``threshold="pcut1"`` method cannot pass, with the reason
PCUT1_XFAIL = {
    "check_methods_subset_invariance":
        "PCut1 calibrates its threshold on the rows predicted together (MEKA's rule)",
    "check_classifier_multioutput":
        "expects predict == round(predict_proba); PCut1 thresholds at a calibrated value",
}


class PCutThreshold:
    """Mixin: ``predict`` thresholds ``predict_proba`` at ``threshold`` (a number) or, with
    ``threshold="pcut1"``, at :func:`pcut1_threshold` of the predicted rows' scores and the training
    label cardinality ``train_cardinality_`` (set by ``fit``).  With ``"pcut1"`` a row's prediction
    depends on the other rows predicted with it, as in MEKA's batch evaluation."""

    def _check_threshold(self):
        t = self.threshold
        if isinstance(t, str):
            if t != "pcut1":
                raise ValueError(f"threshold must be a number or 'pcut1', got {t!r}")
        elif not np.isfinite(float(t)):
            raise ValueError(f"threshold must be finite, got {t!r}")

    def predict(self, X):
        scores = self.predict_proba(X)
        t = (pcut1_threshold(scores, self.train_cardinality_) if isinstance(self.threshold, str)
             else self.threshold)
        return (scores >= t).astype(int)
