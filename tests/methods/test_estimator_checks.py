"""scikit-learn's estimator checks over every registered method.

The list of methods is ``registry.all_methods()`` at collection time, so a method added later is
checked too.  Each method is built with its registered parameters, ensemble sizes capped at 3
(``n_estimators``, ``n_trees``, ``n_chains``) and then its class's ``_estimator_checks["params"]``
on top, so each method's checks take seconds.

Some checks cannot apply to a multi-label estimator (they fit a 1-D or multi-class target and
expect 1-D outputs); they are listed below with the reason, and marked xfail, never skipped
silently.  A method adds its own in ``_estimator_checks["xfail"]`` (see
``mlbench/methods/base.py``) and may mark its checks slow with ``_estimator_checks["slow"]``.
"""
from __future__ import annotations

import functools
from fnmatch import fnmatch

import pytest
from threadpoolctl import threadpool_limits
from sklearn.utils.estimator_checks import estimator_checks_generator

from mlbench.methods import registry

@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Tiny problems: one BLAS thread is fastest, and spare threads spin on a shared machine."""
    with threadpool_limits(1):
        yield


#: checks that cannot apply to any mlbench method: check name -> why
MULTILABEL_XFAIL = {
    "check_estimators_dtypes":
        "fits a multi-class 1-D target; mlbench methods take a 0/1 label matrix",
    "check_fit2d_1feature":
        "fits the multi-class target X[:, 0] and expects an error naming the 1 feature",
    "check_classifier_data_not_an_array":
        "fits the multi-class target [1, 1, 1, 2, 2, 2]; mlbench methods take 0/1 labels",
    "check_classifiers_classes":
        "fits string and multi-class targets; mlbench methods take a 0/1 label matrix",
    "check_classifiers_train":
        "fits multi-class targets and expects 1-D predictions; mlbench predicts an (n, L) matrix",
    "check_classifiers_one_label":
        "expects 1-D predictions for a 1-D target; mlbench always predicts an (n, L) matrix",
}

#: checks that cannot apply to methods with ``predict_proba``
PROBA_XFAIL = {
    "check_estimator_sparse_array":
        "expects predict_proba of shape (n, 2) for a 1-D target; mlbench gives (n, L) "
        "(sparse input is tested in tests/methods/test_baselines.py)",
    "check_estimator_sparse_matrix":
        "expects predict_proba of shape (n, 2) for a 1-D target; mlbench gives (n, L) "
        "(sparse input is tested in tests/methods/test_baselines.py)",
}

#: checks that cannot apply to methods whose scores come from ``decision_function``
DECISION_XFAIL = {
    "check_classifier_multioutput":
        "indexes classes_ with the decision matrix as if classes_ were array([0, 1]); mlbench "
        "keeps scikit-learn's multi-output convention, one class array per label",
}

#: ensemble-size parameters capped at 3 for the checks
SIZE_PARAMS = ("n_estimators", "n_trees", "n_chains")

#: methods whose checks were measured to take minutes even with small sizes (fnmatch patterns);
#: they run with the slow tests.  A method's own ``_estimator_checks["slow"]`` does the same.
SLOW_METHODS = ("mldf-*", "mc", "hiercost", "extrd", "trd", "nca", "imb-trd", "imb-nca")


def _config(est):
    return dict(getattr(est, "_estimator_checks", None) or {})


def small_estimator(spec):
    """The method ``spec`` with small sizes, seeded, ready for the checks."""
    est = spec.make(random_state=0)
    params = est.get_params(deep=False)
    small = {p: 3 for p in SIZE_PARAMS if isinstance(params.get(p), int) and params[p] > 3}
    est.set_params(**small)
    est.set_params(**_config(est).get("params", {}))
    return est


def expected_failed_checks(est):
    """Every check expected to fail for ``est``, with its one-line reason."""
    out = dict(MULTILABEL_XFAIL)
    if hasattr(est, "predict_proba"):
        out.update(PROBA_XFAIL)
    if hasattr(est, "decision_function"):
        out.update(DECISION_XFAIL)
    out.update(_config(est).get("xfail", {}))
    return out


def _check_id(check):
    if isinstance(check, functools.partial):
        kwargs = ",".join(f"{k}={v}" for k, v in check.keywords.items())
        name = check.func.__name__
        return f"{name}({kwargs})" if kwargs else name
    return getattr(check, "__name__", str(check))


def _cases():
    for spec in registry.all_methods():
        est = small_estimator(spec)
        heavy = _config(est).get("slow") or any(fnmatch(spec.name, p) for p in SLOW_METHODS)
        slow = [pytest.mark.slow] if heavy else []
        for item in estimator_checks_generator(est, legacy=True, mark="xfail",
                                               expected_failed_checks=expected_failed_checks(est)):
            if hasattr(item, "marks"):  # a pytest.param carrying the xfail mark
                values, marks = item.values, list(item.marks)
            else:
                values, marks = item, []
            yield pytest.param(*values, marks=marks + slow,
                               id=f"{spec.name}-{_check_id(values[1])}")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("estimator, check", list(_cases()))
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_every_registered_method_is_checked():
    ids = {p.id.split("-check_")[0] for p in _cases()}
    assert ids == {spec.name for spec in registry.all_methods()}
