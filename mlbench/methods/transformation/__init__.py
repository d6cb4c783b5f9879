"""Problem-transformation methods: a multi-label problem turned into binary or multi-class ones.

``br`` (binary relevance), ``cc`` (classifier chains), ``ecc`` (ensembles of classifier chains),
``rakel`` (random k-labelsets, RAkEL-o).  Each takes its base learner by name
(:func:`mlbench.methods.base.make_base_learner`) or as an estimator, plus ``base_params``.
"""
