"""Measures of joint probabilities: the conditional log-likelihood loss of the MC paper.

A probabilistic method gives, for each test instance n, log P(Y = y(n) | x(n)): the natural log of
the probability it assigns to the *whole* true label vector (``joint_log_proba(X, Y)``).

* ``cll_loss``: the MC paper's CLL-loss (mc.md, Section 6.2), the negative conditional
  log-likelihood of the test set, sum_n -log P(y(n) | x(n)) -- a **sum** over the test instances,
  as the paper defines it, so it grows with the size of the test part;
* ``cll_loss_mean``: the same divided by the number of test instances, comparable across datasets
  and split sizes.

Natural logarithms.  An instance whose true label vector got probability 0 (log-probability
``-inf``) makes both losses infinite; that is the honest value, not an error.
"""
from __future__ import annotations

import numpy as np

from mlbench.metrics._validate import check_binary, check_joint
from mlbench.metrics.base import register_measure


def _neg_log_likelihoods(Y_true, joint_log_proba):
    Y = check_binary(Y_true, "Y_true")
    return -check_joint(joint_log_proba, Y.shape[0])


def cll_loss(Y_true, joint_log_proba, **_):
    """sum_n -log P(y(n) | x(n)) over the test instances (MC paper, Section 6.2)."""
    return float(np.sum(_neg_log_likelihoods(Y_true, joint_log_proba)))


def cll_loss_mean(Y_true, joint_log_proba, **_):
    """Mean over the test instances of -log P(y(n) | x(n))."""
    return float(np.mean(_neg_log_likelihoods(Y_true, joint_log_proba)))


_JOINT = dict(greater_is_better=False, needs="joint", kind="probabilistic")
register_measure("cll_loss", cll_loss, display="CLL-loss",
                 description="sum over test instances of -log P(true label vector | x) (MC paper)", **_JOINT)
register_measure("cll_loss_mean", cll_loss_mean, display="CLL-loss/n",
                 description="cll_loss divided by the number of test instances", **_JOINT)
