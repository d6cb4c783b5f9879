"""Critical-difference diagrams (Demšar 2006, section 3.2.4, Figure 1).

The rank axis runs from ``k`` (left) to 1 (right, best).  Each method hangs from its average rank by
an elbow line to its label: the worse half of the methods on the left, labelled top-down from the
worst, the better half on the right, so every label has its own text line and labels never overlap.

* Nemenyi: methods whose average ranks differ by less than the CD are not significantly different;
  :func:`cliques` returns the maximal runs of such methods (every pair inside a bar differs by less
  than the CD, no bar extends to another method without breaking that, no bar lies inside another),
  and each becomes a thick bar under the axis.
* Bonferroni-Dunn: the interval of one CD on each side of the control's rank is drawn (his Figure
  1b); methods outside it differ significantly from the control.
"""
from __future__ import annotations

import os

import numpy as np

from mlbench.errors import ConfigError


def cliques(average_ranks, cd):
    """Maximal groups (lists of indices, ordered by rank) whose pairwise rank differences are < ``cd``.

    Sorted by rank, a group of mutually close methods is a contiguous run ``i..j`` with
    ``r[j] - r[i] < cd``; for each start ``i`` take the longest such run, keep it if it has at least
    two methods and is not contained in the run of an earlier start.
    """
    r = np.asarray(average_ranks, dtype=float)
    order = np.argsort(r, kind="stable")
    s = r[order]
    out = []
    last_end = -1
    for i in range(s.size):
        j = i
        while j + 1 < s.size and s[j + 1] - s[i] < cd:
            j += 1
        if j > i and j > last_end:
            out.append([int(k) for k in order[i:j + 1]])
            last_end = j
    return out


def draw(names, average_ranks, cd, path=None, *, test="nemenyi", control=None, title=None):
    """The diagram as a matplotlib figure, written to ``path`` (a ``.png``, ``.svg`` or ``.pdf``
    file, or a list of them) when given.

    Sized from what it shows: the rank axis gets about a third of an inch per rank, each side as
    much room as its widest label, one text line per label, and the figure is at least as wide as
    its title and the CD scale, so nothing is cut."""
    from mlbench.report.figures import check_extension, new_figure, save_figure, text_inches

    paths = [] if path is None else [path] if isinstance(path, (str, os.PathLike)) else list(path)
    for p in paths:
        check_extension(p, "--cd-diagram")
    r = np.asarray(average_ranks, dtype=float)
    k = r.size
    order = np.argsort(r, kind="stable")
    n_left = (k + 1) // 2                 # worse half (larger ranks) on the left
    left = order[::-1][:n_left]           # worst first, top
    right = order[:k - n_left]            # best first, top
    labels = [f"{names[j]} ({r[j]:.2f})" for j in range(k)]
    fs = 9
    bold = control is not None
    left_w = text_inches([labels[j] for j in left], fs, "bold" if bold else "normal")[0]
    right_w = text_inches([labels[j] for j in right], fs, "bold" if bold else "normal")[0]
    # x in inches from the figure's left edge, y in inches downwards from its top
    margin, gap = 0.1, 0.3                # gap: the elbow's run from the axis end to its label
    unit = max(3.0, 0.34 * (k - 1)) / max(k - 1, 1)       # inches per rank
    x_worst = margin + left_w + gap       # rank k, left end of the axis

    def x(rank):
        return x_worst + (k - rank) * unit

    width = x(1) + gap + right_w + margin
    scale = f"CD = {cd:.2f}"
    need = max(text_inches([title or ""], fs)[0], text_inches([scale], fs)[0]) + 2 * margin
    width = max(width, x_worst + cd * unit + margin, need)
    line_h = 0.3
    rows = max(len(left), len(right))
    bars = cliques(r, cd) if test == "nemenyi" else []
    top = 0.3 if title else 0.0           # a title gets its own line above the CD scale
    y_axis = 0.85 + top
    bar_top = y_axis + 0.15
    labels_top = bar_top + 0.18 * len(bars) + 0.25
    height = labels_top + line_h * (rows - 1) + 0.2
    fig = new_figure(width, height, layout=None)
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_axis_off()
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.plot([x(k), x(1)], [y_axis, y_axis], color="k", lw=1)
    for tick in range(1, k + 1):
        ax.plot([x(tick), x(tick)], [y_axis - 0.08, y_axis], color="k", lw=1)
        ax.text(x(tick), y_axis - 0.12, str(tick), ha="center", va="bottom", fontsize=fs)
    for half in np.arange(1.5, k, 1.0):
        ax.plot([x(half), x(half)], [y_axis - 0.04, y_axis], color="k", lw=0.7)
    # the CD scale above the axis, from its left end (as long as the CD, even beyond the axis)
    x0, x1 = x(k), x(k) + cd * unit
    ax.plot([x0, x1], [top + 0.3, top + 0.3], color="k", lw=1)
    for end in (x0, x1):
        ax.plot([end, end], [top + 0.25, top + 0.35], color="k", lw=1)
    half = text_inches([scale], fs)[0] / 2 + margin
    ax.text(min(max((x0 + x1) / 2, half), width - half), top + 0.24, scale, ha="center",
            va="bottom", fontsize=fs)
    if title:
        ax.text(width / 2, 0.05, title, ha="center", va="top", fontsize=fs, gid="title")
    for b, members in enumerate(bars):
        y = bar_top + 0.18 * b
        ax.plot([x(r[members].max()) - 0.03, x(r[members].min()) + 0.03], [y, y], color="k", lw=3,
                solid_capstyle="butt")
    if test != "nemenyi" and control is not None:
        c = r[control]
        ax.plot([x(min(k, c + cd)), x(max(1, c - cd))], [bar_top, bar_top], color="tab:red", lw=3)
    for side, members in (("left", left), ("right", right)):
        for row, j in enumerate(members):
            y = labels_top + line_h * row
            end = x(k) - gap if side == "left" else x(1) + gap
            ax.plot([x(r[j]), x(r[j]), end], [y_axis, y, y], color="0.3", lw=0.8)
            weight = "bold" if control is not None and j == control else "normal"
            ax.text(end + (-0.05 if side == "left" else 0.05), y, labels[j],
                    ha="right" if side == "left" else "left", va="center", fontsize=fs,
                    fontweight=weight, gid=f"label:{names[j]}")
    if paths:
        save_figure(fig, paths, dpi=150)
    return fig


def diagram(analysis, ma, test="nemenyi"):
    """The CD diagram of one metric of ``analysis`` (its main methods), or None with a note in
    ``analysis.notes`` when the metric has no Friedman test."""
    from mlbench.stats import critical_difference

    if test not in ("nemenyi", "bonferroni-dunn"):
        raise ConfigError(f"unknown --cd-test {test!r} (nemenyi or bonferroni-dunn)")
    if ma.friedman is None:
        note = (f"no CD diagram for {ma.metric}: it ranks methods over datasets and "
                f"{len(ma.used_datasets)} dataset(s) have results for every method")
        if note not in analysis.notes:
            analysis.notes.append(note)
        return None
    k, n = ma.friedman.n_methods, ma.friedman.n_datasets
    cd = critical_difference(k, n, analysis.alpha, test)
    return draw(ma.block_methods, ma.friedman.average_ranks, cd, test=test,
                control=ma.block_methods.index(ma.control) if ma.control in ma.block_methods
                else None,
                title=f"{ma.display}, {test}, α = {analysis.alpha:g}, N = {n}")


def write_cd_diagrams(analysis, path, test="nemenyi", only=None, pdf=False):
    """One diagram per metric of ``analysis`` (its main methods), or of metric ``only``: ``path``
    itself for one metric, ``stem-METRIC.ext`` for several, each also as a PDF beside it when
    ``pdf``.  A metric without a Friedman test gets a note instead.  Returns the files written."""
    from mlbench.report.figures import check_extension, save_figure, with_pdf

    check_extension(path, "--cd-diagram")
    ext = os.path.splitext(path)[1].lower()
    written = []
    chosen = [ma for ma in analysis.metrics if only is None or ma.metric == only]
    for ma in chosen:
        fig = diagram(analysis, ma, test)
        if fig is None:
            continue
        out = path if len(chosen) == 1 else f"{os.path.splitext(path)[0]}-{ma.metric}{ext}"
        outs = with_pdf(out) if pdf else [out]
        save_figure(fig, outs, dpi=150)
        written += outs
    return written
