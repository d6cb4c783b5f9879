"""Probabilistic multi-label models of P(y | x): CTBN (``sc``), mixtures of CTBNs (``mc``), ``mlcrf``."""
