"""REPRODUCTION.md from ``results/papers/*.csv`` and ``results/papers/claims.yaml``.

Per paper: the protocol as run (datasets, methods, splits, commands), our table (mean ± sd over
splits of each metric), each textual claim of the paper with whether it holds here and the test that
decides it, and each known deviation with its evidence.  No number of a paper appears: the claims
file holds text only.  :func:`render` is deterministic, so a test regenerates and compares.  A paper
whose results file does not exist yet (a protocol whose grid has not been run) is listed with its
command and its claims marked NOT CHECKED.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from mlbench.errors import ConfigError
from mlbench.metrics import get_measure
from mlbench.report.results import FIXED_COLUMNS
from mlbench.stats.ranks import rank_scores, top_k_counts
from mlbench.stats.ttests import paired_ttest

ALPHA = 0.05
PAPER_KEYS = ("title", "csv", "run", "report")
CLAIM_KEYS = ("text", "test", "method", "metrics")
TESTS = ("rank_first", "best_on_each", "never_worse", "better_than", "best_overall")
#: how ``best_overall`` aggregates the per-measure mean ranks (``rule:`` of a claim)
OVERALL_RULES = ("mean_rank", "top_k")


def load_claims(path):
    from mlbench.safety import load_yaml

    data = load_yaml(path, "claims file")
    if not isinstance(data, dict) or not isinstance(data.get("papers"), dict):
        raise ConfigError(f"{path}: expected a mapping 'papers: {{name: ...}}'")
    for name, spec in data["papers"].items():
        _require(spec, PAPER_KEYS, f"{path}: paper {name}")
        for i, claim in enumerate(spec.get("claims") or [], 1):
            _require(claim, CLAIM_KEYS, f"{path}: paper {name}, claim {i}")
            ds = claim.get("datasets")
            if ds is not None and not (isinstance(ds, list) and ds and
                                       all(isinstance(d, str) for d in ds)):
                raise ConfigError(f"{path}: paper {name}, claim {i}: 'datasets' must be a "
                                  f"non-empty list of dataset names, not {ds!r}")
            if claim["test"] not in TESTS:
                raise ConfigError(f"{path}: paper {name}, claim {i}: unknown test "
                                  f"{claim['test']!r}; choose one of {', '.join(TESTS)}")
            if claim.get("rule", "mean_rank") not in OVERALL_RULES:
                raise ConfigError(f"{path}: paper {name}, claim {i}: unknown rule "
                                  f"{claim['rule']!r}; choose one of {', '.join(OVERALL_RULES)}")
        for i, dev in enumerate(spec.get("deviations") or [], 1):
            _require(dev, ("text", "evidence"), f"{path}: paper {name}, deviation {i}")
    return data["papers"]


def _require(spec, keys, where):
    missing = [k for k in keys if not isinstance(spec, dict) or k not in spec]
    if missing:
        raise ConfigError(f"{where}: missing {', '.join(missing)}")


def _scores(df, metric):
    """datasets x methods means and a (dataset, method) -> per-split Series lookup."""
    per_split = df.pivot_table(index=["dataset", "split"], columns="method", values=metric)
    return per_split.groupby(level="dataset").mean(), per_split


def _gib(metric):
    return get_measure(metric).greater_is_better


def _better(a, b, gib):
    return a > b if gib else a < b


def _best_overall(claim, df):
    """``best_overall``: the methods of ``method`` (a list of k) are the k best of the overall
    ranking, built from each method's average rank over the datasets where every method has a value,
    one per measure of ``metrics``.  ``rule: mean_rank`` (the default) orders the methods by the
    mean of those average ranks; ``rule: top_k`` by the number of measures on which a method has one
    of the k best average ranks (:func:`~mlbench.stats.ranks.top_k_counts`), ties by the mean.  The
    explanation gives both orders."""
    named = [claim["method"]] if isinstance(claim["method"], str) else list(claim["method"])
    ranks, used = [], set()
    for metric in claim["metrics"]:
        if metric not in df.columns:
            return False, f"metric {metric} not in the results"
        means, _ = _scores(df, metric)
        block = means.dropna()
        if block.empty:
            return False, f"{metric}: no dataset has a value of every method"
        used.update(block.index)
        ranks.append(pd.Series(rank_scores(block.values, _gib(metric)).mean(axis=0),
                               index=block.columns))
    table = pd.concat(ranks, axis=1)                      # methods x measures
    mean = table.mean(axis=1)
    absent = [m for m in named if m not in table.index]
    if absent:
        return False, f"method(s) {', '.join(absent)} not in the results"
    k = len(named)
    by_mean = list(mean.sort_values(kind="stable").index)
    shown_mean = ", ".join(f"{m} {mean[m]:.2f}" for m in by_mean[:k + 2])
    where = (f"{len(claim['metrics'])} measures, {len(table)} methods and {len(used)} datasets "
             f"({', '.join(sorted(used))})")
    if claim.get("rule", "mean_rank") == "top_k":
        counts = pd.Series(top_k_counts(table.T.values, k), index=table.index)
        order = sorted(table.index, key=lambda m: (-counts[m], mean[m], m))
        shown = ", ".join(f"{m} {counts[m]}" for m in order[:k + 2])
        return set(order[:k]) == set(named), (
            f"number of measures on which each method has one of the {k} best average ranks, over "
            f"{where}; best: {shown}; by the mean of the average ranks: {shown_mean}")
    return set(by_mean[:k]) == set(named), (f"mean of the average ranks over {where}; "
                                            f"best: {shown_mean}")


def _test(claim, df):
    """(holds: bool, explanation) of one claim on one paper's rows."""
    kind, method = claim["test"], claim["method"]
    if kind == "best_overall":
        return _best_overall(claim, df)
    lines, holds = [], True
    if claim.get("datasets"):          # a claim about the paper's own datasets only
        df = df[df.dataset.isin(claim["datasets"])]
        if df.empty:
            return False, f"none of the datasets {', '.join(claim['datasets'])} in the results"
    for metric in claim["metrics"]:
        if metric not in df.columns:
            return False, f"metric {metric} not in the results"
        means, per_split = _scores(df, metric)
        if method not in means.columns:
            return False, f"method {method} not in the results"
        versus = claim.get("versus") or [m for m in means.columns if m != method]
        gib = _gib(metric)
        if kind == "rank_first":
            block = means.dropna()
            avg = pd.Series(rank_scores(block.values, gib).mean(axis=0), index=block.columns)
            ok = bool(avg[method] <= avg.min() + 1e-12)
            lines.append(f"{metric}: {method} average rank {avg[method]:.2f} over {len(block)} "
                         f"datasets, best {avg.idxmin()} {avg.min():.2f}")
        elif kind == "best_on_each":
            best = means.idxmax(axis=1) if gib else means.idxmin(axis=1)
            ok = bool((best == method).all())
            lines.append(f"{metric}: best mean on {int((best == method).sum())} of {len(best)} "
                         "datasets")
        elif kind in ("never_worse", "better_than"):
            worse, won, total, missing, n_boot = 0, 0, 0, [], 0
            n_splits = per_split.groupby(level="dataset").size().min()
            for d in means.index:
                rows = per_split.loc[d]
                for other in versus:
                    if other not in rows:
                        missing.append(f"{other} on {d}")
                        continue
                    pair = rows[[method, other]].dropna()   # splits both have (a run in progress)
                    if pair.empty:
                        missing.append(f"{other} on {d}")
                        continue
                    total += 1
                    a, b = pair[method].to_numpy(), pair[other].to_numpy()
                    mean_better = _better(a.mean(), b.mean(), gib)
                    boot = (_paired_bootstrap(df, d, method, other, metric)
                            if n_splits < 2 else None)
                    if boot is not None:              # one split: the paired test-row bootstrap
                        sig = bool(boot[1] > 0 or boot[2] < 0)   # an undefined interval: not shown
                        worse += sig and not mean_better
                        won += sig and mean_better
                        n_boot += 1
                    elif n_splits >= 2 and len(pair) >= 2:
                        r = paired_ttest(a, b)
                        sig = r.p < ALPHA
                        worse += sig and not mean_better
                        won += sig and mean_better
                    else:
                        won += mean_better
            ok = (worse == 0 if kind == "never_worse" else won == total) and not missing
            test = ("paired t-test" if n_splits >= 2 else
                    "paired bias-corrected bootstrap 95% interval over the test rows" if n_boot else
                    "means only (one split)")
            lines.append(f"{metric}: {test}, α = {ALPHA}: {method} significantly better in "
                         f"{won}, worse in {worse} of {total} (dataset, method) pairs"
                         if n_splits >= 2 or n_boot else
                         f"{metric}: {test}: {method} better in {won} of {total} pairs")
            if missing:
                lines.append(f"{metric}: not decided on {len(missing)} missing pair(s) "
                             f"({', '.join(missing[:4])}{', ...' if len(missing) > 4 else ''})")
        else:
            raise ConfigError(f"claims: unknown test {kind!r}")
        holds &= ok
    return holds, "; ".join(lines)


def _paired_bootstrap(df, dataset, a, b, metric):
    """(mean, low, high) of a - b on ``dataset``'s single split from the rows' replicates."""
    from mlbench.stats.bootstrap import paired_interval

    rows = df[df.dataset == dataset].set_index("method")
    if a not in rows.index or b not in rows.index:
        return None
    return paired_interval(rows.loc[a], rows.loc[b], metric)


def _cell_text(rows, metric):
    """mean ± sd over splits, or the value [bias-corrected 95% bootstrap interval] for one split
    that stored replicates."""
    from mlbench.stats.bootstrap import row_interval

    values = rows[metric].dropna()
    if values.empty:
        return "—"
    if len(values) == 1:
        ci = row_interval(rows.loc[values.index[0]], metric)
        return f"{values.iloc[0]:.4f}" + ("" if ci is None else f" [{ci[0]:.4f}, {ci[1]:.4f}]")
    return f"{values.mean():.4f} ± {values.std(ddof=1):.4f}"


def _table(df, metrics):
    out = []
    methods = sorted(df.method.unique())
    for metric in metrics:
        arrow = "↑" if _gib(metric) else "↓"
        out += [f"**{metric}** {arrow}", "",
                "| dataset | " + " | ".join(methods) + " |",
                "|---" * (len(methods) + 1) + "|"]
        for d in sorted(df.dataset.unique()):
            part = df[df.dataset == d]
            cells = [_cell_text(part[part.method == m], metric) for m in methods]
            out.append(f"| {d} | " + " | ".join(cells) + " |")
        out.append("")
    return out


def paper_rows(name, spec, path):
    """The ok rows of results file ``path`` that paper ``name``'s claims are tested on (its
    protocol and methods when the claims file names them)."""
    from mlbench.results_file import read_results

    problems = []
    try:
        df = read_results([path], problems)
    except (OSError, ConfigError) as exc:
        raise ConfigError(f"paper {name}: cannot read {path}: {exc}") from None
    df = df[df.status == "ok"]
    if spec.get("protocol"):           # one CSV may hold several protocols of one paper
        df = df[df.protocol == spec["protocol"]]
    if spec.get("methods"):            # the paper's method set (ablations are reported elsewhere)
        df = df[df.method.isin(spec["methods"])]
    if df.empty:
        raise ConfigError(f"paper {name}: no ok row of {spec['csv']} matches its protocol/methods")
    return df, problems


def claim_verdicts(spec, df):
    """``(claim, holds, explanation)`` for each claim of a paper, tested on its rows ``df``."""
    return [(c, *_test(c, df)) for c in spec.get("claims") or []]


def claims_beside(path, protocols):
    """``(paper name, title, verdicts)`` for each paper of a ``claims.yaml`` in the folder of the
    results file ``path`` whose ``csv`` is that file (and whose protocol, if it names one, is among
    ``protocols``): what the dashboard's overview shows.  No claims file there: ``[]``."""
    folder = Path(path).resolve().parent
    claims = folder / "claims.yaml"
    if not claims.is_file():
        return []
    out = []
    for name, spec in load_claims(claims).items():
        if Path(spec["csv"]).name != Path(path).name or (
                spec.get("protocol") and spec["protocol"] not in protocols):
            continue
        out.append((name, spec["title"], claim_verdicts(spec, paper_rows(name, spec, path)[0])))
    return out


def _flags(df):
    """What the rows say of themselves, as the report's notes say it: outputs that ignore the
    features (:func:`mlbench.report.prepare.degenerate_notes`) and hyper-parameters chosen at an
    end of their grid (:func:`mlbench.report.tuning.grid_edge_notes`)."""
    from mlbench.report.prepare import degenerate_notes
    from mlbench.report.tuning import grid_edge_notes

    notes = degenerate_notes(df) + grid_edge_notes(df)
    return ["### What the rows flag", "",
            *([f"- {n}" for n in notes] or ["- nothing: no output that ignores the features, no "
                                            "hyper-parameter chosen at an end of its grid"]), ""]


def _test_name(claim):
    """A claim's test as REPRODUCTION.md names it, with its rule when it sets one."""
    return f"`{claim['test']}`" + (f" (rule `{claim['rule']}`)" if claim.get("rule") else "")


def _not_run_yet(name, spec):
    """The section of a paper whose results file does not exist yet: its claims NOT CHECKED."""
    out = [f"## {name}: {spec['title']}", "",
           f"- results: `{spec['csv']}` does not exist yet", f"- run: `{spec['run']}`",
           f"- report: `{spec['report']}`", "", "### The paper's claims", ""]
    out += [f"- NOT CHECKED (no results yet): {c['text']}  \n  test {_test_name(c)}"
            for c in spec.get("claims") or []]
    out += ["", "### Known deviations", ""]
    devs = spec.get("deviations") or []
    out += [f"- {d['text']}  \n  evidence: {d['evidence']}" for d in devs] or ["- none recorded"]
    return out + [""]


def still_to_run(spec, df):
    """``[line]`` naming the cells of the paper's grid without an ok row in ``df`` (each dataset
    of its ``protocol`` x each method the protocol runs, among the claims file's ``methods`` when
    it lists them), so that a partial grid says what it lacks; ``[]`` when the spec names no
    protocol or the grid is complete."""
    if not spec.get("protocol"):
        return []
    from mlbench.experiment.runner import resolve_methods
    from mlbench.protocols import load_protocol

    protocol = load_protocol(spec["protocol"])
    methods = [e.label for e in resolve_methods(protocol)[0]
               if not spec.get("methods") or e.label in spec["methods"]]
    done = set(zip(df.dataset, df.method))
    todo = {d: [m for m in methods if (d, m) not in done] for d in protocol.datasets}
    todo = {d: ms for d, ms in todo.items() if ms}
    if not todo:
        return []

    def which(ms):
        if 2 * len(ms) <= len(methods):
            return ", ".join(ms)
        return "all" + (" but " + ", ".join(m for m in methods if m not in ms)
                        if len(ms) < len(methods) else "")

    named = [f"{d} ({which(ms)})" for d, ms in todo.items()]
    return [f"- not run yet: {sum(map(len, todo.values()))} of "
            f"{len(protocol.datasets) * len(methods)} dataset x method cells: {'; '.join(named)}; "
            f"`mlbench run --protocol {protocol.name} --dry-run` estimates them and the run "
            f"command runs them"]


def _paper(name, spec, root, allow_stale=False, echo=None):
    from mlbench.experiment.provenance import check_frame

    if not (root / spec["csv"]).exists():       # a protocol whose grid has not been run yet
        return _not_run_yet(name, spec)
    df, problems = paper_rows(name, spec, root / spec["csv"])
    check_frame(df, allow_stale=allow_stale, echo=echo, what=f"paper {name} ({spec['csv']})")
    metrics = [c for c in df.columns if c not in FIXED_COLUMNS and not c.startswith("__")
               and df[c].notna().any()]
    splits = sorted(df.split.unique())
    out = [f"## {name}: {spec['title']}", "",
           f"- results: `{spec['csv']}` ({len(df)} ok cells)",
           f"- protocol: `{', '.join(sorted(df.protocol.unique()))}`; splits: {len(splits)} "
           f"({', '.join(splits)})",
           f"- datasets: {', '.join(sorted(df.dataset.unique()))}",
           f"- methods: {', '.join(sorted(df.method.unique()))}",
           f"- run: `{spec['run']}`", f"- report: `{spec['report']}`",
           *still_to_run(spec, df), ""]
    if problems:        # lines the results file refused: named, so a thin table explains itself
        out += [f"- {len(problems)} line(s) of `{spec['csv']}` left out: "
                + "; ".join(p.split(": ", 1)[1] for p in problems[:5])
                + ("; ..." if len(problems) > 5 else ""), ""]
    out += ["### Our results (mean ± sd over splits; one split: value [bias-corrected 95% "
            "bootstrap interval over the test rows] where the run stored one)", ""]
    out += _table(df, metrics)
    out += _flags(df)
    out += ["### The paper's claims", ""]
    for c, holds, why in claim_verdicts(spec, df):
        out.append(f"- {'HOLDS' if holds else 'DOES NOT HOLD'}: {c['text']}  \n"
                   f"  test {_test_name(c)}"
                   + (f" on {', '.join(c['datasets'])}" if c.get("datasets") else "")
                   + f": {why}")
    out += ["", "### Known deviations", ""]
    devs = spec.get("deviations") or []
    out += [f"- {d['text']}  \n  evidence: {d['evidence']}" for d in devs] or ["- none recorded"]
    return out + [""]


def render(claims_path="results/papers/claims.yaml", root=".", allow_stale=False, echo=None):
    """The text of REPRODUCTION.md.  Rows computed from something no longer current (stale
    provenance, :mod:`mlbench.experiment.provenance`) are refused unless ``allow_stale``; each
    stale (dataset, method) group is named through ``echo``."""
    root = Path(root)
    papers = load_claims(root / claims_path)
    out = ["# Reproduction report", "",
           "Generated by `mlbench reproduction --out REPRODUCTION.md` from `results/papers/*.csv` "
           "and `results/papers/claims.yaml`; do not edit by hand.  The papers' own numbers are not "
           "quoted: compare with the papers' tables yourself.", ""]
    for name, spec in papers.items():
        out += _paper(name, spec, root, allow_stale, echo)
    return "\n".join(out).rstrip() + "\n"
