"""Paper-style reports: results -> analysis (``analysis``) -> tables (``styles``) -> text (``formats``),
plus CD diagrams (``cd_diagram``) and the regression gate (``check``)."""
from mlbench.report.build import make_report
from mlbench.report.check import compare
from mlbench.report.results import load_results

__all__ = ["compare", "load_results", "make_report"]
