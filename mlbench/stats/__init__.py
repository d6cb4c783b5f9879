"""Statistical tests for comparing methods: Friedman, post-hoc tests, t-tests, Bayesian, RP.

On a results DataFrame (:func:`mlbench.results.read`), as ``mlbench report`` computes them
(:mod:`mlbench.stats.api`)::

    import mlbench.results, mlbench.stats
    df = mlbench.results.read("results/papers/soshf.csv")
    mlbench.stats.friedman(df, "macro_f1").summary()      # also posthoc, corrected_ttest, bayes

On arrays: ``friedman_test``, ``nemenyi``, ``corrected_resampled_ttest``, ``bayesian_signed_rank``
and the rest below.  Each module states its definitions and sources: ``ranks`` (ranks and the
Friedman test), ``posthoc_tests``, ``ttests``, ``bayesian``, ``rp``.  Every name is imported on
first use, so ``import mlbench.stats`` loads neither SciPy nor pandas.
"""

#: public name -> the module of this package that defines it
_SOURCES = {
    "friedman": "api", "posthoc": "api", "corrected_ttest": "api", "bayes": "api",
    "FriedmanSummary": "api", "PosthocSummary": "api", "TTestSummary": "api", "BayesSummary": "api",
    "BayesResult": "bayesian", "bayesian_signed_rank": "bayesian",
    "FriedmanResult": "ranks", "friedman_from_ranks": "ranks", "friedman_test": "ranks",
    "rank_scores": "ranks",
    "critical_difference": "posthoc_tests", "mean_ranks_vs_control": "posthoc_tests",
    "nemenyi": "posthoc_tests", "q_bonferroni_dunn": "posthoc_tests", "q_nemenyi": "posthoc_tests",
    "wilcoxon_signed_rank": "posthoc_tests", "wilcoxon_vs_control": "posthoc_tests",
    "relative_performance": "rp", "rp_from_ranks": "rp",
    "TTestResult": "ttests", "corrected_resampled_ttest": "ttests", "paired_ttest": "ttests",
}

__all__ = sorted(_SOURCES)


def __getattr__(name):
    """The public names, each imported from its module on first use."""
    module = _SOURCES.get(name)
    if module is None:
        raise AttributeError(f"module 'mlbench.stats' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"mlbench.stats.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
