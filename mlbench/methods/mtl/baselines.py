"""BR and CC with logistic regression, tuned by the I-MTSL paper's hold-out procedure.

The I-MTSL paper (Section 5.3) gives every method, BR (Tsoumakas & Katakis 2007) and CC (Read et
al. 2011) included, the same hyperparameter procedure: ten equally spaced values in [0, 5], chosen
by mean label accuracy on 20% of the training part, then a refit on all of it.  These wrappers reuse
the platform's ``br-lr`` and ``cc`` (mlbench.methods.transformation) unchanged and only choose
their base logistic regression's L2 penalty lambda ||w||_2^2 (lambda = 0: no penalty, C = inf).

Scale (``scale``): the paper says BR and CC "were implemented by the authors", like I-MTSL, so they
take I-MTSL's reading of the loss (the summed log-loss of the paper's Eq. 8; see
:mod:`mlbench.methods.mtl.imtsl`): each label minimises sum_i logloss + lambda ||w||^2, i.e.
scikit-learn's C = 1 / (2 lambda) (``scale="sum"``, the default).  BR is then I-MTSL without the
label graph and with an L2 instead of an l1 penalty, at the same scale, so the comparison does not
hinge on a different regularisation strength.  ``scale="mean"`` is the per-task mean loss of
Eqs. 4-5 (also MALSAR's, the MTL baselines' scale): (1/n) sum_i logloss + lambda ||w||^2,
C = 1 / (2 lambda n); the protocol ``imtsl-paper`` runs BR and CC this way.
"""
from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from mlbench.errors import ConfigError
from mlbench.methods import registry
from mlbench.methods.base import MultiLabelClassifier
from mlbench.methods.components.validation import check_fraction
from mlbench.methods.mtl.holdout import (PAPER_GRID, grid_values, holdout_parts,
                                         mean_label_accuracy)

_SEED_MAX = np.iinfo(np.int32).max
BASES = ("br-lr", "cc")


SCALES = ("sum", "mean")


def lambda_to_C(lam, n, scale="mean"):
    """scikit-learn's C for sum logloss + lam ||w||^2 (``scale="sum"``) or for
    (1/n) sum logloss + lam ||w||^2 (``scale="mean"``)."""
    if lam == 0:
        return np.inf
    return 1.0 / (2.0 * lam * (n if scale == "mean" else 1.0))


class HoldoutLogistic(MultiLabelClassifier):
    """A platform transformation method (``br-lr`` or ``cc``) with lambda chosen on a hold-out.

    Parameters
    ----------
    method : {"br-lr", "cc"}
        The registered method to wrap.
    lambdas : None, float or list of float
        Candidate L2 penalties (None: ten values in [0, 5]).
    max_iter : int
        L-BFGS iterations of each logistic regression.
    scale : {"sum", "mean"}, default "sum"
        Scale of the log-loss that lambda is weighed against (module docstring).
    validation_fraction, random_state : as in :class:`~mlbench.methods.mtl.imtsl.IMTSL`.
    """

    _estimator_checks = {"params": {"lambdas": [0.1, 1.0], "max_iter": 50}}

    def __init__(self, *, method="br-lr", lambdas=None, max_iter=1000, scale="sum",
                 validation_fraction=0.2, random_state=None):
        self.method = method
        self.lambdas = lambdas
        self.scale = scale
        self.max_iter = max_iter
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def _make(self, lam, n, seed):
        return registry.make(self.method, random_state=seed,
                             base_params={"C": lambda_to_C(lam, n, self.scale),
                                          "max_iter": int(self.max_iter)})

    def fit(self, X, Y, validation=None):
        X, Y = self._validate_fit(X, Y)
        if self.method not in BASES:
            raise ConfigError(f"method must be one of {', '.join(BASES)}, got {self.method!r}")
        if self.scale not in SCALES:
            raise ConfigError(f"scale must be one of {', '.join(SCALES)}, got {self.scale!r}")
        check_fraction("validation_fraction", self.validation_fraction)
        rng = check_random_state(self.random_state)
        seed = int(rng.randint(_SEED_MAX))
        lams = grid_values(self.lambdas, "lambdas")
        fraction = self.validation_fraction if len(lams) > 1 else 0.0  # one value: nothing held out
        X_fit, Y_fit, X_val, Y_val, X_all, Y_all = holdout_parts(X, Y, validation, fraction, rng)
        best, scores = lams[0], []
        # one BLAS thread: many small L-BFGS fits (see mlbench.methods.mtl.estimator)
        with threadpool_limits(limits=1, user_api="blas"):
            if len(lams) > 1 and X_val is not None:
                for lam in lams:
                    est = self._make(lam, X_fit.shape[0], seed).fit(X_fit, Y_fit)
                    scores.append(mean_label_accuracy(Y_val, est.predict(X_val)))
                best = lams[int(np.argmax(scores))]
            self.estimator_ = self._make(best, X_all.shape[0], seed).fit(X_all, Y_all)
        self.fit_info_ = {"lambda": round(float(best), 6)}
        # the most L-BFGS iterations any label's logistic regression of the final fit needed
        self.n_iter_ = max([1] + [int(np.max(e.n_iter_)) for e in self.estimator_.estimators_
                                  if hasattr(e, "n_iter_")])
        if scores:
            self.fit_info_["validation_accuracy"] = round(float(max(scores)), 6)
        return self

    def predict_proba(self, X):
        """The wrapped method's P(y_l = 1 | x), shape (n, L)."""
        X = self._validate_predict(X)
        return self.estimator_.predict_proba(X)

    def predict(self, X):
        """The wrapped method's 0/1 predictions (CC feeds its own predictions down the chain)."""
        X = self._validate_predict(X)
        return np.asarray(self.estimator_.predict(X), dtype=int)


registry.register("br-lr-holdout", HoldoutLogistic, family="transformation", paper="imtsl",
                  params={"method": "br-lr"}, grid={"lambdas": list(PAPER_GRID)},
                  description="br-lr with the L2 penalty chosen on a hold-out (I-MTSL Section 5.3)")
registry.register("cc-holdout", HoldoutLogistic, family="transformation", paper="imtsl",
                  params={"method": "cc"}, grid={"lambdas": list(PAPER_GRID)},
                  description="cc (logistic) with the L2 penalty chosen on a hold-out (I-MTSL Section 5.3)")
