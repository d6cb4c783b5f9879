"""Multi-label measures, registered as data (see ``base.py``)."""
from mlbench.metrics.base import MEASURES, Measure, get_measure, register_measure

__all__ = ["MEASURES", "Measure", "get_measure", "register_measure"]
