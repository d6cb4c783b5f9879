"""Multi-label measures, registered as data (see ``base.py``).

Importing the package registers every measure: example-based and label-based measures of 0/1
predictions (``example``, ``label``), AUCs and label-ranking measures of scores (``auc``,
``ranking``) and the conditional log-likelihood loss of joint probabilities (``probabilistic``).
:func:`evaluate` computes every applicable one from a method's outputs.
"""
from mlbench.metrics.base import MEASURES, Measure, get_measure, register_measure
from mlbench.metrics import example, label, auc, ranking, probabilistic  # noqa: F401,E402  (register)
from mlbench.metrics import hierarchical  # noqa: F401,E402  (register)
from mlbench.metrics._validate import MetricInputError
from mlbench.metrics.evaluate import default_measures, evaluate

__all__ = [
    "MEASURES",
    "Measure",
    "MetricInputError",
    "default_measures",
    "evaluate",
    "get_measure",
    "register_measure",
]
