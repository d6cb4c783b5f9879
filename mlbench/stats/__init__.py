"""Statistical tests for comparing methods: Friedman, post-hoc tests, t-tests, Bayesian, RP.

Each module states its definitions and sources; see ``friedman``, ``posthoc``, ``ttests``,
``bayes`` and ``rp``.
"""
from mlbench.stats.bayes import BayesResult, bayesian_signed_rank
from mlbench.stats.friedman import FriedmanResult, friedman_from_ranks, friedman_test, rank_scores
from mlbench.stats.posthoc import (
    critical_difference,
    mean_ranks_vs_control,
    nemenyi,
    q_bonferroni_dunn,
    q_nemenyi,
    wilcoxon_signed_rank,
    wilcoxon_vs_control,
)
from mlbench.stats.rp import relative_performance, rp_from_ranks
from mlbench.stats.ttests import TTestResult, corrected_resampled_ttest, paired_ttest

__all__ = [
    "BayesResult", "FriedmanResult", "TTestResult", "bayesian_signed_rank", "corrected_resampled_ttest",
    "critical_difference", "friedman_from_ranks", "friedman_test", "mean_ranks_vs_control", "nemenyi",
    "paired_ttest", "q_bonferroni_dunn", "q_nemenyi", "rank_scores", "relative_performance",
    "rp_from_ranks", "wilcoxon_signed_rank", "wilcoxon_vs_control",
]
