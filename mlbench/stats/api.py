"""The tests of ``mlbench report`` on a results DataFrame, for notebooks and scripts.

Each function takes the rows of :func:`mlbench.results.read` (or results file paths) and one
metric, computes the report's analysis of them with :func:`mlbench.report.prepare.prepare`
(the same call ``mlbench report`` makes: the protocol's main methods, its control, the mean over
splits per dataset, a method without a value on some datasets left out of the tests over datasets,
stale rows refused unless ``allow_stale``) and returns its numbers as a small dataclass.
``summary()`` renders the table ``mlbench report`` prints for that test, with the notes (the same
tables and formatter, :mod:`mlbench.report.styles.statistics` and :mod:`mlbench.report.formats`).

    import mlbench.results, mlbench.stats
    df = mlbench.results.read("results/papers/soshf.csv")
    fr = mlbench.stats.friedman(df, "macro_f1")
    fr.p_f, fr.average_ranks.sort_values().head(3)
    print(mlbench.stats.posthoc(df, "macro_f1").summary())

Options shared by every function: ``control`` (default: the protocol's proposed method, else the
best average rank on ``metric``), ``alpha``, ``methods`` and ``datasets`` (names or shell globs,
as ``--methods``/``--datasets``), ``protocol`` (the rows' protocol, or a protocol YAML whose main
methods and variants to use), ``allow_stale``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

#: the per-dataset test's name in ``mlbench report --stats``
CORRECTED = "corrected-ttest"


def _analysis(results, metric, stats, *, control=None, alpha=0.05, methods=None, datasets=None,
              protocol=None, allow_stale=False, rope=None, seed=0, n_samples=50_000):
    """The report's :class:`~mlbench.report.analysis.MetricAnalysis` of ``metric`` and its
    :class:`~mlbench.report.analysis.Analysis`."""
    from mlbench.errors import ConfigError
    from mlbench.report.prepare import prepare

    if not isinstance(metric, str):
        raise ConfigError(f"metric must be one metric name (got {metric!r})")
    # style "plain": its tables are not drawn here, and it reads no saved predictions; for one
    # metric every style gives the same numbers
    analysis = prepare(results, metrics=[metric], stats=stats, control=control, alpha=alpha,
                       style="plain", protocol=protocol, rope=rope, seed=seed,
                       bayes_samples=n_samples, methods=methods, datasets=datasets,
                       allow_stale=allow_stale).analysis
    return analysis.metrics[0], analysis


def _over_datasets(ma, test):
    """Refuse a test over datasets that the data cannot support (one complete dataset: the
    report then compares by the per-split tests and says so in a note)."""
    from mlbench.errors import MlbenchError

    if ma.friedman is None:
        why = next((n for n in reversed(ma.notes) if "dataset" in n), "too few datasets")
        raise MlbenchError(why if why.startswith(test) else f"{test}: {why}")


def _summary(analysis, keys, fmt, width, skip=()):
    """The tables ``keys`` of the report's statistics section, with the metric's and the
    analysis' notes (but those starting with one of ``skip``), rendered in ``fmt`` (``terminal``,
    ``markdown``, ``latex``, ``csv``)."""
    from mlbench.errors import ConfigError
    from mlbench.report.formats import render
    from mlbench.report.styles.statistics import stats_tables

    if fmt in ("json", "html"):
        raise ConfigError(f"summary() renders text tables (terminal, markdown, latex, csv), not {fmt}")
    tables = [t for t in stats_tables(analysis) if t.key in keys]
    if tables:
        notes = [n for n in dict.fromkeys(analysis.notes + [n for ma in analysis.metrics
                                                              for n in ma.notes])
                 if not n.startswith(tuple(skip))]
        tables[-1].notes.extend(n for n in notes if n not in tables[-1].notes)
    return render(tables, fmt, width=width)


def _series(values, index, name):
    import pandas as pd

    return pd.Series([float(v) for v in values], index=list(index), name=name, dtype=float)


@dataclass
class _Summary:
    metric: str
    control: str
    alpha: float
    notes: list
    _analysis: object = field(repr=False, compare=False)

    _KEYS = ()          # the keys of the report's tables of this test
    _SKIP = ()          # notes that do not concern this test

    def summary(self, fmt: str = "terminal", width: int | None = None) -> str:
        """The table ``mlbench report`` prints for this test (``fmt``: terminal, markdown, latex
        or csv), with the report's notes on the data (methods or datasets left out, power)."""
        return _summary(self._analysis, self._KEYS, fmt, width, self._SKIP)

    def __str__(self):
        return self.summary()


@dataclass
class FriedmanSummary(_Summary):
    """The Friedman test over datasets (Demšar 2006) of ``mlbench report --stats friedman``.

    ``ranks``: datasets x methods (1 = best, ties averaged) on the complete block (``datasets``,
    every method with a value; ``left_out``: the others); ``average_ranks``: per method;
    ``chi2``/``p_chi2``: Friedman's statistic; ``f``/``p_f``: Iman-Davenport's, with ``df_f``
    degrees of freedom, the one whose ``p_f < alpha`` gates the post-hoc tests (``rejects``);
    ``cd_nemenyi``/``cd_bonferroni_dunn``: the critical differences of average ranks."""

    methods: list = None
    datasets: list = None
    left_out: list = None
    ranks: object = None
    average_ranks: object = None
    chi2: float = None
    p_chi2: float = None
    f: float = None
    p_f: float = None
    df_f: tuple = None
    rejects: bool = None
    cd_nemenyi: float = None
    cd_bonferroni_dunn: float = None

    _KEYS = ("stats:friedman",)


@dataclass
class PosthocSummary(_Summary):
    """The post-hoc tests of ``mlbench report --stats friedman,wilcoxon`` (Demšar 2006).

    ``vs_control``: per method, its mean rank, ``z = (R_i - R_control) / sqrt(k(k+1)/6N)``, the
    two-sided p, the Bonferroni and Holm adjusted p and whether each rejects at ``alpha``;
    ``wilcoxon``: the Wilcoxon signed-rank test of the control against each method over the
    datasets (R+ = control better), Bonferroni and Holm adjusted; ``nemenyi``: methods x methods,
    whether two average ranks differ by at least ``cd_nemenyi``.  The decisions count only when
    the Friedman test rejects (``friedman_rejects``), as the report says."""

    methods: list = None
    average_ranks: object = None
    friedman_rejects: bool = None
    cd_nemenyi: float = None
    cd_bonferroni_dunn: float = None
    vs_control: object = None
    wilcoxon: object = None
    nemenyi: object = None

    _KEYS = ("stats:mean-ranks", "stats:wilcoxon")


@dataclass
class TTestSummary(_Summary):
    """The per-dataset test across splits of ``mlbench report --stats corrected-ttest``: the
    Nadeau-Bengio corrected resampled t-test of the control against each method on each dataset.

    ``tests``: one row per (dataset, method) with ``mean_difference`` (control minus method),
    ``t``, ``p``, ``df``, ``n_splits`` and ``outcome`` (+1 control significantly better, 0 not,
    -1 worse, at ``alpha``); ``win_tie_loss``: per method, the control's wins, ties and losses."""

    test: str = None
    tests: object = None
    win_tie_loss: object = None

    _KEYS = ("stats:per-dataset", "stats:per-split")
    _SKIP = ("power:",)                 # the power of the tests over datasets


@dataclass
class BayesSummary(_Summary):
    """The Bayesian signed-rank test (Benavoli et al. 2017) of ``mlbench report --stats bayes``:
    per method, the posterior probabilities that the control is better, practically equivalent
    (within ``rope``) or worse, over the datasets' mean scores (``n_samples`` draws, ``seed``)."""

    rope: float = None
    seed: int = None
    probabilities: object = None

    _KEYS = ("stats:bayes",)


def _base(ma, analysis):
    return dict(metric=ma.metric, control=ma.control, alpha=analysis.alpha,
                notes=list(dict.fromkeys(analysis.notes + ma.notes)), _analysis=analysis)


def friedman(results, metric: str, *, control: str | None = None, alpha: float = 0.05,
             methods=None, datasets=None, protocol: str | None = None,
             allow_stale: bool = False) -> FriedmanSummary:
    """The Friedman test of ``metric`` over the datasets, as ``mlbench report --stats friedman``.

    ``results``: a results DataFrame (:func:`mlbench.results.read`) or results file paths.
    Example::

        import mlbench.results, mlbench.stats
        df = mlbench.results.read("results/papers/soshf.csv")
        fr = mlbench.stats.friedman(df, "macro_f1")
        fr.p_f, fr.rejects, fr.average_ranks.sort_values().head(3)
        print(fr.summary())
    """
    import pandas as pd

    ma, analysis = _analysis(results, metric, ["friedman"], control=control, alpha=alpha,
                             methods=methods, datasets=datasets, protocol=protocol,
                             allow_stale=allow_stale)
    _over_datasets(ma, "friedman")
    f, names = ma.friedman, list(ma.block_methods)
    return FriedmanSummary(
        **_base(ma, analysis), methods=names, datasets=list(ma.used_datasets),
        left_out=list(ma.left_out),
        ranks=pd.DataFrame(f.ranks, index=list(ma.used_datasets), columns=names),
        average_ranks=_series(f.average_ranks, names, "average rank"), chi2=f.chi2,
        p_chi2=f.p_chi2, f=f.f, p_f=f.p_f, df_f=tuple(f.df_f), rejects=ma.friedman_rejects,
        cd_nemenyi=float(ma.nemenyi.cd),
        cd_bonferroni_dunn=float(ma.vs_control.cd_bonferroni_dunn) if ma.vs_control else None)


def posthoc(results, metric: str, *, control: str | None = None, alpha: float = 0.05,
            methods=None, datasets=None, protocol: str | None = None,
            allow_stale: bool = False) -> PosthocSummary:
    """The post-hoc tests after the Friedman test of ``metric``: mean ranks against the control
    (Bonferroni-Dunn, Holm), Nemenyi over all pairs and Wilcoxon signed-rank against the control,
    as ``mlbench report --stats friedman,wilcoxon``.  Example::

        ph = mlbench.stats.posthoc(df, "macro_f1")          # df = mlbench.results.read(...)
        ph.vs_control.query("reject_holm")                  # methods the control beats (Holm)
        print(ph.summary(fmt="markdown"))
    """
    import pandas as pd

    ma, analysis = _analysis(results, metric, ["friedman", "wilcoxon"], control=control,
                             alpha=alpha, methods=methods, datasets=datasets, protocol=protocol,
                             allow_stale=allow_stale)
    _over_datasets(ma, "posthoc")
    names = list(ma.block_methods)
    avg = ma.friedman.average_ranks
    vs = w = None
    c = ma.vs_control
    if c is not None:
        vs = pd.DataFrame({"mean_rank": avg[c.others], "z": c.z, "p": c.p,
                           "p_bonferroni": c.p_bonferroni, "p_holm": c.p_holm,
                           "reject_bonferroni": c.bonferroni, "reject_holm": c.holm},
                          index=pd.Index([names[j] for j in c.others], name="method"))
    if ma.wilcoxon is not None:
        wx = ma.wilcoxon
        w = pd.DataFrame({"n": [r.n for r in wx.results], "r_plus": [r.r_plus for r in wx.results],
                          "r_minus": [r.r_minus for r in wx.results],
                          "t": [r.t for r in wx.results], "z": [r.z for r in wx.results],
                          "p": wx.p, "p_bonferroni": wx.p_bonferroni, "p_holm": wx.p_holm,
                          "reject_bonferroni": wx.bonferroni, "reject_holm": wx.holm},
                         index=pd.Index([names[j] for j in wx.others], name="method"))
    return PosthocSummary(
        **_base(ma, analysis), methods=names, average_ranks=_series(avg, names, "average rank"),
        friedman_rejects=ma.friedman_rejects, cd_nemenyi=float(ma.nemenyi.cd),
        cd_bonferroni_dunn=float(c.cd_bonferroni_dunn) if c is not None else None,
        vs_control=vs, wilcoxon=w,
        nemenyi=pd.DataFrame(ma.nemenyi.different, index=names, columns=names))


def corrected_ttest(results, metric: str, *, control: str | None = None, alpha: float = 0.05,
                    methods=None, datasets=None, protocol: str | None = None,
                    allow_stale: bool = False) -> TTestSummary:
    """The Nadeau-Bengio corrected resampled t-test of the control against each method on each
    dataset across its splits, with the win/tie/loss counts, as ``mlbench report --stats
    corrected-ttest`` (it needs the n_train and n_test columns).  Example::

        tt = mlbench.stats.corrected_ttest(df, "macro_f1", control="sf-h-cs")
        tt.win_tie_loss
        tt.tests.query("p < 0.05")
    """
    import pandas as pd

    ma, analysis = _analysis(results, metric, [CORRECTED], control=control, alpha=alpha,
                             methods=methods, datasets=datasets, protocol=protocol,
                             allow_stale=allow_stale)
    rows = [{"dataset": d, "method": m, "mean_difference": r.mean_difference, "t": r.t, "p": r.p,
             "df": r.df, "n_splits": r.n_splits, "outcome": ma.split_marker(d, m)}
            for (d, m), r in ma.per_dataset.items()]
    tests = pd.DataFrame(rows, columns=["dataset", "method", "mean_difference", "t", "p", "df",
                                        "n_splits", "outcome"])
    wtl = pd.DataFrame.from_dict({m: list(v) for m, v in ma.wtl.items()}, orient="index",
                                 columns=["win", "tie", "loss"])
    wtl.index.name = "method"
    return TTestSummary(**_base(ma, analysis), test=analysis.split_test_name, tests=tests,
                        win_tie_loss=wtl)


def bayes(results, metric: str, *, control: str | None = None, rope: float = 0.01,
          seed: int = 0, n_samples: int = 50_000, methods=None, datasets=None,
          protocol: str | None = None, allow_stale: bool = False) -> BayesSummary:
    """The Bayesian signed-rank test of the control against each method over the datasets, as
    ``mlbench report --stats bayes --rope ROPE --seed SEED`` (``rope`` in the metric's units).
    Example::

        bt = mlbench.stats.bayes(df, "macro_f1", rope=0.01)
        bt.probabilities.round(3)
    """
    import pandas as pd

    ma, analysis = _analysis(results, metric, ["bayes"], control=control, methods=methods,
                             datasets=datasets, protocol=protocol, allow_stale=allow_stale,
                             rope=rope, seed=seed, n_samples=n_samples)
    _over_datasets(ma, "bayes")
    probs = pd.DataFrame.from_dict(
        {m: [b.p_control_better, b.p_rope, b.p_control_worse] for m, b in ma.bayes.items()},
        orient="index", columns=["p_control_better", "p_rope", "p_control_worse"])
    probs.index.name = "method"
    return BayesSummary(**_base(ma, analysis), rope=analysis.rope, seed=analysis.seed,
                        probabilities=probs)
