"""ARFF reading: mlbench's Cython reader against liac-arff, sparse with sparse and dense with dense.

Both parse the same in-memory text (no disk time), with ``encode_nominal=True`` (the values mlbench
returns).  A file with sparse rows (``{index value, ...}``) is read by liac-arff into its sparse
form (``return_type=arff.COO``) and by mlbench into a CSR matrix; a dense file into lists of rows
and an array.  Default files: the largest sparse and the largest dense ARFF file of the mirror.
The values of both sides are checked identical.  Timing: benchmarks/_harness.py (interleaved,
equal repeats after a warm-up, one thread, CPU and wall medians).  Usage::

    MLBENCH_MIRROR=/path/to/mirror python benchmarks/bench_arff.py [--file F.arff ...] [--repeats 5]

To compare with an earlier implementation, run this same script with ``PYTHONPATH`` pointing at a
checkout of that commit whose extensions are built (``setup.py build_ext --inplace``).
"""
import glob
import os
import sys

import _harness

import numpy as np
import scipy.sparse as sp


def has_sparse_rows(text: bytes) -> bool:
    """Whether the first data row of an ARFF text is sparse (``{...}``)."""
    at = text.lower().find(b"@data")
    for line in text[at + 5:].splitlines():
        line = line.strip()
        if line and not line.startswith(b"%"):
            return line.startswith(b"{")
    return False


def default_files(mirror):
    """The largest sparse and the largest dense ARFF file of the mirror."""
    from mlbench.data.arff import read_bytes

    files = sorted(glob.glob(os.path.join(mirror, "**", "*.arff"), recursive=True),
                   key=os.path.getsize, reverse=True)
    picked = {}
    for path in files:
        picked.setdefault(has_sparse_rows(read_bytes(path)), path)
        if len(picked) == 2:
            break
    return [picked[k] for k in (True, False) if k in picked]


def liac_matrix(ref, shape, sparse):
    """liac-arff's result as a dense float array (None and strings as NaN) to check values."""
    if sparse:
        values, rows, cols = ref["data"]
        values = np.array([np.nan if v is None or isinstance(v, str) else v for v in values],
                          dtype=float)
        return sp.coo_matrix((values, (rows, cols)), shape=shape).toarray()
    return np.array([[np.nan if v is None or isinstance(v, str) else v for v in row]
                     for row in ref["data"]], dtype=float)


def bench_file(path, args, liac):
    from mlbench.data.arff import parse_arff, read_bytes

    text = read_bytes(path)
    s = text.decode("utf-8")
    sparse = has_sparse_rows(text)
    mode = liac.COO if sparse else liac.DENSE
    form = "sparse: CSR against liac-arff's COO" if sparse else "dense: array against lists"
    name = f"{os.path.basename(path)} ({len(text) / 1e6:.1f} MB, {form})"
    out = _harness.compare(name, lambda: parse_arff(text, path),
                           lambda: liac.loads(s, encode_nominal=True, return_type=mode),
                           labels=("mlbench", "liac-arff"), **_harness.timing(args))
    ours = out.results["mlbench"]
    X = ours.X.toarray() if sp.issparse(ours.X) else ours.X
    R = liac_matrix(out.results["liac-arff"], X.shape, sparse)
    same = X.shape == R.shape and np.array_equal(X, R, equal_nan=True)
    print(f"   {X.shape[0]} rows x {X.shape[1]} attributes; identical values: {same}")
    return same


def main(argv=None):
    import arff as liac

    ap = _harness.parser(__doc__)
    ap.add_argument("--file", action="append",
                    help="ARFF file (repeatable; default: the mirror's largest sparse and dense)")
    args = ap.parse_args(argv)
    files = args.file
    if not files:
        mirror = os.environ.get("MLBENCH_MIRROR")
        if args.quick:                     # the small emotions file shipped in the package
            import mlbench
            files = [os.path.join(os.path.dirname(mlbench.__file__), "embedded",
                                  "emotions-train.arff.gz")]
        elif not mirror or not os.path.isdir(mirror):
            print("set MLBENCH_MIRROR to the dataset mirror directory (or pass --file)")
            return 2
        else:
            files = default_files(mirror)
    ok = [bench_file(path, args, liac) for path in files]
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
