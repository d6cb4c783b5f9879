"""Issue 41 item 4: a cell owns every process it starts.  Processes a method starts (a plain child,
a daemon that left the cell's session) end with the cell whether it finishes, times out, goes over
a limit or the run is interrupted; limits and the row's peak memory and CPU seconds count them."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import psutil
import pytest

from mlbench.experiment.executors import LocalExecutor
from mlbench.experiment.runner import run_experiment
from mlbench.experiment.supervise import parse_size, run_supervised

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_run as t  # noqa: E402

pytestmark = pytest.mark.slow

# A method (written to a file, so that a `mlbench run` in a subprocess can name it too) whose fit
# starts a helper process.  Helper modes: "sleep" (a child that sleeps), "daemon" (a grandchild
# that calls setsid and whose parent exits at once: it is out of the cell's process group and
# orphaned), "alloc" (holds MB megabytes for HOLD seconds), "spin" (burns SPIN CPU seconds).
LEAKY = textwrap.dedent('''
    import os, subprocess, sys, time
    import numpy as np
    from mlbench.methods.base import MultiLabelClassifier

    HELPER = """
    import os, sys, time
    mode, piddir, mb, hold, spin, token = (sys.argv[1], sys.argv[2], int(sys.argv[3]),
                                           float(sys.argv[4]), float(sys.argv[5]), sys.argv[6])
    def mark():
        with open(os.path.join(piddir, f"{token}-{os.getpid()}"), "w") as fh:
            fh.write(mode)
    if mode == "daemon":
        if os.fork():
            os._exit(0)
        os.setsid()
        if os.fork():
            os._exit(0)
    if mode in ("sleep", "daemon"):
        mark()
        time.sleep(600)
    if mode == "alloc":
        mark()
        block = b"x" * (mb << 20)
        time.sleep(hold)
    if mode == "spin":
        start = time.process_time()
        while time.process_time() - start < spin:
            pass
    """

    class Leaky(MultiLabelClassifier):
        def __init__(self, *, modes="sleep", piddir="", mb=0, hold=0.0, spin=0.0, wait=True,
                     stay=0.0, random_state=None):
            self.modes, self.piddir, self.mb, self.hold = modes, piddir, mb, hold
            self.spin, self.wait, self.stay, self.random_state = spin, wait, stay, random_state

        def fit(self, X, Y):
            X, Y = self._validate_fit(X, Y)
            for i, mode in enumerate(self.modes.split(",")):
                token = f"{os.getpid()}.{i}"
                p = subprocess.Popen([sys.executable, "-c", HELPER, mode, self.piddir,
                                      str(self.mb), str(self.hold), str(self.spin), token])
                if mode in ("sleep", "daemon"):      # leaked: only wait until it is running
                    while not any(n.startswith(token + "-") for n in os.listdir(self.piddir)):
                        time.sleep(0.02)
                    if mode == "daemon":
                        p.wait()
                else:
                    p.wait()
            time.sleep(self.stay)
            self.freq_ = Y.mean(axis=0)
            return self

        def predict_proba(self, X):
            X = self._validate_predict(X)
            return np.tile(self.freq_, (X.shape[0], 1))
''')


@pytest.fixture
def leaky(tmp_path):
    """``leaky(**params)`` -> the method's spec string; ``leaky.pids()`` -> pids marked so far."""
    path = tmp_path / "leaky.py"
    path.write_text(LEAKY)
    piddir = tmp_path / "pids"
    piddir.mkdir()

    def spec(**params):
        params.setdefault("piddir", str(piddir))
        return f"{path}:Leaky({', '.join(f'{k}={v!r}' for k, v in params.items())})"

    spec.pids = lambda: [int(p.rsplit("-", 1)[1]) for p in os.listdir(piddir)]
    spec.piddir = piddir
    return spec


def alive(pid):
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def assert_all_gone(pids, within=5.0):
    deadline = time.monotonic() + within
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pids and not [p for p in pids if alive(p)], "a process started by a cell outlived it"


def one_cell(method):
    from mlbench.data.splits import make_splits
    from mlbench.experiment.grid import build_grid
    from mlbench.methods import registry
    from mlbench.protocols import MethodEntry

    p = t.protocol(split={"scheme": "holdout", "repeats": 1})
    ds = t.toy_dataset()
    registry.get(method)    # a user's spec string: resolve (and register) it
    cells = build_grid(p, ["toy"], [MethodEntry(method)], {"toy": make_splits(ds, p.split, protocol="t",
                                                                               seed=0)})
    return cells[0], ds


def run_local(method, tmp_path, **limits):
    out = tmp_path / "r.csv"
    run_experiment(t.protocol(split={"scheme": "holdout", "repeats": 1}), methods=[method], out=out,
                   loader=t.loader, executor=LocalExecutor(jobs=1, poll=0.1, **limits))
    return pd.read_csv(out).iloc[0]


def test_a_cell_ending_normally_leaves_no_child_or_grandchild(leaky, tmp_path):
    row = run_local(leaky(modes="sleep,daemon"), tmp_path)
    assert row.status == "ok", row.error
    assert len(leaky.pids()) == 2
    assert_all_gone(leaky.pids())
    spec, ds = one_cell(leaky(modes="sleep,daemon"))       # the Dask worker's supervised child
    assert run_supervised(spec, ds)["status"] == "ok"
    assert len(leaky.pids()) == 4
    assert_all_gone(leaky.pids())


def test_a_cell_timing_out_takes_its_whole_tree(leaky, tmp_path):
    row = run_local(leaky(modes="sleep,daemon", stay=60.0), tmp_path, timeout=4)
    assert row.status == "timeout"
    assert_all_gone(leaky.pids())
    spec, ds = one_cell(leaky(modes="sleep,daemon", stay=60.0))
    assert run_supervised(spec, ds, timeout=4)["status"] == "timeout"
    assert len(leaky.pids()) == 4
    assert_all_gone(leaky.pids())


def test_the_memory_limit_counts_a_childs_memory_and_stops_it(leaky, tmp_path):
    method = leaky(modes="alloc", mb=400, hold=20.0)
    row = run_local(method, tmp_path, max_memory=parse_size("250MB"))
    assert row.status == "memory" and "MemoryLimit" in row.error and row.peak_memory_mb > 250
    assert_all_gone(leaky.pids())
    spec, ds = one_cell(method)
    got = run_supervised(spec, ds, max_memory=parse_size("250MB"))
    assert got["status"] == "memory" and got["peak_memory_mb"] > 250
    assert len(leaky.pids()) == 2
    assert_all_gone(leaky.pids())


def test_the_cpu_limit_counts_the_children(leaky, tmp_path):
    """Three children of 0.8 CPU s each: none reaches the 1 s limit alone, the tree does."""
    row = run_local(leaky(modes="spin,spin,spin", spin=0.8), tmp_path, cpu_time=1)
    assert row.status == "timeout" and "CpuTimeLimit" in row.error


def test_peak_memory_and_cpu_seconds_include_the_children(leaky, tmp_path):
    method = leaky(modes="alloc,spin", mb=200, hold=1.0, spin=1.0)
    row = run_local(method, tmp_path)
    assert row.status == "ok", row.error
    assert row.peak_memory_mb >= 180          # the cell itself grows by a few MB only
    assert row.cpu_seconds >= 0.9             # the cell itself waits
    spec, ds = one_cell(method)
    got = run_supervised(spec, ds)
    assert got["status"] == "ok" and got["peak_memory_mb"] >= 180 and got["cpu_seconds"] >= 0.9


def _driver(args, **kw):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen([sys.executable, "-c", "import sys; from mlbench.cli import main; "
                             "sys.exit(main())", "run", *map(str, args)], env=env, **kw)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_kills_every_cells_tree(leaky, tmp_path, signum):
    method = leaky(modes="sleep,daemon", stay=120.0)
    proc = _driver(["-p", "quick", "-m", method, "-d", "emotions", "-j", "2", "-q",
                    "-o", tmp_path / "r.csv"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(leaky.pids()) < 4 and time.monotonic() < deadline:   # two cells, two helpers each
        time.sleep(0.1)
    assert len(leaky.pids()) == 4
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "interrupted" in err
    assert_all_gone(leaky.pids())


def test_run_piped_into_tail_does_not_hang(leaky, tmp_path):
    """The helpers inherit the run's stdout; were they left running, the reader would wait."""
    proc = _driver(["-p", "quick", "-m", leaky(modes="sleep,daemon"), "-d", "emotions", "-j", "2",
                    "-o", tmp_path / "r.csv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert len(leaky.pids()) == 6
    assert_all_gone(leaky.pids(), within=0)


def test_dask_cells_own_their_processes_too(leaky, tmp_path):
    """On a Dask worker the cell runs in a supervised child: the same ownership holds there."""
    pytest.importorskip("distributed")
    from mlbench.experiment.dask_executor import DaskExecutor

    out = tmp_path / "r.csv"
    run_experiment(t.protocol(split={"scheme": "holdout", "repeats": 2}),
                   methods=[leaky(modes="sleep,daemon"), leaky(modes="sleep,daemon", stay=60.0)],
                   out=out, loader=t.loader, executor=DaskExecutor(workers=2, timeout=3))
    df = pd.read_csv(out)
    assert sorted(df.status) == ["ok", "ok", "timeout", "timeout"]
    assert len(leaky.pids()) == 8
    assert_all_gone(leaky.pids())


def test_an_interrupted_dask_run_kills_its_cells_trees_on_the_workers(leaky, tmp_path):
    pytest.importorskip("distributed")
    from mlbench.experiment.dask_executor import DaskExecutor

    spec, ds = one_cell(leaky(modes="sleep,daemon", stay=120.0))

    def tick():
        if len(leaky.pids()) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        list(DaskExecutor(workers=1).run([spec], lambda name: ds, on_tick=tick))
    assert_all_gone(leaky.pids())
