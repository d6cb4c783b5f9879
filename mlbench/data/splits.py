"""Train/test splits as a pure function of (dataset, protocol, repeat, seed).

Three schemes (``SplitScheme.scheme``):

* ``holdout``: R repeats of a random split; ``round(train_fraction * n)`` rows train, the rest test.
  ``test_sizes: {dataset: n_test}`` fixes the test part's size per dataset instead (a paper's own
  sizes; datasets it does not list keep ``train_fraction``), and ``stratify: iterative`` draws the
  split by iterative stratification with the two parts' exact sizes as targets (a row goes only to
  a part that still lacks rows), so each label's positives are shared in proportion.
* ``kfold``: R repeats of k-fold cross-validation.  Multi-label data has no single class to stratify
  on, so the folds are a plain shuffled partition (scikit-learn's ``KFold(shuffle=True)`` rule: the
  first ``n % k`` folds get one extra row) unless ``stratify: iterative`` asks for iterative
  stratification (Sechidis, Tsoumakas & Vlahavas, ECML PKDD 2011, Algorithm 1, first order).
* ``given``: the dataset's own train/test parts (``Dataset.parts``); R repeats differ only in the
  validation part and in the methods' seeds.

Any scheme may carve a validation part out of the training rows (``validation_fraction``); a split's
``train`` then excludes ``valid``, and ``train`` + ``valid`` is the training part.  Under ``given``
with ``validation_fraction > 0``, a dataset that comes with its own valid part (the Clus HMC
datasets' ``.valid.arff``) uses that part as ``valid`` and nothing is drawn; a dataset without one
falls back to the random fraction of its train part.  With ``validation_fraction: 0`` a given valid
part joins the train part.

Each repeat draws from a generator seeded by SHA-256 of (seed, protocol, dataset, repeat), see
:mod:`mlbench.seeds`, so a split never depends on run order or on which other datasets are
in the run.  :func:`save_splits` / :func:`load_splits` keep the indices in one ``.npz`` per dataset
(arrays ``<split id>/train``, ``<split id>/test``, ``<split id>/valid``) so anyone can replay them.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import numpy as np

from mlbench.errors import ConfigError, DataError
from mlbench.seeds import derive_rng

SCHEMES = ("holdout", "kfold", "given")
STRATIFY = ("none", "iterative")


@dataclass(frozen=True)
class SplitScheme:
    """How a protocol splits every dataset (validated by :meth:`check`)."""

    scheme: str = "holdout"
    train_fraction: float = 0.5
    repeats: int = 1
    folds: int = 10
    validation_fraction: float = 0.0
    stratify: str = "none"
    #: holdout only: ``((dataset, n_test), ...)``, the test part's size of each listed dataset
    test_sizes: tuple = ()

    def check(self, where="split"):
        if self.scheme not in SCHEMES:
            raise ConfigError(f"{where}: unknown scheme {self.scheme!r}; choose one of {', '.join(SCHEMES)}")
        if not 0.0 < float(self.train_fraction) < 1.0:
            raise ConfigError(f"{where}: train_fraction must be strictly between 0 and 1")
        if int(self.repeats) < 1:
            raise ConfigError(f"{where}: repeats must be at least 1")
        if int(self.folds) < 2:
            raise ConfigError(f"{where}: folds must be at least 2")
        if not 0.0 <= float(self.validation_fraction) < 1.0:
            raise ConfigError(f"{where}: validation_fraction must be in [0, 1)")
        if self.stratify not in STRATIFY:
            raise ConfigError(f"{where}: stratify must be one of {', '.join(STRATIFY)}")
        if self.stratify != "none" and self.scheme not in ("kfold", "holdout"):
            raise ConfigError(f"{where}: stratify applies to the kfold and holdout schemes only")
        if self.test_sizes and self.scheme != "holdout":
            raise ConfigError(f"{where}: test_sizes applies to the holdout scheme only")
        for name, size in self.test_sizes:
            if not isinstance(name, str) or isinstance(size, bool) or not isinstance(size, int) \
                    or size < 1:
                raise ConfigError(f"{where}: test_sizes must map dataset names to positive "
                                  f"integers, got {name!r}: {size!r}")
        return self

    def test_size(self, dataset):
        """The test part's size that ``test_sizes`` gives ``dataset``, or None."""
        return dict(self.test_sizes).get(dataset)

    @property
    def n_splits(self):
        return self.repeats * (self.folds if self.scheme == "kfold" else 1)


@dataclass(frozen=True)
class Split:
    """One split: sorted row indices of the fitting, validation and test rows."""

    id: str
    repeat: int
    fold: int | None
    train: np.ndarray
    test: np.ndarray
    valid: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))

    @property
    def training_part(self):
        """Every row the method may learn from (``train`` plus ``valid``), sorted."""
        return np.union1d(self.train, self.valid)


def split_id(scheme, repeat, fold=None):
    """``holdout-r03``, ``kfold-r00-f07`` or ``given-r00``."""
    sid = f"{scheme}-r{repeat:02d}"
    return sid if fold is None else f"{sid}-f{fold:02d}"


_ID = re.compile(r"^(?:holdout|kfold|given)-r(\d+)(?:-f(\d+))?$")


def parse_split_id(split):
    """``(repeat, fold)`` of a split id (``fold`` is None outside k-fold)."""
    m = _ID.match(str(split))
    if not m:
        raise ConfigError(f"malformed split id {split!r}")
    return int(m.group(1)), (int(m.group(2)) if m.group(2) is not None else None)


def make_splits(dataset, scheme: SplitScheme, *, protocol: str, seed: int):
    """Every split of ``dataset`` under ``scheme``, in (repeat, fold) order."""
    scheme.check()
    return [s for r in range(scheme.repeats) for s in _repeat_splits(dataset, scheme, protocol, seed, r)]


def get_split(dataset, scheme: SplitScheme, *, protocol: str, seed: int, split: str):
    """The split whose id is ``split`` (computed on its own, without the others)."""
    scheme.check()
    repeat, _ = parse_split_id(split)
    for s in _repeat_splits(dataset, scheme, protocol, seed, repeat):
        if s.id == split:
            return s
    raise ConfigError(f"split {split!r} is not produced by scheme {scheme.scheme!r}")


def _repeat_splits(dataset, scheme, protocol, seed, repeat):
    n = dataset.n_instances
    rng = derive_rng(seed, "split", protocol, dataset.name, repeat)
    if scheme.scheme == "holdout":
        n_test = scheme.test_size(dataset.name)
        n_train = int(round(scheme.train_fraction * n)) if n_test is None else n - n_test
        if n_train < 1 or n_train >= n:
            rule = (f"train_fraction {scheme.train_fraction}" if n_test is None
                    else f"a test part of {n_test} rows (test_sizes)")
            raise DataError(f"{dataset.name}: {n} rows cannot be split with {rule}")
        if scheme.stratify == "iterative":
            part = iterative_stratification(dataset.Y, 2, rng, sizes=(n_train, n - n_train))
            pairs = [(None, np.flatnonzero(part == 0), np.flatnonzero(part == 1))]
        else:
            perm = rng.permutation(n)
            pairs = [(None, perm[:n_train], perm[n_train:])]
    elif scheme.scheme == "kfold":
        if n < scheme.folds:
            raise DataError(f"{dataset.name}: {n} rows cannot make {scheme.folds} folds")
        if scheme.stratify == "iterative":
            fold_of = iterative_stratification(dataset.Y, scheme.folds, rng)
        else:
            fold_of = _shuffled_folds(n, scheme.folds, rng)
        pairs = [(f, np.flatnonzero(fold_of != f), np.flatnonzero(fold_of == f))
                 for f in range(scheme.folds)]
    else:
        parts = dataset.parts or {}
        if "train" not in parts or "test" not in parts:
            raise DataError(f"{dataset.name} has no given train/test parts; protocol {protocol!r} "
                            "needs them (split scheme 'given')")
        train = np.asarray(parts["train"], dtype=np.int64)
        test = np.asarray(parts["test"], dtype=np.int64)
        given_valid = np.asarray(parts.get("valid", ()), dtype=np.int64)
        if given_valid.size and scheme.validation_fraction > 0:
            return [Split(split_id(scheme.scheme, repeat), repeat, None, np.sort(train), np.sort(test),
                          np.sort(given_valid))]
        if given_valid.size:
            train = np.union1d(train, given_valid)
        pairs = [(None, train, test)]
    out = []
    for fold, train, test in pairs:
        train = np.sort(np.asarray(train, dtype=np.int64))
        valid = np.empty(0, dtype=np.int64)
        if scheme.validation_fraction > 0:
            vrng = derive_rng(seed, "valid", protocol, dataset.name, repeat, -1 if fold is None else fold)
            n_valid = int(round(scheme.validation_fraction * train.size))
            if n_valid < 1 or n_valid >= train.size:
                raise DataError(f"{dataset.name}: validation_fraction {scheme.validation_fraction} "
                                f"of {train.size} training rows leaves an empty part")
            pick = np.zeros(train.size, dtype=bool)
            pick[vrng.choice(train.size, n_valid, replace=False)] = True
            valid, train = train[pick], train[~pick]
        out.append(Split(split_id(scheme.scheme, repeat, fold), repeat, fold, train,
                         np.sort(np.asarray(test, dtype=np.int64)), valid))
    return out


def _shuffled_folds(n, k, rng):
    """Fold number of each row: a random permutation cut into k consecutive blocks (KFold sizes)."""
    sizes = np.full(k, n // k)
    sizes[: n % k] += 1
    fold_of = np.empty(n, dtype=np.int64)
    fold_of[rng.permutation(n)] = np.repeat(np.arange(k), sizes)
    return fold_of


def iterative_stratification(Y, k, rng, sizes=None):
    """Fold number (0..k-1) of each row by iterative stratification, first order.

    Sechidis et al. (2011), Algorithm 1 with equal fold proportions: repeatedly take the label with
    the fewest not-yet-assigned positive rows, and give each of its rows to the fold that most lacks
    that label (ties: the fold that most lacks rows overall, then at random); rows with no label
    are finally spread over the folds that most lack rows.  The loop runs once per row (each row is
    assigned once), which is fast enough for the papers' data sizes (a few thousand rows).

    ``sizes``: the folds' exact row counts (summing to n) instead of equal folds; the label targets
    are then in proportion to them, and a row goes only to a fold that still lacks rows, so every
    fold gets exactly its size (the holdout scheme's two parts).
    """
    Y = np.asarray(Y, dtype=bool)
    n, L = Y.shape
    fold_of = np.full(n, -1, dtype=np.int64)
    if sizes is None:
        want_rows = np.full(k, n / k)
        want_label = np.tile(Y.sum(axis=0) / k, (k, 1)).astype(float)  # (k, L)
    else:
        sizes = np.asarray(sizes, dtype=np.int64)
        if sizes.shape != (k,) or sizes.sum() != n or (sizes < 0).any():
            raise ValueError(f"sizes {sizes.tolist()} must be {k} counts summing to {n}")
        want_rows = sizes.astype(float)
        want_label = np.outer(sizes / n, Y.sum(axis=0)).astype(float)
    remaining = Y.sum(axis=0).astype(np.int64)
    active = remaining > 0
    while active.any():
        counts = np.where(active, remaining, np.iinfo(np.int64).max)
        least = np.flatnonzero(counts == counts.min())
        label = int(rng.choice(least))
        rows = np.flatnonzero(Y[:, label] & (fold_of < 0))
        for row in rng.permutation(rows):
            need = want_label[:, label]
            if sizes is not None:       # only folds that still lack rows
                need = np.where(want_rows > 0, need, -np.inf)
            cand = np.flatnonzero(need == need.max())
            if cand.size > 1:
                rows_need = want_rows[cand]
                cand = cand[rows_need == rows_need.max()]
            fold = int(cand[0] if cand.size == 1 else rng.choice(cand))
            fold_of[row] = fold
            want_rows[fold] -= 1
            want_label[fold] -= Y[row]
            remaining -= Y[row]
        active = remaining > 0
    for row in rng.permutation(np.flatnonzero(fold_of < 0)):
        cand = np.flatnonzero(want_rows == want_rows.max())
        fold = int(cand[0] if cand.size == 1 else rng.choice(cand))
        fold_of[row] = fold
        want_rows[fold] -= 1
    return fold_of


def save_splits(path, splits, meta=None, hint="choose another --out"):
    """Write ``splits`` to ``path`` (``.npz``) atomically; ``meta`` (JSON-able) goes in ``__meta__``.
    A file that already holds exactly these splits and ``meta`` is left alone (a rerun writes
    nothing).  A write error is one line (:mod:`mlbench.fileio`) ending with ``hint``."""
    from mlbench.fileio import atomic_write

    if splits_saved(path, splits, meta):
        return
    arrays = {}
    for s in splits:
        arrays[f"{s.id}/train"] = s.train
        arrays[f"{s.id}/test"] = s.test
        arrays[f"{s.id}/valid"] = s.valid
    arrays["__meta__"] = np.array(json.dumps(meta or {}, sort_keys=True))
    atomic_write(path, lambda fh: np.savez_compressed(fh, **arrays), hint=hint, make_parents=True)


def splits_saved(path, splits, meta=None):
    """Whether ``path`` holds exactly ``splits`` (ids and indices) and ``meta``."""
    try:
        saved, saved_meta = load_splits(path)
    except Exception:  # noqa: BLE001 - absent, unreadable or not ours: it is (re)written
        return False
    by_id = {s.id: s for s in saved}
    return (saved_meta == json.loads(json.dumps(meta or {}, sort_keys=True))
            and len(by_id) == len(splits)
            and all(s.id in by_id and all(np.array_equal(getattr(s, part), getattr(by_id[s.id], part))
                                          for part in ("train", "test", "valid"))
                    for s in splits))


def load_splits(path):
    """``(splits, meta)`` from a file written by :func:`save_splits`."""
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["__meta__"])) if "__meta__" in z.files else {}
        ids = sorted({k.rsplit("/", 1)[0] for k in z.files if "/" in k})
        splits = []
        for sid in ids:
            repeat, fold = parse_split_id(sid)
            splits.append(Split(sid, repeat, fold, z[f"{sid}/train"], z[f"{sid}/test"], z[f"{sid}/valid"]))
    return splits, meta
