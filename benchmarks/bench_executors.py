"""Executors: cells per minute of the quick protocol, local executor vs Dask (1 and 2 workers).

Runs the same grid (the quick protocol on the embedded emotions, ``--methods`` default a set of fast
methods) with the local executor (``--jobs`` 1 and 2) and on a LocalCluster of 1 and 2 Dask workers,
in the same process and run, into a fresh results file each time.  The settings are timed by
benchmarks/_harness.py (interleaved, equal repeats after a warm-up; CPU includes the cells' child
processes), each time including the cluster's start-up; start-up is also reported apart (it is paid
once per run, not per cell).  For each setting it prints the median wall time of the run itself,
cells per minute, and the overhead per cell: wall time x parallel slots / cells minus the mean
in-cell time (fit + predict) of that setting, i.e. what running a cell costs beyond the method's own
work.  Checks that every setting gives the same measure values.  Usage::

    python benchmarks/bench_executors.py [--methods br-lr,mlknn,cc,pcc,clr] [--splits 3] [--repeats 2]
"""
import itertools
import os
import sys
import tempfile
import time

import _harness

import numpy as np
import pandas as pd

KEY = ["dataset", "method", "split"]


def run(proto, methods, out, executor):
    from mlbench.experiment.runner import run_experiment

    t0 = time.perf_counter()
    rep = run_experiment(proto, methods=methods, out=out, executor=executor)
    wall = time.perf_counter() - t0
    df = pd.read_csv(out).sort_values(KEY).reset_index(drop=True)
    assert (df.status == "ok").all(), df[df.status != "ok"][KEY + ["error"]]
    return wall, rep.ran, df


def main(argv=None):
    import dask
    import distributed

    from mlbench.experiment.dask_executor import DaskExecutor
    from mlbench.experiment.executors import LocalExecutor
    from mlbench.protocols import load_protocol

    ap = _harness.parser(__doc__, repeats=2)
    ap.add_argument("--methods", default="br-lr,mlknn,cc,pcc,clr")
    ap.add_argument("--splits", type=int, default=3, help="splits of the quick protocol")
    args = ap.parse_args(argv)
    splits, methods = (1, ["br-lr"]) if args.quick else (args.splits, args.methods.split(","))
    proto = load_protocol("quick").with_overrides(repeats=splits, seed=None)
    tmp = tempfile.mkdtemp(prefix="bench_executors_")
    files = itertools.count()
    runs = {}                          # setting -> [(run wall, startup, cells, frame), ...]

    def local(jobs):
        def side():
            out = os.path.join(tmp, f"run{next(files)}.csv")
            runs.setdefault(f"local jobs={jobs}", []).append(
                (*run(proto, methods, out, LocalExecutor(jobs=jobs)), 0.0))
        return side

    def on_dask(workers):
        def side():
            t0 = time.perf_counter()
            with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
                cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                                   processes=True, dashboard_address=None,
                                                   host="127.0.0.1")
                client = distributed.Client(cluster)
            startup = time.perf_counter() - t0
            try:
                out = os.path.join(tmp, f"run{next(files)}.csv")
                result = run(proto, methods, out, DaskExecutor(client=client))
            finally:
                client.close()
                cluster.close()
            runs.setdefault(f"dask workers={workers}", []).append((*result, startup))
        return side

    settings = {"local jobs=1": local(1), "local jobs=2": local(2),
                "dask workers=1": on_dask(1), "dask workers=2": on_dask(2)}
    _harness.compare_many(f"quick protocol, {splits} splits, methods {','.join(methods)}",
                          settings, **_harness.timing(args))
    base = runs["local jobs=1"][-1][2]
    cols = [c for c in base.columns if c in proto.metrics] + ["params"]
    for name, done in runs.items():
        pd.testing.assert_frame_equal(base[KEY + cols], done[-1][2][KEY + cols], obj=name)
    slots = {"local jobs=1": 1, "local jobs=2": 2, "dask workers=1": 1, "dask workers=2": 2}
    print(f"{runs['local jobs=1'][-1][1]} cells; same values in every setting; medians of the runs:")
    print(f"{'setting':<18}{'startup s':>10}{'wall s':>9}{'cells/min':>11}{'overhead/cell s':>17}")
    for name, done in runs.items():
        wall = float(np.median([d[0] for d in done]))
        startup = float(np.median([d[3] for d in done]))
        n, df = done[-1][1], done[-1][2]
        in_cell = (df.fit_seconds + df.predict_seconds).mean()
        overhead = wall * slots[name] / n - in_cell
        print(f"{name:<18}{startup:>10.2f}{wall:>9.2f}{60 * n / wall:>11.1f}{overhead:>17.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
