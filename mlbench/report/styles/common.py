"""Helpers shared by the styles: arrows, marker legends, the Friedman line."""
from __future__ import annotations

import numpy as np

from mlbench.report.table import fmt


def arrow(ma):
    """↑ when greater is better, ↓ otherwise (as the MLDF and MC papers annotate measures)."""
    return "↑" if ma.greater_is_better else "↓"


def friedman_line(ma):
    """One line summarising the Friedman test of a metric, or why it is absent."""
    f = ma.friedman
    if f is None:
        return f"Friedman test not computed ({len(ma.used_datasets)} complete datasets)"
    verdict = "rejects" if ma.friedman_rejects else "does not reject"
    return (f"Friedman over {f.n_datasets} datasets and {f.n_methods} methods: χ²_F = {f.chi2:.3f} "
            f"(p = {f.p_chi2:.4g}), Iman-Davenport F_F = {fmt(f.f, 3)} "
            f"(p = {f.p_f:.4g}{', exact: every dataset ranks the methods alike' if np.isinf(f.f) else ''}), "
            f"which {verdict} "
            f"equivalence at α = {ma.alpha:g}; CD Nemenyi = {ma.nemenyi.cd:.3f}"
            + (f", CD Bonferroni-Dunn = {ma.vs_control.cd_bonferroni_dunn:.3f}" if ma.vs_control else ""))


def mean_sd(mean, std, digits=4):
    """``mean±std``, or an em dash for a missing cell."""
    if mean is None or not np.isfinite(mean):
        return "—"
    return f"{fmt(mean, digits)}±{fmt(std, digits)}"


def metric_notes(metrics, skip=()):
    """The notes of several metric analyses, one line per distinct note naming its metrics.

    Notes that start with any prefix in ``skip`` are left out (a style that reports the same fact
    in its own words)."""
    grouped = {}
    for ma in metrics:
        for n in ma.notes:
            if not n.startswith(tuple(skip)):
                grouped.setdefault(n, []).append(ma.metric)
    return [f"{', '.join(names)}: {n}" for n, names in grouped.items()]
