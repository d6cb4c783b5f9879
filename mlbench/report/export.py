"""The ``json`` document: every number the tables and tests rest on."""
from __future__ import annotations

import numpy as np


def _f(x):
    if x is None:
        return None
    x = float(x)
    return x if np.isfinite(x) else (None if np.isnan(x) else ("inf" if x > 0 else "-inf"))


def _frame(df):
    return {str(i): {str(c): _f(v) for c, v in row.items()} for i, row in df.iterrows()}


def analysis_to_dict(analysis, style):
    res = analysis.results
    doc = {
        "files": res.files, "protocol": res.protocol, "style": style, "control": analysis.control,
        "control_source": analysis.control_source, "alpha": analysis.alpha, "stats": analysis.stats,
        "per_dataset_test": analysis.split_test_name, "bayes_rope": analysis.rope, "seed": analysis.seed,
        "notes": analysis.notes, "metrics": {},
    }
    for ma in analysis.metrics:
        m = {
            "display": ma.display, "greater_is_better": ma.greater_is_better, "datasets": ma.datasets,
            "methods": ma.methods, "mean": _frame(ma.mean), "std": _frame(ma.std),
            "n_splits": {str(d): {str(k): int(v) for k, v in row.items()} for d, row in ma.n.iterrows()},
            "complete_datasets": ma.used_datasets, "left_out_datasets": ma.left_out,
            "ranks": _frame(ma.ranks), "notes": ma.notes,
            "missing": [c for c in res.missing(ma.metric)], "incomplete": res.partial(ma.metric),
        }
        if ma.friedman is not None:
            f = ma.friedman
            m["friedman"] = {"average_ranks": dict(zip(ma.block_methods, map(_f, f.average_ranks))),
                             "chi2": _f(f.chi2), "p_chi2": _f(f.p_chi2), "f": _f(f.f), "p_f": _f(f.p_f),
                             "df_f": list(f.df_f), "n_datasets": f.n_datasets, "n_methods": f.n_methods,
                             "rejects": ma.friedman_rejects}
            m["nemenyi"] = {"cd": _f(ma.nemenyi.cd), "q": _f(ma.nemenyi.q),
                            "different_pairs": [[ma.block_methods[i], ma.block_methods[j]]
                                                for i in range(len(ma.block_methods)) for j in range(i + 1, len(ma.block_methods))
                                                if ma.nemenyi.different[i, j]]}
        if ma.vs_control is not None:
            c = ma.vs_control
            m["mean_ranks_vs_control"] = {
                "cd_bonferroni_dunn": _f(c.cd_bonferroni_dunn),
                "methods": {ma.block_methods[j]: {"z": _f(c.z[i]), "p": _f(c.p[i]), "p_bonferroni": _f(c.p_bonferroni[i]),
                                            "p_holm": _f(c.p_holm[i]), "reject_bonferroni": bool(c.bonferroni[i]),
                                            "reject_holm": bool(c.holm[i])}
                            for i, j in enumerate(c.others)}}
        if ma.wilcoxon is not None:
            w = ma.wilcoxon
            m["wilcoxon_vs_control"] = {
                ma.block_methods[j]: {"r_plus": _f(r.r_plus), "r_minus": _f(r.r_minus), "t": _f(r.t), "z": _f(r.z),
                                "p": _f(r.p), "n": r.n, "n_zeros": r.n_zeros, "p_bonferroni": _f(w.p_bonferroni[i]),
                                "p_holm": _f(w.p_holm[i]), "reject_bonferroni": bool(w.bonferroni[i]),
                                "reject_holm": bool(w.holm[i])}
                for i, (j, r) in enumerate(zip(w.others, w.results))}
        if ma.bayes:
            m["bayes_vs_control"] = {k: {"p_control_better": b.p_control_better, "p_rope": b.p_rope,
                                         "p_control_worse": b.p_control_worse, "rope": b.rope,
                                         "prior_strength": b.prior_strength, "n_samples": b.n_samples}
                                     for k, b in ma.bayes.items()}
        m["per_dataset_tests"] = [{"dataset": d, "method": k, "t": _f(r.t), "p": _f(r.p), "df": r.df,
                                   "mean_difference": _f(r.mean_difference), "n_splits": r.n_splits,
                                   "outcome": ma.split_marker(d, k)}
                                  for (d, k), r in ma.per_dataset.items()]
        m["win_tie_loss"] = {k: list(v) for k, v in ma.wtl.items()}
        m["markers"] = {k: {"mean_ranks": ma.mean_rank_marker(k), "wilcoxon": ma.wilcoxon_marker(k)}
                        for k in ma.methods if k != (ma.control or analysis.control)}
        if ma.rp_mean is not None:
            m["rp"] = {"mean": {k: _f(v) for k, v in ma.rp_mean.items()},
                       "std": {k: _f(v) for k, v in ma.rp_std.items()}, "per_dataset": _frame(ma.rp)}
        doc["metrics"][ma.metric] = m
    doc["variants"] = [_variant(va) for va in analysis.variants]
    return doc


def _variant(va):
    """A variant against its parent (:class:`~mlbench.report.analysis.VariantAnalysis`)."""
    out = {"variant": va.variant, "parent": va.parent, "metrics": {}}
    for ma in va.metrics:
        out["metrics"][ma.metric] = {
            "datasets": ma.datasets,
            "parent_minus_variant": {d: _f(ma.mean.loc[d, va.parent] - ma.mean.loc[d, va.variant])
                                     for d in ma.datasets},
            "per_dataset_tests": [{"dataset": d, "p": _f(r.p), "n_splits": r.n_splits,
                                   "outcome": ma.split_marker(d, k)} for (d, k), r in ma.per_dataset.items()],
            "win_tie_loss": list(ma.wtl.get(va.variant, [0, 0, 0]))}
    return out
