"""What one cell of the bogatinovski2022 protocol costs on the larger datasets: the search's fold
fit, the refit on the whole training part and the prediction of the test part, per method, in
CPU seconds and peak memory; measured where it fits under a cap, else extrapolated.

    MLBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/study_costs.py \
        [--datasets bibtex,corel5k] [--methods br,mlknn] [--cap 1200] [--cell-budget 2400] \
        [--set br:C=2] [--json costs.json] [--table costs.json]

Every measurement is one fresh process (one thread: ``OMP_NUM_THREADS=1`` and friends) that
loads the dataset, takes the protocol's split and preprocessing (``get_split``, the protocol's
``Pipeline`` fitted on the training part, as ``mlbench run`` builds a cell) and runs:

* ``search``: one fold of the search: the method fitted on 667 of the search's 1,000 stratified
  training rows, predicting the other 333 (the protocol's ``cv: 3, rows: 1000``);
* ``refit``: the method fitted on ``n`` training rows (a seeded random subsample, every label
  kept), then the test part's predictions and scores, as the cell asks for them (inside the
  protocol's ``RandomSearch`` with a one-point grid: the same thresholding, no search).

The method's parameters are the middle of the protocol's grid (value ``len(values) // 2`` of each
searched parameter, resolved for the dataset's labels and features; e.g. ``C=32``,
``gamma=2**-7`` for the SVC methods, ``labelset_size=L/2`` and ``n_labelsets=min(100, 2L)`` for
rakel2) unless ``--set METHOD:NAME=VALUE`` says otherwise.  CPU seconds are ``getrusage`` user +
system of the process (fit and predict apart); peak memory is its ``ru_maxrss`` (data included;
the JSON also holds the resident set after loading, ``base_mb``).  Each process runs under an
``RLIMIT_CPU`` of ``--cap`` seconds.  The refit runs on growing subsamples (1,000, 2,000, 4,000,
... rows, then all) while the next size is predicted to fit in the cap and the cell's
``--cell-budget``; when the whole training part was not reached, fit, predict and memory growth
are extrapolated separately with the exponent of the two largest sizes (``cost ~ n**b``, b at
least 1) and the table says ``extrap.`` with the exponent.

A cell's cost in the table: search = CPU of the first candidate's 3 folds when they exceed the
budget (the first candidate is always scored in full), else min(grid size x 3 folds, budget +
one fold); refit and predict as measured or extrapolated.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

PROTOCOL = "bogatinovski2022"
DATASETS = ("bibtex", "corel5k", "delicious", "ng20", "ohsumed", "tmc2007-500-mldr")
METHODS = ("br", "cc", "clr", "homer", "lp", "pst", "rakel2", "mbr", "mlknn", "mlaram", "mltsvm",
           "bpnn", "clems", "pct", "rfpct", "rfdtbr", "ada300")
SEARCH_ROWS, FOLDS = 1000, 3


def _cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def chosen_params(entry, n_labels, n_features, overrides=()):
    """The protocol entry's fixed params plus the middle value of each searched parameter."""
    from mlbench.methods.tuning import resolve_grid

    grid = resolve_grid(entry.search or {}, n_labels, n_features)
    point = {k: v[len(v) // 2] for k, v in grid.items()}
    for item in overrides:
        name, _, value = item.partition("=")
        try:
            point[name] = json.loads(value)
        except ValueError:
            point[name] = value
    size = int(math.prod(len(v) for v in grid.values())) if grid else 1
    return point, size


def split_data(proto, dataset):
    """(X, Y) of the training part and X of the test part, preprocessed as a cell does; kept in
    $MLBENCH_DATA/study_costs/ (the split takes a while on the larger sets)."""
    import numpy as np
    import scipy.sparse as sp

    from mlbench.data import load_dataset
    from mlbench.data.fetch import data_dir
    from mlbench.data.preprocess import Pipeline, take_rows
    from mlbench.data.splits import get_split, split_id

    cache = data_dir() / "study_costs" / dataset     # delete it when the dataset changes
    if (cache / "Y.npy").exists():
        load = [sp.load_npz(cache / f"{k}.npz") if (cache / f"{k}.npz").exists()
                else np.load(cache / f"{k}.npy") for k in ("X", "Xt")]
        return load[0], np.load(cache / "Y.npy"), load[1]
    ds = load_dataset(dataset)
    split = get_split(ds, proto.split, protocol=proto.name, seed=proto.seed,
                      split=split_id(proto.split.scheme, 0))
    pipe = Pipeline(proto.preprocess).fit(take_rows(ds, split.training_part), full=ds)
    train, test = pipe.train_, pipe.transform(take_rows(ds, split.test))
    Y = np.asarray(train.Y.toarray() if hasattr(train.Y, "toarray") else train.Y)
    cache.mkdir(parents=True, exist_ok=True)
    for k, v in (("X", train.X), ("Xt", test.X)):
        sp.save_npz(cache / f"{k}.npz", v) if sp.issparse(v) else np.save(cache / f"{k}.npy", v)
    np.save(cache / "Y.npy", Y)
    return train.X, Y, test.X


def training_shape(method, dataset):
    """(rows of the dataset's training part, the method's grid size there); the split is
    computed and cached on first use."""
    from mlbench.protocols import load_protocol

    proto = load_protocol(PROTOCOL)
    X, Y, _ = split_data(proto, dataset)
    entry = next(e for e in proto.methods if e.label == method)
    return int(Y.shape[0]), chosen_params(entry, Y.shape[1], X.shape[1])[1]


def child(method, dataset, rows, mode, overrides):
    """Run one measurement in this process; print its JSON line."""
    import numpy as np

    from mlbench.data.splits import iterative_stratification
    from mlbench.experiment import outputs
    from mlbench.methods import registry
    from mlbench.methods.tuning import RandomSearch
    from mlbench.protocols import load_protocol

    proto = load_protocol(PROTOCOL)
    entry = next(e for e in proto.methods if e.label == method)
    X, Y, Xt = split_data(proto, dataset)
    n_full, L = Y.shape
    point, size = chosen_params(entry, L, X.shape[1], overrides)
    rng = np.random.RandomState(0)
    if mode == "search":
        idx = np.arange(n_full)           # the search's subsample, as RandomSearch draws it
        if n_full > SEARCH_ROWS:
            part = iterative_stratification(Y, 2, rng, sizes=(SEARCH_ROWS, n_full - SEARCH_ROWS))
            idx = np.flatnonzero(part == 0)
        fold = iterative_stratification(Y[idx], FOLDS, rng)
        fit_rows, pred_rows = idx[fold != 0], idx[fold == 0]
        Xf, Yf, Xp = X[fit_rows], Y[fit_rows], X[pred_rows]
    else:
        keep = np.sort(rng.permutation(n_full)[:rows]) if rows < n_full else np.arange(n_full)
        Xf, Yf, Xp = X[keep], Y[keep], Xt
    base_mb = _rss_mb()
    est = registry.make(entry.name, random_state=0, **dict(entry.params))
    search = {k: v for k, v in proto.search_of(entry).items() if k != "grid"}
    est = RandomSearch(est, grid={k: [v] for k, v in point.items()}, random_state=0, **search)
    c0 = _cpu()
    est.fit(Xf, Yf)
    c1 = _cpu()
    n, L = Xp.shape[0], Y.shape[1]
    outputs.method_predictions(est, Xp, n, L, method)
    outputs.method_scores(est, Xp, n, L, method)
    c2 = _cpu()
    print(json.dumps({"method": method, "dataset": dataset, "mode": mode, "rows": int(Xf.shape[0]),
                      "n_train": int(n_full), "n_test": int(Xt.shape[0]), "labels": int(L),
                      "features": int(X.shape[1]), "grid_size": size,
                      "params": {k: (v if isinstance(v, (int, float, str)) else repr(v))
                                 for k, v in point.items()},
                      "fit_cpu": round(c1 - c0, 3), "predict_cpu": round(c2 - c1, 3),
                      "peak_mb": round(_rss_mb(), 1), "base_mb": round(base_mb, 1)}), flush=True)


def run_child(method, dataset, rows, mode, cap, overrides):
    """One measurement in a fresh process under RLIMIT_CPU = cap: its dict, or None if killed."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child", method, dataset, str(rows), mode]
    for o in overrides:
        cmd += ["--set", f"{method}:{o}"]
    limit = max(1, int(cap))

    def preexec():
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))

    t0 = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=preexec)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or [""])[-1][:200]
        print(f"  {method} {dataset} {mode} rows={rows}: stopped (status {proc.returncode}, "
              f"{time.time() - t0:.0f} s wall) {tail}", file=sys.stderr, flush=True)
        return None
    out = json.loads(lines[-1])
    print(f"  {method} {dataset} {mode} rows={out['rows']}: fit {out['fit_cpu']:.1f} s, predict "
          f"{out['predict_cpu']:.1f} s CPU, peak {out['peak_mb']:.0f} MB", file=sys.stderr,
          flush=True)
    return out


def _exponent(a, b, key):
    """log-log slope of ``key`` between measurements a and b (rows), at least 1."""
    ya, yb = max(a[key], 1e-3), max(b[key], 1e-3)
    return max(1.0, math.log(yb / ya) / math.log(b["rows"] / a["rows"]))


def measure_cell(method, dataset, cap, cell_budget, overrides):
    """Search fold + refits on growing subsamples; a dict describing the cell's cost."""
    n_train, grid_size = training_shape(method, dataset)
    cell = {"method": method, "dataset": dataset, "steps": [], "cap": cap, "n_train": n_train,
            "grid_size": grid_size}
    spent = 0.0
    fold = run_child(method, dataset, 0, "search", min(cap, cell_budget), overrides)
    if fold is None:
        cell["search_fold"] = None
        return cell
    cell["search_fold"] = fold
    spent += fold["fit_cpu"] + fold["predict_cpu"]
    n_full = fold["n_train"]
    sizes = [r for r in (1000, 2000, 4000, 8000, 16000) if r < n_full] + [n_full]
    for rows in sizes:
        steps = cell["steps"]
        if steps:
            last = steps[-1]
            b = _exponent(steps[-2], last, "fit_cpu") if len(steps) > 1 else 2.0
            guess = (last["fit_cpu"] + last["predict_cpu"]) * (rows / last["rows"]) ** b
            if guess > min(cap, cell_budget - spent):
                break
        out = run_child(method, dataset, rows, "refit", min(cap, max(1, cell_budget - spent)),
                        overrides)
        if out is None:
            cell["stopped_at"] = rows
            break
        steps.append(out)
        spent += out["fit_cpu"] + out["predict_cpu"]
    return cell


def _search(per_fold, grid_size, budget):
    """CPU seconds of the search: none without a grid; the first candidate's folds in full; then
    candidates until the budget is used (the fit running when it is used up finishes)."""
    if grid_size == 1:
        return 0.0
    first = FOLDS * per_fold
    return first if first >= budget else min(grid_size * first, budget + per_fold)


def summarise(cell, budget=300.0, cap=None):
    """(search s, refit s, predict s, peak MB, how) of a measured cell, or None.

    A cell whose search fold or 1,000-row refit exceeded the cap gets lower bounds (``how``
    starts with ">"): the cap, grown linearly to the training part's rows (every method here
    grows at least linearly)."""
    fold, steps = cell.get("search_fold"), cell.get("steps") or []
    cap = cell.get("cap", cap)
    if not fold or not steps:
        if cap is None:
            return None
        n_full = (fold or {}).get("n_train") or cell.get("n_train")
        rows = 1000 if fold else 667
        per_fold = fold["fit_cpu"] + fold["predict_cpu"] if fold else cap
        search = (_search(per_fold, cell.get("grid_size", 2), budget) if fold
                  else FOLDS * cap)
        if cell.get("grid_size", 2) == 1:      # no search: the fold only measured a small fit
            search = 0.0
        refit = cap * n_full / rows if n_full else cap
        return search, refit, 0.0, float("nan"), f">the {rows}-row {'refit' if fold else 'search fold'} exceeded {cap:.0f} CPU s"
    search = _search(fold["fit_cpu"] + fold["predict_cpu"], fold["grid_size"], budget)
    last, n_full = steps[-1], fold["n_train"]
    if last["rows"] >= n_full:
        return search, last["fit_cpu"], last["predict_cpu"], last["peak_mb"], "measured"
    ref = steps[-2] if len(steps) > 1 else fold
    scale = n_full / last["rows"]
    bf = _exponent(ref, last, "fit_cpu")
    # the search fold predicts 333 training rows, not the test part: predictions grow with the
    # model (support vectors, neighbours, ...), taken as linear in the rows
    bp = _exponent(ref, last, "predict_cpu") if ref is not fold else 1.0
    grow_a, grow_b = (max(s["peak_mb"] - s["base_mb"], 1.0) for s in (ref, last))
    # memory: at least linear, at most quadratic (a Gram matrix) in the rows
    bm = min(2.0, max(1.0, math.log(grow_b / grow_a) / math.log(last["rows"] / ref["rows"])))
    if ref is fold:     # the fold's memory holds 333 predicted rows, not the test part
        bm = 1.0
    peak = last["base_mb"] + grow_b * scale ** bm
    how = f"extrap. from {last['rows']} rows (fit n^{bf:.1f})"
    return (search, last["fit_cpu"] * scale ** bf, last["predict_cpu"] * scale ** bp, peak, how)


def table(cells, budget=300.0):
    head = (f"{'method':8} {'dataset':17} {'search s':>9} {'refit s':>10} {'predict s':>10} "
            f"{'cell h':>7} {'peak MB':>8}  how")
    lines = [head, "-" * len(head)]
    total = 0.0
    for c in cells:
        s = summarise(c, budget)
        if s is None:
            lines.append(f"{c['method']:8} {c['dataset']:17} not measured")
            continue
        search, fit, pred, peak, how = s
        hours = (search + fit + pred) / 3600
        total += hours
        gt = ">" if how.startswith(">") else " "
        lines.append(f"{c['method']:8} {c['dataset']:17} {gt}{search:8.0f} {gt}{fit:9.0f} "
                     f"{pred:10.0f} {gt}{hours:6.2f} {peak:8.0f}  {how.lstrip('>')}")
    lines.append(f"total of the rows (lower bounds counted as their bound): {total:.1f} core-hours")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--cap", type=float, default=1200.0,
                   help="CPU seconds one measurement may use (RLIMIT_CPU)")
    p.add_argument("--cell-budget", type=float, default=2400.0,
                   help="CPU seconds all the measurements of one method x dataset may use")
    p.add_argument("--set", action="append", default=[], metavar="METHOD:NAME=VALUE",
                   help="a parameter instead of the grid's middle value (JSON value)")
    p.add_argument("--json", help="append each cell's measurements to this JSON-lines file")
    p.add_argument("--table", help="only print the table of this JSON-lines file")
    p.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        method, dataset, rows, mode = a.child
        child(method, dataset, int(rows), mode,
              [s.split(":", 1)[1] for s in a.set if s.split(":", 1)[0] == method])
        return 0
    if a.table:
        with open(a.table) as fh:
            print(table([json.loads(ln) for ln in fh if ln.strip()]))
        return 0
    cells, done = [], set()
    if a.json and os.path.exists(a.json):   # resume: the cells already in the file
        with open(a.json) as fh:
            cells = [json.loads(ln) for ln in fh if ln.strip()]
        done = {(c["method"], c["dataset"]) for c in cells}
    for dataset in a.datasets.split(","):
        for method in a.methods.split(","):
            if (method, dataset) in done:
                continue
            own = [s.split(":", 1)[1] for s in a.set if s.split(":", 1)[0] == method]
            cell = measure_cell(method, dataset, a.cap, a.cell_budget, own)
            cells.append(cell)
            if a.json:
                with open(a.json, "a") as fh:
                    fh.write(json.dumps(cell) + "\n")
    print(table(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
