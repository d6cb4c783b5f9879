"""Table styles, one module per paper plus ``plain``; each defines ``build(analysis) -> [Table]``."""
from __future__ import annotations

import difflib
import importlib

from mlbench.errors import ConfigError

STYLES = ("soshf", "mldf", "mc", "imtsl", "hiercost", "plain")


def build_tables(analysis, style):
    """The tables of ``style`` followed by the statistics section for the requested ``--stats``."""
    if style not in STYLES:
        close = difflib.get_close_matches(style, STYLES, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ConfigError(f"unknown style {style!r}{hint} (choose from {', '.join(STYLES)})")
    from mlbench.report.styles.statistics import stats_tables

    tables = importlib.import_module(f"mlbench.report.styles.{style}").build(analysis)
    if analysis.notes and tables:
        tables[0].notes.extend(analysis.notes)
    return tables + stats_tables(analysis)
