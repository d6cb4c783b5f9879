"""Hierarchical classification: HierCost's cost-sensitive LR and its baselines (TD-LR, HRLR)."""
