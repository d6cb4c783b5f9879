"""The Dask executor on a real LocalCluster (loopback, two worker processes): same rows as the
local executor, a worker killed mid-cell costs only a retry (or a ``lost`` row), timeouts kill a
process."""
import os
import signal
import sys
import threading
import time

import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")

from mlbench.experiment.dask_executor import DaskExecutor  # noqa: E402
from mlbench.experiment.runner import run_experiment  # noqa: E402
from mlbench.methods import registry  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_run as t  # noqa: E402

toys = t.toys
cloudpickle.register_pickle_by_value(t)

KEY = ["dataset", "method", "split"]
VALUES = ["status", "macro_f1", "macro_auc", "hamming_loss", "params", "n_train", "n_test"]


class ToyMethods(distributed.WorkerPlugin):
    """Register the test's toy methods in every worker (also in a worker restarted after a kill)."""

    def setup(self, worker):
        from mlbench.methods import registry as reg

        for name, cls in t.TOY.items():
            reg.register(name, cls, family="test", paper="platform")
        reg.register("toy-slow", t.NoisyMean, family="test", paper="platform",
                     params={"sleep": 30.0})
        reg.register("toy-nap", t.NoisyMean, family="test", paper="platform", params={"sleep": 2.0})


@pytest.fixture(scope="module")
def client():
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, host="127.0.0.1")
        c = distributed.Client(cluster)
    c.register_plugin(ToyMethods())
    yield c
    c.close()
    cluster.close()


@pytest.fixture
def nap():
    registry.register("toy-nap", t.NoisyMean, family="test", paper="platform",
                      params={"sleep": 2.0})
    yield
    registry._REGISTRY.pop("toy-nap", None)


def rows(out):
    return pd.read_csv(out).sort_values(KEY).reset_index(drop=True)


def kill_worker_running(client, method, stop):
    """SIGKILL the worker process that runs a cell of ``method`` and no other cell (once), from a
    thread: a cell of another method queued on the same worker would be lost with it, and which
    worker the scheduler gives it to is a matter of timing."""
    while not stop.is_set():
        for addr, keys in client.processing().items():
            if keys and all(f"-{method}-" in str(k) for k in keys):
                time.sleep(0.5)  # mid-cell: the fit sleeps 2 s
                pid = client.run(os.getpid, workers=[addr])[addr]
                os.kill(pid, signal.SIGKILL)
                return
        time.sleep(0.1)


def test_dask_rows_equal_local_rows_and_a_killed_worker_costs_a_retry(toys, nap, client, tmp_path):
    p = t.protocol(datasets=["toy", "toy2"], split={"scheme": "holdout", "repeats": 2})
    methods = ["toy-mean", "toy-nap"]
    local = run_experiment(p, methods=methods, out=tmp_path / "local.csv", loader=t.loader)
    assert local.statuses == {"ok": 8}
    stop = threading.Event()
    killer = threading.Thread(target=kill_worker_running, args=(client, "toy-nap", stop))
    killer.start()
    try:
        rep = run_experiment(p, methods=methods, out=tmp_path / "dask.csv", loader=t.loader,
                             executor=DaskExecutor(client=client, retries=2))
    finally:
        stop.set()
        killer.join()
    assert rep.statuses == {"ok": 8}
    a, b = rows(tmp_path / "local.csv"), rows(tmp_path / "dask.csv")
    assert len(b) == 8 and not b.duplicated(KEY).any()
    pd.testing.assert_frame_equal(a[KEY + VALUES], b[KEY + VALUES])


def test_dask_lost_after_retries_and_timeout_kills_the_cell(toys, nap, client, tmp_path):
    p = t.protocol(split={"scheme": "holdout", "repeats": 1})
    stop = threading.Event()
    killer = threading.Thread(target=kill_worker_running, args=(client, "toy-nap", stop))
    killer.start()
    try:
        rep = run_experiment(p, methods=["toy-nap", "toy-slow", "toy-broken"],
                             out=tmp_path / "r.csv", loader=t.loader,
                             executor=DaskExecutor(client=client, retries=0, timeout=3.0))
    finally:
        stop.set()
        killer.join()
    df = pd.read_csv(tmp_path / "r.csv").set_index("method")
    assert rep.ran == 3
    assert df.loc["toy-nap", "status"] == "lost" and "WorkerLost" in df.loc["toy-nap", "error"]
    assert df.loc["toy-slow", "status"] == "timeout"
    assert df.loc["toy-broken", "status"] == "error"


@pytest.mark.slow
def test_cli_dask_driver_sigkilled_then_resumed_equals_local(tmp_path):
    """`mlbench run --executor dask` on the quick protocol: SIGKILL the driver after its first row,
    rerun, and get one row per cell with the local executor's values."""
    import subprocess

    exe = os.path.join(os.path.dirname(sys.executable), "mlbench")
    args = ["run", "-p", "quick", "-m", "br-lr,mlknn,cc", "-q"]
    env = dict(os.environ, MLBENCH_SCHEDULER="")
    subprocess.run([exe, *args, "-o", str(tmp_path / "local.csv")], check=True, env=env)
    out = tmp_path / "dask.csv"
    cmd = [exe, *args, "-o", str(out), "--executor", "dask", "--jobs", "2"]
    proc = subprocess.Popen(cmd, env=env, start_new_session=True, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and len(out.read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    killed_midway = proc.poll() is None
    os.killpg(proc.pid, signal.SIGKILL)  # the driver, then whatever it started
    proc.wait()
    first = pd.read_csv(out) if out.exists() else pd.DataFrame()
    subprocess.run(cmd, check=True, env=env, stderr=subprocess.DEVNULL)
    a, b = rows(tmp_path / "local.csv"), rows(out)
    assert len(b) == 9 and not b.duplicated(KEY).any() and (b.status == "ok").all()
    cols = KEY + ["macro_f1", "micro_f1", "hamming_loss", "ranking_loss", "params"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert not killed_midway or len(first) < 9


@pytest.mark.slow
def test_cli_dask_ctrl_c_cancels_and_says_how_to_resume(tmp_path):
    import subprocess

    exe = os.path.join(os.path.dirname(sys.executable), "mlbench")
    out = tmp_path / "r.csv"
    cmd = [exe, "run", "-p", "quick", "-m", "br-lr,mlknn,cc,pcc,clr,br-rf", "-q", "-o", str(out),
           "--executor", "dask", "--jobs", "2"]
    env = dict(os.environ, MLBENCH_SCHEDULER="")
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and len(out.read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    if proc.poll() is not None:
        pytest.fail("the run ended before it could be interrupted")
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=60)[1]
    assert proc.returncode == 130
    assert "run the same command again to resume" in err.splitlines()[-1]
    done = pd.read_csv(out)
    assert 1 <= len(done) < 18 and (done.status == "ok").all()
    subprocess.run(cmd, check=True, env=env, stderr=subprocess.DEVNULL)
    df = pd.read_csv(out)
    assert len(df) == 18 and not df.duplicated(KEY).any() and (df.status == "ok").all()
