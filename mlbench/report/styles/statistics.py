"""The statistics section printed after a style's tables, one table per requested test."""
from __future__ import annotations

from mlbench.report.table import Cell, Row, Table, fmt


def _p(p):
    return Cell(f"{p:.4g}", float(p))


def _num(v, digits=3):
    return Cell(fmt(v, digits), float(v))


def _controls(analysis):
    """The control, or each metric's when they differ."""
    names = {ma.control or analysis.control for ma in analysis.metrics}
    if len(names) <= 1:
        return next(iter(names), analysis.control)
    return ", ".join(f"{ma.metric}: {ma.control}" for ma in analysis.metrics)


def stats_tables(analysis):
    tables = []
    ctrl = analysis.control
    if "friedman" in analysis.stats:
        t = Table("stats:friedman", f"Friedman test over datasets (Demšar 2006), α = {analysis.alpha:g}",
                  ["Metric", "N", "k", "χ²_F", "p(χ²_F)", "F_F", "p(F_F)", "CD Nemenyi",
                   "CD Bonferroni-Dunn", "datasets used"])
        for ma in analysis.metrics:
            f = ma.friedman
            if f is None:
                t.rows.append(Row(ma.metric, [Cell(str(len(ma.used_datasets)))] + [Cell("—")] * 7
                                  + [Cell("too few complete datasets")]))
                continue
            t.rows.append(Row(ma.metric, [Cell(str(f.n_datasets), f.n_datasets), Cell(str(f.n_methods), f.n_methods),
                                          _num(f.chi2), _p(f.p_chi2), _num(f.f), _p(f.p_f), _num(ma.nemenyi.cd),
                                          _num(ma.vs_control.cd_bonferroni_dunn) if ma.vs_control
                                          else Cell("—"),
                                          Cell(_datasets_used(ma))]))
        tables.append(t)
        t = Table("stats:mean-ranks", f"Mean-ranks post-hoc tests against the control ({_controls(analysis)}): "
                  "z = (R_i - R_control) / sqrt(k(k+1)/6N), two-sided p, Bonferroni and Holm adjusted",
                  ["Method", "mean rank", "z", "p", "p Bonferroni", "p Holm", "Bonferroni-Dunn", "Holm"])
        for ma in analysis.metrics:
            c = ma.vs_control
            if c is None:
                continue
            t.rows.append(Row(ma.control or ctrl, [_num(ma.friedman.average_ranks[c.control])]
                              + [Cell("")] * 6, group=ma.metric))
            for i, j in enumerate(c.others):
                t.rows.append(Row(ma.block_methods[j], [
                    _num(ma.friedman.average_ranks[j]), _num(c.z[i]), _p(c.p[i]), _p(c.p_bonferroni[i]),
                    _p(c.p_holm[i]), Cell(_verdict(c.bonferroni[i], c.z[i], ma)),
                    Cell(_verdict(c.holm[i], c.z[i], ma))], group=ma.metric))
        t.notes.append("post-hoc decisions count only when the Friedman test rejects (Demšar 2006)")
        tables.append(_explain_empty(t))
    if "wilcoxon" in analysis.stats:
        t = Table("stats:wilcoxon", f"Wilcoxon signed-rank tests of the control ({_controls(analysis)}) against each "
                  "method over datasets (zero differences split, Demšar 2006)",
                  ["Method", "N", "R+ (control better)", "R-", "T", "z", "p", "p Bonferroni", "p Holm"])
        for ma in analysis.metrics:
            w = ma.wilcoxon
            if w is None:
                continue
            for i, j in enumerate(w.others):
                r = w.results[i]
                t.rows.append(Row(ma.block_methods[j], [Cell(str(r.n), r.n), _num(r.r_plus, 1), _num(r.r_minus, 1),
                                                  _num(r.t, 1), _num(r.z), _p(r.p), _p(w.p_bonferroni[i]),
                                                  _p(w.p_holm[i])], group=ma.metric))
        tables.append(_explain_empty(t))
    one_dataset = any(ma.friedman is None and ma.per_dataset for ma in analysis.metrics) and any(
        s in analysis.stats for s in ("friedman", "wilcoxon", "bayes"))
    if "ttest" in analysis.stats or "corrected-ttest" in analysis.stats or one_dataset:
        t = Table("stats:per-dataset", f"{analysis.split_test_name} per dataset across splits: "
                  f"{_controls(analysis)} against each method, #win/#tie/#loss at α = {analysis.alpha:g}",
                  ["Method", "#win", "#tie", "#loss", "datasets tested"])
        for ma in analysis.metrics:
            for m, (w, ti, lo) in ma.wtl.items():
                t.rows.append(Row(m, [Cell(str(w), w), Cell(str(ti), ti), Cell(str(lo), lo),
                                      Cell(str(w + ti + lo), w + ti + lo)], group=ma.metric))
        tables.append(t)
    if one_dataset:        # one dataset: show each split-level comparison with both tests
        t = Table("stats:per-split", f"per-split paired tests of {_controls(analysis)} against each "
                  f"method: {analysis.split_test_name} and Wilcoxon signed-rank over the splits "
                  f"(two-sided p)", ["Method", "dataset", "mean difference", "p (t)", "p (Wilcoxon)",
                                     "splits"])
        for ma in analysis.metrics:
            for (d, m), res in ma.per_dataset.items():
                w = ma.per_split_wilcoxon.get((d, m))
                t.rows.append(Row(m, [Cell(d), _num(res.mean_difference, 4), _p(res.p),
                                      _p(w.p) if w is not None else Cell("—"),
                                      Cell(str(res.n_splits), res.n_splits)], group=ma.metric))
        t.notes.append("mean difference: control minus method; a Wilcoxon test over n splits cannot "
                       "give p below 2/2^n")
        tables.append(t)
    if "bayes" in analysis.stats:
        t = Table("stats:bayes", f"Bayesian signed-rank test (Benavoli et al. 2017) of {_controls(analysis)} against "
                  f"each method: rope = ±{analysis.rope:g}, prior strength 0.5, seed {analysis.seed}",
                  ["Method", "P(control better)", "P(rope)", "P(control worse)"])
        for ma in analysis.metrics:
            for m, b in ma.bayes.items():
                t.rows.append(Row(m, [_num(b.p_control_better), _num(b.p_rope), _num(b.p_control_worse)],
                                  group=ma.metric))
        tables.append(_explain_empty(t))
    return tables


def _datasets_used(ma):
    """``all N``, or the datasets used when some are left out (they are named in the notes)."""
    if not ma.left_out:
        return f"all {len(ma.used_datasets)}"
    return ", ".join(ma.used_datasets)


def _explain_empty(t):
    if not t.rows:
        t.notes.insert(0, "not computed: no metric has two datasets with results for every compared method")
    return t


def _verdict(reject, z, ma):
    if not reject or not ma.friedman_rejects:
        return "–"
    return "control better" if z > 0 else "control worse"
