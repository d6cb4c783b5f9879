"""What every picture of mlbench shares: a figure sized in inches from what it shows, text measured
before it is drawn, and saving to one or several formats at once.

Figures are :class:`matplotlib.figure.Figure` objects with an Agg canvas of their own, made without
pyplot: drawing one never switches the caller's backend (a notebook keeps its own) and nothing is
left open in pyplot's list of figures.  Their size is computed from the number of methods and
datasets and from the widths of the labels (:func:`text_inches`), and constrained layout places the
axes within it, so that titles, tick labels and colour-bar labels are never cut.
"""
from __future__ import annotations

import functools
import os

from mlbench.errors import ConfigError

#: the formats a picture can be written in (the file's extension)
FORMATS = ("png", "svg", "pdf")
#: what ``mlbench plot`` writes unless told otherwise: a picture to look at and one for a paper
DEFAULT_FORMATS = ("png", "pdf")

def new_figure(width, height, layout="constrained", dpi=100):
    """A Figure of ``width`` x ``height`` inches on its own Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=dpi, layout=layout)
    FigureCanvasAgg(fig)
    return fig


def text_inches(texts, fontsize, weight="normal"):
    """``(width, height)`` in inches of the widest and tallest of ``texts`` at ``fontsize`` points
    (``(0, 0)`` for none)."""
    from matplotlib.font_manager import FontProperties

    prop = FontProperties(size=fontsize, weight=weight)
    w = h = 0.0
    for text in texts:
        tw, th, _ = _renderer().get_text_width_height_descent(str(text), prop, ismath=False)
        w, h = max(w, tw), max(h, th)
    return w / 72.0, h / 72.0


@functools.cache
def _renderer():
    from matplotlib.backends.backend_agg import RendererAgg

    return RendererAgg(8, 8, 72)        # 72 dpi: one pixel is one point


def formats(value):
    """The formats ``value`` names (``"png,pdf"`` or a list), checked, in order, once each."""
    chosen = []
    for f in (value.split(",") if isinstance(value, str) else value):
        f = f.strip().lower().lstrip(".")
        if f and f not in FORMATS:
            raise ConfigError(f"unknown picture format {f!r}; choose from {', '.join(FORMATS)}")
        if f and f not in chosen:
            chosen.append(f)
    if not chosen:
        raise ConfigError(f"no picture format given; choose from {', '.join(FORMATS)}")
    return chosen


def with_pdf(path):
    """``path`` and the PDF beside it (``cd.png`` -> ``[cd.png, cd.pdf]``; ``cd.pdf`` alone): a
    picture written for a paper comes as a PDF too."""
    stem, ext = os.path.splitext(os.fspath(path))
    return [os.fspath(path)] if ext.lower() == ".pdf" else [os.fspath(path), stem + ".pdf"]


def check_extension(path, what):
    ext = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    if ext not in FORMATS:
        raise ConfigError(f"{what} must end in .png, .svg or .pdf (got {path})")


def save_figure(fig, paths, hint="choose another output file", **kw):
    """Write ``fig`` to ``paths`` (one path or a list; each atomically, the format from its
    extension, PNG without one), with ``bbox_inches="tight"`` so that nothing drawn is cut, and
    close it; an unwritable path is one line (:mod:`mlbench.fileio`).  A PDF embeds its fonts as
    TrueType (Type 42), which publishers' checks accept, not matplotlib's default Type 3."""
    import matplotlib

    from mlbench.fileio import atomic_write

    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    kw.setdefault("bbox_inches", "tight")
    kw.setdefault("pad_inches", 0.05)

    def write(fh, fmt):
        with matplotlib.rc_context({"pdf.fonttype": 42}):
            fig.savefig(fh, format=fmt, **kw)

    try:
        for path in paths:
            fmt = os.path.splitext(os.fspath(path))[1][1:].lower() or "png"
            atomic_write(path, lambda fh, fmt=fmt: write(fh, fmt), hint=hint)
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)         # a figure of pyplot's (explain's) leaves its list; ours are not in it
