"""The timing harness every script in benchmarks/ goes through, so that their ratios are fair.

``compare(name, ours, theirs)`` times two callables (or ``compare_many`` several) the same way:

* one BLAS/OpenMP thread for every side: the thread variables are set to 1 when this module is
  imported (before NumPy in the scripts, which import it first) and ``threadpool_limits(1)`` holds
  during the timing, so a library that multithreads by default is not compared with one that
  does not;
* ``warmup`` untimed calls of each side first (imports, caches, first-touch allocation);
* then ``repeats`` rounds in which every side runs once, interleaved (A B, then B A, ...: the
  order rotates so that no side always runs first), so slow phases of a shared machine hit every
  side alike;
* CPU seconds (this process, all threads, and its waited-for children) and wall seconds of
  every call.

It prints the median CPU and wall time of each side and the ratio of each other side to the
first, as the median of the per-round ratios with their interquartile range (25th-75th
percentile), and returns a :class:`Comparison` whose ``results`` hold each side's last return value
(for the script's check that the sides agree).  CPU time is the headline on a shared machine:
single-threaded work's CPU time does not include the wait for a core that wall time does.

Every script takes ``--repeats``, ``--warmup`` and ``--quick`` (tiny data, one round: a smoke run)
through :func:`parser`.  Scripts run from the checkout (``python benchmarks/bench_x.py``).
"""
from __future__ import annotations

import argparse
import os
import resource
import time
from dataclasses import dataclass, field

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
for _var in THREAD_VARIABLES:
    os.environ[_var] = "1"

import numpy as np  # noqa: E402  (after the thread variables)
from threadpoolctl import threadpool_limits  # noqa: E402


def cpu_seconds() -> float:
    """CPU seconds of this process (all threads) and of its children that were waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


@dataclass
class Side:
    """One side's timed calls."""

    label: str
    cpu: list = field(default_factory=list)
    wall: list = field(default_factory=list)

    @property
    def median_cpu(self) -> float:
        return float(np.median(self.cpu))

    @property
    def median_wall(self) -> float:
        return float(np.median(self.wall))


@dataclass
class Comparison:
    """What :func:`compare_many` measured; ratios are other side / first side (> 1: first faster)."""

    name: str
    sides: list
    results: dict
    warmup: int = 0

    def ratios(self, label, clock="cpu"):
        """Per-round ratios of side ``label``'s time to the first side's (``clock``: cpu or wall)."""
        first = np.asarray(getattr(self.sides[0], clock))
        other = np.asarray(getattr(self._side(label), clock))
        return other / np.maximum(first, 1e-12)

    def ratio(self, label, clock="cpu") -> float:
        """The median per-round ratio of side ``label`` to the first side."""
        return float(np.median(self.ratios(label, clock)))

    def spread(self, label, clock="cpu"):
        """(25th, 75th) percentile of the per-round ratios."""
        q25, q75 = np.percentile(self.ratios(label, clock), [25, 75])
        return float(q25), float(q75)

    def _side(self, label):
        return next(s for s in self.sides if s.label == label)

    def summary(self) -> str:
        first = self.sides[0]
        n = len(first.cpu)
        lines = [f"== {self.name}  ({n} interleaved round{'s' * (n != 1)} after {self.warmup} "
                 f"warm-up call{'s' * (self.warmup != 1)} each; 1 thread; medians)"]
        width = max(len(s.label) for s in self.sides)
        for s in self.sides:
            lines.append(f"   {s.label:{width}s}  CPU {_seconds(s.median_cpu)}  "
                         f"wall {_seconds(s.median_wall)}")
        for s in self.sides[1:]:
            cells = []
            for clock in ("cpu", "wall"):
                lo, hi = self.spread(s.label, clock)
                cells.append(f"{clock.upper() if clock == 'cpu' else clock} "
                             f"{self.ratio(s.label, clock):.2f}x (IQR {lo:.2f}-{hi:.2f})")
            lines.append(f"   ratio {s.label} / {first.label}: {', '.join(cells)}")
        return "\n".join(lines)


def _seconds(x):
    return f"{x * 1e3:9.2f} ms" if x < 1 else f"{x:9.3f} s "


def compare_many(name, sides: dict, *, repeats: int = 5, warmup: int = 1, quiet: bool = False):
    """Time every callable of ``sides`` (label -> function of no arguments; the first is the
    baseline of the ratios) in ``repeats`` interleaved rounds after ``warmup`` calls each."""
    if repeats < 1 or warmup < 0:
        raise ValueError("repeats must be >= 1 and warmup >= 0")
    labels = list(sides)
    timed = [Side(label) for label in labels]
    results = {}
    with threadpool_limits(1):
        for _ in range(warmup):
            for label in labels:
                results[label] = sides[label]()
        for r in range(repeats):
            shift = r % len(labels)                # A B, B A, ... (A B C, B C A, C A B, ...)
            for i in [*range(shift, len(labels)), *range(shift)]:
                c0, w0 = cpu_seconds(), time.perf_counter()
                results[labels[i]] = sides[labels[i]]()
                timed[i].wall.append(time.perf_counter() - w0)
                timed[i].cpu.append(cpu_seconds() - c0)
    out = Comparison(name, timed, results, warmup)
    if not quiet:
        print(out.summary(), flush=True)
    return out


def compare(name, ours, theirs, *, labels=("mlbench", "reference"), repeats: int = 5,
            warmup: int = 1, quiet: bool = False) -> Comparison:
    """:func:`compare_many` of two sides: ``ours`` (the baseline) and ``theirs``."""
    return compare_many(name, {labels[0]: ours, labels[1]: theirs}, repeats=repeats,
                        warmup=warmup, quiet=quiet)


def measure(name, fn, *, label="time", repeats: int = 5, warmup: int = 1,
            quiet: bool = False) -> Comparison:
    """One side alone (a time that has no alternative to compare with), timed as the others."""
    return compare_many(name, {label: fn}, repeats=repeats, warmup=warmup, quiet=quiet)


def parser(doc: str, repeats: int | None = 5, warmup: int = 1) -> argparse.ArgumentParser:
    """An ArgumentParser with the harness's options: ``--repeats``, ``--warmup``, ``--quick``."""
    ap = argparse.ArgumentParser(description=doc.strip().splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=repeats,
                    help="interleaved timed rounds of every side (default "
                         f"{'per mode' if repeats is None else repeats})")
    ap.add_argument("--warmup", type=int, default=warmup,
                    help=f"untimed calls of every side first (default {warmup})")
    ap.add_argument("--quick", action="store_true",
                    help="tiny data and one round: check that the script runs, not a measurement")
    return ap


def timing(args) -> dict:
    """``repeats`` and ``warmup`` for :func:`compare` from parsed options (one round if --quick)."""
    return {"repeats": 1 if args.quick else args.repeats, "warmup": 0 if args.quick else args.warmup}


@dataclass
class RefitCell:
    """A committed results row refitted: the estimator, the protocol's fitted pipeline (its
    ``train_`` holds the training part), the transformed test part and its labels as a dense array."""

    est: object
    pipe: object
    test: object
    Y: np.ndarray


def refit_cell(proto, row):
    """Refit the cell of results row ``row`` (a pandas row) of protocol ``proto`` as ``mlbench
    run`` built it: the row's split, the protocol's preprocessing fitted on the training part,
    the method under its protocol label with the row's recorded parameters and, for a searched
    cell, the search's choice (``extra.search.chosen``)."""
    import json

    from mlbench.data import load_dataset
    from mlbench.data.preprocess import Pipeline, take_rows
    from mlbench.data.splits import get_split
    from mlbench.methods import registry

    ds = load_dataset(row.dataset)
    split = get_split(ds, proto.split, protocol=proto.name, seed=proto.seed, split=row.split)
    pipe = Pipeline(proto.preprocess).fit(take_rows(ds, split.training_part), full=ds)
    test = pipe.transform(take_rows(ds, split.test))
    params = {k: v for k, v in json.loads(row.params).items() if k != "search"}
    params.update(json.loads(row.extra).get("search", {}).get("chosen", {}))
    entry = next(e for e in proto.methods if e.label == row.method)
    est = registry.make(entry.name, **params).fit(pipe.train_.X, pipe.train_.Y)
    Y = np.asarray(test.Y.toarray() if hasattr(test.Y, "toarray") else test.Y, dtype=float)
    return RefitCell(est, pipe, test, Y)
