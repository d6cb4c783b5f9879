"""The Dask executor: one ``dask.distributed`` task per cell; the driver stays the only writer.

:class:`DaskExecutor` follows the executor contract of :mod:`mlbench.experiment.executors`.  It
connects to the scheduler at ``address`` (``--scheduler``, ``MLBENCH_SCHEDULER``) or starts a
``LocalCluster`` of ``workers`` single-threaded worker processes.  Datasets reach the workers
from the dataset cache when every worker reads the same cached file as the driver (same name and
SHA-256; probed once per dataset, each worker then reads it once); otherwise the driver scatters
each dataset once (the task receives a future of it, so the arrays cross the network once per worker, not once per
cell; if every copy dies with its workers, the driver scatters it again and resubmits the affected
cells),
and submits a task per cell.  The task returns the row; the driver appends rows as they arrive, so
resume and one-row-per-cell hold exactly as for local runs, and rows carry the same numbers whatever
the worker count or completion order (a cell's seeds depend only on its identity,
:mod:`mlbench.seeds`).

Inside the task the cell runs in a forked child
(:func:`mlbench.experiment.supervise.run_supervised`), so ``timeout`` and ``max_memory`` stop it
by killing that process and every process it started, not by abandoning a thread.  A run that
ends with cells still running (interrupted) cancels their tasks and kills their process trees on
every worker (those of this run only: the trees are tagged with the run's id).

A worker that dies mid-cell (killed, out of memory) makes the scheduler report the task lost
(``KilledWorker``; our LocalCluster sets ``distributed.scheduler.allowed-failures`` to 0 so the
scheduler does not retry on its own).  The driver resubmits the cell up to ``retries`` times; after
that the cell gets a row with status ``lost`` and the run goes on.  On an external scheduler its own
``allowed-failures`` retries come first (default 3 per submission).
"""
from __future__ import annotations

import os
import time

from mlbench.errors import ConfigError
from mlbench.experiment.cell import failure_row

INSTALL_HINT = ("the dask executor needs Dask: pip install 'mlbench[dask]' "
                "(or pip install 'dask[distributed]')")

_MAX_DATA_LOSSES = 5  # resubmissions of a cell whose input data died with a worker (not its fault)


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    return distributed


_WORKER_DATA = {}  # in a worker process: datasets read from the shared cache, by (name, sha256)


def _cached_dataset(name, sha256):
    """The dataset ``name`` from this machine's dataset cache if its SHA-256 is ``sha256``, else
    None (never downloads: the driver scatters the arrays instead)."""
    key = (name, sha256)
    if key not in _WORKER_DATA:
        try:
            from mlbench.data import cache, fetch
            from mlbench.data.registry import get_entry

            ds = cache.load(fetch.data_dir(None), get_entry(name).name)
        except Exception:  # noqa: BLE001  (unknown name, unreadable cache: not shared)
            return None
        if ds is None or ds.sha256 != sha256:
            return None
        _WORKER_DATA[key] = ds
    return _WORKER_DATA[key]


def _can_read(name, sha256):
    return _cached_dataset(name, sha256) is not None


def _task(spec, dataset, timeout, max_memory, threads, cpu_time=None, owner=None):
    """Run on a worker: the cell's row (the cell itself runs in a killable child process).
    ``dataset`` is the dataset, or ``(name, sha256)`` to read from the shared cache."""
    if isinstance(dataset, tuple):
        name, sha = dataset
        dataset = _cached_dataset(name, sha)
        if dataset is None:
            raise RuntimeError(f"this worker cannot read dataset {name!r} (SHA-256 {sha[:12]}) "
                               "from the shared dataset cache")
    from mlbench.experiment.supervise import run_supervised
    from mlbench.methods import registry
    from mlbench.metrics import get_measure

    # Import the method's and measures' modules here, once per worker, not in the forked child
    # (where the imports die with it): measured 1.5 s per cell of overhead otherwise; the timeout
    # then counts the cell's own work.  Errors are left for the cell to report.
    try:
        registry.make(spec.method_name, **spec.method_params)
        for m in spec.metrics:
            get_measure(m)
    except Exception:  # noqa: BLE001
        pass
    return run_supervised(spec, dataset, timeout=timeout, max_memory=max_memory, threads=threads,
                          cpu_time=cpu_time, owner=owner)


def _user_methods(cells):
    """name -> MethodSpec of the user methods (``FILE.py:CLASS``, ``MODULE:CLASS``) among
    ``cells``, their modules marked for pickling by value, so that workers get the classes
    themselves and need neither the file nor the module; ConfigError when one cannot be pickled."""
    import pickle
    import sys

    import cloudpickle

    from mlbench.methods import registry

    out = {}
    for name in {c.method_name for c in cells}:
        spec = registry.get(name)
        if spec.family != "user" and name not in registry._USER:    # a registered name
            continue
        module = sys.modules.get(spec.cls.__module__)
        if module is not None and module.__name__.startswith("mlbench_user_"):
            cloudpickle.register_pickle_by_value(module)
        try:
            cloudpickle.dumps(spec)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            raise ConfigError(f"method {name!r} cannot be sent to Dask workers (it does not pickle: "
                              f"{type(exc).__name__}: {exc}); run it with the local executor") from None
        out[name] = spec
    return out


def _user_methods_plugin(specs):
    """A worker plugin installing the user methods' specs in each worker's registry (also in a
    worker restarted after a crash)."""
    import distributed

    class UserMethods(distributed.WorkerPlugin):
        def __init__(self, specs):
            self.specs = specs

        def setup(self, worker):
            from mlbench.methods import registry

            registry._USER.update(self.specs)

    return UserMethods(specs)


class DaskExecutor:
    """Cells as Dask tasks; see the module doc.  ``client`` (a ``distributed.Client``) is used as
    is and not closed; otherwise ``address`` or a LocalCluster of ``workers`` processes."""

    def __init__(self, address=None, workers=1, timeout=None, max_memory=None, retries=2,
                 client=None, poll=0.25, cpu_time=None):
        from mlbench.experiment.executors import _threads_per_cell

        _import_distributed()
        if int(workers) < 1:
            raise ConfigError("--jobs (the number of local Dask workers) must be at least 1")
        if timeout is not None and float(timeout) <= 0:
            raise ConfigError("--timeout must be a positive number of seconds")
        if int(retries) < 0:
            raise ConfigError("--retries must be at least 0")
        self.address = address
        self.workers = int(workers)
        self.timeout = None if timeout is None else float(timeout)
        self.max_memory = max_memory
        self.cpu_time = None if cpu_time is None else float(cpu_time)
        self.retries = int(retries)
        self.client = client
        self.poll = poll
        self.threads = _threads_per_cell()

    def _connect(self):
        distributed = _import_distributed()
        if self.client is not None:
            return self.client, None, None
        if self.address:
            try:
                client = distributed.Client(self.address, timeout="20s")
            except (OSError, TimeoutError) as exc:
                raise ConfigError(f"cannot reach the Dask scheduler at {self.address} "
                                  f"({type(exc).__name__}: {exc})") from None
            return client, client, None
        import dask

        with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
            cluster = distributed.LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                               processes=True, dashboard_address=None,
                                               host="127.0.0.1")
            client = distributed.Client(cluster)
        return client, client, cluster

    def check(self, cells):
        """Before anything is written: every user method of ``cells`` can be sent to workers."""
        _user_methods(cells)

    def run(self, cells, get_dataset, on_start=lambda spec: None, on_tick=None):
        distributed = _import_distributed()
        user = _user_methods(cells)
        client, own_client, cluster = self._connect()
        if user:
            client.register_plugin(_user_methods_plugin(user), name="mlbench-user-methods")
        scattered = {}
        running = {}  # future -> (spec, attempt)
        owner = f"mlbench-run-{os.getpid()}-{time.time_ns()}"   # tags this run's cells on workers
        relost = {}  # cell key -> times its dataset copy was lost with a dead worker

        def submit(spec, attempt):
            data = scattered.get(spec.dataset)
            if data is None:
                ds = get_dataset(spec.dataset)
                readable = client.run(_can_read, ds.name, ds.sha256)
                if readable and all(readable.values()):
                    data = scattered[spec.dataset] = ((ds.name, ds.sha256), ds.sha256)
            if data is None or (not isinstance(data[0], tuple) and data[0].status != "finished"):
                ds = get_dataset(spec.dataset)  # first use, or every scattered copy died
                scattered[spec.dataset] = (client.scatter(ds, hash=False, broadcast=True),
                                           ds.sha256)
            fut = client.submit(_task, spec, scattered[spec.dataset][0], self.timeout,
                                self.max_memory, self.threads, self.cpu_time, owner, pure=False,
                                key=f"mlbench-cell-{spec.dataset}-{spec.method}-{spec.split}"
                                    f"-a{attempt}-{os.getpid()}-{time.monotonic_ns()}")
            running[fut] = (spec, attempt)

        try:
            for spec in cells:
                submit(spec, 0)
                on_start(spec)
            while running:
                try:
                    distributed.wait(list(running), timeout=self.poll,
                                     return_when="FIRST_COMPLETED")
                except Exception:  # noqa: BLE001  (timeout, or cancelled futures: looked at below)
                    pass
                done = [f for f in running if f.done()]
                if on_tick is not None:
                    on_tick()
                for fut in done:
                    spec, attempt = running.pop(fut)
                    if fut.status == "finished":
                        yield spec, fut.result()
                        continue
                    sha = scattered[spec.dataset][1]
                    if fut.status == "cancelled":  # its dataset copy died with a worker
                        fut.release()
                        relost[spec.key] = relost.get(spec.key, 0) + 1
                        if relost[spec.key] <= _MAX_DATA_LOSSES:
                            submit(spec, attempt)
                        else:
                            yield spec, failure_row(spec, "lost", "WorkerLost: the dataset copies "
                                                    "kept dying with their workers", sha)
                        continue
                    exc = fut.exception()
                    fut.release()
                    if isinstance(exc, distributed.KilledWorker) and attempt < self.retries:
                        submit(spec, attempt + 1)
                        continue
                    if isinstance(exc, distributed.KilledWorker):
                        yield spec, failure_row(spec, "lost", f"WorkerLost: the worker running "
                                                f"the cell died {attempt + 1} time(s)", sha)
                    else:
                        yield spec, failure_row(spec, "error", f"{type(exc).__name__}: {exc}", sha)
        finally:
            if running:
                from mlbench.experiment.proctree import kill_cells

                client.cancel(list(running), force=True)
                try:
                    client.run(kill_cells, owner)   # a cancelled task's thread runs on otherwise
                except Exception:  # noqa: BLE001  (workers gone already: their cells died with them)
                    pass
            if own_client is not None:
                own_client.close()
            if cluster is not None:
                cluster.close()
