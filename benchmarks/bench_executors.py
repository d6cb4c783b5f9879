"""Executors: cells per minute of the quick protocol, local executor vs Dask (1 and 2 workers).

Runs the same grid (the quick protocol on the embedded emotions, ``--methods`` default a set of fast
methods) with the local executor (``--jobs`` 1 and 2) and on a LocalCluster of 1 and 2 Dask workers,
in the same process and run, into fresh results files.  Cluster start-up is timed apart (it is paid
once per run, not per cell).  For each setting it prints the wall time, cells per minute, and the
overhead per cell: wall time x parallel slots / cells minus the mean in-cell time (fit + predict)
of that setting, i.e. what running a cell costs beyond the method's own work.  Checks that every
setting gives the same measure values.  Usage::

    python benchmarks/bench_executors.py [--methods br-lr,mlknn,cc,pcc,clr] [--repeats 3]
"""
import argparse
import os
import sys
import tempfile
import time

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

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default="br-lr,mlknn,cc,pcc,clr")
    ap.add_argument("--repeats", type=int, default=3, help="splits of the quick protocol")
    args = ap.parse_args(argv)
    proto = load_protocol("quick").with_overrides(repeats=args.repeats, seed=None)
    methods = args.methods.split(",")
    tmp = tempfile.mkdtemp(prefix="bench_executors_")
    results, frames = [], {}
    for jobs in (1, 2):
        name = f"local jobs={jobs}"
        wall, n, df = run(proto, methods, os.path.join(tmp, f"local{jobs}.csv"),
                          LocalExecutor(jobs=jobs))
        results.append((name, jobs, wall, n, df, 0.0))
        frames[name] = df
    for workers in (1, 2):
        t0 = time.perf_counter()
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                               processes=True, dashboard_address=None,
                                               host="127.0.0.1")
            client = distributed.Client(cluster)
        startup = time.perf_counter() - t0
        try:
            name = f"dask workers={workers}"
            wall, n, df = run(proto, methods, os.path.join(tmp, f"dask{workers}.csv"),
                              DaskExecutor(client=client))
        finally:
            client.close()
            cluster.close()
        results.append((name, workers, wall, n, df, startup))
        frames[name] = df
    base = frames["local jobs=1"]
    cols = [c for c in base.columns if c in proto.metrics] + ["params"]
    for name, df in frames.items():
        pd.testing.assert_frame_equal(base[KEY + cols], df[KEY + cols], obj=name)
    print(f"quick protocol, {args.repeats} splits, methods {args.methods}: "
          f"{results[0][3]} cells; same values in every setting")
    print(f"{'setting':<18}{'startup s':>10}{'wall s':>9}{'cells/min':>11}{'overhead/cell s':>17}")
    for name, slots, wall, n, df, startup in results:
        in_cell = (df.fit_seconds + df.predict_seconds).mean()
        overhead = wall * slots / n - in_cell
        print(f"{name:<18}{startup:>10.2f}{wall:>9.2f}{60 * n / wall:>11.1f}{overhead:>17.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
