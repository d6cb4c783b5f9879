"""Per-label decision thresholds that maximise the F-measure on held-out (out-of-bag) scores.

Used by the SOSHF forests and by ``rf-cost`` (Daniels & Metaxas, AAAI 2019: "we select thresholds
for making hard assignments by maximizing the f-measure of the predictions of the out-of-bag training
instances for each label").  Predicting positive when ``score >= t``, every distinct score is a
candidate; F1 = 2 TP / (predicted positives + actual positives) is evaluated for all of them at once
from a descending sort.  Rules where the F-measure is undefined: a label without out-of-bag
positives (or without out-of-bag rows) keeps the threshold 0.5; among equally good thresholds the
midpoint between the chosen score and the next lower distinct score is used, so a test score that
falls between two training scores is treated like the nearer side.
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
