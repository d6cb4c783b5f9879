"""The method spec grammar: a method named with its parameters, which may be other methods.

::

    SPEC   := TARGET | TARGET "(" [NAME "=" VALUE {"," NAME "=" VALUE}] ")"
    TARGET := MODULE ":" CLASS | FILE.py ":" CLASS | REGISTERED-NAME      (the last only outermost)
    VALUE  := LITERAL | SPEC (MODULE:CLASS or FILE.py:CLASS) | "[" VALUE {"," VALUE} "]"  (a grid)
    LITERAL:= number | string | True | False | None | tuple, dict, or list inside them, of values

Examples::

    sklearn.multioutput:MultiOutputClassifier(estimator=sklearn.linear_model:LogisticRegression(C=0.5))
    skmultilearn.problem_transform:LabelPowerset(classifier=sklearn.svm:SVC(probability=True))
    br-lr(base=sklearn.svm:LinearSVC(C=0.5))               # a built-in with another base learner
    sklearn.neighbors:KNeighborsClassifier(n_neighbors=[5, 15])          # a grid: two methods

A **list** given as a parameter's value is a grid: the spec stands for one method per value (the
cartesian product over every list, nested specs included, at most :data:`MAX_VARIANTS`).  A
**tuple** is a literal value (``hidden_layer_sizes=(64, 32)``); a list literal is a one-value grid
of it (``classes=[[0, 1]]``); lists inside tuples and dicts are literal lists.

The text is read with :func:`ast.parse` after each ``MODULE:CLASS`` name (not Python syntax) is
replaced by a placeholder; the tree is then walked and only the nodes above are accepted.  Nothing
is evaluated, nothing is imported while parsing.  :func:`canonical_spec` gives one text per
method (parameters sorted, literals by ``repr``), which names grid variants and which a method's
identity can be hashed from.  :func:`build` makes the estimator of a parsed spec; a nested
estimator with a ``random_state`` the spec does not set gets one derived from the outer seed and
its parameter path, so a nested spec is as reproducible as a flat one.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from mlbench.errors import ConfigError

#: the longest spec text read, the deepest bracket nesting, the most variants one spec expands to
MAX_LENGTH = 4000
MAX_DEPTH = 12
MAX_VARIANTS = 100

_PLACEHOLDER = "_mlbench_spec_{}_"
_NAME_CHARS = r"\w.\-/~"
#: a MODULE:CLASS or FILE.py:CLASS name wherever it stands (strings masked first)
_TARGET = re.compile(rf"(?<![{_NAME_CHARS}])([{_NAME_CHARS}]+:[A-Za-z_]\w*)")
#: a registered method name heading the text (``br-lr``, ``mldf-hl``)
_REGISTERED = re.compile(r"^\s*([A-Za-z_][\w.\-+]*)\s*(?=\(|$)")


@dataclass(frozen=True)
class Spec:
    """A parsed spec: its target and its ``(name, value)`` parameters in the order written.

    A value is a literal, a :class:`Spec`, a :class:`Grid`, or a tuple/list/dict of such."""

    target: str
    params: tuple = ()

    @property
    def is_registered(self):
        """Whether the target is a registered method's name rather than MODULE:CLASS."""
        return ":" not in self.target


@dataclass(frozen=True)
class Grid:
    """A parameter's list of candidate values (one method per value)."""

    values: tuple


def looks_like_spec(text) -> bool:
    """Whether a method name is a spec to parse (``MODULE:CLASS``, ``FILE.py:CLASS``, or any
    name followed by parameters) rather than a plain registered name."""
    return isinstance(text, str) and (":" in text or "(" in text)


def _mask_strings(text, where):
    """``text`` with the inside of every string literal blanked (same length), so that names are
    looked for outside strings only; also checks the bracket nesting and its depth."""
    out, i, depth, n = [], 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise ConfigError(f"method {where!r}: a string opened at position {i + 1} is not "
                                  "closed")
            j += len(quote)
            out.append(quote + " " * (j - i - 2 * len(quote)) + quote)
            i = j
            continue
        if ch in "([{":
            depth += 1
            if depth > MAX_DEPTH:
                raise ConfigError(f"method {where!r}: nested more than {MAX_DEPTH} levels deep "
                                  f"at position {i + 1}")
        elif ch in ")]}":
            depth -= 1
        out.append(ch)
        i += 1
    return "".join(out)


def parse_spec(text) -> Spec:
    """The :class:`Spec` of a spec text; anything but the grammar above is one ConfigError
    naming the text and the offending token."""
    if not isinstance(text, str) or not text.strip():
        raise ConfigError(f"method {text!r}: an empty method name")
    if len(text) > MAX_LENGTH:
        raise ConfigError(f"method {text[:60]!r}...: longer than {MAX_LENGTH} characters")
    masked = _mask_strings(text, text)
    names, pieces, last = [], [], 0
    head = _TARGET.match(masked.lstrip())
    if head is None:                       # a registered name with parameters: br-lr(base=...)
        m = _REGISTERED.match(masked)
        if m is None:
            raise ConfigError(f"method {text!r}: not a method name, MODULE:CLASS or FILE.py:CLASS")
        names.append(m.group(1))
        pieces.append(text[:m.start(1)] + _PLACEHOLDER.format(0))
        last = m.end(1)
    for m in _TARGET.finditer(masked, last):
        pieces.append(text[last:m.start(1)] + _PLACEHOLDER.format(len(names)))
        names.append(m.group(1))
        last = m.end(1)
    pieces.append(text[last:])
    code = "".join(pieces).strip()
    try:
        tree = ast.parse(code, mode="eval").body
    except SyntaxError as exc:
        shown = _restore(exc.text or code, names).strip()
        raise ConfigError(f"method {text!r}: cannot read it near {shown[:80]!r} ({exc.msg}); write "
                          "TARGET(NAME=VALUE, ...) with literal or spec values") from None
    except (RecursionError, MemoryError, ValueError):
        raise ConfigError(f"method {text!r}: cannot read it (too deeply nested)") from None
    return _Reader(text, names).spec(tree)


def _restore(code, names):
    return re.sub(r"_mlbench_spec_(\d+)_", lambda m: names[int(m.group(1))], code)


class _Reader:
    """Walks the parsed tree, accepting only specs, literals and grids."""

    def __init__(self, text, names):
        self.text, self.names = text, names

    def fail(self, node, why):
        shown = _restore(ast.unparse(node), self.names)
        raise ConfigError(f"method {self.text!r}: {why} ({shown[:80]!r}); a value is a literal, "
                          "a MODULE:CLASS(...) spec or a [list] of them (a grid)")

    def target(self, node):
        if isinstance(node, ast.Name):
            m = re.fullmatch(r"_mlbench_spec_(\d+)_", node.id)
            if m:
                return self.names[int(m.group(1))]
        return None

    def spec(self, node):
        if isinstance(node, ast.Call):
            target = self.target(node.func)
            if target is None:
                self.fail(node.func, "a call of something that is not a MODULE:CLASS spec")
            if node.args:
                self.fail(node.args[0], "a positional argument: parameters must be NAME=VALUE")
            params = []
            for kw in node.keywords:
                if kw.arg is None:
                    self.fail(kw.value, "a **mapping: parameters must be NAME=VALUE")
                if kw.arg in dict(params):
                    self.fail(kw.value, f"parameter {kw.arg} given twice")
                params.append((kw.arg, self.value(kw.value, grid_ok=True)))
            spec = Spec(target, tuple(params))
        else:
            target = self.target(node)
            if target is None:
                self.fail(node, "not a method spec")
            spec = Spec(target)
        return spec

    def value(self, node, grid_ok=False):
        if isinstance(node, ast.Constant):
            if node.value is ... or not isinstance(node.value, (int, float, str, type(None))):
                self.fail(node, "not a literal")
            return node.value
        if (isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd))
                and isinstance(node.operand, ast.Constant)
                and isinstance(node.operand.value, (int, float))
                and not isinstance(node.operand.value, bool)):
            return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
        if isinstance(node, ast.Tuple):
            return tuple(self.value(e) for e in node.elts)
        if isinstance(node, ast.List):
            values = [self.value(e) for e in node.elts]
            if not grid_ok:
                return values
            if not values:
                self.fail(node, "an empty grid")
            return Grid(tuple(values))
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                self.fail(node, "a **mapping inside a dict")
            out = {}
            for k, v in zip(node.keys, node.values):
                key = self.value(k)
                if not isinstance(key, (int, float, str, type(None))):
                    self.fail(k, "a dict key that is not a number or a string")
                out[key] = self.value(v)
            return out
        if isinstance(node, (ast.Call, ast.Name)):
            return self.spec(node)
        self.fail(node, "not a literal or a spec")


# -- canonical text ----------------------------------------------------------------------------

def canonical_spec(spec) -> str:
    """One text per method: the target and its parameters sorted by name, nested specs the same
    way, literals by ``repr`` (a top-level list literal as a one-value grid ``[[...]]``); a spec
    text or a :class:`Spec`.  Equal methods give equal texts, so it names grid variants and a
    method's identity can be hashed from it."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    if not spec.params:
        return spec.target
    inner = ", ".join(f"{k}={_render(v, top=True)}" for k, v in sorted(spec.params))
    return f"{spec.target}({inner})"


def _render(value, top=False):
    if isinstance(value, Spec):
        return canonical_spec(value)
    if isinstance(value, Grid):
        return "[" + ", ".join(_render(v) for v in value.values) + "]"
    if isinstance(value, list):
        body = "[" + ", ".join(_render(v) for v in value) + "]"
        return f"[{body}]" if top else body
    if isinstance(value, tuple):
        return "(" + ", ".join(_render(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: repr(kv[0]))
        return "{" + ", ".join(f"{k!r}: {_render(v)}" for k, v in items) + "}"
    return repr(value)


def spec_from_params(target, params) -> Spec:
    """The :class:`Spec` of ``target`` with ``params`` given as data (a protocol's ``params:``
    mapping: every value literal, lists included)."""
    base = parse_spec(target)
    given = dict(base.params)
    given.update(params)
    return Spec(base.target, tuple(given.items()))


# -- grids ----------------------------------------------------------------------------------

def _grids(value, path):
    """``[(path, Grid)]`` of every grid in ``value``, outermost first, parameters in written order."""
    if isinstance(value, Grid):
        return [(path, value)] + [g for v in value.values for g in _grids(v, path)]
    if isinstance(value, Spec):
        return [g for k, v in value.params for g in _grids(v, f"{path}__{k}" if path else k)]
    return []


def _choose(value, picks):
    """``value`` with each grid replaced by its value in ``picks`` (consumed in :func:`_grids`
    order)."""
    if isinstance(value, Grid):
        return _choose(picks.pop(0), picks)
    if isinstance(value, Spec):
        return Spec(value.target, tuple((k, _choose(v, picks)) for k, v in value.params))
    return value


def variants(spec, where=None):
    """``[(variant Spec, [(parameter path, value), ...])]``: one per combination of the grid
    values (a spec without a grid: itself, no choices).  More than :data:`MAX_VARIANTS` is an
    error.  Grids inside a grid's values (a grid of specs that have grids) expand as well."""
    where = where or canonical_spec(spec)

    def expand(value):
        grids = _grids(value, "")
        if not grids:
            return [(value, [])]
        path, grid = grids[0]
        result = []
        for choice in grid.values:
            picked = _substitute_first(value, choice)
            for variant, chosen in expand(picked):
                result.append((variant, [(path, choice)] + chosen))
                if len(result) > MAX_VARIANTS:
                    raise ConfigError(f"method {where!r}: its grids give more than {MAX_VARIANTS} "
                                      "variants; split it into several entries or tune instead")
        return result

    return expand(spec)


def _substitute_first(value, choice):
    """``value`` with its first grid (in :func:`_grids` order) replaced by ``choice``."""
    done = [False]

    def walk(v):
        if done[0]:
            return v
        if isinstance(v, Grid):
            done[0] = True
            return choice
        if isinstance(v, Spec):
            return Spec(v.target, tuple((k, walk(x)) for k, x in v.params))
        return v

    return walk(value)


def has_grid(spec) -> bool:
    return bool(_grids(spec, ""))


def variant_label(variant, chosen, label=None):
    """The ``method`` label of a grid variant: its canonical spec, or ``label(path=value, ...)``
    when the entry has an id."""
    if label is None:
        return canonical_spec(variant)
    return f"{label}(" + ", ".join(f"{p}={_render(v)}" for p, v in chosen) + ")"


def expand_names(text, label=None):
    """``[(name, label)]`` of a spec text: itself when it has no grid, else one canonical text per
    variant (its own label, or ``label(...)``)."""
    if not looks_like_spec(text):
        return [(text, label or text)]
    spec = parse_spec(text)
    if not has_grid(spec):
        return [(text, label or text)]
    return [(canonical_spec(v), variant_label(v, chosen, label))
            for v, chosen in variants(spec, text)]


# -- building -------------------------------------------------------------------------------

def contains_spec(value) -> bool:
    if isinstance(value, Spec):
        return True
    if isinstance(value, (tuple, list)):
        return any(contains_spec(v) for v in value)
    if isinstance(value, dict):
        return any(contains_spec(v) for v in value.values())
    return False


def materialize(value, random_state, path, where):
    """``value`` with each nested :class:`Spec` built into a fresh estimator (see :func:`build`)."""
    if isinstance(value, Spec):
        return build(value, random_state, path, where)
    if isinstance(value, tuple):
        return tuple(materialize(v, random_state, f"{path}.{i}", where) for i, v in enumerate(value))
    if isinstance(value, list):
        return [materialize(v, random_state, f"{path}.{i}", where) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: materialize(v, random_state, f"{path}.{k}", where) for k, v in value.items()}
    return value


def build(spec, random_state, path, where):
    """A fresh estimator of the nested ``MODULE:CLASS`` spec at parameter ``path`` of method
    ``where``; its ``random_state``, when it takes one the spec does not set, is derived from
    ``random_state`` and ``path`` (None stays None)."""
    import inspect

    from mlbench.methods._user import load_class
    from mlbench.seeds import derive_seed

    if isinstance(spec, Grid):
        raise ConfigError(f"method {where!r}: {path} is a grid; expand the method first")
    cls = load_class(spec.target, where)
    kwargs = {k: materialize(v, random_state, f"{path}__{k}", where) for k, v in spec.params}
    try:
        accepts_seed = "random_state" in inspect.signature(cls).parameters
    except (TypeError, ValueError):
        accepts_seed = False
    if accepts_seed and "random_state" not in kwargs and random_state is not None:
        kwargs["random_state"] = derive_seed(random_state, "nested", path)
    try:
        return cls(**kwargs)
    except Exception as exc:
        raise ConfigError(f"method {where!r}: {spec.target}({', '.join(kwargs)}) failed: "
                          f"{type(exc).__name__}: {exc}") from None


#: the class a protocol entry's ``tune:`` wraps its method in
TUNED = "mlbench.methods.tuning:Tuned"


def tuned_spec(name, tune, metric):
    """The spec text of method ``name`` (a spec text) tuned over ``tune`` by ``metric`` with
    :class:`mlbench.methods.tuning.Tuned` (nothing imported here)."""
    inner = parse_spec(name)
    if inner.is_registered:
        raise ConfigError(f"method {name!r}: tune is for MODULE:CLASS methods; a registered "
                          "method tunes its own parameters (see 'mlbench methods NAME')")
    grid = {k: tuple(v) for k, v in tune.items()}
    return canonical_spec(Spec(TUNED, (("estimator", inner), ("grid", grid), ("metric", metric))))
