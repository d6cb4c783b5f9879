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


def draw(names, average_ranks, cd, path, *, test="nemenyi", control=None, title=None):
    """Render the diagram to ``path`` (``.png`` or ``.svg``); returns the matplotlib figure."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in (".png", ".svg"):
        raise ConfigError(f"--cd-diagram must end in .png or .svg (got {path})")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = np.asarray(average_ranks, dtype=float)
    k = r.size
    order = np.argsort(r, kind="stable")
    n_left = (k + 1) // 2                 # worse half (larger ranks) on the left
    left = order[::-1][:n_left]           # worst first, top
    right = order[:k - n_left]            # best first, top
    line_h = 0.32
    rows = max(len(left), len(right))
    bars = cliques(r, cd) if test == "nemenyi" else []
    top = 0.3 if title else 0.0          # a title gets its own line above the CD scale
    y_axis = 0.85 + top
    bar_top = y_axis + 0.15
    labels_top = bar_top + 0.18 * len(bars) + 0.25
    height = labels_top + line_h * (rows - 1) + 0.2
    fig = plt.figure(figsize=(7.0, height))
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_axis_off()
    # coordinates: x in rank units padded with room for labels; y downwards in inches
    lo, hi = 1.0, float(k)
    pad = 0.45 * (hi - lo) + 0.8
    ax.set_xlim(hi + pad, lo - pad)       # reversed: rank 1 on the right
    ax.set_ylim(height, 0)
    ax.plot([lo, hi], [y_axis, y_axis], color="k", lw=1)
    for tick in range(1, k + 1):
        ax.plot([tick, tick], [y_axis - 0.08, y_axis], color="k", lw=1)
        ax.text(tick, y_axis - 0.12, str(tick), ha="center", va="bottom", fontsize=9)
    for half in np.arange(1.5, k, 1.0):
        ax.plot([half, half], [y_axis - 0.04, y_axis], color="k", lw=0.7)
    # the CD scale above the axis, at the left end
    ax.plot([hi, hi - cd], [top + 0.3, top + 0.3], color="k", lw=1)
    for x in (hi, hi - cd):
        ax.plot([x, x], [top + 0.25, top + 0.35], color="k", lw=1)
    ax.text(hi - cd / 2, top + 0.24, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)
    if title:
        ax.text((lo + hi) / 2, 0.05, title, ha="center", va="top", fontsize=9, gid="title")
    for b, members in enumerate(bars):
        y = bar_top + 0.18 * b
        ax.plot([r[members].min() - 0.03, r[members].max() + 0.03], [y, y], color="k", lw=3,
                solid_capstyle="butt")
    if test != "nemenyi" and control is not None:
        c = r[control]
        ax.plot([max(lo, c - cd), min(hi, c + cd)], [bar_top, bar_top], color="tab:red", lw=3)
    for side, members in (("left", left), ("right", right)):
        for row, j in enumerate(members):
            y = labels_top + line_h * row
            end = hi + pad * 0.15 if side == "left" else lo - pad * 0.15
            ax.plot([r[j], r[j], end], [y_axis, y, y], color="0.3", lw=0.8)
            label = f"{names[j]} ({r[j]:.2f})"
            weight = "bold" if control is not None and j == control else "normal"
            ax.text(end + (0.05 if side == "left" else -0.05), y, label, ha="right" if side == "left"
                    else "left", va="center", fontsize=9, fontweight=weight, gid=f"label:{names[j]}")
    save_figure(fig, path, bbox_inches="tight", dpi=150)
    return fig


def write_cd_diagrams(analysis, path, test="nemenyi", only=None):
    """One diagram per metric of ``analysis`` (its main methods), or of metric ``only``: ``path``
    itself for one metric, ``stem-METRIC.ext`` for several.  A metric without a Friedman test gets
    a note instead."""
    from mlbench.stats import critical_difference

    if test not in ("nemenyi", "bonferroni-dunn"):
        raise ConfigError(f"unknown --cd-test {test!r} (nemenyi or bonferroni-dunn)")
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".png", ".svg"):
        raise ConfigError(f"--cd-diagram must end in .png or .svg (got {path})")
    written = []
    chosen = [ma for ma in analysis.metrics if only is None or ma.metric == only]
    for ma in chosen:
        if ma.friedman is None:
            note = (f"no CD diagram for {ma.metric}: it ranks methods over datasets and "
                    f"{len(ma.used_datasets)} dataset(s) have results for every method")
            if note not in analysis.notes:
                analysis.notes.append(note)
            continue
        out = path if len(chosen) == 1 else f"{os.path.splitext(path)[0]}-{ma.metric}{ext}"
        k, n = ma.friedman.n_methods, ma.friedman.n_datasets
        cd = critical_difference(k, n, analysis.alpha, test)
        draw(ma.block_methods, ma.friedman.average_ranks, cd, out, test=test,
             control=ma.block_methods.index(ma.control) if ma.control in ma.block_methods
             else None,
             title=f"{ma.display}, {test}, α = {analysis.alpha:g}, N = {n}")
        written.append(out)
    return written


def save_figure(fig, path, hint="choose another output file", **kw):
    """``fig.savefig(path)`` (atomically, the format from the file's extension, PNG without
    one) and close it; an unwritable path is one line (:mod:`mlbench.fileio`)."""
    import os

    import matplotlib.pyplot as plt

    from mlbench.fileio import atomic_write

    fmt = os.path.splitext(os.fspath(path))[1][1:].lower() or "png"
    try:
        atomic_write(path, lambda fh: fig.savefig(fh, format=fmt, **kw), hint=hint)
    finally:
        plt.close(fig)
