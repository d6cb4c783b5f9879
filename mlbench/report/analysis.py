"""Everything a report shows, computed once from merged results.

:func:`analyse` turns :class:`~mlbench.report.results.Results` into an :class:`Analysis`: per metric,
the cell means and stds, the tests over datasets on the complete block (datasets where every method
has a value; the datasets used and left out are recorded), the per-dataset tests across splits of the
control against every other method, and RP.  Styles only lay these numbers out; ``json`` dumps them.

Conventions
* Post-hoc tests are read only when the Friedman (Iman-Davenport) test rejects at ``alpha``, as Demšar
  (2006) prescribes; their numbers are kept either way.
* ``control_better`` / ``control_worse`` markers mean a significant difference in that direction.
* The per-dataset test is the paired t-test unless ``corrected-ttest`` is requested; the report names
  the test it used.  A dataset where the control and a method share fewer than two splits gets no test
  (``n/a``) and counts as neither win, tie nor loss; it is listed in the notes.
* Main methods and variants: ``variants`` maps a variant (an ablation, an alternative reading;
  from the protocol) to its parent method.  The tables, the tests over datasets and the control
  comparisons use the other (main) methods; each variant is analysed apart, paired with its parent
  on the datasets where it ran (:class:`VariantAnalysis`).  A variant whose parent is not in the
  results is a main method.
* A method without a value on some of the datasets is left out of the tests over datasets (one note
  naming it and its missing count) rather than the datasets, see :func:`_block_methods`.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mlbench.errors import ConfigError, MlbenchError
from mlbench.report.results import metric_info
from mlbench.stats import (
    bayesian_signed_rank,
    corrected_resampled_ttest,
    friedman_from_ranks,
    mean_ranks_vs_control,
    nemenyi,
    paired_ttest,
    rank_scores,
    relative_performance,
    rp_from_ranks,
    wilcoxon_signed_rank,
    wilcoxon_vs_control,
)
from mlbench.stats.bayesian import DEFAULT_ROPE

#: the note of a metric whose per-dataset split test had nothing to compare (styles may drop it)
NO_COMMON_SPLITS = "no dataset has two or more common splits of the control and another method"

#: the statistics ``--stats`` accepts
STATS = ("friedman", "wilcoxon", "ttest", "corrected-ttest", "bayes")
#: tests over datasets (need at least two complete datasets)
OVER_DATASETS = ("friedman", "wilcoxon", "bayes")
#: protocol spellings that map onto ours
ALIASES = {"bonferroni_dunn": "friedman", "bonferroni-dunn": "friedman", "nemenyi": "friedman",
           "holm": "friedman", "corrected_ttest": "corrected-ttest", "paired_ttest": "ttest",
           "t-test": "ttest", "wilcoxon_holm": "wilcoxon"}


def normalize_stats(names, *, strict):
    """Map stat names onto :data:`STATS`; ``all`` expands.  Unknown names raise when ``strict``,
    otherwise they come back in the second list (a protocol may name tests a CSV cannot support)."""
    out, unknown = [], []
    for name in names:
        name = ALIASES.get(name, name)
        if name == "all":
            out.extend(STATS)
        elif name in STATS:
            out.append(name)
        elif strict:
            close = difflib.get_close_matches(name, STATS + ("all",), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"unknown statistic {name!r}{hint}")
        else:
            unknown.append(name)
    return list(dict.fromkeys(out)), unknown


@dataclass
class MetricAnalysis:
    """The numbers of one metric."""

    metric: str
    display: str
    greater_is_better: bool
    datasets: list
    methods: list
    mean: pd.DataFrame            # dataset x method
    std: pd.DataFrame
    n: pd.DataFrame               # splits per cell
    ranks: pd.DataFrame           # dataset x method, per-dataset ranks (complete datasets only)
    used_datasets: list           # the complete block of the tests over datasets
    left_out: list                # datasets left out of it
    block_methods: list = None    # methods of the tests over datasets (indices below refer to it)
    friedman: object = None       # indices of the following refer to block_methods
    nemenyi: object = None
    vs_control: object = None     # mean-ranks Bonferroni-Dunn / Holm
    wilcoxon: object = None
    bayes: dict = field(default_factory=dict)
    per_dataset: dict = field(default_factory=dict)  # (dataset, method) -> TTestResult
    per_split_wilcoxon: dict = field(default_factory=dict)  # (dataset, method) -> WilcoxonResult
    wtl: dict = field(default_factory=dict)          # method -> [win, tie, loss] of the control
    rp_mean: pd.Series = None
    rp_std: pd.Series = None
    rp: pd.DataFrame = None
    notes: list = field(default_factory=list)
    alpha: float = 0.05
    control: str = ""             # this metric's control (see choose_control)
    control_source: str = ""

    @property
    def friedman_rejects(self):
        """Whether the Iman-Davenport test rejects equivalence at ``alpha`` (gate of the post-hoc tests)."""
        return self.friedman is not None and self.friedman.p_f < self.alpha

    def average_rank(self, method):
        """The method's average rank in the Friedman test, or None when it is not in the block."""
        if self.friedman is None or method not in self.block_methods:
            return None
        return float(self.friedman.average_ranks[self.block_methods.index(method)])

    def mean_rank_marker(self, method):
        """+1 / 0 / -1: control significantly better / not / worse (Friedman + Bonferroni-Dunn)."""
        c = self.vs_control
        if c is None or method not in self.block_methods:
            return None
        j = self.block_methods.index(method)
        if j == c.control:
            return None
        if not self.friedman_rejects:
            return 0
        i = list(c.others).index(j)
        return int(np.sign(c.z[i])) if c.bonferroni[i] else 0

    def wilcoxon_marker(self, method):
        """+1 / 0 / -1: control significantly better / not / worse (Friedman + Wilcoxon, Bonferroni)."""
        w = self.wilcoxon
        if w is None or method not in self.block_methods:
            return None
        j = self.block_methods.index(method)
        if j == w.control:
            return None
        i = list(w.others).index(j)
        if not (self.friedman_rejects and w.bonferroni[i]):
            return 0
        r = w.results[i]
        return 1 if r.r_plus > r.r_minus else -1

    def split_marker(self, dataset, method):
        """+1 / 0 / -1 / None: control significantly better / not / worse / no test, on one dataset."""
        res = self.per_dataset.get((dataset, method))
        if res is None:
            return None
        if res.p >= self.alpha or res.mean_difference == 0:
            return 0
        better = res.mean_difference > 0 if self.greater_is_better else res.mean_difference < 0
        return 1 if better else -1


@dataclass
class Analysis:
    """Every metric's :class:`MetricAnalysis` plus the choices that shaped them."""

    results: object
    metrics: list            # MetricAnalysis
    control: str
    control_source: str
    alpha: float
    stats: list
    split_test: str          # "ttest" or "corrected-ttest"
    rope: float
    seed: int
    notes: list = field(default_factory=list)
    variants: list = field(default_factory=list)   # VariantAnalysis, in the protocol's order

    @property
    def split_test_name(self):
        """The per-dataset test, as the report names it."""
        return "Nadeau-Bengio corrected resampled t-test" if self.split_test == "corrected-ttest" \
            else "paired t-test"


@dataclass
class VariantAnalysis:
    """A variant paired with its parent on the datasets where the variant ran: one
    :class:`MetricAnalysis` per metric with the methods ``[parent, variant]`` and the parent as
    control (its ``per_dataset`` tests, ``split_marker`` and ``wtl`` are the parent's)."""

    variant: str
    parent: str
    metrics: list


def _only(results, methods, datasets=None):
    """``results`` restricted to ``methods`` (and ``datasets``), exact names."""
    import dataclasses

    def cut(frame):
        mask = frame["method"].isin(methods)
        if datasets is not None:
            mask &= frame["dataset"].isin(datasets)
        return frame[mask.to_numpy()]

    return dataclasses.replace(results, frame=cut(results.frame), failures=cut(results.failures))


def split_variants(results, variants):
    """``(main results, {variant: parent})``: the variants of ``variants`` present in the results
    with their parent, and the results without them.  When fewer than two main methods would be
    left (``-m mc,mc-cap10``), nothing is split off: the chosen methods are compared as they are."""
    methods = results.methods
    present = {v: p for v, p in (variants or {}).items() if v in methods and p in methods and v != p}
    if not present or len(methods) - len(present) < 2:
        return results, {}
    return _only(results, [m for m in methods if m not in present]), present


def choose_control(results, metric, requested, protocol_control):
    """The control method and how it was chosen."""
    methods = results.methods
    if requested is not None:
        if requested not in methods:
            close = difflib.get_close_matches(requested, methods, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"control method {requested!r} is not in the results{hint}")
        return requested, "--control"
    if protocol_control and protocol_control in methods:
        return protocol_control, "the protocol's proposed method"
    greater, _ = metric_info(metric)
    cells = results.cells(metric)["mean"].unstack("method").reindex(columns=methods)
    filled = cells.fillna(-np.inf if greater else np.inf).to_numpy()
    avg = rank_scores(filled, greater).mean(axis=0)
    best = methods[int(np.argmin(avg))]
    why = "best average rank on " + metric
    if protocol_control:
        why += f"; the protocol's {protocol_control!r} is not in the results"
    return best, why


def analyse(results, *, metrics=None, control=None, protocol_control=None, alpha=0.05, stats=(),
            strict_stats=(), split_test=None, rope=DEFAULT_ROPE, seed=0, bayes_samples=50_000,
            per_metric_control=True, variants=None):
    """Compute every number of the report.  ``strict_stats``: statistics the user asked for by name;
    when one cannot be computed (too few datasets or splits) it is an error instead of a note.
    ``variants``: ``{variant: parent}`` (the protocol's), analysed apart from the main methods."""
    if not 0.0 < alpha < 1.0:
        raise ConfigError(f"--alpha must lie in (0, 1) (got {alpha})")
    metrics = list(metrics or results.metrics)
    if not metrics:
        raise ConfigError("the results have no metric columns")
    full = results
    results, variants = split_variants(results, variants)
    if control in variants:
        raise ConfigError(f"control method {control!r} is a variant of {variants[control]!r}; "
                          "the control is one of the main methods")
    methods = results.methods
    if len(methods) < 2:
        dropped = [n for n in results.notes if "left out" in n]   # lines that may hold the others
        raise MlbenchError(f"a report compares methods: the results hold {len(methods)} "
                           f"({', '.join(methods)})"
                           + (f"; {'; '.join(dropped)}" if dropped else ""))
    ctrl, source = choose_control(results, metrics[0], control, protocol_control)
    stats = list(dict.fromkeys(list(stats) + list(strict_stats)))
    # each metric has its control: the one asked for, else the protocol's, else the best mean
    # rank on that metric (the best on one metric need not be the best on another)
    # (a paper's table style shows every metric against one control: per_metric_control=False)
    controls = {m: (choose_control(results, m, control, protocol_control) if per_metric_control
                    else (ctrl, source)) for m in metrics}
    notes = list(results.notes)
    if split_test is None:
        split_test = _default_split_test(results, stats, notes)
    out = Analysis(results, [], ctrl, source, alpha, stats, split_test, rope, seed, notes)
    for metric in metrics:
        ma = _analyse_metric(results, metric, methods, controls[metric][0], alpha, stats,
                             strict_stats, split_test, rope, seed, bayes_samples)
        ma.control, ma.control_source = controls[metric]
        out.metrics.append(ma)
    for v, parent in variants.items():
        ran = list(dict.fromkeys(pd.concat([full.frame.loc[full.frame["method"] == v, "dataset"],
                                            full.failures.loc[full.failures["method"] == v, "dataset"]])))
        pair = _only(full, [parent, v], ran)
        out.variants.append(VariantAnalysis(v, parent, [
            _analyse_metric(pair, metric, [parent, v], parent, alpha, (), (), split_test, rope, seed,
                            bayes_samples) for metric in metrics]))
    if variants:
        out.notes.append(f"{len(variants)} variant(s) are left out of the main comparison and paired "
                         "with their parent in the variants table: "
                         + ", ".join(f"{v} ({p})" for v, p in variants.items()))
    return out


def power_notes(n, k, alpha, stats, cd=None):
    """What a test over ``n`` datasets and ``k`` methods cannot show at level ``alpha``, said
    before anyone reads its "not significant" as "no difference":

    * Wilcoxon signed-rank (exact, no ties): the smallest two-sided p-value with n pairs is
      2 / 2^n; against the control with Bonferroni over k - 1 comparisons it must be below
      alpha / (k - 1) to reject;
    * Nemenyi: two average ranks differ by at most k - 1, so a critical difference at least that
      large can never be reached.
    """
    out = []
    m = max(1, k - 1)
    if "wilcoxon" in stats and n >= 1:
        smallest = 2.0 / 2.0 ** n
        if smallest >= alpha / m:
            need = next(i for i in range(1, 64) if 2.0 / 2.0 ** i < alpha / m)
            out.append(f"power: with {n} datasets the Wilcoxon test's smallest p-value is "
                       f"{smallest:.3g}, not below α/{m} = {alpha / m:.3g} (Bonferroni over {m} "
                       f"comparisons): it cannot reject here; {need} datasets would be needed")
    if cd is not None and cd >= k - 1 and k > 1:
        out.append(f"power: the Nemenyi critical difference {cd:.2f} is at least the largest "
                   f"possible rank difference ({k - 1}): no pair can differ significantly with "
                   f"{n} datasets")
    return out


def _default_split_test(results, stats, notes):
    """The per-dataset test across splits: the Nadeau & Bengio corrected resampled t-test whenever
    the training sets of the splits overlap (repeated holdout, k-fold: the plain paired t-test then
    underestimates the variance and rejects too often), unless the plain one is asked for by name,
    which gets a warning; the plain paired t-test when the sizes needed by the correction are not
    in the results."""
    if "corrected-ttest" in stats:
        return "corrected-ttest"
    frame = results.frame
    sized = all(c in frame.columns and frame[c].notna().any() for c in ("n_train", "n_test"))
    if "ttest" in stats:
        if sized:
            notes.append("the plain paired t-test was asked for: with overlapping training sets it "
                         "underestimates the variance across splits and rejects too often "
                         "(Nadeau & Bengio 2003); --stats corrected-ttest corrects it")
        return "ttest"
    return "corrected-ttest" if sized else "ttest"


def _analyse_metric(results, metric, methods, ctrl, alpha, stats, strict, split_test, rope, seed, n_bayes):
    greater, display = metric_info(metric)
    cells = results.cells(metric)
    datasets = results.datasets
    mean = cells["mean"].unstack("method").reindex(index=datasets, columns=methods)
    std = cells["std"].unstack("method").reindex(index=datasets, columns=methods)
    n = cells["n"].unstack("method").reindex(index=datasets, columns=methods)
    block_methods, dropped = _block_methods(mean, methods, ctrl)
    complete = [d for d in datasets if mean.loc[d, block_methods].notna().all()]
    left_out = [d for d in datasets if d not in complete]
    ranks = pd.DataFrame(index=complete, columns=block_methods, dtype=float)
    a = MetricAnalysis(metric, display, greater, datasets, methods, mean, std, n, ranks, complete,
                       left_out, alpha=alpha, block_methods=block_methods)
    a.notes.extend(missing_notes(results.missing(metric), results.partial(metric), len(datasets),
                                 dict(dropped)))
    if left_out:
        a.notes.append(f"tests over datasets use the {len(complete)} datasets with results for every "
                       f"compared method; left out: {', '.join(left_out)}")
    ci = methods.index(ctrl)
    has_control = ctrl in block_methods
    bi = block_methods.index(ctrl) if has_control else None
    if not has_control:
        a.notes.append(f"the control {ctrl} has no {metric} value: no test against it for this metric")
    block = mean.loc[complete, block_methods].to_numpy(dtype=float)

    if len(complete) >= 2 and len(block_methods) >= 2:
        r = rank_scores(block, greater)
        a.ranks.loc[:, :] = r
        a.friedman = friedman_from_ranks(r)
        a.nemenyi = nemenyi(a.friedman.average_ranks, len(complete), alpha)
        if has_control:
            a.vs_control = mean_ranks_vs_control(a.friedman.average_ranks, len(complete), bi, alpha)
            a.wilcoxon = wilcoxon_vs_control(block, bi, greater, alpha)
        if "bayes" in stats and has_control:
            for j, m in enumerate(block_methods):
                if j != bi:
                    a.bayes[m] = bayesian_signed_rank(block[:, bi], block[:, j], greater, rope=rope,
                                                      n_samples=n_bayes, random_state=seed)
        a.notes.extend(power_notes(len(complete), len(block_methods), alpha, stats,
                                   a.nemenyi.cd if a.nemenyi is not None else None))
        rp, rp_mean, rp_std = relative_performance(block, greater)
        a.rp = pd.DataFrame(rp, index=complete, columns=block_methods)
        a.rp_mean = pd.Series(rp_mean, index=block_methods)
        a.rp_std = pd.Series(rp_std, index=block_methods)
    else:
        why = ("tests over datasets need two datasets with results for every method; "
               f"{len(complete)} dataset(s) have them")
        bad = [s for s in strict if s in OVER_DATASETS]
        if bad and len(complete) != 1:
            raise MlbenchError(f"{bad[0]}: {why}")
        if bad:            # one dataset: the per-split paired tests below are the comparison
            why = (f"{', '.join(bad)} compares methods over datasets and needs at least two; with "
                   "one dataset the methods are compared by the per-split paired tests instead")
        a.notes.append(why)
        if len(complete) == 1 and len(block_methods) >= 2:  # RP and ranks are defined on one dataset
            r = rank_scores(block, greater)
            a.ranks.loc[:, :] = r
            a.rp = pd.DataFrame(rp_from_ranks(r), index=complete, columns=block_methods)
            a.rp_mean = a.rp.mean(axis=0)
            a.rp_std = a.rp.std(axis=0, ddof=0)

    tested = 0
    for d in datasets:
        splits = results.per_split(metric, d)
        if ctrl not in splits.columns:
            continue
        n_train, n_test = results.sizes(d)
        for j, m in enumerate(methods):
            if j == ci or m not in splits.columns:
                continue
            pair = splits[[ctrl, m]].dropna()
            if len(pair) < 2:
                continue
            if split_test == "corrected-ttest":
                if not (np.isfinite(n_train) and np.isfinite(n_test)):
                    raise MlbenchError("the corrected resampled t-test needs the n_train and n_test columns")
                res = corrected_resampled_ttest(pair[ctrl], pair[m], n_train, n_test)
            else:
                res = paired_ttest(pair[ctrl], pair[m])
            a.per_dataset[(d, m)] = res
            try:        # the rank test over the same split pairs, beside the t-test
                a.per_split_wilcoxon[(d, m)] = wilcoxon_signed_rank(
                    pair[ctrl].to_numpy(), pair[m].to_numpy(), greater)
            except MlbenchError:
                pass
            tested += 1
    for j, m in enumerate(methods):
        if j == ci:
            continue
        counts = [0, 0, 0]
        for d in datasets:
            mk = a.split_marker(d, m)
            if mk is not None:
                counts[{1: 0, 0: 1, -1: 2}[mk]] += 1
        a.wtl[m] = counts
    if tested == 0:
        why = NO_COMMON_SPLITS
        bad = [s for s in strict if s in ("ttest", "corrected-ttest")]
        if bad:
            raise MlbenchError(f"{bad[0]}: {why}")
        a.notes.append(why)
    else:
        untested = sorted({d for d in datasets for m in methods if m != ctrl
                           and (d, m) not in a.per_dataset and np.isfinite(mean.loc[d, m])
                           and np.isfinite(mean.loc[d, ctrl])})
        if untested:
            a.notes.append(f"no per-dataset test (fewer than two common splits) on: {', '.join(untested)}")
    return a


def _listing(names, most=4):
    names = list(names)
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def missing_notes(missing, partial, n_datasets, dropped=None):
    """One note per method that lacks cells (``missing``: the dicts of ``Results.missing``; the
    reasons with the datasets they hold for) or has fewer splits on some datasets (``partial``),
    saying when it is left out of the tests over datasets (``dropped``: method -> reason)."""
    dropped = dict(dropped or {})
    by_method, short = {}, {}
    for cell in missing:
        by_method.setdefault(cell["method"], {}).setdefault(cell["reason"], []).append(cell["dataset"])
    for cell in partial:
        short.setdefault(cell["method"], []).append(f"{cell['dataset']} {cell['splits']} of {cell['of']}")
    notes = []
    for m in dict.fromkeys(list(by_method) + list(short) + list(dropped)):
        parts = []
        if m in by_method:
            k = sum(len(ds) for ds in by_method[m].values())
            if k == n_datasets and len(by_method[m]) == 1:
                parts.append(f"no value on any of the {k} datasets ({next(iter(by_method[m]))})")
            else:
                parts.append(f"no value on {k} of {n_datasets} datasets (" + "; ".join(
                    f"{_listing(ds)}: {why}" for why, ds in by_method[m].items()) + ")")
        if m in short:
            parts.append(f"fewer splits on {len(short[m])} dataset(s) ({_listing(short[m])} splits)")
        line = f"{'missing' if m in by_method else 'incomplete'}: {m} has " + "; ".join(parts) \
            if parts else f"{m}: {dropped[m]}"
        if m in dropped:
            line += "; left out of the tests over datasets"
        notes.append(line)
    return notes


def _block_methods(mean, methods, ctrl):
    """The methods of the tests over datasets and the ones left out, with the reason.

    The Friedman test and its relatives need a complete block.  Methods without any value are left
    out first.  The block's datasets are those where the control and at least half of the other
    methods have a value; every method lacking one of them is left out (not the datasets it lacks),
    so one method run on a few datasets cannot shrink the comparison of the others.  Only when
    that leaves fewer than two methods does the block fall back to a greedy choice: the method
    (never the control) missing on the most datasets is left out whenever that gives a larger
    block (datasets x methods) than leaving out the datasets it lacks.  The report names the
    methods and the datasets left out."""
    keep = [m for m in methods if mean[m].notna().any()]
    dropped = [(m, "no results") for m in methods if m not in keep]
    if len(keep) > 2:
        have = mean[keep].notna()
        rows = have.sum(axis=1) * 2 >= len(keep)
        if ctrl in keep:
            rows &= have[ctrl]
        lacking = {m: int((~have.loc[rows, m]).sum()) for m in keep if m != ctrl}
        rest = [m for m in keep if lacking.get(m, 0) == 0]
        if len(rest) >= 2 and rows.any():
            n = int(rows.sum())
            return rest, dropped + [(m, f"missing on {lacking[m]} of {n} datasets")
                                    for m in keep if m not in rest]
    while len(keep) > 2:
        size = int(mean[keep].notna().all(axis=1).sum()) * len(keep)
        gaps = {m: int(mean[m].isna().sum()) for m in keep if m != ctrl}
        if not gaps:
            break
        worst = max(gaps, key=lambda m: (gaps[m], -keep.index(m)))
        rest = [m for m in keep if m != worst]
        if gaps[worst] == 0 or int(mean[rest].notna().all(axis=1).sum()) * len(rest) <= size:
            break
        keep = rest
        dropped.append((worst, f"missing on {gaps[worst]} of {len(mean)} datasets"))
    return keep, dropped
