"""One cell of the grid, as a pure function of its spec: :func:`run_cell` returns a results row.

The cell splits the dataset (recomputing its split from the spec), fits the protocol's
preprocessing on the training part, builds the estimator with ``registry.make`` and a seed derived
from the cell's identity, fits it (timed), predicts 0/1 labels and scores (timed together, plus
``joint_log_proba`` when a measure needs it), and computes every measure of the protocol.  It never
writes the results file: the driver does.  An exception inside the method becomes a row with status
``error`` and a one-line error text, so the run goes on.

Output contract (:mod:`mlbench.experiment.outputs`): predictions and scores are checked and
normalised before any measure sees them; a violation, a measure that raises, or a measure that is
NaN fails the cell (status ``error``, the reason naming the method and the measure or output).  The
exceptions: a measure whose input the method does not give (no scores, no ``joint_log_proba``) is
left empty with the reason in ``extra.metric_errors``, and a NaN the measure's definition explains
for this test part (``Measure.undefined``, e.g. macro-AUC when no label has both classes) is kept
with the reason in ``extra.undefined``.

Validation parts: when the split has one and the estimator's ``fit`` accepts a ``validation``
keyword, the method is fitted as ``fit(X_train, Y_train, validation=(X_valid, Y_valid))``; otherwise
it is fitted on the whole training part (train + valid).  A dataset's hierarchy is passed as
``fit(..., hierarchy=...)`` to estimators whose ``fit`` takes that keyword.

Per-measure outputs: an estimator with ``measure_outputs(X)`` returning
``{measure name: {"predictions": ..., "scores": ...}}`` has those measures computed from its own
arrays instead of the common ``predict`` / ``predict_proba`` (MLDF grows one cascade per measure in
one fit).

Warnings (``extra.warnings``): warnings raised inside the cell (for example scikit-learn's
ConvergenceWarning) are not printed, where they would interleave with the progress display, but
counted per category and first line of the message into ``extra.warnings`` of the row (at most
``MAX_WARNING_KINDS`` distinct messages, the rest under ``"other"``); the run prints how many cells
raised any.

Peak memory (``peak_memory_mb``): the growth of the process's peak resident set during the cell.
On Linux the kernel's peak counter is reset first (``/proc/self/clear_refs``, value 5), so the figure
is ``VmHWM`` at the end minus ``VmRSS`` at the start; it counts every allocation (NumPy, BLAS, C
extensions), not only Python objects.  Where that is unavailable, the resident-set growth measured
by psutil at the end of the cell is used (a lower bound).  The executors add the peak private
memory of the processes the cell started (sampled every poll,
:attr:`~mlbench.experiment.proctree.CellTree.children_peak`); ``cpu_seconds`` includes their CPU
time (:class:`~mlbench.experiment.proctree.ChildCpu`).
"""
from __future__ import annotations

import dataclasses
import inspect
import json
import math
import os
import time
import warnings

import numpy as np
import scipy.sparse as sp

import mlbench
from mlbench import checkpoint
from mlbench.data.preprocess import Pipeline, take_rows
from mlbench.data.splits import get_split
from mlbench.experiment import outputs
from mlbench.experiment.columns import COLUMNS
from mlbench.experiment.proctree import ChildCpu
from mlbench.methods.base import recorded_base_params
from mlbench.seeds import derive_seed

STATUSES = ("ok", "error", "timeout", "lost", "memory")


def method_seed(spec):
    """The ``random_state`` a cell's estimator gets: derived from the cell's identity."""
    return derive_seed(spec.seed, "method", spec.protocol, spec.dataset, spec.split, spec.method)


def make_estimator(spec):
    """The cell's estimator: its registered method with the protocol's parameters and its seed,
    inside a :class:`~mlbench.methods.tuning.RandomSearch` when the protocol searches
    (``spec.search``; the search's seed derives from the cell's identity too)."""
    from mlbench.methods import registry

    est = registry.make(spec.method_name, random_state=method_seed(spec), **spec.method_params)
    if getattr(spec, "search", None):
        from mlbench.methods.tuning import RandomSearch

        est = RandomSearch(est, random_state=derive_seed(spec.seed, "search", spec.protocol,
                                                         spec.dataset, spec.split, spec.method),
                           **spec.search)
    return est


def recorded_params(est):
    """``est.get_params(deep=False)`` without the parameters a method added later whose value is
    the one that reproduces its earlier results (the class's ``_unrecorded_defaults``), so that
    adding such an option does not make every recorded cell look changed.  A searched method
    (:class:`~mlbench.methods.tuning.RandomSearch`) records its method's parameters plus
    ``search``: the grid, folds, budget, measure and thresholding."""
    from mlbench.methods.tuning import RandomSearch

    if isinstance(est, RandomSearch):
        return {**recorded_params(est.estimator), "search": est.search_settings()}
    if hasattr(est, "get_params"):
        params = est.get_params(deep=False)
    else:   # a user's class without scikit-learn's get_params: its public, non-fitted attributes
        params = {k: v for k, v in vars(est).items() if not k.startswith("_") and not k.endswith("_")}
    neutral = getattr(type(est), "_unrecorded_defaults", {})
    params = {k: v for k, v in params.items() if not (k in neutral and v == neutral[k])}
    if isinstance(params.get("base"), str) and "base_params" in params:
        params["base_params"] = recorded_base_params(params["base"], params["base_params"])
    return params


def params_json(est):
    """The ``params`` column: :func:`recorded_params` as JSON with sorted keys."""
    return _json(recorded_params(est))


def base_row(spec, sha256=""):
    """The identifying part of a row (what a timeout or crash row can still say), with the
    cell's provenance (:mod:`mlbench.experiment.provenance`)."""
    row = {c: "" for c in COLUMNS}
    row.update(dataset=spec.dataset, method=spec.method, protocol=spec.protocol, split=spec.split,
               repeat=spec.repeat, fold="" if spec.fold is None else spec.fold, seed=spec.seed,
               mlbench_version=mlbench.__version__, dataset_sha256=sha256 or spec.data_sha256,
               data_content=spec.data_content, protocol_spec=spec.data_spec,
               algorithm=spec.algorithm, conventions=spec.conventions)
    row.update({m: math.nan for m in spec.metrics})
    return row


def failure_row(spec, status, error, sha256="", **extra):
    """A row for a cell that produced no result (``error``, ``timeout``, ``lost`` ...)."""
    row = base_row(spec, sha256)
    row.update(status=status, error=one_line(error), **extra)
    return row


def one_line(text, limit=500):
    """Collapse ``text`` to one line of at most ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_exception(exc):
    return one_line(f"{type(exc).__name__}: {exc}")


def _json(value):
    return json.dumps(value, sort_keys=True, default=_jsonable)


def _jsonable(obj):
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return repr(obj)


class PeakMemory:
    """Context manager measuring the peak resident-set growth (MB) of this process; see module doc."""

    def __enter__(self):
        self.proc = False
        try:
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")
            self.base = _proc_status()["VmRSS"]
            self.proc = True
        except (OSError, KeyError):
            import psutil

            self.base = psutil.Process().memory_info().rss / 1024
        return self

    def __exit__(self, *exc):
        if self.proc:
            peak = _proc_status().get("VmHWM", self.base)
        else:
            import psutil

            peak = psutil.Process().memory_info().rss / 1024
        self.mb = max(0.0, (peak - self.base) / 1024)
        return False


MAX_WARNING_KINDS = 10


class CapturedWarnings:
    """Context manager counting every warning raised inside it by ``"Category: first line"``."""

    def __init__(self):
        self.counts = {}

    def __enter__(self):
        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("always")
        warnings.showwarning = self._count
        return self

    def _count(self, message, category, filename, lineno, file=None, line=None):
        text = str(message).strip().splitlines()
        key = one_line(f"{category.__name__}: {text[0] if text else ''}", 200)
        if key not in self.counts and len(self.counts) >= MAX_WARNING_KINDS:
            key = "other"
        self.counts[key] = self.counts.get(key, 0) + 1

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)
        return False


def _proc_status():
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = float(value.split()[0])
    return out


#: cores a cell may use for its own parallelism (``n_jobs``), set by the executor in the cell's
#: process when fewer cells than cores remain at the end of a grid
CELL_JOBS_ENV = "MLBENCH_CELL_JOBS"


def _spare_cores(est, extra):
    """At a grid's tail the executor gives a cell the idle cores (``MLBENCH_CELL_JOBS``): an
    estimator with an ``n_jobs`` parameter left at 1 gets them, after its parameters were recorded
    (so resume still matches).  Only ``n_jobs`` changes: the forests and joblib blocks that use it
    give the same numbers for any value, and BLAS stays single-threaded."""
    try:
        jobs = int(os.environ.get(CELL_JOBS_ENV, "1"))
    except ValueError:
        return
    params = est.get_params(deep=False) if hasattr(est, "get_params") else {}
    if jobs > 1 and params.get("n_jobs") == 1:
        est.set_params(n_jobs=jobs)
        extra["n_jobs"] = jobs


def _is_user(spec):
    from mlbench.methods import registry

    return registry.get(spec.method_name).family == "user"


def _dense(a):
    return a.toarray() if hasattr(a, "toarray") else np.asarray(a)


def run_cell(spec, dataset):
    """Run one cell on ``dataset`` (the full, unsplit :class:`~mlbench.data.dataset.Dataset`)."""
    row = base_row(spec, dataset.sha256)
    extra = {}
    caught = CapturedWarnings()
    try:
        kids = ChildCpu()
        with PeakMemory() as mem, caught, checkpoint.use(getattr(spec, "checkpoint_dir", None)):
            try:
                _run(spec, dataset, row, extra, clock=lambda: time.process_time() + kids())
            finally:
                # states of an earlier run read (mlbench.checkpoint): their CPU seconds are not
                # in this row's cpu_seconds
                resumed = checkpoint.resumed()
                if resumed:
                    extra["resumed"] = resumed
        row["peak_memory_mb"] = round(mem.mb, 3)
        row["status"] = "ok"
    except Exception as exc:  # the method (or its data) failed: record it and let the run go on
        row["status"] = "error"
        row["error"] = describe_exception(exc)
    if caught.counts:
        extra["warnings"] = caught.counts
    if spec.protocol_file:  # a protocol outside mlbench: report reads its defaults from there
        extra["protocol_file"] = spec.protocol_file
    row["extra"] = _json(extra)
    return row


def _run(spec, dataset, row, extra, clock=time.process_time):
    """Fill ``row`` and ``extra`` with the cell's results; ``clock()`` gives the CPU seconds used
    so far (by the cell's processes)."""
    from mlbench.metrics import get_measure
    from mlbench.metrics.ranking import ranking_extra

    split = get_split(dataset, spec.scheme, protocol=spec.protocol, seed=spec.seed, split=spec.split)
    pipe = Pipeline(spec.preprocess).fit(take_rows(dataset, split.training_part), full=dataset)
    test = pipe.transform(take_rows(dataset, split.test))
    extra["preprocess"] = pipe.info()

    est = make_estimator(spec)
    row["params"] = params_json(est)
    _spare_cores(est, extra)
    use_valid = split.valid.size > 0 and "validation" in inspect.signature(est.fit).parameters
    if use_valid:
        fit_part = pipe.transform(take_rows(dataset, split.train))
        valid = pipe.transform(take_rows(dataset, split.valid))
        fit_args, fit_kw = (fit_part.X, fit_part.Y), {"validation": (valid.X, valid.Y)}
    else:
        fit_args, fit_kw = (pipe.train_.X, pipe.train_.Y), {}
    if pipe.train_.hierarchy is not None and "hierarchy" in inspect.signature(est.fit).parameters:
        fit_kw["hierarchy"] = pipe.train_.hierarchy
    row.update(n_train=pipe.train_.n_instances, n_test=test.n_instances,
               n_features=test.n_features, n_labels=test.n_labels)

    t0, c0 = time.perf_counter(), clock()
    try:
        est.fit(*fit_args, **fit_kw)
    except (TypeError, ValueError):
        # a user's method that refuses sparse X gets it dense (the built-ins all take CSR)
        if not (_is_user(spec) and any(sp.issparse(a) for a in fit_args)):
            raise
        est = make_estimator(spec)
        fit_args = tuple(_dense(a) if sp.issparse(a) else a for a in fit_args)
        test = dataclasses.replace(test, X=_dense(test.X))
        extra["densified"] = "the method refused sparse X; it was given a dense copy"
        t0, c0 = time.perf_counter(), clock()
        est.fit(*fit_args, **fit_kw)
    row["fit_seconds"] = round(time.perf_counter() - t0, 6)
    cpu = clock() - c0

    measures = [get_measure(m) for m in spec.metrics]
    n, L = test.Y.shape
    t0, c0 = time.perf_counter(), clock()
    # the output contract (outputs.py): a violation fails the cell with its reason
    pred = outputs.method_predictions(est, test.X, n, L, spec.method)
    scores = outputs.method_scores(est, test.X, n, L, spec.method)
    joint = None
    if any(m.needs == "joint" for m in measures) and hasattr(est, "joint_log_proba"):
        joint = np.asarray(est.joint_log_proba(test.X, test.Y), dtype=np.float64)
    # a method holding one model per measure (MLDF's ``mldf``) gives each measure its own outputs
    own = _measure_outputs(est, test.X, n, L, spec.method) if hasattr(est, "measure_outputs") else {}
    row["predict_seconds"] = round(time.perf_counter() - t0, 6)
    # CPU seconds of fit and predict, every thread of every process of the cell counted (also
    # joblib's worker processes when the cell was given spare cores)
    row["cpu_seconds"] = round(cpu + clock() - c0, 6)

    inputs = {"predictions": pred, "scores": scores, "joint": joint, "hierarchy": pred}
    problems, undefined = {}, {}
    boot = {}
    for m in measures:
        value = own.get(m.name, {}).get(m.needs, inputs[m.needs])
        if value is None:  # not applicable to this method (e.g. cll_loss of a non-probabilistic one)
            problems[m.name] = f"the method gives no {m.needs}"
            continue
        ctx = ({"hierarchy": test.hierarchy} if m.needs == "hierarchy"
               else {"ties": spec.ties} if m.kind == "ranking" else {})
        row[m.name] = _measure(spec, m, test.Y, value, ctx, undefined)
        if spec.bootstrap:
            boot[m.name] = _bootstrap(spec, m, test.Y, value, ctx)
    extra.update(ranking_extra(test.Y, measures, scores, own, spec.ties))   # ties: convention, share
    why = outputs.degenerate(pred, scores)
    if why:
        extra["degenerate"] = why
    if problems:
        extra["metric_errors"] = problems
    if undefined:
        extra["undefined"] = undefined
    if boot:
        from mlbench.stats.bootstrap import bc_interval, decode, encode, stored_error

        # from the stored (float16) replicates, as every reader computes it
        extra["bootstrap"] = {"B": spec.bootstrap,
                              "ci95": {k: [round(x, 6) for x in bc_interval(
                                  decode(encode(v)), row[k], tie=stored_error(row[k])) or ()]
                                       for k, v in boot.items()},
                              "replicates": {k: encode(v) for k, v in boot.items()}}
    info = getattr(est, "fit_info_", None)
    if isinstance(info, dict):
        extra.update(info)
    if spec.predictions_dir:
        save_predictions(spec, test.Y, pred, scores, joint, split.test, pipe.labels_kept_)


def _measure_outputs(est, X, n, L, method):
    """``est.measure_outputs(X)`` with each measure's predictions and scores under the contract."""
    declared = outputs.score_source(est) == "predict_proba"
    own = {}
    for name, arrays in est.measure_outputs(X).items():
        own[name] = {}
        for kind, value in arrays.items():
            what = f"measure_outputs[{name!r}][{kind!r}]"
            if kind == "predictions":
                value = outputs.normalise_predictions(value, n, L, method, what=what)
            elif kind == "scores":
                value = outputs.normalise_scores(value, n, L, method, declared, what=what)
            own[name][kind] = value
    return own


def _measure(spec, m, Y, value, ctx, undefined):
    """Measure ``m`` of the cell's output; a measure that fails, or is NaN where its definition
    does not explain it (``Measure.undefined``), fails the cell with the measure named.  An
    explained NaN is kept, with its reason in ``undefined``."""
    try:
        result = m(Y, value, **ctx)
    except Exception as exc:
        raise outputs.OutputContractError(
            f"{spec.method}: measure {m.name} failed on its output: {describe_exception(exc)}") from exc
    if math.isnan(result):
        reason = m.undefined(Y, **ctx) if m.undefined is not None else None
        if reason is None:
            raise outputs.OutputContractError(f"{spec.method}: measure {m.name} is NaN on its output")
        undefined[m.name] = reason
    return result


def _bootstrap(spec, measure, Y, value, ctx):
    """``measure`` on ``spec.bootstrap`` resamples of the test rows, seeded by the split alone
    (so the replicates of every method of a split pair up; :mod:`mlbench.stats.bootstrap`)."""
    from mlbench.metrics.hierarchical import ROWWISE
    from mlbench.stats.bootstrap import replicates, resample_seed

    seed = resample_seed(spec.seed, spec.dataset, spec.split)
    if measure.name in ROWWISE:  # per-example statistics, computed once
        per_row, combine = ROWWISE[measure.name]
        stats = per_row(Y, value, ctx["hierarchy"])
        return replicates(lambda rows: combine(stats[rows]), Y.shape[0], spec.bootstrap, seed)
    return replicates(lambda rows: measure(Y[rows], value[rows], **ctx), Y.shape[0],
                      spec.bootstrap, seed)


#: what to do when ``<out>.predictions/`` cannot be written
PREDICTIONS_HINT = "choose another --out or run without --save-predictions"


def cell_file_name(spec):
    """``<protocol>__<dataset>__<method>__<split>__s<seed>``, each part made safe by
    :func:`mlbench.safety.file_part` (a long method spec shortened, with its hash): the name of a
    cell's saved predictions and of its checkpoint folder."""
    from mlbench.safety import file_part

    name = "__".join(file_part(p) for p in (spec.protocol, spec.dataset, spec.method, spec.split))
    return f"{name}__s{spec.seed}"


def predictions_path(spec):
    """``<predictions dir>/<cell file name>.npz`` (:func:`cell_file_name`)."""
    return os.path.join(spec.predictions_dir, f"{cell_file_name(spec)}.npz")


def save_predictions(spec, Y, pred, scores, joint, test_rows, labels_kept):
    """Keep what the measures need, so they can be recomputed without refitting (atomic write;
    a write error is one line, :mod:`mlbench.fileio`)."""
    from mlbench.fileio import atomic_write

    path = predictions_path(spec)
    arrays = dict(Y_true=Y, predictions=pred, test_rows=np.asarray(test_rows),
                  labels_kept=np.asarray(labels_kept))
    if scores is not None:
        arrays["scores"] = scores
    if joint is not None:
        arrays["joint_log_proba"] = joint
    atomic_write(path, lambda fh: np.savez_compressed(fh, **arrays), hint=PREDICTIONS_HINT,
                 make_parents=True)
