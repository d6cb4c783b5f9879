"""The driver of ``mlbench run``: build the grid, skip finished cells, run the rest, append rows.

:func:`run_experiment` resolves the protocol's methods and datasets, loads each dataset once
(``loader``, default :func:`mlbench.data.load_dataset`; injectable for tests), computes and saves its
splits, builds the grid of cells, drops the cells that already have an ``ok`` row with the same
``params`` and data fingerprint in the results file (a cell whose parameters or data preprocessing
changed is run again and its row replaced),
and hands the rest to an executor (default :class:`~mlbench.experiment.executors.LocalExecutor`).
It is the only writer of the results file: every row is appended as its cell finishes.

Files beside the results ``OUT.csv``:

* ``OUT.splits/<protocol>-<dataset>-seed<seed>.npz``: every split's ``train``, ``test`` and
  ``valid`` row indices (see :func:`mlbench.data.splits.load_splits`); the ``split`` column of a row
  names its split;
* ``OUT.predictions/<protocol>__<dataset>__<method>__<split>__s<seed>.npz`` with
  ``--save-predictions``: true labels, 0/1 predictions, scores (and joint log-probabilities), so the
  measures can be recomputed without refitting;
* ``OUT.lock``: the lock that keeps two runs from writing the same file.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from mlbench.data.splits import make_splits, save_splits
from mlbench.errors import ConfigError, DataError, WriteError
from mlbench.experiment.grid import build_grid
from mlbench.experiment.store import ResultsStore, read_ok, read_rows
from mlbench.fileio import make_dirs
from mlbench.protocols import MethodEntry

#: the method entry (or ``--methods`` value) meaning every registered method
ALL = "all"
#: how a cell's ``error`` starts when the cell could not write its files (its predictions)
WRITE_FAILED = f"{WriteError.__name__}: "


@dataclass
class RunReport:
    out: str
    protocol: object
    cells: list
    ran: int = 0
    skipped: int = 0
    changed: int = 0       # cells run again: recorded params or data_spec differ from the grid's
    statuses: dict = field(default_factory=dict)
    warned: int = 0        # cells of this run whose row records warnings (extra.warnings)
    skipped_datasets: dict = field(default_factory=dict)
    skipped_methods: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    todo: list = field(default_factory=list)   # the cells this run runs (or would run), in order
    costs: dict = field(default_factory=dict)  # cell key -> predicted seconds (None: unknown)


def resolve_methods(protocol, methods=None):
    """The method entries to run, plus the protocol's entries that are not registered (skipped).

    ``methods`` None: the protocol's method set (every registered method if it lists none or lists
    the entry ``all``); ``"all"``: every registered method; a list of names: those.  The protocol's
    entries give the parameters of the methods they name in every case.  Explicitly named methods
    must be registered.
    """
    from mlbench.methods import registry

    by_label = {e.label: e for e in protocol.methods if e.name != ALL}
    if methods is None and any(e.name == ALL for e in protocol.methods):
        methods = ALL
    if methods is None and protocol.methods:
        known = {s.name for s in registry.all_methods()}
        entries = [e for e in protocol.methods if e.name in known]
        missing = [e.label for e in protocol.methods if e.name not in known]
    elif methods is None or methods == ALL or methods == [ALL]:
        by_name = {e.name: e for e in protocol.methods if e.name != ALL and not e.id}
        entries = [by_name.get(s.name, MethodEntry(s.name)) for s in registry.all_methods()]
        missing = []
    else:
        names = [methods] if isinstance(methods, str) else list(methods)
        entries, missing = [], []
        for name in names:
            entry = by_label.get(name) or MethodEntry(name)
            registry.get(entry.name)  # unknown -> ConfigError with the closest name
            if entry.label not in [e.label for e in entries]:
                entries.append(entry)
    for e in entries:
        try:
            registry.make(e.name, **e.params)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"method {e.label!r}: bad parameters {e.params} ({exc})") from None
    if not entries:
        raise ConfigError(f"no method to run (protocol {protocol.name!r}; see 'mlbench methods')")
    return entries, missing


def _default_loader(name):
    from mlbench.data import load_dataset

    return load_dataset(name)


def _neutral_params(method_name):
    """The method class's ``_unrecorded_defaults`` (see :func:`~mlbench.experiment.cell.recorded_params`)."""
    from mlbench.methods import registry

    try:
        return getattr(registry.get(method_name).cls, "_unrecorded_defaults", {})
    except ConfigError:
        return {}


def same_params(recorded, params, neutral):
    """Whether a recorded ``params`` cell and a cell's params describe the same estimator: equal
    once the parameters at their ``neutral`` value (``_unrecorded_defaults``) are left out of
    both, so a row written before such a parameter existed, or after, while it was recorded,
    still matches."""
    from mlbench.experiment.store import canonical_params

    if recorded == canonical_params(params):
        return True
    try:
        a, b = json.loads(recorded), json.loads(params)
    except (TypeError, ValueError, RecursionError):
        return False
    if not (isinstance(a, dict) and isinstance(b, dict) and neutral):
        return False

    def strip(d):
        return {k: v for k, v in d.items() if not (k in neutral and v == neutral[k])}

    return strip(a) == strip(b)


def cells_to_run(cells, ok_params, ok_data_specs=None):
    """The cells without an ``ok`` row of the same parameters and data, and how many of them have
    one that differs (stale).  ``ok_params`` is :meth:`ResultsStore.ok_params`, ``ok_data_specs``
    :meth:`ResultsStore.ok_data_specs` (the recorded :func:`~mlbench.experiment.grid.data_spec`);
    a recorded row without params, or without a data fingerprint, is not compared on that count
    (older files count as done); parameters are compared by :func:`same_params`."""
    ok_data_specs = ok_data_specs or {}
    neutral = {}
    todo, changed = [], 0
    for c in cells:
        recorded = ok_params.get(c.key)
        if recorded is None:
            todo.append(c)
            continue
        data = ok_data_specs.get(c.key, "")
        name = getattr(c, "method_name", "")
        if name not in neutral:
            neutral[name] = _neutral_params(name) if name else {}
        if ((recorded and not same_params(recorded, c.params, neutral[name]))
                or (data and getattr(c, "data_spec", "") and data != c.data_spec)):
            todo.append(c)
            changed += 1
    return todo, changed


def _splits_meta(protocol, name, ds):
    return {"protocol": protocol.name, "dataset": name, "seed": protocol.seed,
            "scheme": protocol.split.__dict__, "dataset_sha256": ds.sha256,
            "n_instances": ds.n_instances}


def _finished_read_only(report, out, protocol, loaded, splits):
    """Fill ``report`` from ``out`` without writing anything, when every cell of the grid is done
    and every splits file is up to date: a rerun then needs no writable ``--out`` (no lock, no
    rewrite).  False (``report`` untouched) when something would have to be written."""
    from mlbench.data.splits import splits_saved
    from mlbench.experiment.store import _ok_data_specs, _ok_params, _row_key

    _, rows, _ = read_rows(out)
    todo, _ = cells_to_run(report.cells, _ok_params(rows), _ok_data_specs(rows))
    if todo or not all(splits_saved(splits_path(out, protocol.name, name, protocol.seed),
                                    splits[name], _splits_meta(protocol, name, ds))
                       for name, ds in loaded.items()):
        return False
    keys = {c.key for c in report.cells}
    last_ok = {_row_key(r): r for r in rows if r.get("status") == "ok" and _row_key(r) in keys}
    report.skipped = len(report.cells)
    report.rows = [r for r in rows if last_ok.get(_row_key(r)) is r]
    return True


def splits_path(out, protocol, dataset, seed):
    from mlbench.safety import check_name

    check_name(protocol, "protocol name")
    check_name(dataset, "dataset name")
    return os.path.join(f"{out}.splits", f"{protocol}-{dataset}-seed{seed}.npz")


def cell_costs(cells, loaded, splits, history):
    """Predicted seconds of each cell (None where nothing is known), from a
    :class:`~mlbench.experiment.costs.CostModel` fitted on the results files ``history``."""
    from mlbench.experiment.costs import CostModel

    model = CostModel.from_csvs(history)
    sizes = {(name, s.id): len(s.train) for name, ss in splits.items() for s in ss}
    return {c.key: model.seconds(c.method, sizes.get((c.dataset, c.split), 0),
                                 loaded[c.dataset].n_features, loaded[c.dataset].n_labels,
                                 fallback=c.method_name, dataset=c.dataset, protocol=c.protocol)
            for c in cells}


def run_experiment(protocol, *, datasets=None, methods=None, out, jobs=1, timeout=None,
                   save_predictions=False, loader=None, executor=None, progress=None,
                   notice=None, dry_run=False):
    """Run ``protocol``'s grid and append the rows to ``out``; return a :class:`RunReport`.

    ``progress`` is a callable ``(total, skipped, jobs) -> Progress``-like context manager, or None
    for silence.  ``notice`` (a callable taking one line of text, or None) is told before the run
    starts how many cells are run again because their parameters or data preprocessing changed.  ``datasets`` None means
    the protocol's datasets; a dataset that cannot be loaded is skipped with its reason when it
    comes from the protocol's list, and is an error when named.

    Cells run longest first by the cost model fitted on ``out`` and the shipped paper results
    (:mod:`mlbench.experiment.costs`), so that no core is left alone with one long cell at the end;
    the order changes no result.  ``dry_run``: plan only — the report's ``todo`` and ``costs`` say
    what would run; nothing is written, not even the splits.
    """
    from mlbench.experiment.executors import LocalExecutor

    protocol.check_names(methods=False)
    entries, missing = resolve_methods(protocol, methods)
    named = datasets is not None
    names = list(datasets) if named else list(protocol.datasets)
    if not names:
        raise ConfigError(f"protocol {protocol.name!r} lists no dataset; pass --datasets")
    loader = loader or _default_loader
    executor = executor or LocalExecutor(jobs=jobs, timeout=timeout)
    out = os.fspath(out)
    report = RunReport(out=out, protocol=protocol, cells=[], skipped_methods=missing)

    loaded, splits = {}, {}
    for name in dict.fromkeys(names):
        try:
            ds = loader(name)
        except DataError as exc:
            if named:
                raise
            report.skipped_datasets[name] = str(exc)
            continue
        from mlbench.data.user import is_user_dataset

        key = ds.name if is_user_dataset(name) else name     # a user's path: its file's name
        if key in loaded:
            raise ConfigError(f"two datasets are named {key!r}; rename one of the files")
        loaded[key] = ds
        splits[key] = make_splits(ds, protocol.split, protocol=protocol.name, seed=protocol.seed)
    if not loaded:
        reasons = "; ".join(f"{k}: {v}" for k, v in report.skipped_datasets.items())
        raise DataError(f"no dataset of protocol {protocol.name!r} could be loaded ({reasons})")

    pred_dir = os.path.abspath(f"{out}.predictions") if save_predictions else None
    cells = build_grid(protocol, list(loaded), entries, splits, predictions_dir=pred_dir)
    report.cells = cells
    from mlbench.experiment.costs import longest_first, shipped_results

    report.costs = cell_costs(cells, loaded, splits, [out] + shipped_results())
    if dry_run:
        ok_params, ok_specs = read_ok(out)
        report.todo, report.changed = cells_to_run(cells, ok_params, ok_specs)
        report.todo = longest_first(report.todo, lambda c: report.costs[c.key])
        report.skipped = len(cells) - len(report.todo)
        return report
    if hasattr(executor, "check"):      # what the executor must refuse, refused before any write
        executor.check(cells)
    try:
        store = ResultsStore(out, protocol.metrics)
    except WriteError:      # a read-only or full --out is fine when there is nothing to write
        if _finished_read_only(report, out, protocol, loaded, splits):
            return report
        raise
    with store:
        if store.repaired and notice is not None:
            shown = "; ".join(store.problems[:3]) + ("; ..." if len(store.problems) > 3 else "")
            notice(f"{out}: {store.repaired} unreadable line(s) left out ({shown}); the file as it "
                   f"was is kept in {store.backup}")
        for name, ds in loaded.items():
            save_splits(splits_path(out, protocol.name, name, protocol.seed), splits[name],
                        meta=_splits_meta(protocol, name, ds))
        todo, report.changed = cells_to_run(cells, store.ok_params(), store.ok_data_specs())
        todo = longest_first(todo, lambda c: report.costs[c.key])
        report.todo = todo
        report.skipped = len(cells) - len(todo)
        if report.changed and notice is not None:
            notice(f"{report.changed} cell(s) rerun because their parameters or data "
                   "preprocessing changed")
        store.prepare([c.key for c in todo])
        if pred_dir and todo:
            from mlbench.experiment.cell import PREDICTIONS_HINT

            make_dirs(pred_dir, PREDICTIONS_HINT)
        display = progress(len(todo), report.skipped, jobs) if progress else None
        if display is not None:
            display.__enter__()
        try:
            for spec, row in executor.run(todo, loaded.__getitem__,
                                          on_start=display.started if display else (lambda s: None),
                                          on_tick=display.refresh if display else None):
                store.append(row)
                if row["status"] == "error" and row.get("error", "").startswith(WRITE_FAILED):
                    # the disk filled up or went read-only under <out>.predictions/: every later
                    # cell would fail the same way; the row is kept, so a rerun retries the cell
                    raise WriteError(row["error"][len(WRITE_FAILED):])
                report.ran += 1
                report.statuses[row["status"]] = report.statuses.get(row["status"], 0) + 1
                report.warned += "warnings" in json.loads(row.get("extra") or "{}")
                if display is not None:
                    display.finished(spec, row)
        finally:
            if display is not None:
                display.__exit__(None, None, None)
        keys = {c.key for c in cells}
        from mlbench.experiment.store import _row_key

        report.rows = [r for r in store.rows if _row_key(r) in keys]
    return report
