"""Tree-based multi-label methods (predictive clustering forests, SOSHF, MLDF)."""
