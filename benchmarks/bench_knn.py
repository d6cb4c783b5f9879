"""ML-kNN fit + predict: mlbench's vectorised version against scikit-multilearn 0.2.0's (patched).

Data: yeast from the mirror when MLBENCH_MIRROR is set (2417 x 103, 14 labels), else synthetic data
of the same size; a random 50/50 split.  Both use k = 10, s = 1 and leave a training point out of
its own neighbours; the predictions are checked identical.  Timing: benchmarks/_harness.py (both
sides the same number of interleaved rounds after a warm-up, one BLAS thread, CPU and wall
medians).  Usage::

    [MLBENCH_MIRROR=/path/to/mirror] python benchmarks/bench_knn.py [--repeats 5]
"""
import os
import sys
import tempfile
from pathlib import Path

import _harness

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "methods"))


def yeast_or_synthetic(quick=False):
    mirror = os.environ.get("MLBENCH_MIRROR")
    if mirror and os.path.isdir(mirror) and not quick:
        from mlbench.data import load_dataset

        with tempfile.TemporaryDirectory() as tmp:
            ds = load_dataset("yeast", data_dir=tmp, mirror=mirror)
        return "yeast (mirror)", np.asarray(ds.X), ds.Y
    from sklearn.datasets import make_multilabel_classification

    n = 200 if quick else 2417
    X, Y = make_multilabel_classification(n_samples=n, n_features=103, n_classes=14,
                                          n_labels=4, random_state=0)
    X = X + np.random.RandomState(0).rand(*X.shape)  # continuous: no distance ties
    return f"synthetic, {n} rows", X, Y.astype(np.int8)


def main(argv=None):
    from skmultilearn_ref import reference_mlknn

    from mlbench.methods.knn.mlknn import MLkNN

    args = _harness.parser(__doc__).parse_args(argv)
    name, X, Y = yeast_or_synthetic(args.quick)
    perm = np.random.RandomState(0).permutation(X.shape[0])
    tr, te = perm[: len(perm) // 2], perm[len(perm) // 2:]

    def ours():
        return MLkNN(k=10, s=1.0).fit(X[tr], Y[tr]).predict(X[te])

    def theirs():
        return reference_mlknn(X[tr], Y[tr], X[te], k=10, s=1.0)["predict"]

    title = (f"ML-kNN fit + predict, {name}: {X.shape[0]} x {X.shape[1]}, {Y.shape[1]} labels, "
             f"train {len(tr)} / test {len(te)}")
    out = _harness.compare(title, ours, theirs, labels=("mlbench", "scikit-multilearn"),
                           **_harness.timing(args))
    same = np.array_equal(out.results["mlbench"], out.results["scikit-multilearn"])
    print(f"   identical predictions: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
