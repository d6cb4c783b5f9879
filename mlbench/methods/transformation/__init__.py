"""Problem-transformation methods: a multi-label problem turned into binary or multi-class ones.

``br`` (binary relevance), ``cc`` (classifier chains), ``ecc`` (ensembles of classifier chains),
``rakel`` (random k-labelsets, RAkEL-o); the label-set methods of Bogatinovski et al. (2022):
``lp``, ``pst``, ``eps``, ``rakel2`` (MEKA's label powerset, pruned sets and RAkEL,
:mod:`.pruned_sets`), ``ssm`` (subset mapper, :mod:`.subset_mapper`) and ``rsmlcc`` (random
subspaces of label-powerset J48 trees, :mod:`.random_subspace`).  Each takes its base learner by name
(:func:`mlbench.methods.base.make_base_learner`) or as an estimator, plus ``base_params``.
"""
