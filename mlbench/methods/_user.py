"""A user's own method, named where a method name is accepted (CLI, protocol YAML, Python API).

* ``package.module:ClassName`` imports the class from an installed or importable module (the
  current directory included);
* ``path/to/methods.py:ClassName`` imports it from a file;
* either may carry parameters, ``...:ClassName(alpha=0.1, k=5, kernel='rbf')``, whose values are
  literals or other specs (``estimator=sklearn.svm:SVC(probability=True)``), and a registered
  method may carry them too (``br-lr(base=sklearn.svm:LinearSVC())``): the grammar of
  :mod:`mlbench.methods._spec` (parsed, never evaluated; a list is a grid of variants).

The class follows the scikit-learn estimator API: ``fit(X, Y)`` with Y an (n, L) 0/1 matrix,
``predict(X)`` giving an (n, L) 0/1 matrix, and for the ranking and probabilistic measures
``predict_proba`` or ``decision_function`` ((n, L) scores, or scikit-learn's per-label list of
(n, 2) arrays).  Without scores those measures are "not available" for its cells, which are not
failed.  A ``random_state`` parameter gets the cell's seed.  :func:`spec_from_string` checks the
contract once, before any cell runs (:func:`check_contract`); the method then goes through the
registry's :class:`~mlbench.methods.registry.MethodSpec` like a built-in one, family ``user``.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from pathlib import Path

from mlbench.errors import ConfigError

def _load_file(path, where):
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise ConfigError(f"method {where!r}: no file {path}")
    name = "mlbench_user_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module      # pickling by reference (Dask) finds it under this name
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's module failed to import: one line, the cause named
        del sys.modules[name]
        raise ConfigError(f"method {where!r}: importing {path} failed: {type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else ''}") from None
    return module


def _load_module(target, where):
    if target.endswith(".py") or os.sep in target or "/" in target:
        return _load_file(target, where)
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        local = Path(target.replace(".", "/") + ".py")
        if exc.name == target.split(".")[0] and local.is_file():
            return _load_file(local, where)           # a module in the current directory
        raise ConfigError(f"method {where!r}: cannot import {target} ({exc})") from None
    except Exception as exc:
        raise ConfigError(f"method {where!r}: importing {target} failed: {type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else ''}") from None


def check_contract(cls, where):
    """The API checks that need no data: a class with ``fit`` and ``predict``."""
    if not isinstance(cls, type):
        raise ConfigError(f"method {where!r}: {getattr(cls, '__name__', cls)!r} is not a class")
    missing = [m for m in ("fit", "predict") if not callable(getattr(cls, m, None))]
    if missing:
        raise ConfigError(f"method {where!r}: {cls.__name__} has no {' or '.join(missing)}() "
                          f"(a scikit-learn style estimator needs fit(X, Y) and predict(X))")


def load_class(target, where):
    """The class named by ``MODULE:CLASS`` or ``FILE.py:CLASS``, imported once."""
    module_name, _, cls_name = target.rpartition(":")
    module = _load_module(module_name.strip(), where)
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise ConfigError(f"method {where!r}: {module_name} has no {cls_name}")
    if not isinstance(cls, type):
        raise ConfigError(f"method {where!r}: {cls_name!r} is not a class")
    return cls


def spec_from_string(text):
    """The :class:`~mlbench.methods.registry.MethodSpec` of a spec text (no grid left in it):
    ``MODULE:CLASS(...)`` (family ``user``) or a registered method with parameters (its own
    family).  Literal parameters become the spec's ``params``, nested specs its ``nested`` ones
    (built afresh, seeded, by each ``make``)."""
    from mlbench.methods import registry
    from mlbench.methods._spec import contains_spec, parse_spec, variants

    found = variants(parse_spec(text), text)
    if len(found) > 1:
        names = ", ".join(f"{p}={v!r}" for p, v in found[0][1])
        raise ConfigError(f"method {text!r} is a grid of {len(found)} methods (e.g. {names}); run "
                          "it from the command line, mlbench.run or a protocol, which expand it")
    spec = found[0][0]          # a one-value grid ([[1, 2]]) is its value, a literal list
    params = {k: v for k, v in spec.params if not contains_spec(v)}
    nested = {k: v for k, v in spec.params if contains_spec(v)}
    if spec.is_registered:
        base = registry.get(spec.target)
        unknown = sorted(set(dict(spec.params)) - set(base.default_params()))
        if unknown:
            raise ConfigError(f"method {text!r}: {spec.target} has no parameter {unknown[0]!r}")
        return registry.MethodSpec(text, base.cls, base.family, base.paper, base.description,
                                   {**base.params, **params}, base.grid, nested)
    cls = load_class(spec.target, text)
    check_contract(cls, text)
    doc = (cls.__doc__ or "").strip().splitlines()
    return registry.MethodSpec(text, cls, "user", "user",
                               doc[0] if doc else f"{cls.__module__}.{cls.__name__}", params, {},
                               nested)
