"""The pictures of ``mlbench plot`` as matplotlib figures, for notebooks and scripts.

    import mlbench.results, mlbench.plots
    df = mlbench.results.read("results/papers/soshf.csv")
    fig = mlbench.plots.cd(df, "macro_f1")          # shown by Jupyter; fig.savefig("cd.svg")

Each function analyses its input as ``mlbench plot`` does (:func:`mlbench.report.prepare.prepare`:
the protocol's main methods, ``methods``/``datasets`` selections, stale rows refused unless
``allow_stale``) and draws with the command's own :func:`mlbench.report.plots.figure`.  The
figures are not in pyplot's list (:mod:`mlbench.report.figures`): a notebook shows each once, as
the cell's value, and drawing one never switches the notebook's backend.
"""
from __future__ import annotations


def _figure(kind, results, metric, *, cd_test="nemenyi", methods=None, datasets=None,
            protocol=None, alpha=0.05, control=None, allow_stale=False):
    """The picture ``kind`` of ``metric``, drawn from the analysis ``mlbench plot`` draws."""
    from mlbench.errors import ConfigError, MlbenchError
    from mlbench.report.plots import figure
    from mlbench.report.prepare import prepare

    if not isinstance(metric, str):
        raise ConfigError(f"metric must be one metric name (got {metric!r})")
    analysis = prepare(results, metrics=[metric], protocol=protocol, methods=methods,
                       datasets=datasets, alpha=alpha, control=control,
                       allow_stale=allow_stale).analysis
    fig = figure(kind, analysis, analysis.metrics[0], cd_test)
    if fig is None:             # over fewer than two datasets
        raise MlbenchError(f"no {kind} plot for {metric}: it compares methods over datasets and "
                           f"{len(analysis.metrics[0].used_datasets)} dataset(s) have results "
                           "for every method")
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
    return _figure("cd", results, metric, cd_test=test, alpha=alpha, control=control,
                   methods=methods, datasets=datasets, protocol=protocol, allow_stale=allow_stale)


def box(results, metric: str, *, methods=None, datasets=None, protocol: str | None = None,
        allow_stale: bool = False):
    """Per dataset, each method's ``metric`` over the splits (a box, the split points on top), as
    ``mlbench plot --kind box``.  Example::

        mlbench.plots.box(df, "macro_f1", datasets="emotions,scene")
    """
    return _figure("box", results, metric, methods=methods, datasets=datasets, protocol=protocol,
                   allow_stale=allow_stale)


def heatmap(results, metric: str, *, methods=None, datasets=None, protocol: str | None = None,
            allow_stale: bool = False):
    """Each method's rank on each dataset (1 = best), methods by average rank, as ``mlbench plot
    --kind heatmap``.  Example::

        mlbench.plots.heatmap(df, "macro_auc")
    """
    return _figure("heatmap", results, metric, methods=methods, datasets=datasets,
                   protocol=protocol, allow_stale=allow_stale)


def pareto(results, metric: str, *, methods=None, datasets=None, protocol: str | None = None,
           allow_stale: bool = False):
    """Each method's mean ``metric`` against its mean fit time, the Pareto front (no method both
    better and faster) joined, every method labelled, as ``mlbench plot --kind pareto``.
    Example::

        mlbench.plots.pareto(df, "macro_f1")
    """
    return _figure("pareto", results, metric, methods=methods, datasets=datasets,
                   protocol=protocol, allow_stale=allow_stale)


def bayes(results, metric: str, *, control: str | None = None, methods=None, datasets=None,
          protocol: str | None = None, allow_stale: bool = False):
    """The Bayesian signed-rank posterior of the control against each other method on the
    probability simplex, as ``mlbench plot --kind bayes``.  Example::

        mlbench.plots.bayes(df, "macro_f1", control="sf-h-cs")
    """
    return _figure("bayes", results, metric, control=control, methods=methods,
                   datasets=datasets, protocol=protocol, allow_stale=allow_stale)
