"""Paper-style reports: results -> analysis (``analysis``) -> tables (``styles``) -> text (``formats``),
plus CD diagrams (``cd_diagram``) and the regression gate (``check``).

The package's names are imported when first used (PEP 562), so that a light submodule
(``formats``, ``styles``: what ``mlbench report --help`` needs) does not load pandas.
"""
import importlib

__all__ = ["compare", "load_results", "make_report"]

#: name -> the submodule that defines it
_HOME = {"compare": "check", "load_results": "results", "make_report": "build"}


def __getattr__(name):
    if name in _HOME:
        return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_HOME])
