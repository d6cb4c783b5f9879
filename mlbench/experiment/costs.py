"""What a cell costs: a model fitted on past results, for scheduling and run-time estimates.

A cell's cost is its recorded ``cpu_seconds`` (CPU seconds of fit and predict in the cell's own
single-threaded process), or ``fit_seconds + predict_seconds`` (wall seconds) for rows from before
mlbench recorded CPU time: wall seconds include whatever else ran on the machine.
:class:`CostModel` predicts it for a method on a dataset of shape (rows, features, labels) from
the ``ok`` rows of earlier results files:

1. the median of the rows of the same method on the same dataset under the same protocol (the
   cell's other splits: a protocol's preprocessing can change the shape the rows record, e.g.
   soshf keeps 1,486 of rcv1's 47,236 features, so the shape alone would miss them);
2. else the median of the same method's rows under the same protocol on a *twin* dataset: one
   whose registered shape (instances, features, labels in datasets.yaml) is within ``TWIN`` (10%)
   of the cell's dataset's in each of the three, the closest such one (the five RCV1 subsets,
   the ten Corel16k samples).  The recorded shape is the one after preprocessing (mc keeps rcv1's
   ten most common labels), so it cannot be compared with a dataset not yet run;
3. else, for a method with rows under the same protocol on other datasets, the median of those rows
   of the same shape, or else a power law whose exponent is fitted on every row of the method
   (within each protocol, each with its own level; rule 5's when no protocol holds two of its
   sizes) and whose level is fitted on the protocol's rows: a method id names a configuration of
   its protocol (imtsl-paper's ``br`` is a logistic regression searched over ten penalties,
   bogatinovski2022's ``br`` an SVM under a random search), so the protocol's rows say how dear it
   is and all the rows how its cost grows with the problem. Predicting each (method, dataset) of
   the committed grids from the rows of the other datasets, the median error fell from 0.60 to 0.29
   decades on imtsl-paper (whose ``br``, ``cc``, ``trace`` and ``mtl-feat`` ran cheaper
   configurations under the older imtsl protocol), 0.43 to 0.35 on imtsl and 0.27 to 0.18 on mldf,
   0.26 to 0.25 over all (within a factor of 3: 71% to 76%; `benchmarks/cost_model_accuracy.py`);
4. else the median of the rows of the same method on the same shape, when there are any;
5. else, for a method seen on several shapes, a per-method power law in the problem size
   s = rows x features x labels, ``log t = a + b log s`` by least squares, the exponent clipped to
   [0.5, 2] (a single shape gives b = 1 through it); the features are counted by their
   nonzero share where the model is told it (``density``: after the protocol's preprocessing,
   for the run's datasets and for those of the protocol's earlier rows whose data is cached,
   so that a cell's estimate does not depend on what runs with it).  A sparse text dataset is
   then not extrapolated from dense ones as if every entry were filled (bibtex holds 3.7%
   nonzeros: ebrj48 there was estimated at 10 core-hours from emotions, scene and yeast, for
   what takes minutes);
6. else (a method never seen), the same power law fitted on every method's rows.

Rules 3-6 model the fit and predict work alone: a row of a searched method (a protocol with
``search``) records in ``extra.search.seconds_used`` the CPU seconds its search took, which the
laws leave out.  A searched cell is then that work on the training part plus the search,
predicted separately and capped by its budget (:meth:`CostModel.searched_seconds`): the search
rows and the budget are the same on every dataset, so the search's share of a cell does not
grow with the problem as the refit's does (fitted on the totals, the laws put 377 core-hours
on the bogatinovski2022 grid, 197 without the search).  The work is counted as at least a tenth of
the cell.  The refit after a search is 0-5% of most bogatinovski2022 cells, so this makes one fold
of the search dearer than the refit alone says; counting the refit alone predicts the committed
cells better (median error on a searched cell of a new dataset 0.42 decades -> 0.27), but the 36
large cells that ``benchmarks/study_costs.py`` measured on corel5k, delicious and
tmc2007-500-mldr worse (25 of them within a factor of 3 -> 19): the refit is the chosen
configuration alone, where the search's folds try dearer ones too.

Costs are only a ranking and an estimate: the scheduler runs the largest predicted cells first, so
that two cores are not left with one long cell each at the end of a grid, and ``run --dry-run``
prints the totals.  No result depends on them.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass

import numpy as np

_COLUMNS = ["method", "status", "fit_seconds", "predict_seconds", "n_train", "n_features",
            "n_labels"]
#: read when present (rows before it was recorded fall back to wall seconds)
_CPU = "cpu_seconds"
#: read when present: a searched cell's search seconds, the part the laws leave out
_EXTRA = "extra"
#: naming the cell (rules 1-2); a file without them is still read, for rules 3-5
_CELL = ["dataset", "protocol"]
#: rule 2: the largest relative difference of a twin's registered instances, features or labels
TWIN = 0.10


def _numbers(rows, column):
    """Column ``column`` of ``rows`` as floats (NaN where empty, not a number, or no such column)."""
    import pandas as pd

    if column not in rows.columns:
        return pd.Series(np.nan, index=rows.index, dtype=float)
    return pd.to_numeric(rows[column], errors="coerce").astype(float)


def cell_seconds(rows):
    """Each row's cost: its ``cpu_seconds`` where recorded, else ``fit_seconds + predict_seconds``
    from what the row has (one of them alone when the other is empty or not a column; NaN when
    the row records no seconds at all)."""
    wall = _numbers(rows, "fit_seconds").add(_numbers(rows, "predict_seconds"), fill_value=0)
    cpu = _numbers(rows, _CPU)
    return cpu.where(cpu.notna(), wall)


def search_seconds(rows):
    """Each row's search CPU seconds (``extra.search.seconds_used``), 0 where the row has no
    search or no ``extra`` column."""
    import pandas as pd

    from mlbench.results_file import json_object

    def used(text):
        if not isinstance(text, str) or '"seconds_used"' not in text:
            return 0.0
        search = (json_object(text) or {}).get("search")
        value = search.get("seconds_used", 0.0) if isinstance(search, dict) else 0.0
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < float("inf")
        return float(value) if ok else 0.0

    if _EXTRA not in rows.columns:
        return pd.Series(0.0, index=rows.index, dtype=float)
    return rows[_EXTRA].map(used).astype(float)


def _log_size(n_train, n_features, n_labels):
    return float(np.log(max(n_train, 1)) + np.log(max(n_features, 1)) + np.log(max(n_labels, 1)))


@dataclass
class _Law:
    a: float
    b: float

    @classmethod
    def fit(cls, log_s, log_t):
        if len(set(np.round(log_s, 6))) < 2:
            return cls(float(np.median(log_t) - np.median(log_s)), 1.0)
        b, a = np.polyfit(log_s, log_t, 1)
        b = float(np.clip(b, 0.5, 2.0))
        return cls(float(np.median(log_t - b * log_s)), b)

    def __call__(self, log_s):
        return float(np.exp(self.a + self.b * log_s))


def _within_slope(log_s, log_t, groups):
    """The slope of ``log_t`` on ``log_s`` within ``groups`` (each group its own intercept: the
    protocols' levels do not bend it), or None when no group holds two sizes."""
    ds, dt = np.zeros(len(log_s)), np.zeros(len(log_s))
    for g in set(groups):
        mine = groups == g
        ds[mine] = log_s[mine] - log_s[mine].mean()
        dt[mine] = log_t[mine] - log_t[mine].mean()
    spread = float(ds @ ds)
    return None if spread < 1e-9 else float(ds @ dt) / spread


def read_history(paths):
    """The ``ok`` rows of every readable results CSV in ``paths`` as a :class:`CostModel` reads
    them (missing or foreign files are ignored: the model only orders and estimates)."""
    import pandas as pd

    from mlbench.errors import MlbenchError
    from mlbench.results_file import read_results

    frames = []
    for path in paths:
        try:
            df = read_results([path], required=("method", "status"))
        except (OSError, MlbenchError):
            continue
        if set(_COLUMNS) <= set(df.columns):
            frames.append(df.reindex(columns=_COLUMNS + _CELL + [_CPU, _EXTRA]))
    rows = (pd.concat(frames, ignore_index=True) if frames
            else pd.DataFrame(columns=_COLUMNS + _CELL + [_CPU, _EXTRA]))
    rows = rows[rows["status"] == "ok"]
    for c in _COLUMNS[2:] + [_CPU]:
        rows[c] = pd.to_numeric(rows[c], errors="coerce")
    rows = rows.dropna(subset=_COLUMNS).astype({c: str for c in _CELL})
    return rows.reset_index(drop=True)


def registered_shapes():
    """Dataset name -> (instances, features, labels) as datasets.yaml publishes it (rule 2)."""
    from mlbench.data.registry import registry

    shapes = {}
    for name, entry in registry().items():
        p = entry.published
        shape = tuple(p.get(k) for k in ("instances", "features", "labels"))
        if all(isinstance(v, int) for v in shape):
            shapes[name] = shape
    return shapes


class CostModel:
    """Predicted seconds per cell (see the module docstring); :meth:`from_csvs` builds one."""

    def __init__(self, rows, shapes=None, density=None):
        """``rows``: a pandas DataFrame with the results columns of ``_COLUMNS`` (ok rows only);
        ``shapes``: dataset name -> registered shape, for rule 2 (default: datasets.yaml's);
        ``density``: dataset name -> share of nonzero feature values, for rules 4-5 (a dataset
        not in it counts as dense)."""
        self.rows = rows
        self._shapes = registered_shapes() if shapes is None else shapes
        self._density = dict(density or {})
        self._ran_on = {}            # (method, protocol) -> the datasets with rows, for rule 2
        self._exact_in, self._levelled = {}, {}     # rule 3, when the rows name their protocol
        if len(rows):
            seconds = cell_seconds(rows)
            # rules 3-6: fit and predict without the search (never below a tenth of the cell)
            work = np.maximum(seconds - search_seconds(rows), 0.1 * seconds)
            t = np.log(np.maximum(work, 1e-3))
            s = np.array([_log_size(n, d * self._filled(ds), L) for n, d, L, ds in zip(
                rows["n_train"], rows["n_features"], rows["n_labels"],
                rows["dataset"] if "dataset" in rows.columns else [None] * len(rows))])
            timed = rows.assign(t=seconds, work=work)
            self._siblings = (timed.groupby(["method", *_CELL])["t"].median().to_dict()
                              if set(_CELL) <= set(rows.columns) else {})
            for method, dataset, protocol in self._siblings:
                self._ran_on.setdefault((method, protocol), []).append(dataset)
            self._exact = (timed.groupby(["method", "n_train", "n_features", "n_labels"])["work"]
                           .median().to_dict())
            self._laws = {m: _Law.fit(s[idx], t.to_numpy()[idx])
                          for m, idx in rows.groupby("method").indices.items()}
            self._pooled = _Law.fit(s, t.to_numpy())
            if "protocol" in rows.columns:     # rule 3
                self._exact_in = (timed.groupby(["method", "protocol", "n_train", "n_features",
                                                 "n_labels"])["work"].median().to_dict())
                log_t, protocols = t.to_numpy(), rows["protocol"].to_numpy()
                for m, idx in rows.groupby("method").indices.items():
                    b = _within_slope(s[idx], log_t[idx], protocols[idx])
                    b = self._laws[m].b if b is None else float(np.clip(b, 0.5, 2.0))
                    for p in set(protocols[idx]):
                        mine = idx[protocols[idx] == p]
                        level = float(np.median(log_t[mine] - b * s[mine]))
                        self._levelled[(m, p)] = _Law(level, b)
        else:
            self._siblings, self._exact, self._laws, self._pooled = {}, {}, {}, None

    def _filled(self, dataset):
        """The share of nonzero feature values of ``dataset`` (1 when not known)."""
        value = self._density.get(str(dataset))
        return float(value) if value is not None and value > 0 else 1.0

    @classmethod
    def from_csvs(cls, paths, density=None):
        """A model from every readable results CSV in ``paths`` (:func:`read_history`);
        ``density`` as for the constructor."""
        return cls(read_history(paths), density=density)

    @property
    def known(self):
        return self._pooled is not None

    def seconds(self, method, n_train, n_features, n_labels, fallback=None, dataset=None,
                protocol=None):
        """Predicted seconds of one cell; None when the model has seen no result at all.  A
        method id never seen is predicted as ``fallback`` (its registered name) when that was.
        ``dataset`` and ``protocol`` name the cell, for rules 1 and 2."""
        sibling = self._siblings.get((method, str(dataset), str(protocol)))
        if sibling is None:
            twin = self._twin(method, dataset, str(protocol))
            if twin is not None:
                sibling = self._siblings[(method, twin, str(protocol))]
        if sibling is not None:
            return float(sibling)
        if (method, str(protocol)) in self._levelled:
            same = self._exact_in.get((method, str(protocol), n_train, n_features, n_labels))
            if same is not None:
                return float(same)
            return self._levelled[(method, str(protocol))](
                _log_size(n_train, n_features * self._filled(dataset), n_labels))
        if method not in self._laws and fallback in self._laws:
            method = fallback
        key = (method, n_train, n_features, n_labels)
        if key in self._exact:
            return float(self._exact[key])
        law = self._laws.get(method, self._pooled)
        return None if law is None else law(_log_size(n_train, n_features * self._filled(dataset),
                                                      n_labels))

    def searched_seconds(self, search, method, n_train, n_features, n_labels, fallback=None,
                         dataset=None, protocol=None):
        """Predicted seconds of a cell whose method is searched (``search``: the protocol's
        :class:`~mlbench.methods.tuning.RandomSearch` settings and grid).  Rows of the same
        method under the same protocol (rules 1-2) already hold a whole search; otherwise the
        search is the grid's candidates times ``cv`` fits on the search's rows, at most the
        budget and the fold that crosses it (the budget is checked before each fold), plus the
        refit on the training part.  None when a fit cannot be predicted."""
        from mlbench.methods.tuning import resolve_grid

        if (method, str(dataset), str(protocol)) in self._siblings or \
                self._twin(method, dataset, str(protocol)) is not None:
            return self.seconds(method, n_train, n_features, n_labels, fallback, dataset, protocol)
        refit = self.seconds(method, n_train, n_features, n_labels, fallback, dataset, protocol)
        grid = resolve_grid(search.get("grid") or {}, n_labels, n_features)
        size = int(np.prod([len(v) for v in grid.values()])) if grid else 1
        if refit is None or size <= 1:
            return refit
        cv, rows = int(search.get("cv", 3)), search.get("rows")
        fit_rows = min(n_train, rows or n_train) * (cv - 1) // cv
        one = self.seconds(method, fit_rows, n_features, n_labels, fallback, dataset, protocol)
        return refit + min(float(search.get("budget", np.inf)) + one, size * cv * one)

    def _twin(self, method, dataset, protocol):
        """Rule 2: the dataset with rows of ``method`` under ``protocol`` whose registered shape is
        closest to ``dataset``'s, if within ``TWIN`` in every dimension; else None."""
        if dataset not in self._shapes:
            return None
        target = np.log(np.maximum(self._shapes[dataset], 1))
        best, best_gap = None, np.log1p(TWIN)
        for other in self._ran_on.get((method, protocol), ()):
            if other in self._shapes:
                gap = np.abs(np.log(np.maximum(self._shapes[other], 1)) - target).max()
                if gap <= best_gap:
                    best, best_gap = other, gap
        return best


#: what the commands that would use the paper results say when mlbench is an installed package
NO_SHIPPED = ("the paper results (results/papers) come with a source checkout of mlbench, not "
              "with the installed package")


def checkout_root():
    """The source checkout mlbench is imported from (the directory holding the ``mlbench``
    package beside its ``pyproject.toml`` and ``results``), or None for an installed package."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if os.path.isfile(os.path.join(root, "pyproject.toml")) and \
            os.path.isdir(os.path.join(root, "results")):
        return root
    return None


def shipped_results():
    """The paper results CSVs of the checkout mlbench runs from (``results/papers/*.csv``), or
    ``[]`` for an installed package, which does not hold them (:data:`NO_SHIPPED`)."""
    root = checkout_root()
    if root is None:
        return []
    return sorted(glob.glob(os.path.join(root, "results", "papers", "*.csv")))


def longest_first(items, cost):
    """``items`` sorted by ``cost(item)`` descending (unknown costs last, ties in given order)."""
    keyed = [(cost(it), i, it) for i, it in enumerate(items)]
    return [it for c, i, it in sorted(keyed, key=lambda k: (k[0] is None, -(k[0] or 0.0), k[1]))]


def _fmt_seconds(s):
    if s != s:               # NaN: no row of the cell records its seconds
        return "?"
    return f"{s:,.0f}" if s >= 100 else f"{s:.1f}" if s >= 1 else f"{s:.2f}"


def costs_markdown(paths, root=None, notes=None):
    """``COSTS.md``: per results file and protocol, the median seconds (fit + predict) of a cell and the largest
    peak memory of each method on each dataset, from its ``ok`` rows; paths shown relative to
    ``root``.  A timing or memory column a file lacks (or leaves empty in ok rows) is said under
    its table and appended to the list ``notes``; the figures come from the columns there are."""
    from mlbench.results_file import read_results

    cols = ["dataset", "method", "protocol", "status", "fit_seconds", "predict_seconds",
            "peak_memory_mb", _CPU]
    lines = ["# What the paper runs cost",
             "",
             "Generated by `mlbench costs` from the results files below; do not edit by hand.",
             "Each cell is one single-threaded process: *s* is the median CPU seconds of fit plus",
             "predict over the method's splits on that dataset (the rows' `cpu_seconds`), *MB* the",
             "largest peak resident memory of those cells.  Rows written before mlbench recorded CPU",
             "time give their wall seconds instead, and a figure resting on any such row is marked ~:",
             "those runs used a 2-core machine with two cells at a time, so their seconds include",
             "some contention.  — means no `ok` cell.",
             ""]
    for path in paths:
        frame = read_results([path], required=("dataset", "method", "protocol", "status"))
        frame = frame[[c for c in cols if c in frame.columns]]
        for protocol, df in frame.groupby("protocol"):
            name = os.path.relpath(path, root) if root else str(path)
            table, missing = _costs_table(df, f"`{name}`, protocol `{protocol}`")
            lines += table
            if notes is not None:
                notes += [f"{name}, protocol {protocol}: {m}" for m in missing]
    return "\n".join(lines)


def _missing_columns(df, ok):
    """What ``ok`` (the ok rows of ``df``) lacks for the cost table, one phrase each: a timing
    column matters only for rows without ``cpu_seconds``."""
    missing = []
    cpu = _numbers(ok, _CPU)
    for column in ("fit_seconds", "predict_seconds", "peak_memory_mb"):
        timing = column != "peak_memory_mb"
        empty = _numbers(ok, column).isna() & (cpu.isna() if timing else True)
        if not empty.any():
            continue
        where = (f"no {column} column" if column not in df.columns
                 else f"{int(empty.sum())} ok row(s) with an empty {column}")
        missing.append(f"{where} ({'the other timing column alone counts' if timing else 'memory ?'})")
    return missing


def _costs_table(df, title):
    """The Markdown lines of one protocol's cost table (methods x datasets) and the phrases of
    :func:`_missing_columns`."""
    ok = df[df["status"] == "ok"]
    missing = _missing_columns(df, ok)
    ok = ok.assign(seconds=cell_seconds(ok), wall=_numbers(ok, _CPU).isna(),
                   peak_memory_mb=_numbers(ok, "peak_memory_mb"))
    total = ok["seconds"].sum() / 3600
    lines = [f"## {title}", "", f"{len(ok)} of {len(df)} cells ok; {total:,.1f} core-hours in all.",
             ""]
    if missing:
        lines += [f"Incomplete: {'; '.join(missing)}.", ""]
    datasets = sorted(df["dataset"].unique())
    by = ok.groupby(["method", "dataset"])
    sec, mem, wall = by["seconds"].median(), by["peak_memory_mb"].max(), by["wall"].any()
    order = ok.groupby("method")["seconds"].sum().sort_values(ascending=False).index
    lines.append("| method | " + " | ".join(datasets) + " |")
    lines.append("|---|" + "---:|" * len(datasets))
    for m in order:
        cells = [f"{'~' if wall[m, d] else ''}{_fmt_seconds(sec[m, d])} s / {_fmt_mb(mem[m, d])} MB"
                 if (m, d) in sec.index else "—" for d in datasets]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines, missing


def _fmt_mb(mb):
    return "?" if mb != mb else f"{mb:,.0f}"


def makespan(seconds, workers):
    """Wall seconds of running jobs of ``seconds`` longest first on ``workers`` cores, each job
    going to the core that frees up first (Graham's LPT rule; within 4/3 of the optimum)."""
    import heapq

    loads = [0.0] * max(1, int(workers))
    for s in sorted(seconds, reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + s)
    return max(loads)


def plan_lines(todo, costs, workers, largest=5):
    """The lines ``run --dry-run`` prints: cells, estimated core-hours and wall time, the largest."""
    known = [costs[c.key] for c in todo if costs.get(c.key) is not None]
    unknown = len(todo) - len(known)
    lines = [f"{len(todo)} cell(s) to run; estimated {sum(known) / 3600:,.2f} core-hours, "
             f"about {makespan(known, workers) / 3600:,.2f} h wall on {workers} worker(s)"
             + (f" ({unknown} cell(s) without an estimate)" if unknown else "")]
    if known:
        lines.append("largest cells (estimated seconds):")
        lines += [f"  {costs[c.key]:>10,.0f}  {c.label}" for c in todo[:largest]
                  if costs.get(c.key) is not None]
        groups, datasets = {}, {}
        for c in todo:
            for table, key in ((groups, (c.dataset, c.method)), (datasets, c.dataset)):
                n, total = table.get(key, (0, 0.0))
                table[key] = (n + 1, total + (costs.get(c.key) or 0.0))
        if len(datasets) > 1:          # what a run of one dataset (-d NAME) would take
            lines.append("by dataset (estimated core-hours, cells):")
            lines += [f"  {total / 3600:>10,.2f}  {n:>5}  {dataset}" for dataset, (n, total)
                      in sorted(datasets.items(), key=lambda g: -g[1][1])]
        if len(groups) > 1:
            ranked = sorted(groups.items(), key=lambda g: -g[1][1])
            lines.append("by dataset and method (estimated core-hours, cells):")
            lines += [f"  {total / 3600:>10,.2f}  {n:>5}  {dataset} {method}"
                      for (dataset, method), (n, total) in ranked[:2 * largest]]
            if len(ranked) > 2 * largest:
                rest = ranked[2 * largest:]
                lines.append(f"  {sum(t for _, (_, t) in rest) / 3600:>10,.2f}  "
                             f"{sum(n for _, (n, _) in rest):>5}  {len(rest)} more")
    if checkout_root() is None:
        lines.append(f"estimates come from earlier results in the --out file ({NO_SHIPPED}): "
                     "a rough guide, often within 2x")
    else:
        lines.append("estimates come from earlier results (results/papers and the --out file): "
                     "a rough guide, often within 2x")
    return lines
