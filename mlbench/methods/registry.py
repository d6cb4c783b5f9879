"""The method registry: every runnable method, by name, as data.

A family module registers its methods at import time::

    register("br-lr", BinaryRelevance, family="transformation", paper="platform",
             params={"base": "lr"}, description="binary relevance, L2 logistic regression")

``params`` are the registered defaults that differ from the class's own; a protocol may override
them per method.  :func:`make` builds a fresh estimator, so the runner never shares state between
cells.  Every module below ``mlbench.methods`` whose name does not start with ``_`` is imported on
first use (:func:`discover`), so adding a method needs no edit here.

Listing the methods needs no estimator class: :func:`method_index` reads ``index.json`` (name,
family, paper, description of every built-in method, written from the live registrations by
``python -m mlbench.methods --write-index``; a test fails when it is stale), so ``mlbench
methods`` does not import scikit-learn and the families' other dependencies.  Plug-ins that fail to
load are skipped with one warning line each (:func:`plugin_errors`); the other methods keep working.
"""
from __future__ import annotations

import difflib
import importlib
import json
import os
import pkgutil
import sys
import types
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
    #: parameters whose values hold method specs (:mod:`mlbench.methods._spec`): each ``make``
    #: builds them afresh, their seeds derived from ``random_state``
    nested: dict = field(default_factory=dict)

    def make(self, random_state=None, **overrides: Any):
        params = {**self.params, **overrides}
        if self.nested:
            from mlbench.methods._spec import materialize

            for k, v in self.nested.items():
                if k not in overrides:
                    params[k] = materialize(v, random_state, k, self.name)
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
_USER: dict[str, MethodSpec] = {}      # methods named by a spec text (not listed by all_methods)
_discovered = False
_plugins_loaded = False
_PLUGIN_ERRORS: dict[str, str] = {}    # entry point name -> why it was skipped
_BUILTIN: set[str] = set()             # names registered by mlbench's own modules
INDEX_PATH = os.path.join(os.path.dirname(__file__), "index.json")
_INDEX_CACHE: dict = {}                # INDEX_PATH -> its parsed content (None: missing or unreadable)


def register(name, cls, *, family, paper, description="", params=None, grid=None):
    """Register ``cls`` under ``name``; re-registering the same name with another class is an error."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper key {paper!r} for method {name!r}")
    if not isinstance(cls, type):
        raise ValueError(f"method {name!r}: {cls!r} is not a class")
    builtin = sys._getframe(1).f_globals.get("__name__", "").startswith("mlbench.methods.")
    if not builtin and not _discovered and name in _index_names():
        # before discover() a built-in name is not in _REGISTRY yet: refuse it now, not when the
        # built-in module registers it later (which would break every command)
        raise ValueError(f"method {name!r} is already a built-in method")
    spec = MethodSpec(name, cls, family, paper, description, dict(params or {}), dict(grid or {}))
    old = _REGISTRY.get(name)
    if old is not None and (old.cls is not cls or old.params != spec.params):
        raise ValueError(f"method {name!r} registered twice")
    _REGISTRY[name] = spec
    if builtin:
        _BUILTIN.add(name)
    return cls


def _family_modules():
    """The public modules below ``mlbench.methods`` (names only: nothing is imported)."""
    import mlbench.methods as pkg

    out = []
    for info in pkgutil.iter_modules(pkg.__path__, prefix="mlbench.methods."):
        if info.name.rsplit(".", 1)[-1].startswith("_") or info.name == __name__:
            continue
        if info.ispkg:
            sub = os.path.join(pkg.__path__[0], info.name.rsplit(".", 1)[-1])
            out += [m.name for m in pkgutil.iter_modules([sub], prefix=info.name + ".")
                    if not m.name.rsplit(".", 1)[-1].startswith("_")]
        else:
            out.append(info.name)
    return sorted(out)


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
    """Load the ``mlbench.methods`` entry points of installed packages once (they register their
    methods).  A plug-in that fails to load (import error, unknown paper key, an object that is not
    a module or a class, a method name taken ...) registers nothing and is reported by one line on
    stderr; every other method keeps working."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        before = set(_REGISTRY) - _BUILTIN
        try:
            obj = ep.load()
            if callable(obj) and not isinstance(obj, type):
                obj(register)
            elif not isinstance(obj, (type, types.ModuleType)):
                raise TypeError(f"it names a {type(obj).__name__}, not a module, a class or a "
                                f"function taking register")
        except Exception as exc:               # a plug-in registers all of its methods or none
            for name in set(_REGISTRY) - _BUILTIN - before:
                del _REGISTRY[name]
            problem = str(exc) if isinstance(exc, ConfigError) else f"{type(exc).__name__}: {exc}"
            _PLUGIN_ERRORS[ep.name] = problem
            print(f"mlbench: warning: plug-in {ep.name!r} ({ep.value}) skipped: {problem}",
                  file=sys.stderr, flush=True)


def plugin_errors():
    """Entry points of the group ``mlbench.methods`` that failed to load: name -> problem."""
    return dict(_PLUGIN_ERRORS)


def _read_index():
    if INDEX_PATH not in _INDEX_CACHE:
        try:
            with open(INDEX_PATH, encoding="utf-8") as fh:
                _INDEX_CACHE[INDEX_PATH] = json.load(fh)
        except (OSError, ValueError):
            _INDEX_CACHE[INDEX_PATH] = None
    return _INDEX_CACHE[INDEX_PATH]


def _index_names():
    index = _read_index()
    return {r["name"] for r in index["methods"]} if index else set()


def method_index():
    """Name, family, paper and description of every method (dicts, sorted like
    :func:`all_methods`) without importing the built-in families: from ``index.json`` when it
    covers the family modules present, else from the live registry (importing everything)."""
    index = None if _discovered else _read_index()
    if index is None or index.get("modules") != _family_modules():
        return [_record(s) for s in all_methods()]
    _load_plugins()
    records = {r["name"]: dict(r) for r in index["methods"]}
    records.update((s.name, _record(s)) for s in _REGISTRY.values())   # plug-ins, tests' methods
    return sorted(records.values(), key=lambda r: (r["family"], r["name"]))


def _record(spec):
    return {"name": spec.name, "family": spec.family, "paper": spec.paper,
            "description": spec.description}


def write_index(path=INDEX_PATH):
    """Write ``index.json`` from the live registrations of the built-in families (no plug-ins)."""
    for name in _family_modules():
        importlib.import_module(name)
    builtin = [_REGISTRY[name] for name in _BUILTIN]
    data = {"modules": _family_modules(),
            "methods": [_record(s) for s in sorted(builtin, key=lambda s: (s.family, s.name))]}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    _INDEX_CACHE.clear()
    return len(data["methods"])


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
        from mlbench.methods._spec import looks_like_spec
        from mlbench.methods._user import spec_from_string

        if looks_like_spec(name):
            if name not in _USER:
                _USER[name] = spec_from_string(name)
            return _USER[name]
        close = difflib.get_close_matches(name, _REGISTRY, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        if _PLUGIN_ERRORS:
            hint += f"; plug-in(s) skipped: {', '.join(sorted(_PLUGIN_ERRORS))}"
        raise ConfigError(f"unknown method {name!r}{hint} (see 'mlbench methods')") from None


def make(name, random_state=None, **overrides):
    """A fresh estimator for method ``name`` with ``overrides`` on top of its registered params."""
    return get(name).make(random_state=random_state, **overrides)
