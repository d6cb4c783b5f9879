"""Every plot kind reads at a small and a large grid (issue 44, item 3): rendered with Agg, each
visible text lies inside the canvas, no two texts overlap, and every method (and every dataset
where the kind shows datasets) is named somewhere in the picture."""
import itertools

import numpy as np
import pandas as pd
import pytest

from mlbench.report import plots

METHODS = ["br-lr", "cc", "ecc", "mlknn", "rakel-d", "clr", "hierarchical-cost-sensitive-lr",
           "rf-pct", "rf-pct-leaf2", "mldf", "mldf-leaf2", "ecc-j48", "br-svm", "lp", "homer",
           "calibrated-label-ranking-svm", "ml-rbf", "bpmll", "imtsl", "soshf"]
# the last name is long enough to stand the heat map's dataset names upright
DATASETS = ["emotions", "yeast", "scene", "medical", "enron", "corel5k", "rcv1subset1", "bibtex",
            "delicious", "mediamill-exp1-binary-relevance"]


def write_results(tmp_path, k, n, seed=0):
    """``k`` methods x ``n`` datasets x 3 splits; four methods crowd one corner of the Pareto
    plot (nearly the same score and time), as variants of one method do; on a large grid the
    last method has no result on the last dataset (the heat map's hatched cell and its legend)."""
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.3, 0.8, k)
    cost = 10 ** rng.uniform(-2, 3, k)
    crowd = slice(1, min(k, 5))
    skill[crowd] = 0.6 + 0.002 * np.arange(skill[crowd].size)
    cost[crowd] = 1.0 + 0.01 * np.arange(cost[crowd].size)
    rows = [dict(dataset=DATASETS[d], method=METHODS[m], protocol="x", split=f"r{s}", status="ok",
                 macro_f1=float(np.clip(skill[m] + 0.05 * d + rng.normal(0, 0.02), 0, 1)),
                 fit_seconds=float(cost[m] * (1 + 0.05 * rng.random())))
            for d in range(n) for m in range(k) for s in range(3) if (d, m) != (9, 19)]
    path = tmp_path / f"r{k}x{n}.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def drawn_texts(fig):
    """The texts the renderer draws: every visible non-empty Text artist, of the ticks only the
    labels the axes show (an Axis keeps Tick objects it does not draw)."""
    from matplotlib.axis import Tick
    from matplotlib.text import Text

    tick_texts = {id(t) for tick in fig.findobj(Tick) for t in (tick.label1, tick.label2)}
    texts = [t for t in fig.findobj(Text) if id(t) not in tick_texts]
    for ax in fig.axes:
        if not (ax.get_visible() and ax.axison):
            continue
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            slack = 1e-9 * max(1.0, abs(hi - lo))
            for locs, ticks in ((axis.get_majorticklocs(), axis.get_major_ticks),
                                (axis.get_minorticklocs(), axis.get_minor_ticks)):
                shown = [tick for loc, tick in zip(locs, ticks(len(locs)))
                         if lo - slack <= loc <= hi + slack]
                texts += [t for tick in shown for t in (tick.label1, tick.label2)]
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


def check_layout(fig):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    W, H = fig.bbox.width, fig.bbox.height
    texts = drawn_texts(fig)
    boxes = [t.get_window_extent(renderer) for t in texts]
    for t, b in zip(texts, boxes):
        assert b.x0 >= -0.5 and b.y0 >= -0.5 and b.x1 <= W + 0.5 and b.y1 <= H + 0.5, \
            f"text {t.get_text()!r} at {b.bounds} leaves the {W:.0f}x{H:.0f} canvas"
    for (s, a), (t, b) in itertools.combinations(zip(texts, boxes), 2):
        # a pixel of space at least between two texts (tick labels that touch read as one)
        assert not a.padded(0.5).overlaps(b.padded(0.5)), \
            f"texts {s.get_text()!r} and {t.get_text()!r} overlap or touch"
    # a legend's frame is a box of text too: nothing but its own entries may lie on it
    for legend in fig.findobj(lambda a: a.__class__.__name__ == "Legend"):
        frame = legend.get_window_extent(renderer)
        own = {id(x) for x in legend.get_texts()} | {id(legend.get_title())}
        for t, b in zip(texts, boxes):
            assert id(t) in own or not frame.overlaps(b), f"text {t.get_text()!r} lies on the legend"
    return " ".join(t.get_text() for t in texts)


@pytest.fixture(scope="module")
def analyses(tmp_path_factory):
    """The analysis of each grid, computed once for all kinds."""
    from mlbench.report.prepare import prepare

    folder = tmp_path_factory.mktemp("grids")
    return {(k, n): prepare([write_results(folder, k, n)], metrics=["macro_f1"],
                            stats=["friedman"]).analysis
            for k, n in ((2, 2), (20, 10))}


@pytest.mark.parametrize("k, n", [(2, 2), (20, 10)])
@pytest.mark.parametrize("kind", plots.KINDS)
def test_every_kind_reads_at_both_grid_sizes(analyses, kind, k, n):
    analysis = analyses[(k, n)]
    fig = plots.figure(kind, analysis, analysis.metrics[0])
    assert fig is not None
    words = check_layout(fig)
    # the CD diagram ranks the methods with a result on every dataset it uses
    shown = analysis.metrics[0].block_methods if kind == "cd" else METHODS[:k]
    assert kind != "cd" or len(shown) >= k - 1
    for m in shown:
        assert m in words, f"{kind}: method {m} is neither labelled nor listed"
    if kind == "heatmap" and k == 20:
        assert "no result (not ranked)" in words
    if kind in ("box", "heatmap"):
        for d in DATASETS[:n]:
            assert d in words, f"{kind}: dataset {d} is not named"
    w, h = fig.get_size_inches()
    assert w <= 40 and h <= 40        # sized from the grid, not without bound


def test_pareto_lists_the_labels_it_cannot_place(tmp_path):
    """Forty methods on one spot cannot all be labelled beside it: those left over are listed
    beside the plot with their numbers, and the picture still reads (nothing cut, no overlap)."""
    from mlbench.report.results import load_results

    names = [f"variant-{i:02d}" for i in range(40)]
    rows = [dict(dataset=d, method=m, protocol="x", split="r0", status="ok", macro_f1=0.5,
                 fit_seconds=2.0) for d in ("a", "b") for m in names]
    path = tmp_path / "same.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    fig = plots.pareto(load_results([path], metrics=["macro_f1"]), "macro_f1")
    words = check_layout(fig)
    assert all(m in words for m in names)
    listed = [t.get_text() for t in fig.texts if "not labelled in the plot:" in t.get_text()]
    assert listed and "variant-39: 0.5, 2 s" in listed[0]
    placed = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert 0 < len(placed) < 40 and not set(placed) & set(listed[0].splitlines()[1:])
