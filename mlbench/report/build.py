"""``mlbench report`` as a library call: results CSVs in, rendered text (and CD diagrams) out.

The numbers come from :func:`mlbench.report.prepare.prepare` (the protocol's defaults, the main
methods and the variants, the style's hooks); this module only renders them: the style's tables
(:mod:`mlbench.report.styles`), the CD diagrams (:mod:`mlbench.report.cd_diagram`), the ``json``
document and the HTML dashboard.
"""
from __future__ import annotations

from mlbench.errors import ConfigError
from mlbench.report.formats import FORMATS, render


def make_report(paths, *, metrics=(), stats=(), control=None, alpha=0.05, style=None, fmt="terminal",
                protocol=None, cd_diagram=None, cd_test="nemenyi", rope=None, seed=0, colour=False,
                bayes_samples=50_000, width=None, methods=None, datasets=None, allow_stale=False,
                echo=None):
    """Return ``(text, analysis, diagram_paths)`` for the given results files and options.
    Rows computed from something no longer current are refused unless ``allow_stale``
    (:func:`mlbench.experiment.provenance.check_frame`; each stale group named through ``echo``,
    default stderr)."""
    from mlbench.report.cd_diagram import write_cd_diagrams
    from mlbench.report.export import analysis_to_dict
    from mlbench.report.prepare import prepare
    from mlbench.report.styles import build_tables

    if fmt not in FORMATS:
        raise ConfigError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    prep = prepare(paths, metrics=metrics, stats=stats, control=control, alpha=alpha, style=style,
                   protocol=protocol, rope=rope, seed=seed, bayes_samples=bayes_samples,
                   methods=methods, datasets=datasets, allow_stale=allow_stale, echo=echo)
    analysis = prep.analysis
    diagrams = []
    if cd_diagram:          # before the tables: a diagram that cannot be drawn leaves a note
        diagrams = write_cd_diagrams(analysis, cd_diagram, cd_test, pdf=True)
    tables = build_tables(analysis, prep.style)
    payload = analysis_to_dict(analysis, prep.style) if fmt == "json" else None
    if fmt == "html":       # the self-contained dashboard (tables, plots, costs, provenance)
        from mlbench.report.dashboard import dashboard

        return dashboard(analysis, tables, prep.paths, protocol), analysis, diagrams
    return render(tables, fmt, colour=colour, payload=payload, width=width), analysis, diagrams
