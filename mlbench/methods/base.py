"""The method contract shared by every family.

A method is a scikit-learn estimator (see ARCHITECTURE.md, "Methods"):

* ``__init__`` takes keyword-only parameters and stores them untouched;
* ``fit(X, Y)`` validates, draws every random choice from ``check_random_state(self.random_state)``
  and returns ``self``; ``X`` is dense or ``scipy.sparse``, ``Y`` a 0/1 matrix of shape (n, L);
* ``predict(X)`` returns a 0/1 ``int`` matrix (n, L); ``predict_proba(X)`` (or ``decision_function``)
  returns one (n, L) float array, never a list of per-label arrays;
* probabilistic methods may add ``joint_log_proba(X, Y)``: log P(Y = y | x) per row.

:class:`MultiLabelClassifier` gives subclasses input validation, tags and a default ``predict``
(scores >= ``threshold_``), so a subclass writes ``fit`` and ``predict_proba`` only.
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.svm import SVC
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_array, check_is_fitted, validate_data


def check_multilabel_Y(Y, n_samples=None):
    """Validate a label matrix: 2-D, values in {0, 1}; return it as a C-contiguous ``int8`` array.

    A 1-D vector is read as a single label column (this lets scikit-learn's estimator checks run).
    """
    if Y is None:  # wording that scikit-learn's estimator checks recognise
        raise ValueError("requires y to be passed, but the target y is None")
    if sp.issparse(Y):
        Y = Y.toarray()
    Y = np.asarray(Y)
    if Y.ndim == 1:
        Y = Y.reshape(-1, 1)
    if Y.ndim != 2:
        raise ValueError(f"Y must be a 2-D 0/1 matrix, got shape {Y.shape}")
    if Y.dtype.kind == "f" and not np.all(np.isfinite(Y)):
        raise ValueError("Y contains NaN or infinity")
    if Y.size and not np.isin(Y, (0, 1)).all():
        try:
            kind = type_of_target(Y)
        except ValueError:
            kind = "unknown"
        # the first sentence is the one scikit-learn's estimator checks look for
        raise ValueError(f"Only binary classification is supported. The type of the target is {kind}; "
                         "Y must hold only 0 and 1 (a multi-label indicator matrix)")
    if n_samples is not None and Y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} rows but Y has {Y.shape[0]}")
    return np.ascontiguousarray(Y, dtype=np.int8)


class MultiLabelClassifier(ClassifierMixin, BaseEstimator):
    """Base class of every mlbench method.

    Subclasses implement ``fit`` (calling :meth:`_validate_fit`) and ``predict_proba`` (calling
    :meth:`_validate_predict`).  ``predict`` thresholds the scores at ``threshold_`` (a scalar or one
    value per label, 0.5 unless ``fit`` sets it).
    """

    #: the version of the method's algorithm, recorded in each row's ``algorithm`` column
    #: (``NAME@VERSION``): bump it when the method's outputs change, and regenerate the golden
    #: outputs (``python tests/methods/golden/regenerate.py NAME``); rows of the older version
    #: become stale (:mod:`mlbench.experiment.provenance`)
    algorithm_version = 1

    _accept_sparse = ("csr", "csc")

    #: How tests/methods/test_estimator_checks.py runs scikit-learn's estimator checks on this
    #: class: ``{"params": {...}}`` small sizes that keep the checks fast, ``{"xfail": {check: reason}}``
    #: checks that cannot apply to this method (one-line reason each, on top of the ones shared by
    #: every multi-label method), ``{"slow": True}`` to run them only with the slow tests.
    _estimator_checks: dict = {}

    #: Parameters that change only the last stage of a fitted model.  A class that names some
    #: gives its fitted estimators ``refit_last(**params)``, returning the model ``fit`` with those
    #: values would give without redoing the earlier stages; a search over them
    #: (:class:`~mlbench.methods.tuning.RandomSearch`) fits once per fold and refits the rest.
    _last_stage_params: tuple = ()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        tags.classifier_tags.multi_class = False
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.input_tags.sparse = bool(self._accept_sparse)
        return tags

    # -- validation helpers ---------------------------------------------------------------
    def _validate_fit(self, X, Y):
        X = validate_data(self, X, accept_sparse=self._accept_sparse or False, dtype=np.float64,
                          reset=True)
        Y = check_multilabel_Y(Y, X.shape[0])
        self.n_labels_ = Y.shape[1]
        self.classes_ = [np.array([0, 1])] * self.n_labels_
        return X, Y

    def _validate_predict(self, X):
        check_is_fitted(self)
        return validate_data(self, X, accept_sparse=self._accept_sparse or False, dtype=np.float64,
                             reset=False)

    # -- default prediction ------------------------------------------------------------------
    def _scores(self, X):
        if hasattr(self, "predict_proba"):
            return self.predict_proba(X)
        return self.decision_function(X)

    def predict(self, X):
        """0/1 predictions (n, L): scores at or above ``threshold_`` (0.5 if fit set none)."""
        scores = self._scores(X)
        threshold = getattr(self, "threshold_", 0.5)
        return (scores >= threshold).astype(int)


#: Base learners that several families use, by the name protocols give them.
BASE_LEARNERS = ("lr", "lr-cv", "svm", "svc", "tree", "c45", "j48", "rf")

#: grid of C searched by ``lr-cv``, by the probabilistic family's internal CV (its DEFAULT_CS) and
#: by mlcrf.  It reaches 1e-4: with the old lower end, 0.01, the CV chose that end for every label
#: of scene, image and the rcv1 subsets (mc protocol), which shows no optimum; with the wider grid
#: the rcv1 subsets choose 1e-3 for most labels and no label chooses 1e-4 (ARCHITECTURE.md).
LR_CV_CS = (1e-4, 1e-3, 0.01, 0.1, 1.0, 10.0, 100.0)


#: the study of Bogatinovski et al. (2022) tunes SMO's C and the RBF kernel's gamma over these
#: powers of two (``code/code/execution_script.py``: ``2 ** j for j in range(-5, 15, 2)`` and
#: ``range(-15, 3, 2)``): 10 x 9 = 90 pairs; its methods take them as parameters ``C``, ``gamma``
SVC_CS = tuple(2.0 ** j for j in range(-5, 15, 2))
SVC_GAMMAS = tuple(2.0 ** j for j in range(-15, 3, 2))


def recorded_base_params(base, base_params):
    """The ``base_params`` a results row records for a base learner given by name.

    ``lr-cv``'s grid is a module constant (``LR_CV_CS``) that has changed; recording it makes the
    cells of an older grid differ from the current ones, so a resumed run reruns them instead of
    mixing two grids.  Every other named base records ``base_params`` as given.
    """
    if base == "lr-cv" and "Cs" not in (base_params or {}):
        return {**(base_params or {}), "Cs": list(LR_CV_CS)}
    return base_params


def make_base_learner(name, random_state=None, **params):
    """A fresh binary base learner by name.

    ``lr``: L2 logistic regression (lbfgs); ``lr-cv``: the same with C chosen per fit (so per label)
    from ``LR_CV_CS`` by 3-fold stratified, shuffled internal cross-validation of the log-loss
    (scikit-learn's ``LogisticRegressionCV``, seeded folds, refitted on all rows; the MC paper's
    section 6.1); ``svm``: linear SVM (``LinearSVC``, squared hinge, C=1);
    ``tree`` / ``c45``: a decision tree grown with the entropy criterion (scikit-learn's CART with
    entropy splits, no pruning; the stand-in some papers' methods were written with);
    ``j48``: Weka's J48 (C4.5 release 8: gain ratio, MDL-corrected numeric cuts, error-based
    pruning with subtree raising; :class:`mlbench.methods.components.j48.J48`, parameters ``C``,
    ``M``, ``unpruned``, ``subtree_raising``; defaults J48's, -C 0.25 -M 2);
    ``rf``: random forest.  ``params`` override the learner's own defaults.
    """
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression, LogisticRegressionCV
    from sklearn.model_selection import StratifiedKFold
    from sklearn.svm import LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    if not isinstance(name, str):  # an estimator instance: clone it
        return clone(name)
    if name == "lr":
        kw = dict(C=1.0, max_iter=1000)
        kw.update(params)
        return LogisticRegression(random_state=random_state, **kw)
    if name == "lr-cv":
        seed = random_state if random_state is not None else 0
        kw = dict(Cs=list(LR_CV_CS), cv=StratifiedKFold(3, shuffle=True, random_state=seed),
                  scoring="neg_log_loss", solver="lbfgs", max_iter=1000, l1_ratios=(0.0,),
                  use_legacy_attributes=False)
        kw.update(params)
        return LogisticRegressionCV(random_state=random_state, **kw)
    if name == "svm":
        kw = dict(C=1.0)
        kw.update(params)
        return LinearSVC(random_state=random_state, **kw)
    if name == "svc":
        kw = dict(kernel="rbf", C=1.0, gamma="auto", probability=True)
        kw.update(params)
        return PlattSVC(random_state=random_state, **kw)
    if name in ("tree", "c45"):
        kw = dict(criterion="entropy")
        kw.update(params)
        return DecisionTreeClassifier(random_state=random_state, **kw)
    if name == "j48":
        from mlbench.methods.components.j48 import J48
        return J48(**params)
    if name == "rf":
        kw = dict(n_estimators=100)
        kw.update(params)
        return RandomForestClassifier(random_state=random_state, **kw)
    raise ValueError(f"unknown base learner {name!r}; choose one of {', '.join(BASE_LEARNERS)}")


class PlattSVC(SVC):
    """scikit-learn's ``SVC`` whose ``probability=True`` fits without a deprecation warning.

    scikit-learn 1.9 deprecated ``SVC(probability=True)`` (libsvm's Platt sigmoid per class pair,
    coupled by Wu, Lin & Weng's method - the calibration closest to Weka's SMO ``-M``, which also
    fits one sigmoid per pair and couples them) in favour of ``CalibratedClassifierCV``, which
    needs five rows of every class and so fails on the rare labelsets of a label powerset.  It is
    removed in scikit-learn 1.11, hence the upper bound in pyproject.toml.  A model loaded from a
    read-only memory map predicts probabilities too (libsvm needs writeable arrays).
    """

    def fit(self, X, y, sample_weight=None):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The `probability` parameter was deprecated",
                                    category=FutureWarning)
            return super().fit(X, y, sample_weight=sample_weight)

    def _writeable(self):
        """libsvm's predict_proba rejects read-only buffers: a model loaded from a read-only
        memory map gets writeable copies of its fitted arrays (no change otherwise)."""
        for name, value in list(vars(self).items()):
            if isinstance(value, np.ndarray) and not value.flags.writeable:
                setattr(self, name, value.copy())

    def predict_proba(self, X):
        self._writeable()
        return super().predict_proba(X)

    def predict_log_proba(self, X):
        self._writeable()
        return super().predict_log_proba(X)


def as_2d_float(X):
    """Dense float64 C array or CSR matrix, for kernels that accept either."""
    if sp.issparse(X):
        return sp.csr_matrix(X, dtype=np.float64)
    return check_array(X, dtype=np.float64, order="C")
