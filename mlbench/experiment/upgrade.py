"""Record the provenance of rows written before mlbench recorded it, where it can be verified.

    python -m mlbench.experiment.upgrade RESULTS.csv [...]

For each ``ok`` row without a complete provenance (:mod:`mlbench.experiment.provenance`), the
identity the *current* code, protocol and data give is written into the row only when the row is
verifiably current:

* its recorded ``params`` equal the current ones, its ``dataset_sha256`` the dataset's, and its
  recorded data fingerprint (``extra.data_spec``), when it has one, the protocol's;
* its ``n_train``, ``n_test``, ``n_features`` and ``n_labels`` equal what the current
  preprocessing gives on that split (so a row computed before a preprocessing rule changed, such
  as a feature filter, is caught even without a recorded fingerprint).

Any other row is left without provenance and named (one line per dataset x method): ``mlbench run``
reruns it.  The dataset must be cached or in the mirror (``MLBENCH_MIRROR``); rows of a dataset
that is not are left as they were.  Method labels that the shipped protocol lacks (an ablation run
into the same file under the protocol's name) are looked up in the protocol files beside the
results file (``results/papers/mc-ablation.yaml``).  The file is rewritten atomically under the run's lock.  The
algorithm identity recorded is the current one: the golden-output test
(``tests/methods/test_golden_outputs.py``) is what says the code still computes what it computed.
"""
from __future__ import annotations

import sys

from mlbench.experiment.provenance import (CurrentIdentity, NEW_COLUMNS, differences,
                                           recorded_identity, unverified)


def _sizes(protocol, dataset, split):
    """(n_train, n_test, n_features, n_labels) the current preprocessing gives on ``split``."""
    from mlbench.data.load import load_dataset
    from mlbench.data.preprocess import Pipeline, take_rows
    from mlbench.data.splits import get_split

    ds = load_dataset(dataset)
    s = get_split(ds, protocol.split, protocol=protocol.name, seed=protocol.seed, split=split)
    pipe = Pipeline(protocol.preprocess).fit(take_rows(ds, s.training_part), full=ds)
    test = pipe.transform(take_rows(ds, s.test))
    return pipe.train_.n_instances, test.n_instances, test.n_features, test.n_labels


def _number(value):
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return None


def upgrade_rows(rows, echo=None, variants=()):
    """Fill in the provenance of the verifiably current ``ok`` rows among ``rows`` (dicts, changed
    in place).  Returns ``(upgraded, left)``: the count of rows filled in and, per (dataset,
    method), why rows were left unverified.  ``variants``: see
    :class:`~mlbench.experiment.provenance.CurrentIdentity`."""
    ident = CurrentIdentity(check_data=True, variants=variants)
    sizes = {}
    upgraded, left = 0, {}
    for row in rows:
        if row.get("status") != "ok":
            continue
        recorded = recorded_identity(row)
        if not unverified(recorded):
            continue
        current, neutral = ident.of(row)
        unknown = [c for c, v in current.items() if v is None]
        why = None
        if unknown:
            why = f"cannot determine its current {', '.join(unknown)}"
        elif not recorded["params"] or not recorded["dataset_sha256"]:
            why = "it records no params or dataset_sha256"
        else:
            changed = differences(recorded, current, neutral)
            if changed:
                why = f"{', '.join(changed)} changed"
        if why is None:
            protocol = ident._protocol_of(row["protocol"], row["method"])
            seed = _number(row.get("seed"))
            if seed is not None and seed != protocol.seed:
                protocol = protocol.with_overrides(seed=seed)
            key = (protocol.name, protocol.seed, row["dataset"], row["split"])
            if key not in sizes:
                sizes[key] = _sizes(protocol, row["dataset"], row["split"])
            have = tuple(_number(row.get(c)) for c in ("n_train", "n_test", "n_features", "n_labels"))
            if have != sizes[key]:
                why = (f"its sizes (n_train, n_test, n_features, n_labels) {have} are not the "
                       f"current preprocessing's {sizes[key]}")
        if why is not None:
            left.setdefault((row["dataset"], row["method"]), []).append(why)
            continue
        for c in NEW_COLUMNS:
            row[c] = current[c]
        upgraded += 1
    for note in ident.notes:
        if echo is not None:
            echo(f"note: {note}")
    return upgraded, left


def upgrade_file(path, echo=print):
    """Upgrade the results file ``path`` in place (see the module's doc); returns
    ``(upgraded, left)`` as :func:`upgrade_rows`."""
    from mlbench.experiment.provenance import sibling_protocols
    from mlbench.experiment.store import ResultsStore

    variants = sibling_protocols([path])
    with ResultsStore(path) as store:
        for problem in store.problems:
            echo(f"note: {path}: {problem} (left out; the file as it was is in {store.backup})")
        upgraded, left = upgrade_rows(store.rows, echo, variants)
        if upgraded:
            store._rewrite()
    for (dataset, method), whys in left.items():
        echo(f"{path}: {dataset} {method}: {len(whys)} row(s) left unverified ({whys[0]}); "
             f"`mlbench run` reruns them")
    echo(f"{path}: provenance recorded in {upgraded} row(s); "
         f"{sum(map(len, left.values()))} row(s) left unverified")
    return upgraded, left


def main(argv=None):
    from mlbench.errors import MlbenchError

    paths = sys.argv[1:] if argv is None else list(argv)
    if not paths or any(p.startswith("-") for p in paths):
        print("usage: python -m mlbench.experiment.upgrade RESULTS.csv [...]", file=sys.stderr)
        return 2
    try:
        for path in paths:
            upgrade_file(path)
    except MlbenchError as exc:
        print(f"mlbench: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
