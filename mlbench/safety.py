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
