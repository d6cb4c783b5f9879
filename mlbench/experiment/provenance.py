"""Provenance that decides: what a results row was computed from, and whether that is still current.

Each row records the identity of everything its numbers depend on, one column each
(:data:`IDENTITY_COLUMNS`):

``dataset_sha256``
    the dataset's source files (their pinned sha256; for a user's file, its own);
``data_content``
    the arrays as loaded (:func:`mlbench.data.dataset.content_sha256` of X and Y after the
    registry's ``drop_features``): a parser change or a rewritten cache shows here even when the
    source files did not change;
``protocol_spec``
    the protocol's preprocessing steps and split rule (:func:`mlbench.experiment.grid.data_spec`;
    rows written before this column keep it in ``extra.data_spec``);
``params``
    the estimator's parameters, seed included;
``algorithm``
    the method's code (:func:`algorithm_identity`): ``NAME@VERSION`` for a built-in method, where
    VERSION is the class's declared ``algorithm_version`` (guarded by the golden-output test,
    ``tests/methods/test_golden_outputs.py``, so a refactor that changes no output keeps it and
    one that does cannot); for a user's file or a plug-in, the sha256 of its source; a method the
    protocol tunes by random search adds the search's version (``+RandomSearch@2``);
``conventions``
    the metric conventions of the protocol (:func:`mlbench.metrics.conventions.metric_conventions`).

A row is *stale* when a recorded field differs from what the current code, protocol and data give;
*unverified* when it records no ``algorithm``, ``protocol_spec``, ``conventions`` or
``data_content`` (written before mlbench recorded them; ``python -m mlbench.experiment.upgrade FILE``
fills them in for the rows that are verifiably current).  ``mlbench run`` reruns stale and
unverified cells and says why; ``mlbench report``, ``check`` and ``reproduction`` refuse stale rows
(``--allow-stale`` overrides) and note unverified ones.
"""
from __future__ import annotations

import functools
import hashlib

from mlbench.errors import ConfigError, DataError, MlbenchError
from mlbench.results_file import json_object

#: the identity columns of a row, in the order a cause of staleness is named
IDENTITY_COLUMNS = ("dataset_sha256", "data_content", "protocol_spec", "algorithm", "params",
                    "conventions")
#: the identity columns rows written before provenance lack
NEW_COLUMNS = ("data_content", "protocol_spec", "algorithm", "conventions")
#: what a change of each field means, in the run's message
CAUSES = {"dataset_sha256": "data changed", "data_content": "data changed",
          "protocol_spec": "protocol changed", "algorithm": "method changed",
          "params": "parameters changed", "conventions": "metric conventions changed",
          "unverified": "no recorded provenance"}


class StaleResultsError(ConfigError):
    """Rows computed from something that is no longer current (``--allow-stale`` overrides)."""


def _sha_of_files(paths):
    h = hashlib.sha256()
    for p in paths:
        h.update(str(p.name if hasattr(p, "name") else p).encode() + b"\0")
        with open(p, "rb") as fh:
            h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()[:16]


def _distribution_of(module):
    """(name, version, its .py files) of the installed distribution holding ``module``, or None."""
    from importlib import metadata

    top = module.split(".")[0]
    for name in metadata.packages_distributions().get(top, []):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        files = sorted((dist.locate_file(f) for f in dist.files or () if str(f).endswith(".py")),
                       key=str)
        return dist.metadata["Name"], dist.version, [f for f in files if f.is_file()]
    return None


def source_identity(cls):
    """``Class@src-HASH`` of a class from outside mlbench: HASH is the sha256 of its module's file,
    or of every ``.py`` file of the installed distribution holding it (``Class@dist==VER+src-HASH``)."""
    import inspect
    import sys
    from pathlib import Path

    module = sys.modules.get(cls.__module__)
    dist = _distribution_of(cls.__module__) if module is not None else None
    if dist is not None and dist[2]:
        name, version, files = dist
        return f"{cls.__name__}@{name}=={version}+src-{_sha_of_files(files)}"
    try:
        path = inspect.getsourcefile(cls)
    except TypeError:
        path = None
    if not path:
        raise ConfigError(f"method class {cls.__module__}.{cls.__name__}: no source file to "
                          f"identify its algorithm by")
    return f"{cls.__name__}@src-{_sha_of_files([Path(path)])}"


def is_builtin(cls):
    return cls.__module__.startswith("mlbench.methods.")


def algorithm_identity(method_name, searched=False):
    """The ``algorithm`` column of method ``method_name`` (a registered name or a user spec);
    ``searched``: the protocol tunes it by :class:`~mlbench.methods.tuning.RandomSearch`, whose
    version is part of the identity (its draws decide which parameters the row was fitted with)."""
    from mlbench.methods import registry
    from mlbench.methods.tuning import RandomSearch

    spec = registry.get(method_name)
    if is_builtin(spec.cls) and spec.family != "user":
        own = f"{spec.name}@{getattr(spec.cls, 'algorithm_version', 1)}"
    else:
        own = source_identity(spec.cls)
    # the classes of nested specs (a base learner given as MODULE:CLASS(...)) are part of the
    # algorithm too: their sources, each once, in the order met
    inner = []
    for cls in _nested_classes(spec.nested, method_name):
        ident = (f"{cls.__name__}@{getattr(cls, 'algorithm_version', 1)}" if is_builtin(cls)
                 else source_identity(cls))
        if ident != own and ident not in inner:
            inner.append(ident)
    if searched:
        inner.append(f"RandomSearch@{RandomSearch.algorithm_version}")
    return "+".join([own] + inner)


def _nested_classes(value, where):
    """The classes named by the :class:`~mlbench.methods._spec.Spec` objects inside ``value``."""
    from mlbench.methods._spec import Spec
    from mlbench.methods._user import load_class

    if isinstance(value, Spec):
        yield load_class(value.target, where)
        for _, v in value.params:
            yield from _nested_classes(v, where)
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _nested_classes(v, where)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _nested_classes(v, where)


def recorded_identity(row):
    """The identity fields a row records ("" where absent); ``protocol_spec`` falls back to
    ``extra.data_spec`` (rows written before the column)."""
    out = {c: _text(row.get(c)) for c in IDENTITY_COLUMNS}
    if not out["protocol_spec"]:
        extra = _text(row.get("extra"))
        if "data_spec" in extra:
            spec = (json_object(extra) or {}).get("data_spec")
            out["protocol_spec"] = spec if isinstance(spec, str) else ""
    return out


def _text(value):
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return str(value)


def differences(recorded, current, neutral=None):
    """The identity fields whose recorded value is not the current one (fields recorded empty, or
    not known currently (None), are not compared); ``params`` compare by
    :func:`mlbench.experiment.runner.same_params`."""
    from mlbench.experiment.runner import same_params

    out = []
    for c in IDENTITY_COLUMNS:
        have, want = recorded.get(c, ""), current.get(c)
        if not have or want is None:
            continue
        if c == "params":
            if not same_params(have, want, neutral or {}):
                out.append(c)
        elif have != want:
            out.append(c)
    return out


def unverified(recorded):
    """Whether a row lacks the fields rows written before provenance lack."""
    return any(not recorded.get(c) for c in NEW_COLUMNS)


def cause_counts(causes):
    """``"3 data changed, 1 method changed"`` from a list of per-cell cause lists (each cell
    counted once, under its first cause)."""
    counts = {}
    for fields in causes:
        label = CAUSES[fields[0]]
        counts[label] = counts.get(label, 0) + 1
    return ", ".join(f"{n} {label}" for label, n in counts.items())


# -- the current identity of rows read back (reports, checks, the committed-grid test) ------------

@functools.lru_cache(maxsize=None)
def _protocol(name):
    from mlbench.protocols import load_protocol, protocol_names

    return load_protocol(name) if name in protocol_names() else None


@functools.lru_cache(maxsize=None)
def current_data(name):
    """(dataset_sha256, data_content) of registered dataset ``name`` as it loads now, or the reason
    it cannot be checked here (not registered; neither cached, embedded nor in a local mirror:
    a report never downloads)."""
    import os

    from mlbench.data import cache, fetch
    from mlbench.data.dataset import content_sha256
    from mlbench.data.load import load_dataset
    from mlbench.data.registry import get_entry

    try:
        entry = get_entry(name)
    except DataError:
        return f"{name} is not a registered dataset"
    mirror = fetch.mirror_location()
    local = (cache.cache_path(fetch.data_dir(), entry.name).is_file()
             or (mirror and "://" not in mirror and os.path.isdir(mirror))
             or all(fetch._embedded(f) is not None for f in entry.files))
    if not local:
        return f"{name} is neither cached nor in a local mirror (set MLBENCH_MIRROR)"
    try:
        ds = load_dataset(name)
    except MlbenchError as exc:
        return f"{name} cannot be loaded ({str(exc)[:120]})"
    return ds.sha256, content_sha256(ds)


def sibling_protocols(paths):
    """The protocol files (``*.yaml``) in the directories of the results files ``paths``: a
    variant run into the same file under a shipped protocol's name (an ablation such as
    ``results/papers/mc-ablation.yaml``) defines the method labels the shipped protocol lacks.
    Files that are not protocols are ignored."""
    import glob
    import os

    from mlbench.protocols import load_protocol

    out = []
    for d in sorted({os.path.dirname(os.path.abspath(os.fspath(p))) for p in paths}):
        for f in sorted(glob.glob(os.path.join(d, "*.yaml"))):
            try:
                out.append(load_protocol(f))
            except (MlbenchError, OSError, ValueError):
                continue
    return out


class CurrentIdentity:
    """The identity the current code, protocols and data give a row read back from a results file;
    what cannot be determined here is None (not compared) and said once in :attr:`notes`.
    ``variants``: protocols whose method labels a shipped protocol of the same name lacks
    (:func:`sibling_protocols`)."""

    def __init__(self, check_data=True, variants=()):
        self.check_data = check_data
        self.variants = list(variants)
        self.notes = []
        self._said = set()
        self._methods = {}

    def _protocol_of(self, name, label):
        """The shipped protocol ``name``, or a variant of that name that defines ``label``."""
        shipped = _protocol(name) if name else None
        if shipped is not None and label in {e.label for e in shipped.methods}:
            return shipped
        for p in self.variants:
            if p.name == name and label in {e.label for e in p.methods}:
                return p
        return shipped

    def _note(self, text):
        if text not in self._said:
            self._said.add(text)
            self.notes.append(text)

    def _method(self, protocol, label):
        """(entry, algorithm, base params, neutral params) of ``label`` in ``protocol``, or None."""
        from mlbench.experiment.cell import recorded_params
        from mlbench.experiment.runner import _neutral_params
        from mlbench.methods import registry
        from mlbench.protocols import MethodEntry

        key = (protocol.name, label)
        if key not in self._methods:
            entry = {e.label: e for e in protocol.methods}.get(label) or MethodEntry(label)
            try:
                est = registry.make(entry.name, random_state=0, **entry.params)
                if protocol.search_of(entry):       # recorded as the searched method's row is
                    from mlbench.methods.tuning import RandomSearch

                    est = RandomSearch(est, **protocol.search_of(entry))
                self._methods[key] = (entry, algorithm_identity(
                                          entry.name, searched=bool(protocol.search_of(entry))),
                                      recorded_params(est), _neutral_params(entry.name))
            except (MlbenchError, TypeError, ValueError) as exc:
                self._note(f"method {label!r} of protocol {protocol.name!r} cannot be built "
                           f"({str(exc)[:100]}): its rows' method and parameters were not checked")
                self._methods[key] = None
        return self._methods[key]

    def of(self, row):
        """(current identity dict, neutral params) of ``row`` (a dict or pandas row)."""
        from mlbench.experiment.cell import _json, make_estimator, method_seed, recorded_params
        from mlbench.experiment.grid import CellSpec, _dropped, data_spec
        from mlbench.methods import registry
        from mlbench.metrics.conventions import metric_conventions

        current = dict.fromkeys(IDENTITY_COLUMNS)
        neutral = {}
        name, dataset = _text(row.get("protocol")), _text(row.get("dataset"))
        protocol = self._protocol_of(name, _text(row.get("method")))
        if protocol is None:
            self._note(f"protocol {name!r} is not a shipped protocol: its rows' protocol, method "
                       f"and parameters were not checked")
        else:
            try:
                seed = int(float(row.get("seed")))
            except (TypeError, ValueError, OverflowError):   # absent, empty (NaN) or not a number
                seed = protocol.seed
            protocol = protocol.with_overrides(seed=seed) if seed != protocol.seed else protocol
            current["protocol_spec"] = data_spec(protocol.preprocess, protocol.split, dataset,
                                                 _dropped(dataset))
            current["conventions"] = metric_conventions(protocol)
            method = self._method(protocol, _text(row.get("method")))
            if method is not None:
                entry, current["algorithm"], params, neutral = method
                spec = CellSpec(protocol=protocol.name, dataset=dataset, method=entry.label,
                                method_name=entry.name, split=_text(row.get("split")),
                                repeat=0, fold=None, seed=seed, scheme=protocol.split,
                                method_params=dict(entry.params),
                                search=protocol.search_of(entry))
                if registry.get(entry.name).nested:   # nested estimators: seeded per cell
                    params = recorded_params(make_estimator(spec))
                if "random_state" in params:
                    params = {**params, "random_state": method_seed(spec)}
                current["params"] = _json(params)
        if self.check_data:
            data = current_data(dataset)
            if isinstance(data, str):
                self._note(f"data of {data}: not checked")
            else:
                current["dataset_sha256"], current["data_content"] = data
        return current, neutral


def stale_rows(frame, check_data=True, variants=None):
    """(per-row list of differing fields, per-row unverified flag, notes) of a results DataFrame.
    A row that records no identity field at all (a hand-made CSV) is unverified and not looked
    at further.  ``variants`` default: the protocol files beside the rows' files."""
    if variants is None:
        variants = sibling_protocols(set(frame["__file"])) if "__file" in frame else []
    ident = CurrentIdentity(check_data, variants)
    diffs, unver = [], []
    for row in frame.to_dict("records"):
        recorded = recorded_identity(row)
        if any(recorded.values()):
            current, neutral = ident.of(row)
            diffs.append(differences(recorded, current, neutral))
        else:
            diffs.append([])
        unver.append(unverified(recorded))
    return diffs, unver, ident.notes


def check_frame(frame, *, allow_stale=False, echo=None, what="results"):
    """Flag the stale rows of ``frame`` (ok rows of a results file) by (dataset, method) group, one
    line each through ``echo``; raise :class:`StaleResultsError` unless ``allow_stale``.  Returns
    the notes (fields that could not be checked, unverified rows) for the caller to show."""
    if echo is None:
        import sys

        def echo(line):
            print(line, file=sys.stderr)
    if frame is None or len(frame) == 0:
        return []
    diffs, unver, notes = stale_rows(frame)
    groups = {}
    for (i, row), fields in zip(frame.iterrows(), diffs):
        if fields:
            g = groups.setdefault((row["dataset"], row["method"]), {"n": 0, "fields": {}})
            g["n"] += 1
            for f in fields:
                g["fields"].setdefault(CAUSES[f], f)
    n_unver = sum(1 for u, d in zip(unver, diffs) if u and not d)
    if n_unver:
        notes = notes + [f"{n_unver} row(s) record no provenance (written before mlbench recorded "
                         f"it), not verified; `python -m mlbench.experiment.upgrade FILE` records "
                         f"it for the rows that are verifiably current"]
    if not groups:
        return notes
    for (dataset, method), g in groups.items():
        echo(f"stale: {dataset} {method}: {g['n']} row(s) computed from something no longer "
             f"current ({', '.join(g['fields'])})")
    n = sum(g["n"] for g in groups.values())
    if not allow_stale:
        raise StaleResultsError(
            f"{what}: {n} row(s) of {len(groups)} (dataset, method) group(s) are stale (listed "
            f"above); rerun them with `mlbench run` or pass --allow-stale")
    return notes + [f"{n} stale row(s) of {len(groups)} (dataset, method) group(s) reported "
                    f"anyway (--allow-stale)"]
