"""Table styles, one module per paper plus ``plain``; each defines ``build(analysis) -> [Table]``.

A style module may also set what the report does for that paper (defaults in brackets), so that a
new paper style is one file:

* ``DEFAULT_STATS``: the statistics when neither ``--stats`` nor the protocol names any [none];
* ``PER_METRIC_CONTROL``: each metric gets its own control (best mean rank) when none is given,
  instead of one control for every metric [False];
* ``extra_metrics(results)``: metric columns added to the protocol's when ``--metric`` is not given;
* ``attach(analysis, paths)``: add numbers that need more than the results CSVs (saved predictions);
* ``VARIANTS_TITLE``: the title of the variants table (:mod:`mlbench.report.styles.variants`).
"""
from __future__ import annotations

import difflib
import importlib

from mlbench.errors import ConfigError

STYLES = ("soshf", "mldf", "mc", "imtsl", "hiercost", "bogatinovski2022", "plain")


def style_module(style):
    """The module of ``style``; an unknown name is one line with a suggestion."""
    if style not in STYLES:
        close = difflib.get_close_matches(style, STYLES, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ConfigError(f"unknown style {style!r}{hint} (choose from {', '.join(STYLES)})")
    return importlib.import_module(f"mlbench.report.styles.{style}")


def build_tables(analysis, style):
    """The tables of ``style``, the variants table, then the statistics section for ``--stats``."""
    from mlbench.report.styles.statistics import stats_tables
    from mlbench.report.styles.variants import variants_table

    module = style_module(style)
    tables = module.build(analysis)
    if analysis.notes and tables:
        tables[0].notes.extend(analysis.notes)
    variants = variants_table(analysis, getattr(module, "VARIANTS_TITLE", None))
    return tables + ([variants] if variants else []) + stats_tables(analysis)
