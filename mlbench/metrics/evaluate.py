"""``evaluate``: every requested (or every applicable) measure from whatever outputs are at hand.

A method's outputs are up to three arrays: 0/1 ``predictions`` (n, L), real ``scores`` (n, L) and
``joint_log_proba`` (n,).  Each measure declares what it needs (see :mod:`mlbench.metrics.base`);
``evaluate`` computes those it can.  Without predictions, predictions are ``scores >= threshold``
(0.5: scores read as probabilities).  The label-ranking statistics are computed once and shared by
the four ranking measures, under one tie convention (``ties=``).
"""
from __future__ import annotations

from mlbench.errors import ConfigError
from mlbench.metrics import ranking as _ranking
from mlbench.metrics._validate import check_binary, check_joint, check_scores
from mlbench.metrics.base import MEASURES, get_measure


_NEEDS_TEXT = {
    "predictions": "predictions or scores",
    "scores": "scores",
    "joint": "joint log-probabilities",
    "hierarchy": "predictions and the dataset's hierarchy",
}


def default_measures(available):
    """Names of the registered measures whose needs are in ``available``, in registration order.

    An alias (a second name for the same function, e.g. ``exact_match``) is left out.
    """
    seen, names = set(), []
    for name, measure in MEASURES.items():
        if measure.needs in available and measure.func not in seen:
            seen.add(measure.func)
            names.append(name)
    return names


def evaluate(Y_true, predictions=None, scores=None, joint_log_proba=None, measures=None,
             threshold=0.5, ties="pessimistic", **context):
    """``{measure name: value}`` for ``measures`` (default: every applicable registered measure).

    ``ties``: how the label-ranking measures order tied scores (:data:`mlbench.metrics.ranking.TIES`).

    ``context`` is passed to measures that need more than arrays (``hierarchy=`` for hierarchical
    measures).  Asking for a measure whose input is missing raises :class:`ConfigError`.
    """
    Y = check_binary(Y_true, "Y_true")
    S = None if scores is None else check_scores(scores, Y.shape)
    if predictions is None and S is not None:
        predictions = S >= threshold
    P = None if predictions is None else check_binary(predictions, "predictions", Y.shape)
    J = None if joint_log_proba is None else check_joint(joint_log_proba, Y.shape[0])
    inputs = {"predictions": P, "scores": S, "joint": J}
    if P is not None and context.get("hierarchy") is not None:
        inputs["hierarchy"] = P
    available = {need for need, value in inputs.items() if value is not None}
    if measures is None:
        measures = default_measures(available)
    selected = [get_measure(name) for name in measures]
    for measure in selected:
        if measure.needs not in available:
            needs = _NEEDS_TEXT[measure.needs]
            raise ConfigError(f"metric {measure.name!r} needs {needs}, which were not given")
    shared = None
    if any(m.func in _ranking.SHARED_STATS for m in selected):
        shared = _ranking.ranking_stats(Y, S, ties)
    results = {}
    for measure in selected:
        if measure.func in _ranking.SHARED_STATS:
            results[measure.name] = measure(Y, S, ranking=shared)
        elif measure.needs == "hierarchy":
            results[measure.name] = measure(Y, P, **context)
        else:
            results[measure.name] = measure(Y, inputs[measure.needs])
    return results
