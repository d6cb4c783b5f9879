"""The method registry: every runnable method, by name, as data.

A family module registers its methods at import time::

    register("br-lr", BinaryRelevance, family="transformation", paper="platform",
             params={"base": "lr"}, description="binary relevance, L2 logistic regression")

``params`` are the registered defaults that differ from the class's own; a protocol may override
them per method.  :func:`make` builds a fresh estimator, so the runner never shares state between
cells.  Every module below ``mlbench.methods`` whose name does not start with ``_`` is imported on
first use (:func:`discover`), so adding a method needs no edit here.
"""
from __future__ import annotations

import difflib
import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any

from mlbench.errors import ConfigError

#: source papers, by the key protocols, ``mlbench methods`` and datasets.yaml's ``papers`` use
PAPERS = {
    "platform": "baselines shared by several papers",
    "soshf": "Daniels & Metaxas, Structured Hellinger Forests (AAAI 2019)",
    "mldf": "Yang, Wu, Jiang & Zhou, Multi-Label Learning with Deep Forest (2019)",
    "mc": "Hong, Batal & Hauskrecht, A Mixtures-of-Trees Framework for Multi-Label Classification (CIKM 2014)",
    "imtsl": "Goncalves, Von Zuben & Banerjee, Multi-Label Structure Learning with Ising Model Selection (IJCAI 2015)",
    "hiercost": "Charuvaka & Rangwala, HierCost (ECML PKDD 2015)",
    "bogatinovski2022": "Bogatinovski, Todorovski, Dzeroski & Kocev, Comprehensive comparative study of "
                        "multi-label classification methods (Expert Systems with Applications 2022)",
    "user": "a method from outside mlbench (MODULE:CLASS, FILE.py:CLASS or a plug-in package)",
}

#: entry-point group of plug-in packages: each entry point names a module (or a callable) that
#: registers its methods with :func:`register` when loaded, exactly as mlbench's own modules do
ENTRY_POINT_GROUP = "mlbench.methods"


@dataclass(frozen=True)
class MethodSpec:
    """One registered method: a class plus the defaults that make it this method."""

    name: str
    cls: type
    family: str
    paper: str
    description: str = ""
    params: dict = field(default_factory=dict)
    #: hyperparameter grid for internal tuning, as data (name -> list of values)
    grid: dict = field(default_factory=dict)

    def make(self, random_state=None, **overrides: Any):
        params = {**self.params, **overrides}
        try:
            est = self.cls(**params)
        except TypeError as exc:
            if self.family != "user":
                raise
            raise ConfigError(f"method {self.name!r}: {self.cls.__name__}({', '.join(params)}) "
                              f"failed: {exc}") from None
        if hasattr(est, "get_params"):
            if "random_state" in est.get_params():
                est.set_params(random_state=random_state)
        elif hasattr(est, "random_state"):
            est.random_state = random_state
        return est

    def default_params(self):
        """Every parameter of the estimator this spec builds (class defaults + registered ones);
        for a user's class without scikit-learn's ``get_params``, its constructor's defaults."""
        est = self.make()
        if hasattr(est, "get_params"):
            return est.get_params(deep=False)
        import inspect

        sig = inspect.signature(self.cls)
        out = {k: p.default for k, p in sig.parameters.items()
               if p.default is not inspect.Parameter.empty and p.kind is not p.VAR_KEYWORD}
        out.update(self.params)
        return out


_REGISTRY: dict[str, MethodSpec] = {}
_USER: dict[str, MethodSpec] = {}      # user methods by spec string (not listed by all_methods)
_discovered = False


def register(name, cls, *, family, paper, description="", params=None, grid=None):
    """Register ``cls`` under ``name``; re-registering the same name with another class is an error."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper key {paper!r} for method {name!r}")
    spec = MethodSpec(name, cls, family, paper, description, dict(params or {}), dict(grid or {}))
    old = _REGISTRY.get(name)
    if old is not None and (old.cls is not cls or old.params != spec.params):
        raise ValueError(f"method {name!r} registered twice")
    _REGISTRY[name] = spec
    return cls


def discover():
    """Import every public module below ``mlbench.methods`` once, so each registers its methods."""
    global _discovered
    if _discovered:
        return
    import mlbench.methods as pkg

    for info in pkgutil.walk_packages(pkg.__path__, prefix="mlbench.methods."):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        importlib.import_module(info.name)
    _discovered = True
    _load_plugins()


def _load_plugins():
    """Load the ``mlbench.methods`` entry points of installed packages (they register their
    methods); a plug-in that fails to load is one ConfigError naming it."""
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
            if callable(obj) and not isinstance(obj, type):
                obj(register)
        except ConfigError:
            raise
        except Exception as exc:
            raise ConfigError(f"plug-in {ep.name!r} ({ep.value}) failed to load: "
                              f"{type(exc).__name__}: {exc}") from None


def all_methods():
    """Every registered method, sorted by family then name."""
    discover()
    return sorted(_REGISTRY.values(), key=lambda s: (s.family, s.name))


def get(name):
    """The spec of ``name``; an unknown name raises :class:`ConfigError` suggesting the closest."""
    discover()
    try:
        return _REGISTRY[name]
    except KeyError:
        from mlbench.methods._user import is_user_method, spec_from_string

        if is_user_method(name):
            if name not in _USER:
                _USER[name] = spec_from_string(name)
            return _USER[name]
        close = difflib.get_close_matches(name, _REGISTRY, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ConfigError(f"unknown method {name!r}{hint} (see 'mlbench methods')") from None


def make(name, random_state=None, **overrides):
    """A fresh estimator for method ``name`` with ``overrides`` on top of its registered params."""
    return get(name).make(random_state=random_state, **overrides)
