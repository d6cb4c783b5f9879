"""Protocols as data: one YAML file per paper's experimental section (see ARCHITECTURE.md).

:func:`load_protocol` takes a shipped name (``soshf``) or a path to a YAML file and returns a
validated, frozen :class:`Protocol`.  Unknown keys, split schemes, preprocessing steps, bad values and
malformed method entries raise :class:`~mlbench.errors.ConfigError` with one line naming the file.
Metric and method names are checked against their registries by :meth:`Protocol.check_names` (the
runner calls it), because those registries fill up as method families are added.

Method entries are a registered name or a method spec (``MODULE:CLASS(...)``, ``FILE.py:CLASS``,
nested and gridded, :mod:`mlbench.methods._spec`), or ``{name: NAME, params: {...}, id: LABEL,
grid: {...}, tune: {...}, tune_by: MEASURE}`` (:func:`method_entries`): ``params`` override the
method's defaults for this protocol, and ``id`` (default: the name) is what the results' ``method``
column says, so one method can appear twice with different parameters.
``ties`` (default ``pessimistic``) is the tie convention of the label-ranking measures, that of
the paper's evaluation (see :mod:`mlbench.metrics.ranking`).
The entry ``all`` stands for every registered method; the other entries then only set the
parameters of the methods they name (the ``quick`` protocol uses this to make slow methods smaller).

Main methods and variants: a method entry may carry ``variant_of: PARENT`` (an ablation or an
alternative reading of the method ``PARENT`` of the same protocol), and the protocol-level mapping
``variants: {ID: PARENT}`` names variants that another protocol file of the same name runs (the
ablation files of ``results/papers``, whose rows join the paper's grid).  Reports compare the main
methods (the paper's table) and pair each variant with its parent on the datasets it ran on.
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path


from mlbench.data.preprocess import parse_step
from mlbench.data.splits import SplitScheme
from mlbench.errors import ConfigError

HERE = Path(__file__).parent
KEYS = {"name", "paper", "description", "split", "seed", "preprocess", "metrics", "datasets",
        "methods", "control", "stats", "style", "notes", "measure_from", "bootstrap", "ties",
        "variants", "search"}
REQUIRED = {"name", "split", "metrics"}
SPLIT_KEYS = {"scheme", "train_fraction", "repeats", "folds", "validation_fraction", "stratify",
              "test_sizes"}
METHOD_KEYS = {"name", "params", "id", "grid", "tune", "tune_by", "variant_of", "search",
               "threshold", "not_followed"}
#: the protocol-level ``search:`` settings (:class:`mlbench.methods.tuning.RandomSearch`)
SEARCH_KEYS = {"cv": 3, "rows": None, "budget": 600.0, "metric": "hamming_loss",
               "threshold": "pcut"}


@dataclass(frozen=True)
class MethodEntry:
    """A method as a protocol runs it."""

    name: str
    params: dict = field(default_factory=dict)
    id: str = ""
    #: the label of the method this one is a variant of (ablation, alternative reading), or ""
    variant_of: str = ""
    #: the candidate values of the protocol's random search (``search:``), or None (no search)
    search: dict | None = None
    #: why the protocol lists this method of its paper but cannot run it ("" when it can)
    not_followed: str = ""
    #: the search's thresholding for this method when it differs from the protocol's ("" = same)
    threshold: str = ""

    @property
    def label(self):
        return self.id or self.name


@dataclass(frozen=True)
class Protocol:
    name: str
    split: SplitScheme
    metrics: tuple
    paper: str = "platform"
    description: str = ""
    seed: int = 0
    preprocess: tuple = ()
    datasets: tuple = ()
    methods: tuple = ()
    control: str | None = None
    stats: tuple = ()
    style: str = "plain"
    notes: str = ""
    path: str = ""
    #: reported method -> {metric: method whose rows give that metric}; see protocols/measure_from.py
    measure_from: dict = field(default_factory=dict)
    #: test-row bootstrap of each cell (:mod:`mlbench.stats.bootstrap`): replicates, 0 = none
    bootstrap: int = 0
    #: how the label-ranking measures order tied scores (:data:`mlbench.metrics.ranking.TIES`)
    ties: str = "pessimistic"
    #: variant label -> parent label: the ``variant_of`` entries and the ``variants`` mapping
    variants: dict = field(default_factory=dict)
    #: random search of every method (``search: {cv, rows, budget, metric, threshold}``), or {}
    search: dict = field(default_factory=dict)

    def search_of(self, entry):
        """The :class:`~mlbench.methods.tuning.RandomSearch` settings of ``entry`` (its grid
        included), or {} when the protocol searches nothing."""
        if not self.search:
            return {}
        own = {"threshold": entry.threshold} if entry.threshold else {}
        return {**self.search, "grid": dict(entry.search or {}), **own}

    @property
    def main_methods(self):
        """The labels of the methods the paper's table compares (every entry but the variants)."""
        return tuple(e.label for e in self.methods if e.label not in self.variants and e.name != "all")

    def with_overrides(self, *, repeats=None, seed=None):
        """A copy with another number of repeats and/or base seed (``mlbench run --repeats/--seed``)."""
        import dataclasses

        split = self.split
        if repeats is not None:
            split = dataclasses.replace(split, repeats=int(repeats)).check(f"protocol {self.name}")
        return dataclasses.replace(self, split=split, seed=self.seed if seed is None else int(seed))

    def check_names(self, methods=True):
        """Check metric (and method) names against their registries; raise ConfigError if unknown."""
        from mlbench.metrics import get_measure
        from mlbench.methods import registry

        for m in self.metrics:
            get_measure(m)
        if methods:
            for entry in self.methods:
                if entry.name != "all":
                    registry.get(entry.name)


def results_root(results) -> Path:
    """The directory that relative paths recorded in the rows of results file ``results`` are
    relative to: the root of the checkout holding the file (its nearest ancestor with a ``.git``),
    else the file's own directory.  ``run`` records and ``report`` resolves against the same one."""
    here = Path(os.path.abspath(os.fspath(results))).parent
    return next((d for d in (here, *here.parents) if (d / ".git").exists()), here)


def protocol_file(protocol, results=None) -> str:
    """The file of ``protocol`` when it is not one shipped with mlbench (rows record it in
    ``extra.protocol_file``, so ``mlbench report`` reads the same protocol's ``control``,
    metrics, tests and style), else ``""`` (a shipped protocol is found by name).  A file inside
    :func:`results_root` of the results file ``results`` is given relative to it, in ``/`` form
    (a row names no machine's directory: ``results/papers/mldf-leaf.yaml``); any other file, or
    every file when ``results`` is None, by its absolute path."""
    if not protocol.path:
        return ""
    path = Path(protocol.path).resolve()
    if path.parent == HERE.resolve():
        return ""
    if results is not None:
        root = results_root(results).resolve()
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
    return str(path)


def recorded_protocol_file(recorded, results=None) -> str:
    """The path of the protocol file a row recorded (``extra.protocol_file``): an absolute one as
    it is, a relative one (:func:`protocol_file`) against :func:`results_root` of the row's results
    file ``results``, or against the current directory when the row's file is unknown."""
    path = Path(recorded)
    if path.is_absolute():
        return str(path)
    return str((results_root(results) if results else Path.cwd()) / path)


def protocol_names():
    """Names of the shipped protocols."""
    return sorted(p.stem for p in HERE.glob("*.yaml"))


def _resolve(name_or_path):
    text = os.fspath(name_or_path)
    path = Path(text)
    if text.endswith((".yaml", ".yml")) or os.sep in text:
        if not path.is_file():
            raise ConfigError(f"protocol file {text} does not exist")
        return path
    shipped = HERE / f"{text}.yaml"
    if shipped.is_file():
        return shipped
    close = difflib.get_close_matches(text, protocol_names(), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ConfigError(f"unknown protocol {text!r}{hint} (shipped: {', '.join(protocol_names())})")


def _str_list(value, key, where):
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key} must be a list of names")
    return tuple(value)


def _names_only(mapping, what, where):
    """A YAML mapping's keys must be names: ``1: x`` or ``[a]: x`` is one clear error."""
    bad = [k for k in mapping if not isinstance(k, str)]
    if bad:
        raise ConfigError(f"{where}: {what} has a key that is not a name ({str(bad[0])[:40]!r})")


def method_entries(item, where, metrics=()):
    """The :class:`MethodEntry` list of one ``methods:`` item (several for a grid).

    An item is a name (a registered name or a method spec, :mod:`mlbench.methods._spec`, whose
    lists are grids) or a mapping ``{name, params, id, grid, tune, tune_by}``: ``params`` are
    literal values (lists included) overriding the method's; ``grid: {PARAM: [values]}`` makes
    one method per value, labelled by its canonical spec (or ``ID(PARAM=value)``); ``tune: {PARAM:
    [values]}`` chooses among the values on the validation part by ``tune_by`` (default: the
    protocol's first metric) with :class:`mlbench.methods.tuning.Tuned`.  Nothing is imported
    (the methods load when run).
    """
    from mlbench.methods._spec import (Grid, canonical_spec, expand_names, spec_from_params,
                                       tuned_spec)

    if isinstance(item, str):
        item = {"name": item}
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise ConfigError(f"{where}: a method entry must be a name or {{name: ..., params: ...}}")
    name = item["name"]
    _names_only(item, f"method {name!r}", where)
    unknown = set(item) - METHOD_KEYS
    if unknown:
        raise ConfigError(f"{where}: method {name!r} has unknown key(s) "
                          f"{', '.join(map(repr, sorted(unknown)))} (known: {', '.join(sorted(METHOD_KEYS))})")
    params = item.get("params") or {}
    for key in ("params", "grid", "tune", "search"):
        value = item.get(key) or {}
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {key} of method {name!r} must be a mapping")
        _names_only(value, f"{key} of method {name!r}", where)
        if key != "params" and not all(isinstance(v, list) and v for v in value.values()):
            raise ConfigError(f"{where}: {key} of method {name!r} must map each parameter to a "
                              "non-empty list of values")
    parent = item.get("variant_of") or ""
    if not isinstance(parent, str):
        raise ConfigError(f"{where}: variant_of of method {name!r} must be a method label")
    not_followed = item.get("not_followed") or ""
    if not isinstance(not_followed, str):
        raise ConfigError(f"{where}: not_followed of method {name!r} must be the reason, a string")
    if not_followed:
        if set(item) - {"name", "id", "not_followed"}:
            raise ConfigError(f"{where}: method {name!r} is not followed: it takes no other keys "
                              "than name, id and not_followed")
        return [MethodEntry(name, {}, str(item.get("id") or ""), not_followed=not_followed)]
    grid, tune, label = item.get("grid") or {}, item.get("tune") or {}, str(item.get("id") or "")
    search = item.get("search")
    if search is not None and (grid or tune):
        raise ConfigError(f"{where}: method {name!r}: search cannot be combined with grid or tune")
    threshold = item.get("threshold") or ""
    if threshold and (search is None or threshold not in ("pcut", "none")):
        raise ConfigError(f"{where}: threshold of method {name!r} must be pcut or none, beside its "
                          f"search, got {threshold!r}")
    tune_by = item.get("tune_by") or (metrics[0] if metrics else "macro_f1")
    if not isinstance(tune_by, str) or (item.get("tune_by") and not tune):
        raise ConfigError(f"{where}: tune_by of method {name!r} must be a measure name, with tune")
    try:
        if grid or tune:
            spec = spec_from_params(name, {**params, **{k: Grid(tuple(v)) for k, v in grid.items()}})
            name, params = canonical_spec(spec), {}
        named = expand_names(name, label or None)
        if not tune:
            return [MethodEntry(n, dict(params), lab if lab != n else "", parent,
                                None if search is None else dict(search), threshold=threshold)
                    for n, lab in named]
        return [MethodEntry(tuned_spec(n, tune, tune_by), {},
                            item.get("id") or (lab if len(named) > 1 else item["name"]), parent)
                for n, lab in named]
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _split(value, where):
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: split must be a mapping like {{scheme: holdout, repeats: 8}}")
    _names_only(value, "split", where)
    unknown = set(value) - SPLIT_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown split key(s) {', '.join(map(repr, sorted(unknown)))} "
                          f"(known: {', '.join(sorted(SPLIT_KEYS))})")
    try:
        kw = dict(value)
        for k in ("repeats", "folds"):
            if k in kw:
                kw[k] = int(kw[k])
        for k in ("train_fraction", "validation_fraction"):
            if k in kw:
                kw[k] = float(kw[k])
        if "test_sizes" in kw:
            sizes = kw["test_sizes"]
            if not isinstance(sizes, dict):
                raise ConfigError(f"{where}: split test_sizes must be a mapping {{dataset: n_test}}")
            _names_only(sizes, "split test_sizes", where)
            kw["test_sizes"] = tuple(sorted(sizes.items()))
        scheme = SplitScheme(**kw)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: bad split value ({exc})") from None
    return scheme.check(where)


def parse_protocol(data, where="protocol"):
    """A :class:`Protocol` from the mapping a YAML file holds."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: a protocol file must hold a mapping")
    _names_only(data, "the protocol", where)
    unknown = set(data) - KEYS
    if unknown:
        close = {k: difflib.get_close_matches(k, KEYS, n=1) for k in unknown}
        hints = ", ".join(f"{k!r}" + (f" (did you mean {c[0]!r}?)" if c else "") for k, c in close.items())
        raise ConfigError(f"{where}: unknown key(s) {hints}")
    missing = REQUIRED - set(data)
    if missing:
        raise ConfigError(f"{where}: missing key(s) {', '.join(sorted(missing))}")
    from mlbench.methods.registry import PAPERS

    paper = data.get("paper", "platform")
    if paper not in PAPERS:
        raise ConfigError(f"{where}: unknown paper {paper!r}; choose one of {', '.join(PAPERS)}")
    steps = data.get("preprocess") or []
    if not isinstance(steps, list):
        raise ConfigError(f"{where}: preprocess must be a list of steps")
    for s in steps:
        try:
            parse_step(s)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    metrics = _str_list(data.get("metrics"), "metrics", where)
    if not metrics:
        raise ConfigError(f"{where}: metrics must name at least one measure")
    methods = data.get("methods") or []
    if not isinstance(methods, list):
        raise ConfigError(f"{where}: methods must be a list")
    entries = tuple(e for m in methods for e in method_entries(m, where, metrics))
    labels = [e.label for e in entries]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise ConfigError(f"{where}: method(s) listed twice: {', '.join(dup)} (give each an id)")
    try:
        seed = int(data.get("seed", 0))
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: seed must be an integer") from None
    for key in ("name", "description", "style", "notes"):
        if key in data and not isinstance(data[key], str):
            raise ConfigError(f"{where}: {key} must be a string")
    from mlbench.safety import check_name

    check_name(data["name"], "protocol name", where)
    from mlbench.protocols.measure_from import parse_measure_from

    measure_from = parse_measure_from(data.get("measure_from"), metrics, labels, where)
    bootstrap = _bootstrap(data.get("bootstrap"), where)
    from mlbench.metrics.ranking import check_ties

    ties = check_ties(data.get("ties", "pessimistic"), where)
    control = data.get("control")
    if control is not None and not isinstance(control, str):
        raise ConfigError(f"{where}: control must be a method name")
    if control is not None and control not in labels and control not in measure_from:
        raise ConfigError(f"{where}: control {control!r} is not one of the protocol's methods")
    variants = _variants(data.get("variants"), entries, set(labels) | set(measure_from), where)
    search = _search(data.get("search"), entries, where)
    return Protocol(
        name=data["name"], split=_split(data["split"], where), metrics=metrics, paper=paper,
        description=data.get("description", ""), seed=seed, preprocess=tuple(steps),
        datasets=_str_list(data.get("datasets"), "datasets", where), methods=entries,
        control=control, stats=_str_list(data.get("stats"), "stats", where),
        style=data.get("style", "plain"), notes=data.get("notes", ""), measure_from=measure_from,
        bootstrap=bootstrap, ties=ties, variants=variants, search=search,
    )


def _search(value, entries, where):
    """The protocol's ``search:`` settings with their defaults (:data:`SEARCH_KEYS`), or {}.  A
    method entry's ``search:`` grid needs them."""
    if value is None:
        if any(e.search is not None for e in entries):
            raise ConfigError(f"{where}: a method entry has a search grid but the protocol has no "
                              "search: settings")
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: search must be a mapping {{cv, rows, budget, metric, "
                          "threshold}")
    _names_only(value, "search", where)
    unknown = set(value) - set(SEARCH_KEYS)
    if unknown:
        raise ConfigError(f"{where}: search has unknown key(s) "
                          f"{', '.join(map(repr, sorted(unknown)))} (known: {', '.join(SEARCH_KEYS)})")
    out = {**SEARCH_KEYS, **value}
    from mlbench.methods.tuning import RandomSearch

    try:
        RandomSearch(estimator=_Probe(), grid={}, **out)._check()
    except ConfigError as exc:
        raise ConfigError(f"{where}: search: {exc}") from None
    return out


class _Probe:
    """An estimator with no parameters, to check search settings without a method."""

    def get_params(self, deep=True):
        return {}


def _variants(value, entries, labels, where):
    """``{variant: parent}`` from the entries' ``variant_of`` and the ``variants`` mapping; every
    parent must be a main method of the protocol, and no variant may be a parent."""
    if value is None:
        value = {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{where}: variants must be a mapping {{VARIANT: PARENT}} of method labels")
    _names_only(value, "variants", where)
    out = {}
    for e in entries:
        if e.variant_of:
            out[e.label] = e.variant_of
    for v, parent in value.items():
        if v in out and out[v] != parent:
            raise ConfigError(f"{where}: variant {v!r} has two parents ({out[v]!r}, {parent!r})")
        out[v] = parent
    for v, parent in out.items():
        if parent == v or parent not in labels:
            raise ConfigError(f"{where}: variant {v!r} names parent {parent!r}, which is not one of "
                              "the protocol's methods")
        if parent in out:
            raise ConfigError(f"{where}: variant {v!r} names parent {parent!r}, itself a variant "
                              "(a parent must be a main method)")
    return out


def _bootstrap(value, where):
    """``bootstrap: {replicates: B}`` (B from 100 to 100,000), or absent / ``false``: 0."""
    if value in (None, False):
        return 0
    if value is True:
        from mlbench.stats.bootstrap import DEFAULT_REPLICATES

        return DEFAULT_REPLICATES
    if not isinstance(value, dict) or set(value) - {"replicates"}:
        raise ConfigError(f"{where}: bootstrap must be true or a mapping {{replicates: B}}")
    B = value.get("replicates")
    if isinstance(B, bool) or not isinstance(B, int) or not 100 <= B <= 100_000:
        raise ConfigError(f"{where}: bootstrap replicates must be an integer from 100 to 100000, "
                          f"got {B!r}")
    return B


def load_protocol(name_or_path) -> Protocol:
    """The protocol shipped as ``NAME.yaml`` in this package, or read from a YAML file path."""
    import dataclasses

    from mlbench.safety import load_yaml

    path = _resolve(name_or_path)
    data = load_yaml(path, "protocol file")
    where = f"protocol file {path}"
    try:
        proto = parse_protocol(data, where=where)
    except ConfigError as exc:
        raise ConfigError(_with_line(str(exc), where, path)) from None
    return dataclasses.replace(proto, path=str(path))


def _with_line(message, where, path):
    """``message`` with the line of the YAML file it is about: the first line where the name it
    quotes appears as a key or a list item (the data has no line marks once loaded)."""
    import re

    quoted = re.findall(r"'([^'\n]{1,80})'", message)
    if not message.startswith(where + ":") or not quoted:
        return message
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return message
    for token in quoted:
        pat = re.compile(r"(^|[\s{,\[-])" + re.escape(token) + r"(\s*:|\s*[,\]}]|\s*$)")
        for number, line in enumerate(lines, start=1):
            if pat.search(line.split("#", 1)[0]):
                return f"{where}:{number}:{message[len(where) + 1:]}"
    return message
