"""ARFF reading: mlbench's Cython reader against liac-arff on the largest ARFF file of the mirror.

Both parse the same in-memory text (no disk time); liac-arff with ``encode_nominal=True`` (the
values mlbench returns).  Prints both times (best of --repeat) and the ratio, and checks the values
are identical.  Usage::

    MLBENCH_MIRROR=/path/to/mirror python benchmarks/bench_arff.py [--file F.arff] [--repeat 3]

To compare with an earlier implementation, run this same script with ``PYTHONPATH`` pointing at a
checkout of that commit whose extensions are built (``setup.py build_ext --inplace``).
"""
import argparse
import glob
import os
import sys
import time

import numpy as np


def best_time(fn, repeat):
    """(best wall seconds, best CPU seconds of this process, result) over ``repeat`` calls.

    CPU time is reported too because on a shared machine the wall time mostly measures the wait
    for a core; both readers are single-threaded, so their CPU times compare the work done.
    """
    wall, cpu, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu, out


def main(argv=None):
    import arff as liac

    from mlbench.data.arff import parse_arff, read_bytes

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", help="ARFF file (default: the largest *.arff in the mirror)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    path = args.file
    if path is None:
        mirror = os.environ.get("MLBENCH_MIRROR")
        if not mirror or not os.path.isdir(mirror):
            print("set MLBENCH_MIRROR to the dataset mirror directory (or pass --file)")
            return 2
        files = glob.glob(os.path.join(mirror, "**", "*.arff"), recursive=True)
        path = max(files, key=os.path.getsize)
    text = read_bytes(path)
    ours_t, ours_c, ours = best_time(lambda: parse_arff(text, path), args.repeat)
    s = text.decode("utf-8")
    liac_t, liac_c, ref = best_time(lambda: liac.loads(s, encode_nominal=True), 1)
    R = np.array([[np.nan if v is None or isinstance(v, str) else v for v in row]
                  for row in ref["data"]], dtype=float)
    X = ours.X.toarray() if ours.sparse_rows else ours.X
    same = X.shape == R.shape and np.array_equal(X, R, equal_nan=True)
    print(f"file      {path} ({len(text) / 1e6:.1f} MB, {X.shape[0]} rows x {X.shape[1]} "
          f"attributes, {'sparse' if ours.sparse_rows else 'dense'})")
    print(f"mlbench   wall {ours_t * 1e3:.2f} ms, CPU {ours_c * 1e3:.2f} ms (best of {args.repeat})")
    print(f"liac-arff wall {liac_t * 1e3:.2f} ms, CPU {liac_c * 1e3:.2f} ms")
    print(f"ratio     {liac_t / ours_t:.1f}x faster (wall), {liac_c / ours_c:.1f}x (CPU); "
          f"identical values: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
