"""Regenerate ``golden.json``: every built-in method's outputs on a tiny fixed dataset.

    python tests/methods/golden/regenerate.py [METHOD ...]

Run it after bumping a method's ``algorithm_version`` (the test
``tests/methods/test_golden_outputs.py`` tells you when: a method's outputs changed).  With names,
only those methods' entries are rewritten.  Each entry holds the method's algorithm identity
(``NAME@VERSION``), its 0/1 predictions and its scores rounded to 6 decimals on the 20 test rows.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden.json"
DECIMALS = 6


def tiny():
    """(X_train, Y_train, X_test, hierarchy): 40 + 20 rows, 8 features, 4 labels, seeded; labels
    y1 and y2 are children of y0 (the hierarchical methods get that hierarchy, every label row is
    consistent with it), y3 is a root of its own."""
    from mlbench.data.hierarchy import Hierarchy

    rng = np.random.default_rng(20261127)
    X = rng.normal(size=(60, 8))
    W = rng.normal(size=(8, 4))
    Y = (X @ W + rng.normal(scale=0.7, size=(60, 4)) > 0.3).astype(np.int8)
    Y[:, 0] |= Y[:, 1] | Y[:, 2]
    Y[:2] = [[1, 1, 0, 1], [0, 0, 0, 0]]         # every label seen both ways in training
    Y[2:4] = [[1, 0, 1, 0], [1, 0, 0, 1]]
    h = Hierarchy([("y0", "y1"), ("y0", "y2")], ["y0", "y1", "y2", "y3"])
    return X[:40], Y[:40], X[40:], h


def outputs(name):
    """The golden entry of built-in method ``name``: identity, predictions and rounded scores
    (or the error it raises on the tiny data)."""
    import inspect

    from mlbench.experiment.outputs import method_predictions, method_scores
    from mlbench.experiment.provenance import algorithm_identity
    from mlbench.methods import registry

    X, Y, Xt, h = tiny()
    est = registry.make(name, random_state=0)
    kw = {"hierarchy": h} if "hierarchy" in inspect.signature(est.fit).parameters else {}
    entry = {"algorithm": algorithm_identity(name)}
    try:
        est.fit(X, Y, **kw)
        # what the runner scores: the output contract's checked, normalised outputs
        pred = method_predictions(est, Xt, Xt.shape[0], Y.shape[1], name)
        scores = method_scores(est, Xt, Xt.shape[0], Y.shape[1], name)
    except Exception as exc:  # noqa: BLE001 - a method that refuses the data: pinned as such
        entry["error"] = type(exc).__name__
        return entry
    entry["predictions"] = pred.astype(int).tolist()
    entry["scores"] = None if scores is None else np.round(scores, DECIMALS).tolist()
    return entry


def builtin_methods():
    from mlbench.experiment.provenance import is_builtin
    from mlbench.methods import registry

    return [s.name for s in registry.all_methods() if is_builtin(s.cls)]


def main(names):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    golden = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    for name in names or builtin_methods():
        golden[name] = outputs(name)
        print(name, golden[name]["algorithm"], golden[name].get("error", "ok"), flush=True)
    golden = {k: golden[k] for k in sorted(golden) if k in builtin_methods()}
    # one method per line: a regenerated method is a one-line diff
    GOLDEN.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}"
                                         for k, v in golden.items()) + "\n}\n")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[2]))
    main(sys.argv[1:])
