"""Pictures of a results file (matplotlib, headless): what a person would rather see than read.

* ``box``: per dataset, each method's scores over the splits (box with the split points on top);
* ``heatmap``: each method's rank on each dataset (1 = best; ties share the mean rank), the
  methods ordered by their average rank;
* ``pareto``: each method's mean score against its mean fit time (log scale), the Pareto front
  (no other method is both better and faster) joined and labelled;
* ``cd``: the critical-difference diagram (:mod:`mlbench.report.cd_diagram`), when two or more
  datasets have results for every method;
* ``bayes``: for the control against each other method, the posterior of the Bayesian signed-rank
  test (:mod:`mlbench.stats.bayes`) drawn on the probability simplex as baycomp draws it: each
  sample a point, the corners "control better", "practically equivalent" (rope) and "other
  better", the regions where each is the most probable divided by the lines through the centre.

:func:`plot` writes ``KIND-METRIC.EXT`` files into a folder and returns their paths.
"""
from __future__ import annotations

import os

import numpy as np

from mlbench.errors import ConfigError
from mlbench.fileio import make_dirs
from mlbench.report.cd_diagram import save_figure

KINDS = ("box", "heatmap", "pareto", "cd", "bayes")


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _horizontal():
    """boxplot's horizontal switch: ``orientation`` from Matplotlib 3.10, ``vert`` before."""
    import matplotlib

    major, minor = (int(x) for x in matplotlib.__version__.split(".")[:2])
    return {"orientation": "horizontal"} if (major, minor) >= (3, 10) else {"vert": False}


def box(results, metric, path):
    plt = _plt()
    datasets = results.datasets
    cols = min(3, len(datasets))
    rows = -(-len(datasets) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 0.28 * len(results.methods) * rows + 1.5),
                             squeeze=False)
    for ax, d in zip(axes.ravel(), datasets):
        table = results.per_split(metric, d)
        methods = [m for m in results.methods if m in table.columns]
        data = [table[m].dropna().to_numpy() for m in methods]
        ax.boxplot(data, widths=0.6, showfliers=False, **_horizontal())
        for k, values in enumerate(data, 1):
            ax.plot(values, np.full(values.size, k), "o", ms=3, alpha=0.6, color="tab:blue")
        ax.set_yticks(range(1, len(methods) + 1), methods, fontsize=7)
        ax.set_title(d, fontsize=9)
        ax.set_xlabel(metric, fontsize=8)
    for ax in axes.ravel()[len(datasets):]:
        ax.axis("off")
    fig.tight_layout()
    save_figure(fig, path)


def heatmap(results, metric, path):
    """Ranks of the methods on each dataset; a cell without a result is drawn hatched grey, outside
    the colour scale (the legend says so), and counts as last when the methods are ordered."""
    from matplotlib.patches import Patch, Rectangle

    from mlbench.report.results import metric_info
    from mlbench.stats.friedman import rank_scores

    plt = _plt()
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
    fig, ax = plt.subplots(figsize=(1.0 + 0.6 * len(results.datasets), 1.0 + 0.3 * len(order)))
    im = ax.imshow(np.ma.masked_invalid(R), cmap="viridis_r", aspect="auto")
    for i, j in missing:
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.88", edgecolor="0.55",
                               hatch="///", linewidth=0))
    ax.set_xticks(range(len(results.datasets)), results.datasets, rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(len(order)), [results.methods[i] for i in order], fontsize=7)
    if R.size <= 400 and np.isfinite(R).any():
        middle = (np.nanmax(R) + 1) / 2
        for (i, j), v in np.ndenumerate(R):
            if np.isfinite(v):
                ax.text(j, i, f"{v:g}", ha="center", va="center", fontsize=6,
                        color="black" if v <= middle else "white")
    fig.colorbar(im, ax=ax, label=f"rank on {metric} (1 = best)")
    ax.set_title(f"ranks on {metric}; methods by average rank", fontsize=9)
    legend = 0.0
    if len(missing):                     # below the dataset names, clear of the colour bar
        fig.legend(handles=[Patch(facecolor="0.88", edgecolor="0.55", hatch="///",
                                  label="no result (not ranked)")],
                   loc="lower left", fontsize=7, frameon=False)
        legend = 0.3 / fig.get_figheight()
    fig.tight_layout(rect=(0, legend, 1, 1))
    save_figure(fig, path)


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


def pareto(results, metric, path):
    from mlbench.report.results import metric_info

    plt = _plt()
    frame = results.frame
    if "fit_seconds" not in frame.columns:
        raise ConfigError("a Pareto plot needs the fit_seconds column")
    greater, _ = metric_info(metric)
    g = frame.groupby("method")
    score = g[metric].mean().reindex(results.methods).to_numpy(dtype=float)
    secs = g["fit_seconds"].apply(lambda s: np.nanmean(np.asarray(s, float))).reindex(
        results.methods).to_numpy(dtype=float)
    front = pareto_front(score, secs, greater)
    fig, ax = plt.subplots(figsize=(7, 5))
    ax.scatter(secs, score, s=18, color="0.6")
    pts = sorted(front, key=lambda i: secs[i])
    ax.plot(secs[pts], score[pts], "o-", color="tab:red", label="Pareto front")
    for i in pts:
        ax.annotate(results.methods[i], (secs[i], score[i]), fontsize=7, xytext=(3, 3),
                    textcoords="offset points")
    ax.set_xscale("log")
    ax.set_xlabel("mean fit time per cell (s, log scale)")
    ax.set_ylabel(f"mean {metric} over datasets and splits")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)
    return [results.methods[i] for i in pts]


def bayes(results, metric, path, control=None, rope=0.01, n_samples=3000, seed=0):
    """The posterior simplex of the control against each other method (at most 9)."""
    from mlbench.report.analysis import choose_control
    from mlbench.report.results import metric_info
    from mlbench.stats.bayes import posterior_samples

    plt = _plt()
    greater, _ = metric_info(metric)
    mean = results.cells(metric)["mean"].unstack("method").reindex(
        index=results.datasets, columns=results.methods).dropna()
    if len(mean) < 2:
        raise ConfigError(f"a Bayesian plot needs two datasets with results for every method "
                          f"({len(mean)} on {metric})")
    ctrl = control or choose_control(results, metric, None, None)[0]
    others = [m for m in results.methods if m != ctrl][:9]
    cols = min(3, len(others))
    rows = -(-len(others) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 3.2 * rows), squeeze=False)
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
        for k, (label, pk) in enumerate(zip((f"{ctrl} better", "rope", f"{m} better"), p)):
            ax.annotate(f"{label}\n{pk:.2f}", corners[k], fontsize=6, ha="center",
                        xytext=(0, -14 if k != 1 else 6), textcoords="offset points")
        ax.set_title(f"{ctrl} vs {m}", fontsize=8, pad=18)
        ax.set_aspect("equal")
        ax.axis("off")
    for ax in axes.ravel()[len(others):]:
        ax.axis("off")
    fig.suptitle(f"Bayesian signed-rank posterior on {metric} (rope {rope:g}, {len(mean)} datasets)",
                 fontsize=9)
    fig.tight_layout()
    save_figure(fig, path)


def plot(paths, kinds=("all",), metrics=None, out_dir=".", fmt="png", protocol=None, methods=None,
         datasets=None):
    """Write the ``kinds`` of pictures for each metric into ``out_dir``; return the file paths.

    The results are read and analysed as ``mlbench report`` does (the protocol's metrics unless
    ``metrics`` are given, its main methods; :func:`mlbench.report.prepare.prepare`)."""
    from mlbench.report.prepare import prepare

    kinds = _kinds(kinds, fmt)
    analysis = prepare(paths, metrics=list(metrics or ()), protocol=protocol, methods=methods,
                       datasets=datasets).analysis
    return plot_analysis(analysis, kinds, out_dir, fmt)


def _kinds(kinds, fmt):
    kinds = list(KINDS) if "all" in kinds else list(kinds)
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise ConfigError(f"unknown plot kind {bad[0]!r}; choose from {', '.join(KINDS)} or all")
    if fmt not in ("png", "svg"):
        raise ConfigError(f"plot format must be png or svg, got {fmt!r}")
    return kinds


def plot_analysis(analysis, kinds=("all",), out_dir=".", fmt="png"):
    """The pictures of an :class:`~mlbench.report.analysis.Analysis` (its results and metrics)."""
    from mlbench.report.cd_diagram import write_cd_diagrams

    kinds = _kinds(kinds, fmt)
    results = analysis.results
    make_dirs(out_dir, "choose another --out folder")
    written = []
    for ma in analysis.metrics:
        metric = ma.metric
        for kind in kinds:
            path = os.path.join(out_dir, f"{kind}-{metric}.{fmt}")
            if kind == "cd":
                written += write_cd_diagrams(analysis, path, only=metric)
                continue
            if kind == "bayes" and len(results.datasets) < 2:
                continue                          # as the CD diagram: nothing over one dataset
            if kind == "bayes":
                bayes(results, metric, path, control=ma.control or analysis.control)
            else:
                {"box": box, "heatmap": heatmap, "pareto": pareto}[kind](results, metric, path)
            written.append(path)
    return written
