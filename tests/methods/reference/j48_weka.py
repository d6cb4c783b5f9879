"""Regenerate ``j48_weka.npz``: Weka's own J48 probabilities on small data sets.

The fixture holds each data set (training X, class codes, test X) and, for every J48 option string
in ``CONFIGS``, the class probabilities Weka's ``J48.distributionForInstance`` gives the test rows
and the number of leaves.  ``tests/methods/test_j48.py`` checks that
:class:`mlbench.methods.components.j48.J48` gives the same (CI has no Weka: it reads the fixture).

How to run (needs a JDK and the Weka source; about two minutes, most of it javac)::

    # 1. Weka's source (git mirror of Weka 3.8, github.com/bnjmn/weka) and its bundled jars
    git clone https://github.com/bnjmn/weka /tmp/weka-git       # or any checkout of it
    # 2. this script compiles J48Reference.java with Weka's classes from source and runs it
    MLBENCH_MIRROR=... python tests/methods/reference/j48_weka.py /tmp/weka-git [/tmp/j48classes]

``weka_overrides/`` replaces one Weka class on javac's source path (the PMML export of Logistic,
which needs JAXB, absent from Java 11+); J48 never calls it.  The data: emotions (the first 200
rows to train, the next 100 to test; one label, and the label powerset of all six as a
multi-class target), a synthetic set with many ties (small integers, a duplicated column, values
less than 1e-5 apart) and a sparse 0/1 set.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "j48_weka.npz"

#: J48 option strings (Weka's flags) and the keyword arguments of mlbench's J48 for them
CONFIGS = {
    "-C 0.25 -M 2": dict(C=0.25, M=2),
    "-C 0.1 -M 2": dict(C=0.1, M=2),
    "-C 0.5 -M 2": dict(C=0.5, M=2),
    "-C 0.25 -M 5": dict(C=0.25, M=5),
    "-U -M 2": dict(unpruned=True, M=2),
    "-U -M 5": dict(unpruned=True, M=5),
    "-S -C 0.25 -M 2": dict(C=0.25, M=2, subtree_raising=False),
    "-O -C 0.25 -M 2": dict(C=0.25, M=2, collapse=False),
}


def datasets():
    """name -> (X_train, y_train codes, X_test)."""
    from mlbench.data import load_dataset

    ds = load_dataset("emotions")
    X = np.asarray(ds.X.toarray() if hasattr(ds.X, "toarray") else ds.X, dtype=np.float64)
    Y = np.asarray(ds.Y.toarray() if hasattr(ds.Y, "toarray") else ds.Y).astype(int)
    tr, te = slice(0, 200), slice(200, 300)
    out = {"emotions_label0": (X[tr], Y[tr, 0], X[te])}
    sets, codes = np.unique(Y[tr], axis=0, return_inverse=True)
    out["emotions_lp"] = (X[tr], codes.ravel(), X[te])

    rng = np.random.default_rng(45)
    n = 240
    A = rng.integers(0, 4, size=(n, 4)).astype(np.float64)
    near = rng.integers(0, 3, size=n) * 1e-5 * 0.6            # steps of 6e-6: below 1e-5
    Xs = np.c_[A, A[:, 1], near + A[:, 2], rng.normal(size=n).round(1)]
    ys = ((A[:, 0] + A[:, 1] > 3).astype(int) + (A[:, 2] == 0) + (rng.random(n) < 0.15)) % 3
    out["ties"] = (Xs[:160], ys[:160], Xs[160:])

    B = (rng.random((400, 40)) < 0.08).astype(np.float64)
    yb = ((B[:, 0] + B[:, 3] + B[:, 7] > 0) ^ (rng.random(400) < 0.1)).astype(int)
    out["sparse01"] = (B[:300], yb[:300], B[300:])
    return out


def compile_reference(weka_git, classes):
    src = Path(weka_git) / "weka" / "src" / "main" / "java"
    lib = Path(weka_git) / "weka" / "lib"
    subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "-cp", f"{lib}/*", "-sourcepath",
                    f"{HERE / 'weka_overrides'}:{src}", "-d", str(classes),
                    str(HERE / "J48Reference.java")], check=True)
    return f"{classes}:{lib}/*"


def run_weka(classpath, Xtr, ytr, Xte, K, options, tmp):
    train, test = Path(tmp) / "train.csv", Path(tmp) / "test.csv"
    np.savetxt(train, np.c_[Xtr, ytr], delimiter=",", fmt="%.17g")
    np.savetxt(test, np.c_[Xte, np.zeros(len(Xte))], delimiter=",", fmt="%.17g")
    out = subprocess.run(["java", "-cp", classpath, "J48Reference", str(train), str(test), str(K),
                          *options.split()], check=True, capture_output=True, text=True).stdout
    lines = out.strip().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("LEAVES "))  # Weka may log
    leaves = int(lines[at].split()[1])
    return leaves, np.array([[float(v) for v in line.split()] for line in lines[at + 1:]])


def main(weka_git, classes=None):
    arrays = {}
    with tempfile.TemporaryDirectory() as tmp:
        classes = Path(classes or Path(tmp) / "classes")
        if (classes / "J48Reference.class").exists():      # compiled by an earlier run
            lib = Path(weka_git) / "weka" / "lib"
            classpath = f"{classes}:{lib}/*"
        else:
            classpath = compile_reference(weka_git, classes)
        for name, (Xtr, ytr, Xte) in datasets().items():
            K = int(ytr.max()) + 1
            arrays[f"{name}/X_train"], arrays[f"{name}/y_train"] = Xtr, ytr
            arrays[f"{name}/X_test"] = Xte
            for options in CONFIGS:
                leaves, proba = run_weka(classpath, Xtr, ytr, Xte, K, options, tmp)
                arrays[f"{name}/{options}/proba"] = proba
                arrays[f"{name}/{options}/leaves"] = np.array(leaves)
                print(f"{name:16s} {options:18s} {leaves:4d} leaves")
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: j48_weka.py WEKA_GIT_CHECKOUT [CLASSES_DIR (kept for the next run)]")
    main(*sys.argv[1:])
