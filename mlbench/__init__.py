"""mlbench: benchmark multi-label classification methods the way the field's papers do.

The Python API (:mod:`mlbench.api`): ``load_dataset``, ``list_methods``, ``make_method``, ``run``
and ``build_report``; ``mlbench.testing.check_method`` checks a method of your own.
"""

__version__ = "0.1.0"

__all__ = ["load_dataset", "list_methods", "make_method", "run", "build_report"]


def __getattr__(name):
    # imported on first use, so that `import mlbench` (and the CLI's start) stays light
    if name in __all__:
        from mlbench import api

        return getattr(api, name)
    raise AttributeError(f"module 'mlbench' has no attribute {name!r}")
