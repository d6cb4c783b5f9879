"""The driver of ``mlbench run``: build the grid, skip finished cells, run the rest, append rows.

:func:`run_experiment` resolves the protocol's methods and datasets, loads each dataset once
(``loader``, default :func:`mlbench.data.load_dataset`; injectable for tests), computes and saves its
splits, builds the grid of cells, drops the cells that already have an ``ok`` row with the same
provenance in the results file (:mod:`mlbench.experiment.provenance`: a cell whose data, protocol,
method code, parameters or metric conventions changed is run again and its row replaced),
and hands the rest to an executor (default :class:`~mlbench.experiment.executors.LocalExecutor`).
It is the only writer of the results file: every row is appended as its cell finishes.

Files beside the results ``OUT.csv``:

* ``OUT.splits/<protocol>-<dataset>-seed<seed>.npz``: every split's ``train``, ``test`` and
  ``valid`` row indices (see :func:`mlbench.data.splits.load_splits`); the ``split`` column of a row
  names its split;
* ``OUT.predictions/<protocol>__<dataset>__<method>__<split>__s<seed>.npz`` with
  ``--save-predictions``: true labels, 0/1 predictions, scores (and joint log-probabilities), so the
  measures can be recomputed without refitting;
* ``OUT.checkpoints/<cell>/``: states of long computations inside a cell that has not finished
  (:mod:`mlbench.checkpoint`), read when the cell runs again and removed with the folder once its
  ``ok`` row is written;
* ``OUT.lock``: the lock that keeps two runs from writing the same file.

Temporary files ``*.tmpXXXXXXXX`` that a killed or failed write left there and beside ``OUT`` are
removed when the run starts (holding the lock) and when it ends (:func:`sweep_temp_files`).
"""
from __future__ import annotations

import contextlib
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
    changed: int = 0       # cells run again: their recorded provenance is not the grid's
    causes: list = field(default_factory=list)   # per cell run again: the fields that differ
    statuses: dict = field(default_factory=dict)
    warned: int = 0        # cells of this run whose row records warnings (extra.warnings)
    skipped_datasets: dict = field(default_factory=dict)
    skipped_methods: list = field(default_factory=list)
    #: label -> why it is skipped (not registered yet; no parameter of the protocol's search grid)
    skipped_reasons: dict = field(default_factory=dict)
    rows: list = field(default_factory=list)
    todo: list = field(default_factory=list)   # the cells this run runs (or would run), in order
    costs: dict = field(default_factory=dict)  # cell key -> predicted seconds (None: unknown)


def resolve_methods(protocol, methods=None):
    """The method entries to run, plus the protocol's entries that are not registered (skipped).

    ``methods`` None: the protocol's method set (every registered method if it lists none or lists
    the entry ``all``, plus its method specs); ``"all"``: every registered method; a list of names
    (registered names or method specs, whose grids expand into one entry per variant), protocol
    entry mappings (``{name, params, id, grid, tune, tune_by}``) or :class:`MethodEntry`: those.
    The protocol's entries give the parameters of the methods they name in every case.  Explicitly
    named methods must be registered or load; a protocol's own method specs must load too (only
    its plain names of methods not registered are skipped).
    """
    from mlbench.methods import registry
    from mlbench.methods._spec import looks_like_spec
    from mlbench.protocols import method_entries

    by_label = {e.label: e for e in protocol.methods if e.name != ALL}
    specs = [e for e in protocol.methods if looks_like_spec(e.name)]
    if methods is None and any(e.name == ALL for e in protocol.methods):
        entries = [by_label.get(s.name, MethodEntry(s.name)) for s in registry.all_methods()]
        entries += [e for e in specs if e not in entries]
        missing = []
    elif methods is None and protocol.methods:
        known = {s.name for s in registry.all_methods()}
        entries = [e for e in protocol.methods if not e.not_followed
                   and (e.name in known or looks_like_spec(e.name))]
        missing = [e.label for e in protocol.methods if e not in entries]
        lacking = {e.label: why for e in entries if (why := _search_mismatch(e))}
        entries = [e for e in entries if e.label not in lacking]
        missing += list(lacking)
    elif methods is None or methods == ALL or methods == [ALL]:
        by_name = {e.name: e for e in protocol.methods if e.name != ALL and not e.id}
        entries = [by_name.get(s.name, MethodEntry(s.name)) for s in registry.all_methods()]
        missing = []
    else:
        items = [methods] if isinstance(methods, str) else list(methods)
        entries, missing = [], []
        for item in items:
            if isinstance(item, MethodEntry):
                found = [item]
            elif isinstance(item, str) and item in by_label:
                found = [by_label[item]]
            else:
                found = method_entries(item, "methods", protocol.metrics)
            for entry in found:
                if entry.not_followed:
                    raise ConfigError(f"method {entry.label!r} of protocol {protocol.name!r} is not "
                                      f"followed: {entry.not_followed}")
                registry.get(entry.name)  # unknown -> ConfigError with the closest name
                why = _search_mismatch(entry)
                if why:
                    raise ConfigError(f"method {entry.label!r}: {why}")
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


def skip_reason(protocol, label):
    """Why the protocol's method ``label`` is skipped (see :func:`resolve_methods`)."""
    for e in protocol.methods:
        if e.label == label and e.not_followed:
            return f"not followed: {e.not_followed}"
        if e.label == label:
            return _search_mismatch(e) or f"{e.name!r} is not registered yet"
    return "not registered yet"


def _search_mismatch(entry):
    """Why a registered method cannot take its entry's search grid (a parameter it lacks: the name
    is another algorithm's, or the method is not yet written for the protocol), or None."""
    if not entry.search:
        return None
    from mlbench.methods import registry

    try:
        params = registry.make(entry.name, **entry.params).get_params(deep=True)
    except (TypeError, ValueError, ConfigError):
        return None                       # reported as bad parameters by resolve_methods
    lacking = sorted(set(entry.search) - set(params))
    if not lacking:
        return None
    return (f"registered {entry.name!r} has no parameter {', '.join(map(repr, lacking))} of the "
            "protocol's search grid")


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


#: identity column -> the CellSpec field holding the cell's current value
_CELL_IDENTITY = {"dataset_sha256": "data_sha256", "data_content": "data_content",
                  "protocol_spec": "data_spec", "algorithm": "algorithm", "params": "params",
                  "conventions": "conventions"}


def cells_to_run(cells, ok_rows):
    """The cells to run, and why each one that has an ``ok`` row runs again.

    ``ok_rows`` is :meth:`ResultsStore.ok_rows` (key -> recorded row).  A cell runs when it has
    no ``ok`` row, when a recorded identity field differs from the cell's
    (:func:`mlbench.experiment.provenance.differences`: data, protocol, method, parameters,
    metric conventions), or when its row records no provenance (``unverified``: written before
    mlbench recorded it).  Returns ``(todo, causes)``: ``causes`` has one list of fields per cell
    run again (``["unverified"]`` for the last kind)."""
    from mlbench.experiment.provenance import differences, recorded_identity, unverified

    neutral = {}
    todo, causes = [], []
    for c in cells:
        row = ok_rows.get(c.key)
        if row is None:
            todo.append(c)
            continue
        name = getattr(c, "method_name", "")
        if name not in neutral:
            neutral[name] = _neutral_params(name) if name else {}
        current = {f: getattr(c, attr, "") or None for f, attr in _CELL_IDENTITY.items()}
        recorded = recorded_identity(row)
        fields = differences(recorded, current, neutral[name])
        if not fields and unverified(recorded):
            fields = ["unverified"]
        if fields:
            todo.append(c)
            causes.append(fields)
    return todo, causes


def rerun_notice(causes, out):
    """The line ``mlbench run`` prints about the cells it runs again (None when there are none)."""
    from mlbench.experiment.provenance import cause_counts

    if not causes:
        return None
    line = (f"{len(causes)} cell(s) rerun because what they were computed from changed: "
            f"{cause_counts(causes)}")
    if any(f[0] == "unverified" for f in causes):
        line += (f" (rows written before mlbench recorded provenance: "
                 f"`python -m mlbench.experiment.upgrade {out}` keeps those verifiably current)")
    return line


def _splits_meta(protocol, name, ds):
    scheme = dict(protocol.split.__dict__)
    # the dataset's own test size only, and nothing when unset: split files written before sized
    # holdouts existed keep their meta, so a finished run still needs no write
    del scheme["test_sizes"]
    if protocol.split.test_size(name) is not None:
        scheme["test_size"] = protocol.split.test_size(name)
    return {"protocol": protocol.name, "dataset": name, "seed": protocol.seed,
            "scheme": scheme, "dataset_sha256": ds.sha256, "n_instances": ds.n_instances}


def _finished_read_only(report, out, protocol, loaded, splits):
    """Fill ``report`` from ``out`` without writing anything, when every cell of the grid is done
    and every splits file is up to date: a rerun then needs no writable ``--out`` (no lock, no
    rewrite).  False (``report`` untouched) when something would have to be written."""
    from mlbench.data.splits import splits_saved
    from mlbench.experiment.store import _ok_rows, _row_key

    _, rows, _ = read_rows(out)
    todo, _ = cells_to_run(report.cells, _ok_rows(rows))
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


def cell_costs(cells, loaded, splits, history, protocol=None):
    """Predicted seconds of each cell (None where nothing is known), from a
    :class:`~mlbench.experiment.costs.CostModel` fitted on the results files ``history``.

    The model counts a dataset's features by their nonzero share after the protocol's
    preprocessing: the run's datasets', and, given the ``protocol``, that of every other dataset
    with rows of it in ``history`` whose data is in the local cache (nothing is fetched for an
    estimate).  Without them a cell's estimate depended on the datasets run with it: those rows
    counted as dense in a run of one dataset and as sparse in the whole grid (bogatinovski2022's
    23 cells on stackex_cs: 1.25 core-hours with ``-d stackex_cs``, 1.74 in the whole grid)."""
    from mlbench.experiment.costs import CostModel, read_history

    sizes = {(name, s.id): len(s.train) for name, ss in splits.items() for s in ss}
    shapes = {}
    for c in cells:
        if c.dataset not in shapes:
            shapes[c.dataset] = _preprocessed_shape(loaded[c.dataset], splits[c.dataset],
                                                    c.preprocess)
    density = {k: v[2] for k, v in shapes.items()}
    rows = read_history(history)
    if protocol is not None and len(rows):
        density.update(_cached_density(protocol, set(rows.loc[rows["protocol"] == protocol.name,
                                                               "dataset"]) - set(density)))
    model = CostModel(rows, density=density)
    out = {}
    for c in cells:
        shape = (sizes.get((c.dataset, c.split), 0), *shapes[c.dataset][:2])
        kw = dict(fallback=c.method_name, dataset=c.dataset, protocol=c.protocol)
        out[c.key] = (model.searched_seconds(c.search, c.method, *shape, **kw) if c.search
                      else model.seconds(c.method, *shape, **kw))
    return out


def _cached_density(protocol, names):
    """Dataset name -> nonzero share after ``protocol``'s preprocessing, for the registered
    datasets among ``names`` that are in the local cache."""
    from mlbench.data.load import cached_dataset
    from mlbench.data.registry import registry

    out = {}
    for name in sorted(n for n in names if n in registry()):
        try:
            ds = cached_dataset(name)
            if ds is not None:
                ss = make_splits(ds, protocol.split, protocol=protocol.name, seed=protocol.seed)
                out[name] = _preprocessed_shape(ds, ss, protocol.preprocess)[2]
        except Exception:  # noqa: BLE001 - an estimate never stops a run; the row counts as dense
            continue
    return out


def _preprocessed_shape(ds, splits, preprocess):
    """(features, labels, share of nonzero feature values) of ``ds`` after the protocol's
    ``preprocess``, fitted on the first split's training part: the shape the cells' rows record,
    which the cost model's power law reads (rcv1's 47,236 features are 7,900 after mc's
    document-frequency rule; bibtex's values are 3.7% nonzero)."""
    import numpy as np
    import scipy.sparse as sp

    from mlbench.data.preprocess import Pipeline, take_rows

    train = ds
    if preprocess and splits:
        try:
            train = Pipeline(preprocess).fit(take_rows(ds, splits[0].training_part),
                                             full=ds).train_
        except Exception:  # noqa: BLE001 - the cells report it; an estimate never stops a run
            train = ds
    X = train.X
    size = X.shape[0] * X.shape[1]
    nonzero = X.count_nonzero() if sp.issparse(X) else np.count_nonzero(X)
    return train.n_features, train.n_labels, (nonzero / size if size else 1.0)


def sweep_temp_files(out, results_path):
    """Remove the temporary files of earlier, failed writes of this results file (``results_path``,
    its real path), its splits and its predictions; call only while holding the run's lock."""
    from mlbench.tempfiles import sweep

    sweep(os.path.dirname(results_path), os.path.basename(results_path) + ".tmp")
    for directory in (f"{out}.splits", f"{out}.predictions", *_checkpoint_dirs(out)):
        sweep(directory)


def _checkpoint_dirs(out):
    """The cells' folders in ``OUT.checkpoints/``."""
    root = f"{out}.checkpoints"
    try:
        return [e.path for e in os.scandir(root) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _drop_checkpoints(spec, out):
    """Remove a finished cell's checkpoint folder, and ``OUT.checkpoints/`` once it is empty."""
    import shutil

    if spec.checkpoint_dir and os.path.isdir(spec.checkpoint_dir):
        shutil.rmtree(spec.checkpoint_dir, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.rmdir(f"{out}.checkpoints")


def run_experiment(protocol, *, datasets=None, methods=None, out, jobs=1, timeout=None,
                   save_predictions=False, loader=None, executor=None, progress=None,
                   notice=None, dry_run=False):
    """Run ``protocol``'s grid and append the rows to ``out``; return a :class:`RunReport`.

    ``progress`` is a callable ``(total, skipped, jobs) -> Progress``-like context manager, or None
    for silence.  ``notice`` (a callable taking one line of text, or None) is told before the run
    starts how many cells are run again, and why (:func:`rerun_notice`).  ``datasets`` None means
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
    report = RunReport(out=out, protocol=protocol, cells=[], skipped_methods=missing,
                       skipped_reasons={m: skip_reason(protocol, m) for m in missing})

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
    from mlbench.data.dataset import content_sha256

    data_ids = {name: (ds.sha256, content_sha256(ds)) for name, ds in loaded.items()}
    cells = build_grid(protocol, list(loaded), entries, splits, predictions_dir=pred_dir,
                       data_ids=data_ids, results=out,
                       checkpoints_dir=os.path.abspath(f"{out}.checkpoints"))
    report.cells = cells
    from mlbench.experiment.costs import longest_first, shipped_results

    report.costs = cell_costs(cells, loaded, splits, [out] + shipped_results(), protocol)
    if dry_run:
        report.todo, report.causes = cells_to_run(cells, read_ok(out))
        report.changed = len(report.causes)
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
        sweep_temp_files(out, store.path)
        for name, ds in loaded.items():
            save_splits(splits_path(out, protocol.name, name, protocol.seed), splits[name],
                        meta=_splits_meta(protocol, name, ds))
        todo, report.causes = cells_to_run(cells, store.ok_rows())
        report.changed = len(report.causes)
        todo = longest_first(todo, lambda c: report.costs[c.key])
        report.todo = todo
        report.skipped = len(cells) - len(todo)
        line = rerun_notice(report.causes, out)
        if line and notice is not None:
            notice(line)
        store.prepare([c.key for c in todo])
        if pred_dir and todo:
            from mlbench.experiment.cell import PREDICTIONS_HINT

            make_dirs(pred_dir, PREDICTIONS_HINT)
        display = progress(len(todo), report.skipped, jobs) if progress else None
        if display is not None:
            display.__enter__()
        results = executor.run(todo, loaded.__getitem__,
                               on_start=display.started if display else (lambda s: None),
                               on_tick=display.refresh if display else None)
        try:
            for spec, row in results:
                store.append(row)
                if row["status"] == "ok":
                    _drop_checkpoints(spec, out)
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
            if hasattr(results, "close"):   # an interrupted run: the executor stops its cells now
                results.close()
            sweep_temp_files(out, store.path)       # of cells stopped while saving predictions
            if display is not None:
                display.__exit__(None, None, None)
        keys = {c.key for c in cells}
        from mlbench.experiment.store import _row_key

        report.rows = [r for r in store.rows if _row_key(r) in keys]
    return report
