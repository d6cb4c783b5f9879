"""The Dask recipe of docs/dask.md, as a user runs it: a plain ``dask scheduler`` and ``dask
worker`` pair started from the command line, then ``mlbench run --executor dask --scheduler``;
the rows equal the local executor's.  (Slow: it starts real processes.)"""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("distributed")
DASK = Path(sys.executable).parent / "dask"


@pytest.mark.slow
@pytest.mark.skipif(not DASK.exists() and not shutil.which("dask"), reason="no dask command")
def test_scheduler_worker_pair_runs_the_grid_like_the_local_executor(tmp_path):
    dask = str(DASK if DASK.exists() else shutil.which("dask"))
    env = {**os.environ, "MLBENCH_DATA": str(tmp_path / "data"), "OMP_NUM_THREADS": "1"}
    sched_file = tmp_path / "scheduler.json"
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(sched_file)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        for _ in range(300):
            if sched_file.exists() and sched_file.stat().st_size:
                break
            time.sleep(0.1)
        import json

        address = json.loads(sched_file.read_text())["address"]
        procs.append(subprocess.Popen([dask, "worker", address, "--nworkers", "2", "--nthreads", "1",
                                       "--no-dashboard"], env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
        mlbench = [sys.executable, "-m", "mlbench", "run", "--protocol", "quick", "--methods",
                   "br-lr,mlknn", "--datasets", "emotions", "-q"]
        local = subprocess.run(mlbench + ["-o", str(tmp_path / "local.csv"), "-j", "1"], env=env,
                               capture_output=True, text=True, timeout=300)
        assert local.returncode == 0, local.stderr
        remote = subprocess.run(mlbench + ["-o", str(tmp_path / "dask.csv"), "--executor", "dask",
                                           "--scheduler", address, "-j", "2"],
                                env=env, capture_output=True, text=True, timeout=300)
        assert remote.returncode == 0, remote.stderr
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
    cols = ["dataset", "method", "split", "status", "macro_f1", "macro_auc", "params"]
    a = pd.read_csv(tmp_path / "local.csv")[cols].sort_values(cols[:3]).reset_index(drop=True)
    b = pd.read_csv(tmp_path / "dask.csv")[cols].sort_values(cols[:3]).reset_index(drop=True)
    assert len(a) == 6 and (a.status == "ok").all()
    pd.testing.assert_frame_equal(a, b)
