"""The experiment grid: one :class:`CellSpec` per (dataset, method, split).

A cell is described completely by its spec (plain, picklable data), so any executor (the local
forked workers, or a distributed one) can run it with :func:`mlbench.experiment.cell.run_cell` and get
the same row.  ``CellSpec.key`` identifies a cell in the results file: (dataset, method, split,
protocol, seed).  ``CellSpec.params`` is the ``params`` column the cell will record (the JSON of
its estimator's ``get_params(deep=False)``, seed included); ``CellSpec.data_spec`` is the
fingerprint of what decides the cell's data (:func:`data_spec`), recorded as ``protocol_spec``;
with the rest of the cell's provenance (:mod:`mlbench.experiment.provenance`) resume compares
them with the recorded row, so a cell whose parameters, data preprocessing, data or method code
changed since it ran is run again.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, replace

from mlbench.data.splits import SplitScheme
from mlbench.results_file import key_of  # noqa: F401  (the results file owns the key)


@dataclass(frozen=True)
class CellSpec:
    protocol: str
    dataset: str
    method: str            # the label written in the results (protocol entry id, or the name)
    method_name: str       # the registered name
    split: str
    repeat: int
    fold: int | None
    seed: int
    scheme: SplitScheme
    method_params: dict = field(default_factory=dict)
    preprocess: tuple = ()
    metrics: tuple = ()
    predictions_dir: str | None = None
    checkpoint_dir: str | None = None   # this cell's <out>.checkpoints/<cell>/ (mlbench.checkpoint)
    bootstrap: int = 0     # test-row bootstrap replicates per measure (0 = none)
    params: str = ""       # the params column this cell records ("" = not computed)
    data_spec: str = ""    # fingerprint of its preprocessing and split rule ("" = not computed)
    protocol_file: str = ""  # the protocol's file when not a shipped one (extra.protocol_file)
    # the rest of the cell's provenance (mlbench/experiment/provenance.py; "" = not computed)
    data_sha256: str = ""
    data_content: str = ""
    algorithm: str = ""
    conventions: str = ""
    ties: str = "pessimistic"  # tie convention of the ranking measures (protocol's ``ties``)
    #: the protocol's random search of this method (RandomSearch settings and grid), or {}
    search: dict = field(default_factory=dict)

    @property
    def key(self):
        return key_of(self.dataset, self.method, self.split, self.protocol, self.seed)

    @property
    def label(self):
        return f"{self.dataset} {self.method} {self.split}"



#: the split-scheme fields that decide one split's rows, per scheme (``repeats`` only adds splits:
#: each repeat draws from its own seed, so repeat r is the same whatever the number of repeats)
SPLIT_FIELDS = {"holdout": ("train_fraction", "validation_fraction"),
                "kfold": ("folds", "stratify", "validation_fraction"),
                "given": ("validation_fraction",)}


def data_spec(preprocess, scheme, dataset, dropped=()):
    """Short sha256 (16 hex digits) of what decides the data a cell of ``dataset`` sees.

    The fingerprint covers the protocol's preprocessing steps that apply to ``dataset`` (a step
    whose ``only:`` list leaves it out does not count), each as its name and its parameters with
    the step's defaults filled in (so ``standardize`` and ``{step: standardize, nominal: false}``
    agree) but a parameter of its ``unrecorded_defaults`` left out while it has that value, in
    order, and the split scheme's name with the fields of :data:`SPLIT_FIELDS`, as canonical
    JSON (sorted keys).  The split's seed and id are part of the cell's key already.
    ``dropped``: the registry's ``drop_features`` of the dataset; counted only when non-empty, so
    that every other dataset's fingerprint stays what it was.  The tie convention of the ranking
    measures is a metric convention, recorded in the ``conventions`` column
    (:func:`mlbench.metrics.conventions.metric_conventions`).
    """
    from mlbench.data.preprocess import STEPS, parse_step

    steps = []
    for name, params in map(parse_step, preprocess):
        params = dict(params)
        only = params.pop("only", None)
        if only is not None and dataset not in only:
            continue
        params = {**STEPS[name].defaults, **params}
        neutral = STEPS[name].unrecorded_defaults
        steps.append([name, {k: v for k, v in params.items() if not (k in neutral and v == neutral[k])}])
    split = {"scheme": scheme.scheme, **{f: getattr(scheme, f) for f in SPLIT_FIELDS[scheme.scheme]}}
    if scheme.scheme == "holdout":      # counted only when set, so older fingerprints stay as they were
        if scheme.stratify != "none":
            split["stratify"] = scheme.stratify
        if scheme.test_size(dataset) is not None:
            split["n_test"] = scheme.test_size(dataset)
    spec = {"preprocess": steps, "split": split}
    if dropped:
        spec["drop_features"] = sorted(dropped)
    text = json.dumps(spec, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _dropped(name):
    """The registry's ``drop_features`` of dataset ``name`` (none for an unregistered name)."""
    from mlbench.data.registry import get_entry
    from mlbench.errors import DataError

    try:
        return get_entry(name).drop_features
    except DataError:
        return ()


def build_grid(protocol, datasets, methods, splits_by_dataset, predictions_dir=None, data_ids=None,
               results=None, checkpoints_dir=None):
    """Cells in (dataset, split, method) order.

    ``methods`` are :class:`~mlbench.protocols.MethodEntry`; ``splits_by_dataset`` maps a dataset
    name to its :class:`~mlbench.data.splits.Split` list.  Each cell's ``params`` is what
    ``params_json(make_estimator(cell))`` gives; each method's estimator is built once and only its
    ``random_state`` (the cell's seed) changes from cell to cell (a method spec with nested
    estimators is built for every cell: their seeds derive from the cell's).  Each dataset's
    :func:`data_spec` is computed once.  ``data_ids`` maps a dataset name to its
    ``(dataset_sha256, data_content)``; with the method's algorithm identity and the protocol's
    metric conventions they make the cell's provenance (:mod:`mlbench.experiment.provenance`).
    ``results``: the results file the rows go to (a protocol file in its checkout is recorded
    relative to it, :func:`mlbench.protocols.protocol_file`).  ``checkpoints_dir``: the folder
    of the cells' checkpoint folders (:func:`~mlbench.experiment.cell.cell_file_name` each).
    """
    from mlbench.experiment.cell import (_json, cell_file_name, make_estimator, method_seed,
                                         recorded_params)
    from mlbench.experiment.provenance import algorithm_identity
    from mlbench.methods import registry
    from mlbench.metrics.conventions import metric_conventions
    from mlbench.protocols import protocol_file

    conventions = metric_conventions(protocol)
    algorithms = {}

    built = {}  # method entry index -> get_params(deep=False) of its estimator
    per_cell = {i for i, m in enumerate(methods) if registry.get(m.name).nested}
    source = protocol_file(protocol, results)
    cells = []
    for ds in datasets:
        fingerprint = data_spec(protocol.preprocess, protocol.split, ds, _dropped(ds))
        sha, content = (data_ids or {}).get(ds, ("", ""))
        for s in splits_by_dataset[ds]:
            for i, m in enumerate(methods):
                spec = CellSpec(
                    protocol=protocol.name, dataset=ds, method=m.label, method_name=m.name,
                    split=s.id, repeat=s.repeat, fold=s.fold, seed=protocol.seed,
                    scheme=protocol.split, method_params=dict(m.params),
                    preprocess=tuple(protocol.preprocess), metrics=tuple(protocol.metrics),
                    predictions_dir=predictions_dir, bootstrap=int(protocol.bootstrap),
                    protocol_file=source, ties=protocol.ties, search=protocol.search_of(m))
                if i not in built or i in per_cell:
                    built[i] = recorded_params(make_estimator(spec))
                    algorithms[i] = algorithm_identity(m.name, searched=bool(spec.search))
                params = built[i]
                if "random_state" in params:  # registry.make seeds exactly these estimators
                    params = {**params, "random_state": method_seed(spec)}
                folder = (os.path.join(checkpoints_dir, cell_file_name(spec)) if checkpoints_dir
                          else None)
                cells.append(replace(spec, params=_json(params), data_spec=fingerprint,
                                     data_sha256=sha, data_content=content,
                                     algorithm=algorithms[i], conventions=conventions,
                                     checkpoint_dir=folder))
    return cells
