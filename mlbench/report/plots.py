"""Pictures of a results file (matplotlib, headless): what a person would rather see than read.

* ``box``: per dataset, each method's scores over the splits (box with the split points on top);
* ``heatmap``: each method's rank on each dataset (1 = best; ties share the mean rank), the
  methods ordered by their average rank;
* ``pareto``: each method's mean score against its mean fit time (log scale), the Pareto front
  (no other method is both better and faster) joined; every method labelled, a label that finds
  no free place beside its point listed beside the plot;
* ``cd``: the critical-difference diagram (:mod:`mlbench.report.cd_diagram`), when two or more
  datasets have results for every method;
* ``bayes``: for the control against each other method, the posterior of the Bayesian signed-rank
  test (:mod:`mlbench.stats.bayesian`) drawn on the probability simplex as baycomp draws it: each
  sample a point, the corners "control better", "practically equivalent" (rope) and "other
  better", the regions where each is the most probable divided by the lines through the centre.

Each drawing function takes the analysed results and returns a :class:`matplotlib.figure.Figure`
sized from the number of methods and datasets and the lengths of their names
(:mod:`mlbench.report.figures`), written to ``path`` too when one is given; :func:`figure` draws a
kind for one metric of an analysis.  :func:`plot` writes ``KIND-METRIC.EXT`` files into a folder,
one per format (PNG and PDF unless told otherwise), and returns their paths.
"""
from __future__ import annotations

import os

import numpy as np

from mlbench.errors import ConfigError
from mlbench.fileio import make_dirs
from mlbench.report.figures import DEFAULT_FORMATS, formats, new_figure, save_figure, text_inches

KINDS = ("box", "heatmap", "pareto", "cd", "bayes")


def _horizontal():
    """boxplot's horizontal switch: ``orientation`` from Matplotlib 3.10, ``vert`` before."""
    import matplotlib

    major, minor = (int(x) for x in matplotlib.__version__.split(".")[:2])
    return {"orientation": "horizontal"} if (major, minor) >= (3, 10) else {"vert": False}


def box(results, metric, path=None):
    """One panel per dataset (three to a row), the methods in the same rows of every panel."""
    from matplotlib.ticker import MaxNLocator

    datasets, methods = results.datasets, results.methods
    cols = max(1, min(3, len(datasets)))
    rows = -(-len(datasets) // cols)
    label_w = text_inches(methods, 7)[0]
    panel_w = max(2.2, text_inches(datasets, 9)[0] + 0.3)
    panel_h = 0.2 * len(methods) + 0.8
    fig = new_figure(label_w + 0.3 + cols * panel_w, rows * panel_h + 0.1)
    axes = fig.subplots(rows, cols, squeeze=False, sharey=True)
    for ax, d in zip(axes.ravel(), datasets):
        table = results.per_split(metric, d)
        rows_of = [(k, table[m].dropna().to_numpy()) for k, m in enumerate(methods, 1)
                   if m in table.columns]
        if rows_of:
            ax.boxplot([v for _, v in rows_of], positions=[k for k, _ in rows_of], widths=0.6,
                       showfliers=False, **_horizontal())
        for k, values in rows_of:
            ax.plot(values, np.full(values.size, k), "o", ms=3, alpha=0.6, color="tab:blue")
        ax.set_title(d, fontsize=9)
        ax.set_xlabel(metric, fontsize=8)
        # at most 4 ticks at round steps: labels such as 0.375 keep apart
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]))
        ax.tick_params(labelsize=7)
    axes[0, 0].set_yticks(range(1, len(methods) + 1), methods)
    axes[0, 0].set_ylim(len(methods) + 0.5, 0.5)          # the first method on top
    for ax in axes.ravel()[len(datasets):]:
        ax.axis("off")
    if path:
        save_figure(fig, path)
    return fig


def heatmap(results, metric, path=None):
    """Ranks of the methods on each dataset; a cell without a result is drawn hatched grey, outside
    the colour scale (the legend says so), and counts as last when the methods are ordered."""
    from matplotlib.patches import Patch, Rectangle
    from matplotlib.ticker import MaxNLocator

    from mlbench.report.results import metric_info
    from mlbench.stats.ranks import rank_scores

    greater, _ = metric_info(metric)
    mean = results.cells(metric)["mean"].unstack("method").reindex(
        index=results.datasets, columns=results.methods)
    filled = mean.to_numpy(dtype=float)
    present = np.isfinite(filled)
    filled = np.where(present, filled, -np.inf if greater else np.inf)
    ranks = rank_scores(filled, greater)                   # datasets x methods; missing ranked last
    order = np.argsort(ranks.mean(axis=0), kind="stable")
    R = np.where(present, ranks, np.nan)[:, order].T       # a present cell's rank is among the present
    missing = np.argwhere(~np.isfinite(R))
    fig, ax, cax, vertical = _heatmap_figure(results.datasets, results.methods, metric,
                                             legend=len(missing) > 0)
    im = ax.imshow(np.ma.masked_invalid(R), cmap="viridis_r", aspect="auto")
    for i, j in missing:
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.88", edgecolor="0.55",
                               hatch="///", linewidth=0))
    ax.set_xticks(range(len(results.datasets)), results.datasets, fontsize=7,
                  rotation=90 if vertical else 0)
    ax.set_yticks(range(len(order)), [results.methods[i] for i in order], fontsize=7)
    if R.size <= 400 and np.isfinite(R).any():
        middle = (np.nanmax(R) + 1) / 2
        for (i, j), v in np.ndenumerate(R):
            if np.isfinite(v):
                ax.text(j, i, f"{v:g}", ha="center", va="center", fontsize=6,
                        color="black" if v <= middle else "white")
    bar = fig.colorbar(im, cax=cax, orientation="horizontal")
    bar.set_label(f"rank on {metric} (1 = best)", fontsize=8)
    bar.ax.xaxis.set_major_locator(MaxNLocator(integer=True))        # ranks: whole numbers
    bar.ax.tick_params(labelsize=7)
    ax.set_title(f"ranks on {metric}; methods by average rank", fontsize=9)
    if len(missing):                     # under the colour bar (constrained layout's "outside")
        fig.legend(handles=[Patch(facecolor="0.88", edgecolor="0.55", hatch="///",
                                  label="no result (not ranked)")],
                   loc="outside lower left", fontsize=7, frameon=False)
    if path:
        save_figure(fig, path)
    return fig


def _heatmap_columns(datasets):
    """Column width (inches) and whether the dataset names stand upright: they lie flat when the
    widest fits a column under an inch wide."""
    widest = text_inches(datasets, 7)[0]
    return (max(0.45, widest + 0.12), False) if widest <= 0.9 else (0.45, True)


def _heatmap_figure(datasets, methods, metric, legend=False):
    """The heat map's figure, its axes, its colour bar's axes (a horizontal bar under the map,
    whose label has the figure's width whatever the number of methods) and whether the dataset
    names stand upright; ``legend`` leaves a line under the bar for the missing cells' legend."""
    col_w, vertical = _heatmap_columns(datasets)
    names_w, names_h = text_inches(datasets, 7)
    grid_h = 0.28 * len(methods)
    width = max(text_inches(methods, 7)[0] + 0.25 + col_w * len(datasets),
                text_inches([f"ranks on {metric}; methods by average rank"], 9)[0],
                text_inches([f"rank on {metric} (1 = best)"], 8)[0]) + 0.3
    height = 0.4 + grid_h + (names_w if vertical else names_h) + 0.15 + 0.75 + (0.3 if legend else 0)
    fig = new_figure(width, height)
    ax, cax = fig.subplots(2, 1, height_ratios=[grid_h, 0.12])
    return fig, ax, cax, vertical


def pareto_front(score, seconds, greater=True):
    """Indices of the methods no other method beats on both score and time (ties kept)."""
    s = np.asarray(score, float) * (1 if greater else -1)
    t = np.asarray(seconds, float)
    keep = []
    for i in range(s.size):
        dominated = np.any((s >= s[i]) & (t <= t[i]) & ((s > s[i]) | (t < t[i])))
        if not dominated and np.isfinite(s[i]) and np.isfinite(t[i]):
            keep.append(i)
    return keep


def pareto(results, metric, path=None):
    """Mean score against mean fit time, every method labelled (the front's labels first), a
    label that finds no free place beside its point, and a method without a finite score or time,
    listed beside the plot with its numbers."""
    from mlbench.report.results import metric_info

    frame = results.frame
    if "fit_seconds" not in frame.columns:
        raise ConfigError("a Pareto plot needs the fit_seconds column")
    greater, _ = metric_info(metric)
    names = results.methods
    g = frame.groupby("method")
    score = g[metric].mean().reindex(names).to_numpy(dtype=float)
    secs = g["fit_seconds"].apply(lambda s: np.nanmean(np.asarray(s, float))).reindex(
        names).to_numpy(dtype=float)
    front = sorted(pareto_front(score, secs, greater), key=lambda i: secs[i])
    shown = [i for i in range(len(names)) if np.isfinite(score[i]) and np.isfinite(secs[i])
             and secs[i] > 0]
    k = len(names)
    fig = new_figure(min(12.0, 5.0 + 0.12 * k), min(9.0, 3.6 + 0.08 * k))
    ax = fig.subplots()
    ax.scatter(secs[shown], score[shown], s=18, color="0.6", zorder=2)
    ax.plot(secs[front], score[front], "o-", ms=5, color="tab:red", zorder=3)
    ax.set_xscale("log")
    ax.margins(0.08)
    ax.set_xlabel("mean fit time per cell (s, log scale)", fontsize=8)
    ax.set_ylabel(f"mean {metric} over datasets and splits", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.set_title("red: the Pareto front (no other method is both better and faster)", fontsize=8)
    fig.canvas.draw()                    # lay out the axes, then keep them and their limits
    fig.set_layout_engine("none")
    ax.set_autoscale_on(False)
    rest = sorted(set(shown) - set(front), key=lambda i: -score[i] if greater else score[i])
    unplaced = place_labels(ax, [(secs[i], score[i], names[i], "tab:red" if i in front else "0.2")
                                 for i in front + rest], line=(secs[front], score[front]))
    listed = [i for i in front + rest if names[i] in unplaced] + [i for i in range(k) if i not in shown]
    if listed:
        list_beside(fig, [f"{names[i]}: {_number(score[i], '.4g')}, {_number(secs[i], '.3g')} s"
                          for i in listed], "not labelled in the plot")
    if path:
        save_figure(fig, path)
    return fig


def _number(v, spec):
    return format(v, spec) if np.isfinite(v) else "none"


#: where a label may sit around its point, in the order tried: right, left, above, below, then
#: the diagonals; each at growing distances (points), a label away from its point joined by a line
_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1))
_DISTANCES = (5, 12, 22, 34, 48)


def place_labels(ax, points, line=None, fontsize=7):
    """Label each ``(x, y, text, colour)`` of ``points`` (data coordinates) in the first free
    place around it: inside the axes, clear of every point's marker, of the polyline ``line``
    (``(xs, ys)``) and of the labels placed before it.  The axes must be laid out already (their
    place in the figure fixed).  Returns the texts that found no place, in order.
    Deterministic: the same points give the same picture."""
    from matplotlib.transforms import Bbox

    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    px = fig.dpi / 72.0
    frame = ax.get_window_extent(renderer).padded(-2)
    xy = ax.transData.transform([(x, y) for x, y, _, _ in points]) if points else []
    r = 4 * px                                       # a marker's half-width, with a margin
    taken = [Bbox.from_extents(a - r, b - r, a + r, b + r) for a, b in xy]
    trace = np.empty((0, 2))                         # the line, a point every pixel or two
    if line is not None and len(line[0]) > 1:
        ends = ax.transData.transform(np.column_stack(line))
        trace = np.vstack([np.linspace(p, q, int(np.hypot(*(q - p)) / 2) + 2)
                           for p, q in zip(ends[:-1], ends[1:])])

    def crosses(box):
        return bool(np.any((trace[:, 0] > box.x0) & (trace[:, 0] < box.x1)
                           & (trace[:, 1] > box.y0) & (trace[:, 1] < box.y1)))

    unplaced = []
    for (x, y, text, colour), (a, b) in zip(points, xy):
        label = ax.annotate(text, (x, y), xytext=(0, 0), textcoords="offset points",
                            fontsize=fontsize, color=colour)
        for dist, (dx, dy) in ((d, u) for d in _DISTANCES for u in _DIRECTIONS):
            label.xyann = (dx * dist / (2 ** 0.5 if dx and dy else 1),
                           dy * dist / (2 ** 0.5 if dx and dy else 1))
            label.set_ha("left" if dx > 0 else "right" if dx < 0 else "center")
            label.set_va("bottom" if dy > 0 else "top" if dy < 0 else "center")
            box = label.get_window_extent(renderer)
            if frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1) and \
                    not any(box.overlaps(t) for t in taken) and not crosses(box):
                taken.append(box)
                if dist > _DISTANCES[0]:              # a leader from the point to the label
                    end = (min(max(a, box.x0), box.x1), min(max(b, box.y0), box.y1))
                    ax.plot(*ax.transData.inverted().transform([(a, b), end]).T, lw=0.5,
                            color="0.55", zorder=1, scalex=False, scaley=False)
                break
        else:
            label.remove()
            unplaced.append(text)
    return unplaced


def list_beside(fig, lines, title, fontsize=7):
    """Widen ``fig`` (laid out already) by columns of ``lines`` under ``title`` at its right: the
    axes keep their size in inches, so what is drawn on them stays where it is."""
    width, height = fig.get_size_inches()
    line_h = fontsize * 1.3 / 72
    per_col = max(1, int((height - 0.3) / line_h) - 1)
    cols = [lines[i:i + per_col] for i in range(0, len(lines), per_col)]
    col_w = text_inches(lines + [title + ":"], fontsize)[0] + 0.2
    new_w = width + 0.15 + len(cols) * col_w
    boxes = [ax.get_position() for ax in fig.axes]
    fig.set_size_inches(new_w, height)
    for ax, box in zip(fig.axes, boxes):
        ax.set_position([box.x0 * width / new_w, box.y0, box.width * width / new_w, box.height])
    for c, col in enumerate(cols):
        fig.text((width + 0.1 + c * col_w) / new_w, 1 - 0.15 / height,
                 "\n".join(([title + ":"] if c == 0 else [""]) + col), ha="left", va="top",
                 fontsize=fontsize, linespacing=1.3)


def bayes(results, metric, path=None, control=None, rope=0.01, n_samples=3000, seed=0):
    """The posterior simplex of the control against each other method (four panels to a row)."""
    from mlbench.report.analysis import choose_control
    from mlbench.report.results import metric_info
    from mlbench.stats.bayesian import posterior_samples

    greater, _ = metric_info(metric)
    mean = results.cells(metric)["mean"].unstack("method").reindex(
        index=results.datasets, columns=results.methods).dropna()
    if len(mean) < 2:
        raise ConfigError(f"a Bayesian plot needs two datasets with results for every method "
                          f"({len(mean)} on {metric})")
    ctrl = control or choose_control(results, metric, None, None)[0]
    others = [m for m in results.methods if m != ctrl]
    cols = min(4, len(others))
    rows = -(-len(others) // cols)
    # a panel is as wide as its two bottom corner labels side by side, and as its title
    corner_w = text_inches([f"{ctrl} better"], 7)[0] + text_inches([f"{m} better" for m in others], 7)[0]
    panel_w = max(2.4, 1.15 * corner_w + 0.5, text_inches([f"{ctrl} vs {m}" for m in others], 8)[0] + 0.2)
    title = f"Bayesian signed-rank posterior on {metric} (rope {rope:g}, {len(mean)} datasets)"
    fig = new_figure(max(cols * panel_w, text_inches([title], 9)[0] + 0.3),
                     rows * (0.87 * panel_w + 1.1) + 0.3)
    axes = fig.subplots(rows, cols, squeeze=False)
    corners = np.array([[0.0, 0.0], [0.5, np.sqrt(3) / 2], [1.0, 0.0]])
    for ax, m in zip(axes.ravel(), others):
        theta = posterior_samples(mean[ctrl].to_numpy(), mean[m].to_numpy(), greater, rope,
                                  n_samples=n_samples, random_state=seed)
        xy = theta @ corners                       # barycentric -> plane
        ax.plot(*np.vstack([corners, corners[:1]]).T, color="0.3", lw=0.8)
        centre = corners.mean(axis=0)
        for k in range(3):                           # where two probabilities are equal
            mid = (corners[k] + corners[(k + 1) % 3]) / 2
            ax.plot([centre[0], mid[0]], [centre[1], mid[1]], color="0.6", lw=0.6)
        win = np.argmax(theta, axis=1)
        colours = np.array(["tab:green", "tab:gray", "tab:red"])[win]
        ax.scatter(xy[:, 0], xy[:, 1], s=2, c=colours, alpha=0.4)
        p = np.bincount(win, minlength=3) / len(win)
        # the bottom labels run inwards from their corners, the top one stands above its corner
        for k, (label, pk), ha, dy in zip(range(3), zip((f"{ctrl} better", "rope", f"{m} better"), p),
                                          ("left", "center", "right"), (-4, 4, -4)):
            ax.annotate(f"{label}\n{pk:.2f}", corners[k], fontsize=7, ha=ha,
                        va="top" if dy < 0 else "bottom", xytext=(0, dy), textcoords="offset points")
        ax.set_title(f"{ctrl} vs {m}", fontsize=8, pad=28)
        ax.set_aspect("equal")
        ax.axis("off")
    for ax in axes.ravel()[len(others):]:
        ax.axis("off")
    fig.suptitle(title, fontsize=9)
    if path:
        save_figure(fig, path)
    return fig


def figure(kind, analysis, ma, cd_test="nemenyi"):
    """The picture of ``kind`` for metric analysis ``ma`` of ``analysis``, or None when there is
    nothing to draw (a CD diagram or Bayesian plot over fewer than two datasets; the CD diagram's
    absence noted in ``analysis.notes``)."""
    from mlbench.report.cd_diagram import diagram

    results = analysis.results
    if kind == "cd":
        return diagram(analysis, ma, cd_test)
    if kind == "bayes":
        if len(results.datasets) < 2:             # as the CD diagram: nothing over one dataset
            return None
        return bayes(results, ma.metric, control=ma.control or analysis.control)
    return {"box": box, "heatmap": heatmap, "pareto": pareto}[kind](results, ma.metric)


def plot(paths, kinds=("all",), metrics=None, out_dir=".", fmt=DEFAULT_FORMATS, protocol=None,
         methods=None, datasets=None):
    """Write the ``kinds`` of pictures for each metric into ``out_dir``, in each format of ``fmt``
    (``"png,pdf"`` or a list); return the file paths.

    The results are read and analysed as ``mlbench report`` does (the protocol's metrics unless
    ``metrics`` are given, its main methods; :func:`mlbench.report.prepare.prepare`)."""
    from mlbench.report.prepare import prepare

    _kinds(kinds)                             # bad options fail before the results are read
    formats(fmt)
    analysis = prepare(paths, metrics=list(metrics or ()), protocol=protocol, methods=methods,
                       datasets=datasets).analysis
    return plot_analysis(analysis, kinds, out_dir, fmt)


def _kinds(kinds):
    kinds = list(KINDS) if "all" in kinds else list(kinds)
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise ConfigError(f"unknown plot kind {bad[0]!r}; choose from {', '.join(KINDS)} or all")
    return kinds


def plot_analysis(analysis, kinds=("all",), out_dir=".", fmt=DEFAULT_FORMATS):
    """The pictures of an :class:`~mlbench.report.analysis.Analysis` (its results and metrics),
    each drawn once and written in every format of ``fmt``."""
    kinds, exts = _kinds(kinds), formats(fmt)
    make_dirs(out_dir, "choose another --out folder")
    written = []
    for ma in analysis.metrics:
        for kind in kinds:
            fig = figure(kind, analysis, ma)
            if fig is None:
                continue
            paths = [os.path.join(out_dir, f"{kind}-{ma.metric}.{ext}") for ext in exts]
            save_figure(fig, paths, hint="choose another --out folder", dpi=150)
            written += paths
    return written
