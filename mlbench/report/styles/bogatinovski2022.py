"""``bogatinovski2022``: the tables of the Bogatinovski et al. (2022) comparative study.

* one table per measure: methods as rows (best mean rank first), datasets as columns, the test
  value (one split per dataset), the best per dataset highlighted, and the method's mean rank;
* the mean ranks of every method on every measure, with two overall rankings over the predictive
  measures (fit and predict times are shown, not counted): the mean of a method's mean ranks, and
  the number of measures on which it has one of the five best mean ranks (``Top 5``), the reading
  of the study's "best across the spectrum of performance measures" that its published scores
  reproduce (:func:`~mlbench.stats.ranks.top_k_counts`);
* the measure families (example-based, label-based, ranking-based, efficiency): each method's mean
  rank over a family's measures;
* the critical differences per measure, as text: the Nemenyi CD and its groups of methods that are
  not significantly different (the bars of a Nemenyi CD diagram), and the Bonferroni-Dunn CD around
  the measure's best method with the methods inside it (the band of a Bonferroni-Dunn diagram).
  ``--cd-diagram FILE.png --cd-test nemenyi|bonferroni-dunn`` draws the diagrams themselves.

The Friedman test's table follows (``stats: [friedman]``).  Each measure's control, for the
Bonferroni-Dunn test, is its best-ranked method (the study has no proposed method).
"""
from __future__ import annotations

import numpy as np

from mlbench.report.styles.common import arrow, friedman_line
from mlbench.report.table import Cell, Row, Table, fmt, mark_best
from mlbench.stats.ranks import top_k_counts

#: Friedman with its two post-hoc tests, as the study reports them
DEFAULT_STATS = ("friedman",)
#: no proposed method: each measure's Bonferroni-Dunn control is its best-ranked method
PER_METRIC_CONTROL = True
#: the measure families, our grouping of the study's measures (``efficiency`` is never counted in
#: the overall ranking)
FAMILIES = {
    "example-based": ("accuracy", "example_precision", "example_recall", "example_f1",
                      "subset_accuracy", "hamming_loss"),
    "label-based": ("micro_precision", "micro_recall", "micro_f1", "macro_precision",
                    "macro_recall", "macro_f1", "micro_auc", "micro_auc_pr"),
    "ranking-based": ("one_error", "coverage", "ranking_loss", "average_precision"),
    "efficiency": ("fit_seconds", "predict_seconds"),
}
EFFICIENCY = set(FAMILIES["efficiency"])
#: the study names its five best methods: ``Top 5`` counts the measures where a method is among them
TOP_K = 5


def extra_metrics(results):
    """The study's efficiency measures: training and testing time."""
    return [c for c in FAMILIES["efficiency"] if c in results.frame.columns]


def build(analysis):
    tables = []
    for ma in analysis.metrics:
        t = _measure_table(ma)
        # a note already given under an earlier measure's table (one split per dataset) once
        t.notes.extend(n for n in ma.notes if not any(n in u.notes for u in tables))
        tables.append(t)
    tables.append(_ranks_table(analysis))
    families = _families_table(analysis)
    if families is not None:
        tables.append(families)
    tables.append(_cd_table(analysis))
    return tables


def _order(ma):
    """The measure's methods, best mean rank first (methods without a rank last, by name)."""
    ranked = [(ma.average_rank(m), m) for m in ma.methods]
    return [m for r, m in sorted(ranked, key=lambda t: (t[0] is None, t[0] or 0.0, t[1]))]


def _measure_table(ma):
    methods = _order(ma)
    t = Table(f"bogatinovski2022:{ma.metric}", f"{ma.display} {arrow(ma)}: test value per dataset "
              "(mean over splits) and mean rank", ["Method"] + list(ma.datasets) + ["Mean rank"])
    columns = []
    for d in ma.datasets:
        col = [Cell(fmt(ma.mean.loc[d, m]), float(ma.mean.loc[d, m])) for m in methods]
        mark_best(col, ma.greater_is_better)
        columns.append(col)
    ranks = [Cell(fmt(ma.average_rank(m), 2), ma.average_rank(m)) for m in methods]
    mark_best(ranks, greater_is_better=False)
    for j, m in enumerate(methods):
        t.rows.append(Row(m, [col[j] for col in columns] + [ranks[j]]))
    t.notes.append(friedman_line(ma))
    return t


def _rank_matrix(analysis):
    """method -> {metric: mean rank}, the methods in the order of their first appearance."""
    out = {}
    for ma in analysis.metrics:
        for m in ma.methods:
            r = ma.average_rank(m)
            out.setdefault(m, {})
            if r is not None:
                out[m][ma.metric] = r
    return out


def overall_ranking(analysis):
    """``[(method, mean of its mean ranks over the predictive measures, measures counted)]``, best
    first: the study's overall ranking across measures (efficiency measures left out).  A method
    ranked on fewer measures than the most-ranked one comes after every fully ranked method."""
    ranks = _rank_matrix(analysis)
    rows = []
    for m, by_metric in ranks.items():
        values = [r for k, r in by_metric.items() if k not in EFFICIENCY]
        if values:
            rows.append((m, float(np.mean(values)), len(values)))
    most = max((n for _, _, n in rows), default=0)
    return sorted(rows, key=lambda t: (t[2] < most, t[1], t[0]))


def _ranks_table(analysis):
    metrics = list(analysis.metrics)
    overall = overall_ranking(analysis)
    ranks = _rank_matrix(analysis)
    predictive = [ma.metric for ma in metrics if ma.metric not in EFFICIENCY]
    top = top_k_counts([[ranks[m].get(metric, np.nan) for m, _, _ in overall]
                        for metric in predictive], TOP_K)
    t = Table("bogatinovski2022:ranks", "Mean rank of each method on each measure (Friedman ranks "
              "over the datasets; 1 = best) and the overall rankings over the predictive measures",
              ["Method"] + [ma.metric for ma in metrics] + ["Overall", "Position", f"Top {TOP_K}"])
    columns = []
    for ma in metrics:
        col = [Cell(fmt(ranks[m].get(ma.metric), 2), ranks[m].get(ma.metric))
               for m, _, _ in overall]
        mark_best(col, greater_is_better=False)
        columns.append(col)
    top_col = [Cell(str(c), int(c)) for c in top]
    mark_best(top_col, greater_is_better=True)
    for i, (m, mean, n) in enumerate(overall):
        cells = [col[i] for col in columns]
        cells.append(Cell(fmt(mean, 2) + ("" if n == overall[0][2] else f" ({n})"), mean,
                          best=i == 0))
        cells.append(Cell(str(i + 1), i + 1))
        cells.append(top_col[i])
        t.rows.append(Row(m, cells))
    if any(n != overall[0][2] for _, _, n in overall):
        t.notes.append("(n): the method has a rank on n measures only (a measure whose tests left it "
                       "out); it is placed after the methods ranked on every measure")
    t.notes.append("Overall: the mean of the mean ranks over the predictive measures (fit_seconds "
                   "and predict_seconds are not counted)")
    t.notes.append(f"Top {TOP_K}: on how many of the {len(predictive)} predictive measures the "
                   f"method has one of the {TOP_K} best mean ranks (ties at the {TOP_K}th place all "
                   "count); applied to the study's published scores this count gives the five "
                   "methods the study names as best, the mean of the mean ranks does not "
                   "(docs/bogatinovski2022.md)")
    return t


def _families_table(analysis):
    ranks = _rank_matrix(analysis)
    present = {ma.metric for ma in analysis.metrics}
    families = {f: [m for m in ms if m in present] for f, ms in FAMILIES.items()}
    families = {f: ms for f, ms in families.items() if ms}
    if not families:
        return None
    overall = overall_ranking(analysis)
    t = Table("bogatinovski2022:families", "Mean rank per measure family (mean of the mean ranks "
              "of the family's measures)", ["Method"] + list(families))
    columns = []
    for f, ms in families.items():
        col = []
        for m, _, _ in overall:
            values = [ranks[m][k] for k in ms if k in ranks[m]]
            v = float(np.mean(values)) if values else None
            col.append(Cell(fmt(v, 2), v))
        mark_best(col, greater_is_better=False)
        columns.append(col)
    for i, (m, _, _) in enumerate(overall):
        t.rows.append(Row(m, [col[i] for col in columns]))
    t.notes.append("families: " + "; ".join(f"{f}: {', '.join(ms)}" for f, ms in families.items()))
    return t


def _cd_table(analysis):
    from mlbench.report.cd_diagram import cliques
    from mlbench.stats import critical_difference

    t = Table("bogatinovski2022:cd", f"Critical differences (Demšar 2006), α = {analysis.alpha:g}: "
              "Nemenyi groups not significantly different; methods within the Bonferroni-Dunn CD of "
              "the best-ranked method", ["Measure", "N", "k", "CD Nemenyi", "Nemenyi groups",
                                         "CD Bonferroni-Dunn", "Best", "Within its CD"])
    for ma in analysis.metrics:
        f = ma.friedman
        if f is None:
            t.rows.append(Row(ma.metric, [Cell(str(len(ma.used_datasets)))] + [Cell("—")] * 6
                              + [Cell("too few complete datasets")]))
            continue
        k, n = f.n_methods, f.n_datasets
        ranks = np.asarray(f.average_ranks, dtype=float)
        names = ma.block_methods
        cd_n = critical_difference(k, n, analysis.alpha, "nemenyi")
        cd_b = critical_difference(k, n, analysis.alpha, "bonferroni-dunn")
        groups = cliques(ranks, cd_n)
        best = int(np.argmin(ranks))
        within = [names[j] for j in np.argsort(ranks, kind="stable")
                  if j != best and ranks[j] - ranks[best] < cd_b]
        t.rows.append(Row(ma.metric, [
            Cell(str(n), n), Cell(str(k), k), Cell(fmt(cd_n, 3), cd_n),
            Cell(" | ".join(", ".join(names[j] for j in g) for g in groups) or "none"),
            Cell(fmt(cd_b, 3), cd_b), Cell(names[best]),
            Cell((", ".join(within) or "none") if ma.friedman_rejects else "(no test)")]))
    t.notes.append("(no test): the Friedman test does not reject equivalence, so no post-hoc test "
                   "applies; the Nemenyi groups are shown for reference")
    t.notes.append("draw the diagrams with `mlbench report FILE --style bogatinovski2022 "
                   "--cd-diagram cd.png --cd-test nemenyi` (or `--cd-test bonferroni-dunn`)")
    return t
