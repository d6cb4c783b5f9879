"""The pictures of ``mlbench plot`` as matplotlib figures, for notebooks and scripts.

    import mlbench.results, mlbench.plots
    df = mlbench.results.read("results/papers/soshf.csv")
    fig = mlbench.plots.cd(df, "macro_f1")          # shown by Jupyter; fig.savefig("cd.svg")

Each function analyses its input as ``mlbench plot`` does (:func:`mlbench.report.prepare.prepare`:
the protocol's main methods, ``methods``/``datasets`` selections, stale rows refused unless
``allow_stale``) and draws with the command's own functions (:mod:`mlbench.report.plots`,
:mod:`mlbench.report.cd_diagram`).  The figure is returned closed to pyplot, so a notebook shows
it once (as the cell's value) and ``plt.show()`` does not show it again.
"""
from __future__ import annotations


def _results(results, metric, *, methods=None, datasets=None, protocol=None, alpha=0.05,
             control=None, allow_stale=False):
    """The analysis ``mlbench plot`` draws (one metric) and its metric's part."""
    from mlbench.errors import ConfigError
    from mlbench.report.prepare import prepare

    if not isinstance(metric, str):
        raise ConfigError(f"metric must be one metric name (got {metric!r})")
    analysis = prepare(results, metrics=[metric], protocol=protocol, methods=methods,
                       datasets=datasets, alpha=alpha, control=control,
                       allow_stale=allow_stale).analysis
    return analysis, analysis.metrics[0]


def _closed(fig):
    import matplotlib.pyplot as plt

    plt.close(fig)
    return fig


def cd(results, metric: str, *, test: str = "nemenyi", alpha: float = 0.05,
       control: str | None = None, methods=None, datasets=None, protocol: str | None = None,
       allow_stale: bool = False):
    """The critical-difference diagram of ``metric`` (``test``: ``nemenyi``, or
    ``bonferroni-dunn`` with the interval around ``control``), as ``mlbench plot --kind cd`` and
    ``mlbench report --cd-diagram``.  ``results``: a DataFrame of :func:`mlbench.results.read` or
    results file paths.  Example::

        fig = mlbench.plots.cd(df, "macro_f1", test="bonferroni-dunn")
        fig.savefig("cd-macro_f1.svg")
    """
    from mlbench.errors import MlbenchError
    from mlbench.report.cd_diagram import metric_diagram

    analysis, ma = _results(results, metric, methods=methods, datasets=datasets,
                            protocol=protocol, alpha=alpha, control=control,
                            allow_stale=allow_stale)
    if ma.friedman is None:
        raise MlbenchError(f"no CD diagram for {metric}: it ranks methods over datasets and "
                           f"{len(ma.used_datasets)} dataset(s) have results for every method")
    return _closed(metric_diagram(analysis, ma, test, None))


def box(results, metric: str, *, methods=None, datasets=None, protocol: str | None = None,
        allow_stale: bool = False):
    """Per dataset, each method's ``metric`` over the splits (a box, the split points on top), as
    ``mlbench plot --kind box``.  Example::

        mlbench.plots.box(df, "macro_f1", datasets="emotions,scene")
    """
    from mlbench.report import plots

    analysis, _ = _results(results, metric, methods=methods, datasets=datasets, protocol=protocol,
                           allow_stale=allow_stale)
    return _closed(plots.box(analysis.results, metric, None))


def heatmap(results, metric: str, *, methods=None, datasets=None, protocol: str | None = None,
            allow_stale: bool = False):
    """Each method's rank on each dataset (1 = best), methods by average rank, as ``mlbench plot
    --kind heatmap``.  Example::

        mlbench.plots.heatmap(df, "macro_auc")
    """
    from mlbench.report import plots

    analysis, _ = _results(results, metric, methods=methods, datasets=datasets, protocol=protocol,
                           allow_stale=allow_stale)
    return _closed(plots.heatmap(analysis.results, metric, None))


def pareto(results, metric: str, *, methods=None, datasets=None, protocol: str | None = None,
           allow_stale: bool = False):
    """Each method's mean ``metric`` against its mean fit time, the Pareto front (no method both
    better and faster) joined and labelled, as ``mlbench plot --kind pareto``.  Example::

        mlbench.plots.pareto(df, "macro_f1")
    """
    from mlbench.report import plots

    analysis, _ = _results(results, metric, methods=methods, datasets=datasets, protocol=protocol,
                           allow_stale=allow_stale)
    return _closed(plots.pareto(analysis.results, metric, None))


def bayes(results, metric: str, *, control: str | None = None, methods=None, datasets=None,
          protocol: str | None = None, allow_stale: bool = False):
    """The Bayesian signed-rank posterior of the control against each other method (at most 9)
    on the probability simplex, as ``mlbench plot --kind bayes``.  Example::

        mlbench.plots.bayes(df, "macro_f1", control="sf-h-cs")
    """
    from mlbench.report import plots

    analysis, ma = _results(results, metric, methods=methods, datasets=datasets,
                            protocol=protocol, control=control, allow_stale=allow_stale)
    return _closed(plots.bayes(analysis.results, metric, None,
                               control=ma.control or analysis.control))
