"""ML-kNN fit + predict: mlbench's vectorised version against scikit-multilearn 0.2.0's (patched).

Data: yeast from the mirror when MLBENCH_MIRROR is set (2417 x 103, 14 labels), else synthetic data
of the same size; a random 50/50 split.  Both use k = 10, s = 1 and leave a training point out of
its own neighbours; the predictions are checked identical.  One BLAS thread for both, so the CPU
times compare the work done on a shared machine.  Usage::

    [MLBENCH_MIRROR=/path/to/mirror] python benchmarks/bench_knn.py [--repeat 3]
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "methods"))


def best_time(fn, repeat):
    """(best wall seconds, best CPU seconds of this process, result) over ``repeat`` calls."""
    wall, cpu, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu, out


def yeast_or_synthetic():
    mirror = os.environ.get("MLBENCH_MIRROR")
    if mirror and os.path.isdir(mirror):
        from mlbench.data import load_dataset

        with tempfile.TemporaryDirectory() as tmp:
            ds = load_dataset("yeast", data_dir=tmp, mirror=mirror)
        return "yeast (mirror)", np.asarray(ds.X), ds.Y
    from sklearn.datasets import make_multilabel_classification

    X, Y = make_multilabel_classification(n_samples=2417, n_features=103, n_classes=14,
                                          n_labels=4, random_state=0)
    X = X + np.random.RandomState(0).rand(*X.shape)  # continuous: no distance ties
    return "synthetic, yeast-sized", X, Y.astype(np.int8)


def main(argv=None):
    from skmultilearn_ref import reference_mlknn

    from mlbench.methods.knn.mlknn import MLkNN

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    name, X, Y = yeast_or_synthetic()
    perm = np.random.RandomState(0).permutation(X.shape[0])
    tr, te = perm[: len(perm) // 2], perm[len(perm) // 2:]

    def ours():
        return MLkNN(k=10, s=1.0).fit(X[tr], Y[tr]).predict(X[te])

    def theirs():
        return reference_mlknn(X[tr], Y[tr], X[te], k=10, s=1.0)["predict"]

    with threadpool_limits(1):
        ours_w, ours_c, pred = best_time(ours, args.repeat)
        ref_w, ref_c, ref = best_time(theirs, 1)
    print(f"data              {name}: {X.shape[0]} x {X.shape[1]}, {Y.shape[1]} labels, "
          f"train {len(tr)} / test {len(te)}")
    print(f"mlbench           wall {ours_w:.3f} s, CPU {ours_c:.3f} s (best of {args.repeat})")
    print(f"scikit-multilearn wall {ref_w:.3f} s, CPU {ref_c:.3f} s")
    print(f"identical predictions: {np.array_equal(pred, ref)}")
    print(f"ratio (scikit-multilearn / mlbench): wall {ref_w / ours_w:.1f}x, "
          f"CPU {ref_c / ours_c:.1f}x")
    return 0 if np.array_equal(pred, ref) else 1


if __name__ == "__main__":
    sys.exit(main())
