"""A user's own method, named where a method name is accepted (CLI, protocol YAML, Python API).

* ``package.module:ClassName`` imports the class from an installed or importable module (the
  current directory included);
* ``path/to/methods.py:ClassName`` imports it from a file;
* either may carry parameters, ``...:ClassName(alpha=0.1, k=5, kernel='rbf')``: keyword arguments
  whose values are Python literals, read with :func:`ast.literal_eval` (never ``eval``).

The class follows the scikit-learn estimator API: ``fit(X, Y)`` with Y an (n, L) 0/1 matrix,
``predict(X)`` giving an (n, L) 0/1 matrix, and for the ranking and probabilistic measures
``predict_proba`` or ``decision_function`` ((n, L) scores, or scikit-learn's per-label list of
(n, 2) arrays).  Without scores those measures are "not available" for its cells, which are not
failed.  A ``random_state`` parameter gets the cell's seed.  :func:`spec_from_string` checks the
contract once, before any cell runs (:func:`check_contract`); the method then goes through the
registry's :class:`~mlbench.methods.registry.MethodSpec` like a built-in one, family ``user``.
"""
from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import os
import re
import sys
from pathlib import Path

from mlbench.errors import ConfigError

_SPEC = re.compile(r"^(?P<target>[^:()\s][^:()]*):(?P<cls>[A-Za-z_]\w*)\s*(?:\((?P<args>.*)\))?\s*$",
                   re.S)


def is_user_method(name) -> bool:
    """Whether a method name is a ``module:Class`` / ``file.py:Class`` spec."""
    return isinstance(name, str) and _SPEC.match(name) is not None


def parse_params(args, where):
    """``a=1, b='x'`` -> {"a": 1, "b": "x"}: keyword arguments with literal values only."""
    if not args or not args.strip():
        return {}
    try:
        call = ast.parse(f"f({args})", mode="eval").body
    except SyntaxError:
        raise ConfigError(f"method {where!r}: cannot read the parameters ({args!r}); write "
                          f"NAME=VALUE pairs with literal values") from None
    if call.args or any(k.arg is None for k in call.keywords):
        raise ConfigError(f"method {where!r}: parameters must be NAME=VALUE pairs")
    params = {}
    for k in call.keywords:
        try:
            params[k.arg] = ast.literal_eval(k.value)
        except (ValueError, SyntaxError, TypeError):
            raise ConfigError(f"method {where!r}: the value of {k.arg} is not a literal "
                              f"({ast.unparse(k.value)!r})") from None
    return params


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


def spec_from_string(text):
    """The :class:`~mlbench.methods.registry.MethodSpec` of a user method spec string."""
    from mlbench.methods.registry import MethodSpec

    m = _SPEC.match(text)
    if m is None:
        raise ConfigError(f"method {text!r}: not a MODULE:CLASS or FILE.py:CLASS spec")
    params = parse_params(m.group("args"), text)
    module = _load_module(m.group("target").strip(), text)
    cls = getattr(module, m.group("cls"), None)
    if cls is None:
        raise ConfigError(f"method {text!r}: {m.group('target')} has no {m.group('cls')}")
    check_contract(cls, text)
    doc = (cls.__doc__ or "").strip().splitlines()
    return MethodSpec(text, cls, "user", "user", doc[0] if doc else f"{cls.__module__}.{cls.__name__}",
                      params)
