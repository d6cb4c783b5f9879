"""Subset mapper (SSM): binary relevance whose prediction is moved to the nearest known labelset.

Source: Schapire & Singer, "Improved boosting algorithms using confidence-rated predictions",
Machine Learning 37(3), 1999 (mapping an output vector to the closest labelset seen in training),
as MEKA implements it (``meka.classifiers.multilabel.meta.SubsetMapper``), the configuration of
Bogatinovski et al. (2022): SubsetMapper over BR with Weka's J48.

1. Fit binary relevance; its 0/1 output is b(x), label j on when P(y_j = 1 | x) >= 1/2 (MEKA
   rounds the BR distribution).
2. If b(x) is a labelset of the training rows, predict it; otherwise predict the training labelset
   at the smallest Hamming distance from b(x).  Ties: MEKA looks for the most frequent of the
   nearest sets, but it stores every count as 0, so its answer is the first nearest set in a
   seeded shuffle of the known labelsets; here the shuffle is drawn from ``random_state``.

The scores are the mapped 0/1 labelset (MEKA's output; the study's runs treat SSM as a method
without scores).  The study's J48: the command line that ran gives J48's defaults (pruned at
confidence 0.25, two rows per leaf), the parameters recorded beside it say ``-U -M 2``; mlbench
follows the command (``j48``, :mod:`mlbench.methods.components.j48`).
"""
from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.components.binary import draw_seeds
from mlbench.methods.registry import register
from mlbench.methods.transformation.br import BinaryRelevance
from mlbench.methods.transformation.pruned_sets import first_seen_labelsets

#: rows x known labelsets per block of the distance computation
_BLOCK = 20_000_000


def nearest_labelsets(B, known):
    """Index into ``known`` (m, L) of the first labelset nearest (Hamming) to each row of ``B``."""
    B = np.asarray(B, dtype=np.float64)
    K = np.asarray(known, dtype=np.float64)
    ones = K.sum(axis=1)
    out = np.empty(B.shape[0], dtype=int)
    step = max(1, _BLOCK // max(K.shape[0], 1))
    for start in range(0, B.shape[0], step):
        b = B[start:start + step]
        # |b xor k| = |b| + |k| - 2 b.k
        dist = b.sum(axis=1)[:, None] + ones[None, :] - 2.0 * (b @ K.T)
        out[start:start + step] = np.argmin(dist, axis=1)
    return out


class SubsetMapper(MultiLabelClassifier):
    """BR(``base``) whose 0/1 output is mapped to the nearest training labelset.

    Parameters
    ----------
    base : str or estimator, default "j48"
        BR's binary learner (the study: J48).
    base_params : dict or None
        Parameters of a named base learner.
    random_state : int, RandomState or None
        Seeds BR's learners and the tie order of the known labelsets.
    """

    _estimator_checks = {"xfail": {
        "check_classifiers_multilabel_output_format_predict_proba":
            "scores are the mapped 0/1 labelset (MEKA's output); the check wants the open "
            "interval (0, 1)"}}

    def __init__(self, *, base="j48", base_params=None, random_state=None):
        self.base = base
        self.base_params = base_params
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        rng = check_random_state(self.random_state)
        br_seed, order_seed = draw_seeds(rng, 2)
        self.br_ = BinaryRelevance(base=self.base, base_params=self.base_params,
                                   random_state=br_seed).fit(X, Y)
        known = first_seen_labelsets(Y)[0]
        self.labelsets_ = known[check_random_state(order_seed).permutation(known.shape[0])]
        self.fit_info_ = {"n_labelsets": int(self.labelsets_.shape[0])}
        return self

    def _br_output(self, X):
        if hasattr(self.br_, "predict_proba"):
            return (self.br_.predict_proba(X) >= 0.5).astype(int)
        return self.br_.predict(X)

    def predict(self, X):
        """The training labelset nearest to BR's 0/1 output (itself if known), (n, L)."""
        X = self._validate_predict(X)
        if self.labelsets_.shape[0] == 0:
            return np.zeros((X.shape[0], self.n_labels_), dtype=int)
        return self.labelsets_[nearest_labelsets(self._br_output(X), self.labelsets_)].astype(int)

    def predict_proba(self, X):
        """The mapped labelset as 0/1 scores (MEKA's output), (n, L)."""
        return self.predict(X).astype(np.float64)


register("ssm", SubsetMapper, family="transformation", paper="bogatinovski2022",
         params={"base": "j48"},
         description="subset mapper: BR with J48 trees, output moved to the nearest training "
                     "labelset (Bogatinovski et al. 2022: MEKA SubsetMapper over BR with J48)")
