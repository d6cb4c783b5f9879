"""mlbench: benchmark multi-label classification methods the way the field's papers do.

The Python API, the functions the ``mlbench`` command line is built on (defined in
:mod:`mlbench.api`, imported on first use)::

    import mlbench
    ds = mlbench.load_dataset("emotions")      # a registered name or a path (FILE.arff, ...)
    est = mlbench.make_method("br-lr")         # or "my_methods.py:MyClf(alpha=0.1)"
    df = mlbench.run("quick", methods=["br-lr", "mlknn"], datasets=["emotions"], out="r.csv")
    print(mlbench.build_report(df, metrics=["macro_f1"], fmt="markdown"))

``list_methods`` names the registered methods, ``run_grid`` is ``run`` returning the runner's
report (``dry_run=True`` only plans), ``make_executor`` builds a local or Dask executor for it.
``mlbench.testing.check_method`` checks a method of your own against the contract.

The notebook API over results files, the code ``mlbench report`` and ``mlbench plot`` run::

    df = mlbench.results.read("results/papers/soshf.csv")     # a tidy DataFrame, one row per cell
    print(mlbench.stats.friedman(df, "macro_f1").summary())  # also posthoc, corrected_ttest, bayes
    fig = mlbench.plots.cd(df, "macro_f1")                    # also box, heatmap, pareto, bayes
"""

__version__ = "0.1.0"

__all__ = ["load_dataset", "list_methods", "make_method", "run", "run_grid", "make_executor",
           "build_report"]


#: the notebook API's modules, imported on first use as ``mlbench.NAME``
SUBMODULES = ("results", "stats", "plots")


def __getattr__(name):
    """The API functions and modules, imported on first use so that ``import mlbench`` stays light."""
    if name in __all__:
        from mlbench import api

        return getattr(api, name)
    if name in SUBMODULES:
        import importlib

        return importlib.import_module(f"mlbench.{name}")
    raise AttributeError(f"module 'mlbench' has no attribute {name!r}")


def __dir__():
    """The module's names and the API functions (so that ``help(mlbench)`` lists them)."""
    return sorted(set(globals()) | set(__all__) | set(SUBMODULES))
