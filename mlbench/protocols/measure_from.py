"""``measure_from:``: report each measure from the model trained for it.

Some papers train one model per evaluation measure and report each measure from its own model (MLDF,
Yang et al. 2019, Section 4.1: "we take M with the six measures ... respectively, which means we
will get different models with different measures").  A protocol says so with

```yaml
measure_from:
  mldf:                         # the method name the table shows
    hamming_loss: mldf-hl       # metric: the protocol method (label) whose rows give it
    one_error: mldf-oe
```

:func:`parse_measure_from` validates that mapping when the protocol is loaded.  :func:`combine`
turns a results frame's rows of the source methods into rows of the combined method, one per
(protocol, dataset, split): each metric column is copied from the source trained for it, the fit
and predict times are the sums over the distinct sources (the cost of the whole set of models),
and ``extra`` records the sources and, where the source logged one, its number of layers.
:func:`apply` does this on a loaded :class:`~mlbench.report.results.Results` and drops the source
rows, so a report shows one column for the combined method.

A method can also hold one model per measure itself (``mldf``: MLDF's six cascades grown in one fit;
the runner computes each measure from its own cascade and the row's ``extra.layers`` maps each
measure to the layers kept).  :func:`note_per_measure` says so in the report's notes, with the mean
number of layers kept per measure and dataset, so the table's caption states where each measure
comes from in both layouts.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from mlbench.errors import ConfigError
from mlbench.results_file import json_object

#: columns that identify one split of one dataset
SPLIT_KEY = ("protocol", "dataset", "split")


def parse_measure_from(value, metrics, labels, where="protocol"):
    """``{combined name: {metric: source method label}}`` from a protocol's ``measure_from`` value."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: measure_from must map a method name to {{metric: method}}")
    out = {}
    for name, mapping in value.items():
        if not isinstance(name, str) or not isinstance(mapping, dict) or not mapping:
            raise ConfigError(f"{where}: measure_from {name!r} must map metrics to method names")
        if name in labels:
            raise ConfigError(f"{where}: measure_from name {name!r} is already a method of the protocol")
        for metric, source in mapping.items():
            if metric not in metrics:
                raise ConfigError(f"{where}: measure_from {name!r}: {metric!r} is not one of the "
                                  f"protocol's metrics")
            if source not in labels:
                raise ConfigError(f"{where}: measure_from {name!r}: {source!r} is not one of the "
                                  f"protocol's methods")
        out[name] = dict(mapping)
    return out


def _extra_layers(extra):
    return (json_object(extra) or {}).get("layers")


def combine(frame, name, mapping, metrics=()):
    """Rows of method ``name``: for each split, metric ``m`` from the row of method ``mapping[m]``;
    the other ``metrics`` columns are left empty (NaN)."""
    sources = list(dict.fromkeys(mapping.values()))
    key = [c for c in SPLIT_KEY if c in frame.columns]
    parts = frame[frame["method"].isin(sources)]
    if parts.empty:
        return frame.iloc[0:0].copy()
    base = parts.drop_duplicates(key).set_index(key)
    out = pd.DataFrame(index=base.index)
    for col in frame.columns:
        if col not in key and col not in mapping:
            out[col] = np.nan if col in metrics else base[col]
    for metric, source in mapping.items():
        src = parts[parts["method"] == source].drop_duplicates(key).set_index(key)
        out[metric] = src[metric].reindex(out.index) if metric in src else np.nan
    for col in ("fit_seconds", "predict_seconds", "cpu_seconds"):
        if col in parts:
            out[col] = parts.groupby(key)[col].sum(min_count=1).reindex(out.index)
    extras = {}
    for idx in out.index:
        layers = {}
        for metric, source in mapping.items():
            row = parts[(parts["method"] == source)
                        & np.logical_and.reduce([parts[k] == v for k, v in zip(key, idx)])]
            if len(row) and "extra" in row:
                layers[metric] = _extra_layers(row["extra"].iloc[0])
        extras[idx] = json.dumps({"measure_from": mapping, "layers": layers}, sort_keys=True)
    if "extra" in frame.columns:
        out["extra"] = pd.Series(extras).reindex(out.index).values
    if "params" in frame.columns:
        out["params"] = json.dumps({"measure_from": mapping}, sort_keys=True)
    out["method"] = name
    return out.reset_index()[list(frame.columns)]


def _layers_by_measure(extra):
    layers = (json_object(extra) or {}).get("layers")
    return layers if isinstance(layers, dict) and layers else None


def note_per_measure(results):
    """Notes for methods whose rows hold one model per measure (``extra.layers`` is a mapping)."""
    frame = results.frame
    if "extra" not in frame.columns or frame.empty:
        return results
    layers = frame["extra"].map(_layers_by_measure)
    rows = frame[layers.notna()]
    for method in dict.fromkeys(rows["method"]):
        parts = []
        for dataset in dict.fromkeys(rows.loc[rows["method"] == method, "dataset"]):
            sel = layers[(frame["method"] == method) & (frame["dataset"] == dataset)].dropna()
            table = pd.DataFrame(list(sel)).apply(pd.to_numeric, errors="coerce")
            order = [m for m in getattr(results, "metrics", ()) if m in table]
            table = table[order + [m for m in table if m not in order]]
            means = ", ".join(f"{m} {v:.1f}" for m, v in table.mean().items() if np.isfinite(v))
            parts.append(f"{dataset}: {means}")
        results.notes.append(f"{method}: each measure is reported from the model grown for it in "
                             f"the same fit; layers kept (mean over splits) {'; '.join(parts)}")
    return results


def apply(results, measure_from=None):
    """Replace the source methods' rows of a loaded ``Results`` by the combined methods' rows.

    ``measure_from`` defaults to the one of the results' protocol (``results.protocol``); without
    one, ``results`` is returned unchanged.  Failed source rows are relabelled to the combined
    method, so the report lists the cells they leave empty.
    """
    if measure_from is None:
        measure_from = {}
        if getattr(results, "protocol", None):
            from mlbench.protocols import load_protocol
            try:
                measure_from = load_protocol(results.protocol).measure_from
            except ConfigError:
                measure_from = {}
    note_per_measure(results)
    if not measure_from:
        return results
    frame, failures = results.frame, results.failures
    drop = set()
    for name, mapping in measure_from.items():
        present = [s for s in mapping.values() if s in set(frame["method"])]
        if not present:
            continue
        frame = pd.concat([frame, combine(frame, name, mapping, results.metrics)],
                          ignore_index=True)
        drop.update(mapping.values())
        if len(failures):
            hit = failures["method"].isin(list(mapping.values()))
            failures = failures.copy()
            failures.loc[hit, "method"] = name
        pairs = ", ".join(f"{m} from {s}" for m, s in mapping.items())
        results.notes.append(f"{name}: each measure is reported from the model trained for it "
                             f"({pairs})")
    results.frame = frame[~frame["method"].isin(drop)].reset_index(drop=True)
    results.failures = failures
    return results
