"""``mlbench report`` as a library call: results CSVs in, rendered text (and CD diagrams) out.

Defaults come from the results' protocol (its ``metrics``, ``control``, ``stats`` and ``style``,
read with :func:`mlbench.protocols.load_protocol`); options given explicitly override them.  A
protocol may list tests a results CSV cannot support (``mcnemar`` needs per-example predictions):
those are named in the notes, not silently ignored.
"""
from __future__ import annotations

import os

from mlbench.errors import ConfigError, MlbenchError
from mlbench.report.analysis import analyse, normalize_stats
from mlbench.report.export import analysis_to_dict
from mlbench.report.formats import FORMATS, render
from mlbench.report.results import load_results
from mlbench.report.styles import STYLES, build_tables

#: measure columns the hiercost style adds when present (hF1, tree-induced error)
HIERARCHICAL_COLUMNS = ("hierarchical_f1", "hf1", "tree_induced_error", "tree_error", "te")


def protocol_source(name, frame=None):
    """Where protocol ``name`` of the rows in ``frame`` is read from: the file its rows recorded
    (``extra.protocol_file``, a protocol given to ``run`` by path) while that file still holds
    protocol ``name``, else the name (a shipped protocol)."""
    import json

    if frame is None or "extra" not in frame.columns:
        return name
    rows = frame[frame["protocol"] == name] if "protocol" in frame.columns else frame
    for text in rows["extra"].dropna().astype(str):
        if '"protocol_file"' not in text:
            continue
        try:
            path = json.loads(text).get("protocol_file")
        except (ValueError, AttributeError, RecursionError):
            continue
        if isinstance(path, str) and os.path.isfile(path):
            from mlbench.protocols import load_protocol

            try:
                if load_protocol(path).name == name:
                    return path
            except MlbenchError:
                pass
    return name


def protocol_defaults(name, frame=None):
    """``{metrics, control, stats, style}`` of protocol ``name`` (empty when unknown or absent),
    read from the file the rows in ``frame`` recorded when there is one (:func:`protocol_source`)."""
    if not name:
        return {}
    try:
        from mlbench.protocols import load_protocol

        p = load_protocol(protocol_source(name, frame))
    except (ImportError, MlbenchError):
        # an unknown protocol name (results from elsewhere): the report uses its own defaults
        return {}
    return {"metrics": list(p.metrics), "control": p.control, "stats": list(p.stats), "style": p.style}


def make_report(paths, *, metrics=(), stats=(), control=None, alpha=0.05, style=None, fmt="terminal",
                protocol=None, cd_diagram=None, cd_test="nemenyi", rope=None, seed=0, colour=False,
                bayes_samples=50_000, width=None, methods=None, datasets=None):
    """Return ``(text, analysis, diagram_paths)`` for the given results files and options."""
    if fmt not in FORMATS:
        raise ConfigError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    if style is not None and style not in STYLES:
        build_tables(None, style)  # raises the one-line error with a suggestion
    strict, _ = normalize_stats(stats, strict=True)
    from mlbench.report.results import select

    results = select(load_results(paths, metrics=list(metrics) or None, protocol=protocol),
                     methods, datasets)
    # a protocol's measure_from (MLDF): each measure from the model trained for it, one column
    from mlbench.protocols.measure_from import apply as apply_measure_from

    results = apply_measure_from(results)
    defaults = protocol_defaults(results.protocol, results.frame)
    style = style or defaults.get("style") or "plain"
    if style not in STYLES:
        style = "plain"
    chosen = list(metrics) or [m for m in defaults.get("metrics", []) if m in results.metrics] or results.metrics
    if not metrics and style == "hiercost":
        chosen += [c for c in HIERARCHICAL_COLUMNS if c in results.metrics and c not in chosen]
    extra_notes = []
    if stats:
        use = strict
        # "all" computes what the data allow; named tests must be computable
        strict_named = [] if "all" in stats else strict
    else:
        use, unknown = normalize_stats(defaults.get("stats", []), strict=False)
        strict_named = []
        if unknown:
            extra_notes.append(f"the protocol also names {', '.join(unknown)}, which needs per-example "
                               "predictions and cannot be computed from a results CSV")
        if not use:
            use = {"soshf": ["friedman", "wilcoxon"], "mldf": ["ttest"], "mc": ["ttest"]}.get(style, [])
    from mlbench.stats.bayes import DEFAULT_ROPE

    analysis = analyse(results, metrics=chosen, control=control, protocol_control=defaults.get("control"),
                       alpha=alpha, stats=use, strict_stats=strict_named,
                       rope=DEFAULT_ROPE if rope is None else rope, seed=seed, bayes_samples=bayes_samples,
                       per_metric_control=style == "plain")
    from mlbench.report.tuning import grid_edge_notes

    analysis.notes.extend(extra_notes + grid_edge_notes(results.frame))
    if style == "hiercost":  # Yang & Liu's tests from saved per-document predictions, when present
        from mlbench.stats.sign_tests import attach_yang_liu

        attach_yang_liu(analysis, [str(p) for p in ([paths] if isinstance(paths, (str, os.PathLike))
                                                     else paths)])
    diagrams = []
    if cd_diagram:          # before the tables: a diagram that cannot be drawn leaves a note
        diagrams = write_cd_diagrams(analysis, cd_diagram, cd_test)
    tables = build_tables(analysis, style)
    payload = analysis_to_dict(analysis, style) if fmt == "json" else None
    if fmt == "html":       # the self-contained dashboard (tables, plots, costs, provenance)
        from mlbench.report.dashboard import dashboard

        names = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
        return dashboard(analysis, tables, [os.fspath(p) for p in names], protocol), analysis, diagrams
    return render(tables, fmt, colour=colour, payload=payload, width=width), analysis, diagrams


def write_cd_diagrams(analysis, path, test="nemenyi"):
    """One diagram per metric: ``path`` itself for one metric, ``stem-METRIC.ext`` for several."""
    from mlbench.report.cd_diagram import draw
    from mlbench.stats import critical_difference

    if test not in ("nemenyi", "bonferroni-dunn"):
        raise ConfigError(f"unknown --cd-test {test!r} (nemenyi or bonferroni-dunn)")
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".png", ".svg"):
        raise ConfigError(f"--cd-diagram must end in .png or .svg (got {path})")
    written = []
    for ma in analysis.metrics:
        if ma.friedman is None:
            note = (f"no CD diagram for {ma.metric}: it ranks methods over datasets and "
                    f"{len(ma.used_datasets)} dataset(s) have results for every method")
            if note not in analysis.notes:
                analysis.notes.append(note)
            continue
        out = path if len(analysis.metrics) == 1 else f"{os.path.splitext(path)[0]}-{ma.metric}{ext}"
        k, n = ma.friedman.n_methods, ma.friedman.n_datasets
        cd = critical_difference(k, n, analysis.alpha, test)
        draw(ma.block_methods, ma.friedman.average_ranks, cd, out, test=test,
             control=ma.block_methods.index(ma.control) if ma.control in ma.block_methods
             else None,
             title=f"{ma.display}, {test}, α = {analysis.alpha:g}, N = {n}")
        written.append(out)
    return written
