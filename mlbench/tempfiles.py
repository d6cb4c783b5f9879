"""Temporary files of atomic writes, and their removal.

Every file mlbench rewrites (the results file, a protocol's splits, a cell's saved predictions) is
written to a temporary ``<target>.tmpXXXXXXXX`` beside it (:func:`mlbench.fileio.atomic_write`) and
renamed over the target once complete.  A write that fails (a full disk) removes its temporary
file; one that could not (the process was killed mid-write) leaves it, and the next run on the same
results file sweeps such leftovers once it holds the run's lock (:func:`sweep`), so no other writer
can be using them.
"""
from __future__ import annotations

import contextlib
import os
import re

# mkstemp's names (fileio.atomic_write), and the <target>.tmp<PID> of older versions
_TEMP = re.compile(r".+\.tmp(\d+|[a-z0-9_]{8})")


def sweep(directory, prefix=""):
    """Remove the temporary files ``<prefix>...tmpXXXXXXXX`` of earlier writes from ``directory``;
    the number removed.  A missing directory has none."""
    try:
        names = os.listdir(directory)
    except OSError:
        return 0
    removed = 0
    for name in names:
        if name.startswith(prefix) and _TEMP.fullmatch(name):
            path = os.path.join(directory, name)
            with contextlib.suppress(OSError):
                if os.path.isfile(path) and not os.path.islink(path):
                    os.unlink(path)
                    removed += 1
    return removed
