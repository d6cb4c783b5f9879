"""Names and URLs that become paths, checked before any file is touched.

mlbench writes files whose names come from its inputs: a dataset's cache (``<data dir>/NAME.npz``),
its source files (``<data dir>/files/HOST/PATH`` of the pinned URL), a protocol's splits
(``<out>.splits/PROTOCOL-DATASET-seedN.npz``) and predictions.  A datasets.yaml URL such as
``https://host/../../etc/x`` or ``https:///x``, or a protocol named ``../x``, would otherwise put
those files (and fetch's clean-up of a corrupt copy) outside the chosen directories.

* :func:`check_name`: a name that becomes part of a file name uses only ``A-Z a-z 0-9 . _ -``, does
  not start with a dot and is at most 100 characters;
* :func:`check_url`: an http(s) URL with a host, and a path without empty, ``.`` or ``..``
  segments, query or fragment (a pinned file has none);
* :func:`inside`: the resolved path lies under the resolved root (symbolic links followed), the last
  guard before a write or a delete.
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from mlbench.errors import ConfigError, DataError

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,99}")


def check_name(name, what="name", where=""):
    """``name`` itself when it is safe in a file name; ConfigError naming ``what`` otherwise."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        at = f"{where}: " if where else ""
        raise ConfigError(f"{at}{what} {str(name)[:60]!r} is not a safe name: use letters, digits, "
                          f"'.', '_' and '-' (at most 100, not starting with '.')")
    return name


def check_url(url, where=""):
    """``url`` itself when it is a pinned http(s) file URL that maps to a safe relative path."""
    at = f"{where}: " if where else ""
    if not isinstance(url, str):
        raise DataError(f"{at}url must be a string, got {type(url).__name__}")
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http"):
        raise DataError(f"{at}url {url[:80]!r} must start with https:// (or http://)")
    if not parts.hostname or parts.username or parts.password or parts.port is not None:
        raise DataError(f"{at}url {url[:80]!r} needs a plain host name (no user, password or port)")
    if not _NAME.fullmatch(parts.hostname):
        raise DataError(f"{at}url {url[:80]!r} has an unusual host name")
    if parts.query or parts.fragment:
        raise DataError(f"{at}url {url[:80]!r} must not have a query or fragment")
    segments = unquote(parts.path).split("/")
    if len(segments) < 2 or segments[0] != "" or any(s in ("", ".", "..") or "\\" in s or "\0" in s
                                                      for s in segments[1:]):
        raise DataError(f"{at}url {url[:80]!r} has an empty, '.' or '..' path segment")
    return url


def inside(path, root, what="path"):
    """``path`` when its resolved form lies under ``root`` resolved; DataError otherwise."""
    p, r = Path(path).resolve(), Path(root).resolve()
    if p != r and r not in p.parents:
        raise DataError(f"refusing to touch {path}: the {what} lies outside {root}")
    return Path(path)


# -- YAML -------------------------------------------------------------------------------------------
#: limits of a YAML file mlbench reads (protocols, datasets.yaml, claims): a real one is far below
YAML_MAX_BYTES = 4 * 2**20
YAML_MAX_ALIASES = 100
YAML_MAX_DEPTH = 50


def _yaml_loader():
    import yaml

    class Loader(yaml.SafeLoader):
        """SafeLoader that counts aliases (a "billion laughs" file expands exponentially once
        traversed), bounds the nesting depth (RecursionError) and refuses duplicate keys (the
        later one would silently win)."""

        def __init__(self, stream):
            super().__init__(stream)
            self._aliases = 0
            self._depth = 0

        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                self._aliases += 1
                if self._aliases > YAML_MAX_ALIASES:
                    mark = self.peek_event().start_mark
                    raise yaml.YAMLError(f"more than {YAML_MAX_ALIASES} aliases (line {mark.line + 1})")
            self._depth += 1
            try:
                if self._depth > YAML_MAX_DEPTH:
                    mark = self.peek_event().start_mark
                    raise yaml.YAMLError(f"nested deeper than {YAML_MAX_DEPTH} levels "
                                         f"(line {mark.line + 1})")
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

        def construct_mapping(self, node, deep=False):
            seen = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    hash(key)
                except TypeError:
                    continue                       # the base class reports unhashable keys
                if key in seen:
                    raise yaml.YAMLError(f"duplicate key {str(key)[:40]!r} on line "
                                         f"{key_node.start_mark.line + 1} (first on line {seen[key]})")
                seen[key] = key_node.start_mark.line + 1
            return super().construct_mapping(node, deep=deep)

    return Loader


def read_bounded(path, limit, error):
    """The bytes of ``path`` if it holds at most ``limit``; else (or unreadable) raise
    ``error(why)``: a reader never allocates for more than its format can need."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise error(f"cannot read it ({exc.strerror or exc})") from None
    if len(raw) > limit:
        raise error(f"larger than {limit:,} bytes")
    return raw


def decode_utf8(raw, error):
    """``raw`` decoded as strict UTF-8; at a bad byte raise ``error(line, column, byte)`` (1-based
    line and column of that byte)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise error(line, col, raw[exc.start]) from None


def load_yaml(path, what="YAML file"):
    """The data of the YAML file ``path``, read defensively: at most ``YAML_MAX_BYTES``, strict
    UTF-8, at most ``YAML_MAX_ALIASES`` aliases and ``YAML_MAX_DEPTH`` levels, no duplicate key.
    Any problem is one ConfigError naming the file (and the line when known)."""
    import yaml

    path = Path(path)
    raw = read_bounded(path, YAML_MAX_BYTES, lambda why: ConfigError(f"{what} {path}: {why}"))
    text = decode_utf8(raw, lambda line, col, byte: ConfigError(
        f"{what} {path}: line {line}: not UTF-8 (byte {byte:#04x})"))
    try:
        return yaml.load(text, Loader=_yaml_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}:" if mark is not None else ""
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())   # one line
        raise ConfigError(f"{what} {path}:{line} not valid YAML ({problem[:120]})") from None
    except RecursionError:
        raise ConfigError(f"{what} {path}: nested too deeply") from None


def atomic_write_text(path, text):
    """Write ``text`` to ``path`` atomically; an OSError is one line (:mod:`mlbench.fileio`)."""
    from mlbench.fileio import atomic_write_text as write

    return write(path, text)
