"""CD diagrams: the cliques (pure function) and the rendering (labels must not overlap)."""
import itertools

import numpy as np
import pytest

from mlbench.errors import ConfigError
from mlbench.report.cd_diagram import cliques, draw

# Demšar (2006) Figure 1a: average ranks of C4.5, C4.5+m, C4.5+cf, C4.5+m+cf; CD at p = 0.10
NAMES = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
RANKS = [3.143, 2.000, 2.893, 1.964]


def test_demsar_figure_1a_groups():
    # at CD = 1.12: {C4.5+m+cf, C4.5+m, C4.5+cf} and {C4.5+cf, C4.5}, as in his figure
    assert [sorted(NAMES[i] for i in c) for c in cliques(RANKS, 1.12)] == [
        ["C4.5+cf", "C4.5+m", "C4.5+m+cf"], ["C4.5", "C4.5+cf"]]
    # at CD = 1.25 (p = 0.05) nothing differs: one bar with all four
    assert cliques(RANKS, 1.25) == [[3, 1, 2, 0]]
    # a CD smaller than every gap: no bar
    assert cliques(RANKS, 0.01) == []


def _check_bars(ranks, cd):
    r = np.asarray(ranks)
    bars = cliques(r, cd)
    sets = [set(b) for b in bars]
    for b in bars:
        # every pair inside a bar is closer than the CD ...
        assert all(abs(r[i] - r[j]) < cd for i, j in itertools.combinations(b, 2))
        # ... and no other method could join the bar
        for o in set(range(r.size)) - set(b):
            assert any(abs(r[o] - r[i]) >= cd for i in b)
    # no bar inside another, no duplicates
    for a, b in itertools.permutations(sets, 2):
        assert not a <= b
    # every pair not significantly different is joined by some bar
    for i, j in itertools.combinations(range(r.size), 2):
        if abs(r[i] - r[j]) < cd:
            assert any({i, j} <= s for s in sets)
        else:
            assert not any({i, j} <= s for s in sets)


@pytest.mark.parametrize("seed", range(40))
def test_bars_join_exactly_the_close_methods(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 12))
    ranks = rng.uniform(1, k, size=k)
    if seed % 4 == 0:
        ranks = np.round(ranks * 2) / 2  # ties
    _check_bars(ranks, float(rng.uniform(0.2, 3.0)))


def _label_boxes(fig):
    fig.canvas.draw()              # the figure has an Agg canvas of its own
    renderer = fig.canvas.get_renderer()
    texts = [t for t in fig.axes[0].texts if (t.get_gid() or "").startswith("label:")]
    return texts, [t.get_window_extent(renderer) for t in texts]


@pytest.mark.parametrize("k", [2, 5, 12])
def test_labels_do_not_overlap(tmp_path, k):
    rng = np.random.default_rng(k)
    names = [f"method-with-a-long-name-{i}" for i in range(k)]
    ranks = np.sort(rng.uniform(1, k, size=k))
    ranks[1] = ranks[0]  # tied ranks are the classic overlap trap
    fig = draw(names, ranks, 1.0, tmp_path / "cd.png")
    texts, boxes = _label_boxes(fig)
    assert len(texts) == k
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b)
    assert (tmp_path / "cd.png").stat().st_size > 1000


def test_svg_pdf_and_bad_extension(tmp_path):
    draw(NAMES, RANKS, 1.25, [tmp_path / "cd.svg", tmp_path / "cd.pdf"], test="bonferroni-dunn",
         control=0)
    assert (tmp_path / "cd.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "cd.pdf").read_bytes().startswith(b"%PDF")
    with pytest.raises(ConfigError, match=r"png, \.svg or \.pdf"):
        draw(NAMES, RANKS, 1.25, tmp_path / "cd.gif")
    assert not (tmp_path / "cd.gif").exists()
