"""From results CSVs to an :class:`~mlbench.report.analysis.Analysis`, as ``mlbench report`` and
``mlbench plot`` compute it.

Defaults come from the results' protocol (its ``metrics``, ``control``, ``stats``, ``style`` and
main methods / variants, read with :func:`mlbench.protocols.load_protocol`); options given
explicitly override them.  ``protocol`` may name the rows' protocol or a protocol YAML file (whose
name selects the rows and whose variants the report uses).  A protocol may list tests a results
CSV cannot support (``mcnemar`` needs per-example predictions): those are named in the notes, not
silently ignored.  What differs per paper (default statistics, extra measure columns, numbers from
saved predictions) is set by the style module (:mod:`mlbench.report.styles`).
"""
from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass

from mlbench.errors import MlbenchError
from mlbench.results_file import json_object


def _load(name):
    from mlbench.protocols import load_protocol

    return load_protocol(name)


def is_protocol_file(name):
    """Whether ``--protocol`` names a YAML file rather than the rows' protocol."""
    text = os.fspath(name)
    return text.endswith((".yaml", ".yml")) or os.sep in text


def protocol_source(name, frame=None):
    """Where protocol ``name`` of the rows in ``frame`` is read from: a shipped protocol of that
    name (ablation files such as results/papers/mldf-ablation.yaml reuse the paper protocol's name
    so that their rows join its grid; the shipped protocol stays the grid's authority), else the
    file its rows recorded (``extra.protocol_file``, a protocol given to ``run`` by path; a
    relative path is read against the checkout of the row's results file, ``__file``, see
    :func:`mlbench.protocols.recorded_protocol_file`) while that file still holds protocol
    ``name``, else the name."""
    from mlbench.protocols import protocol_names, recorded_protocol_file

    if frame is None or "extra" not in frame.columns or name in protocol_names():
        return name
    rows = frame[frame["protocol"] == name] if "protocol" in frame.columns else frame
    files = rows["__file"] if "__file" in rows.columns else [None] * len(rows)
    for text, results in zip(rows["extra"], files):
        if not isinstance(text, str) or '"protocol_file"' not in text:
            continue
        path = (json_object(text) or {}).get("protocol_file")
        if isinstance(path, str) and path:
            path = recorded_protocol_file(path, results if isinstance(results, str) else None)
        if isinstance(path, str) and os.path.isfile(path):
            try:
                if _load(path).name == name:
                    return path
            except MlbenchError:
                pass
    return name


def protocol_defaults(name, frame=None):
    """``{metrics, control, stats, style, variants}`` of protocol ``name`` (a shipped name or a
    YAML file; empty when unknown or absent), read from the file the rows in ``frame`` recorded
    when there is one (:func:`protocol_source`)."""
    if not name:
        return {}
    try:
        p = _load(protocol_source(name, frame))
    except (ImportError, MlbenchError):
        # an unknown protocol name (results from elsewhere): the report uses its own defaults
        return {}
    return {"metrics": list(p.metrics), "control": p.control, "stats": list(p.stats), "style": p.style,
            "variants": dict(p.variants)}


@dataclass
class Prepared:
    """What a report is made of: the analysis of the selected results, the style to show it, the files."""

    analysis: object
    style: str
    paths: list


def degenerate_notes(frame):
    """One note per method and reason over the rows whose ``extra.degenerate`` says the model
    ignored its input (:func:`mlbench.experiment.outputs.degenerate`): the datasets, with how many
    of their splits."""
    if "extra" not in frame.columns:
        return []
    hits, splits = defaultdict(lambda: defaultdict(int)), defaultdict(int)
    for method, dataset, extra in frame[["method", "dataset", "extra"]].itertuples(index=False):
        splits[(method, dataset)] += 1
        why = (json_object(extra) or {}).get("degenerate")
        if isinstance(why, str):
            hits[(method, why)][dataset] += 1
    notes = []
    for (method, why), where in sorted(hits.items()):
        at = ", ".join(f"{d} ({k} of {splits[(method, d)]} splits)" for d, k in sorted(where.items()))
        notes.append(f"{method}: {why} on {at}: its outputs there do not depend on the features")
    return notes


def prepare(paths, *, metrics=(), stats=(), control=None, alpha=0.05, style=None, protocol=None,
            rope=None, seed=0, bayes_samples=50_000, methods=None, datasets=None, allow_stale=False,
            echo=None):
    """Load, select and analyse the results CSVs ``paths`` (see the module docstring), or the
    rows of a results DataFrame (:func:`mlbench.results.read`) given in their place.  Rows
    computed from something no longer current are refused unless ``allow_stale``
    (:func:`mlbench.experiment.provenance.check_frame`)."""
    from mlbench.experiment.provenance import check_frame
    from mlbench.protocols.measure_from import apply as apply_measure_from
    from mlbench.report.analysis import analyse, normalize_stats
    from mlbench.report.results import load_results, results_from_frame, select
    from mlbench.report.styles import STYLES, style_module
    from mlbench.report.tuning import grid_edge_notes
    from mlbench.stats.bayesian import DEFAULT_ROPE

    frame = None
    if hasattr(paths, "columns"):        # a results DataFrame: its rows, the files it names
        frame, paths = paths, list(paths.attrs.get("files", ()))
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if style is not None:
        style_module(style)              # an unknown style: one line with a suggestion
    strict, _ = normalize_stats(stats, strict=True)
    file_defaults = None
    if protocol is not None and is_protocol_file(protocol):
        proto = _load(protocol)          # a missing or malformed file: one line
        protocol, file_defaults = proto.name, protocol_defaults(protocol)
    loaded = load_results(paths, metrics=list(metrics) or None, protocol=protocol) if frame is None \
        else results_from_frame(frame, list(metrics) or None, protocol, paths,
                                frame.attrs.get("notes", ()))
    results = select(loaded, methods, datasets)
    provenance_notes = check_frame(results.frame, allow_stale=allow_stale, echo=echo,
                                   what=", ".join(results.files))
    # a protocol's measure_from (MLDF): each measure from the model trained for it, one column
    results = apply_measure_from(results)
    defaults = file_defaults if file_defaults is not None else \
        protocol_defaults(results.protocol, results.frame)
    style = style or defaults.get("style") or "plain"
    if style not in STYLES:
        style = "plain"
    module = style_module(style)
    chosen = list(metrics) or [m for m in defaults.get("metrics", []) if m in results.metrics] \
        or results.metrics
    if not metrics and hasattr(module, "extra_metrics"):
        chosen += [c for c in module.extra_metrics(results) if c not in chosen]
    extra_notes = list(provenance_notes)
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
            use = list(getattr(module, "DEFAULT_STATS", ()))
    analysis = analyse(results, metrics=chosen, control=control, protocol_control=defaults.get("control"),
                       alpha=alpha, stats=use, strict_stats=strict_named,
                       rope=DEFAULT_ROPE if rope is None else rope, seed=seed, bayes_samples=bayes_samples,
                       per_metric_control=getattr(module, "PER_METRIC_CONTROL", False),
                       variants=defaults.get("variants"))
    analysis.notes.extend(extra_notes + grid_edge_notes(results.frame)
                          + degenerate_notes(results.frame))
    if hasattr(module, "attach"):
        module.attach(analysis, paths)
    return Prepared(analysis, style, paths)
