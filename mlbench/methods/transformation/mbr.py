"""Meta binary relevance (MBR, 2BR: stacked binary relevance), the study's ``mbr``.

Source: Godbole & Sarawagi, "Discriminative methods for multi-labeled classification", PAKDD 2004
(SVM-HF: a second round of per-label SVMs on the input extended by the first round's outputs);
configuration of Bogatinovski, Todorovski, Dzeroski & Kocev, "Comprehensive comparative study of
multi-label classification methods", Expert Systems with Applications 203, 2022 (MEKA's
``meta.MBR -threshold PCut1`` around ``BR`` with SMO, an RBF kernel and logistic calibration, C and
gamma tuned on the grid ``SVC_CS`` x ``SVC_GAMMAS``; ``code/code/algorithmConfiguration.py``).

Level 1 is binary relevance on x: h_l(x) = P(y_l = 1 | x) for every label l.  Level 2 is binary
relevance on the extended input z(x) = (x, h_1(x), ..., h_L(x)): g_l(z) = P(y_l = 1 | z(x)).  As in
MEKA's MBR, the level-2 models are trained on the level-1 outputs for the training rows themselves
(no internal cross-validation) and the same base learner is used at both levels.  The score of
label l is g_l(z(x)); the prediction is g_l >= t with t = ``threshold`` (a number, or ``"pcut1"``:
MEKA's PCut1 threshold calibrated on the predicted rows,
:func:`~mlbench.methods.components.thresholds.pcut1_threshold`).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from mlbench.methods.base import SVC_CS, SVC_GAMMAS, MultiLabelClassifier
from mlbench.methods.components.binary import draw_seeds, scores_kind
from mlbench.methods.components.thresholds import PCUT1_XFAIL, PCutThreshold
from mlbench.methods.registry import register
from mlbench.methods.transformation.br import BinaryRelevance


def _writable(X):
    """X, copied if it is a read-only dense array: libsvm's ``predict_proba`` (base ``svc``)
    rejects read-only buffers."""
    return X.copy() if not sp.issparse(X) and not X.flags.writeable else X


def _extend(X, Z):
    """(x, level-1 outputs): dense or CSR as X is."""
    return sp.hstack([X, sp.csr_matrix(Z)], format="csr") if sp.issparse(X) else np.hstack([X, Z])


class MetaBinaryRelevance(PCutThreshold, MultiLabelClassifier):
    """2BR: binary relevance on x, then binary relevance on x plus the first level's outputs.

    Parameters
    ----------
    base, base_params :
        The binary base learner of both levels (see :class:`BinaryRelevance`); it must give
        probabilities (the study: ``svc``, SVC with an RBF kernel and Platt scaling).
    C, gamma : float or None
        Shortcuts for ``base_params["C"]`` and ``["gamma"]`` (the names the study's protocol
        searches); None leaves ``base_params`` as given.
    threshold : float or "pcut1", default 0.5
        Predict label l when its level-2 probability is at least ``threshold``.
    random_state : int, RandomState or None
        Seeds both levels' base learners.
    """

    def __init__(self, *, base="lr", base_params=None, C=None, gamma=None, threshold=0.5,
                 random_state=None):
        self.base = base
        self.base_params = base_params
        self.C = C
        self.gamma = gamma
        self.threshold = threshold
        self.random_state = random_state

    @property
    def _estimator_checks(self):
        xfail = dict(PCUT1_XFAIL) if self.threshold == "pcut1" else {}
        if self.base == "svc":
            xfail["check_estimators_pickle"] = (
                "an SVC loaded as a read-only memmap fails in libsvm's predict_proba (scikit-learn)")
        return {"xfail": xfail}

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        X = _writable(X)
        self._check_threshold()
        params = dict(self.base_params or {})
        params.update({k: v for k, v in (("C", self.C), ("gamma", self.gamma)) if v is not None})
        if scores_kind(self.base, params) != "proba":
            raise ValueError("MBR stacks probabilities: its base learner needs predict_proba")
        seeds = draw_seeds(self.random_state, 2)
        self.level1_ = BinaryRelevance(base=self.base, base_params=params,
                                       random_state=seeds[0]).fit(X, Y)
        Z = self.level1_.predict_proba(X)
        self.level2_ = BinaryRelevance(base=self.base, base_params=params,
                                       random_state=seeds[1]).fit(_extend(X, Z), Y)
        self.train_cardinality_ = float(Y.sum(axis=1).mean())
        return self

    def predict_proba(self, X):
        """Level-2 P(y_l = 1 | x, level-1 outputs), shape (n, L)."""
        check_is_fitted(self, "level2_")
        X = _writable(self._validate_predict(X))
        return self.level2_.predict_proba(_extend(X, self.level1_.predict_proba(X)))


register("mbr", MetaBinaryRelevance, family="transformation", paper="bogatinovski2022",
         params={"base": "svc", "threshold": "pcut1"},
         grid={"C": list(SVC_CS), "gamma": list(SVC_GAMMAS)},
         description="meta binary relevance (2BR, Godbole & Sarawagi 2004): BR on x plus the "
                     "first BR's probabilities, RBF SVC, MEKA's PCut1 threshold")
