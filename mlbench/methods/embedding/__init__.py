"""Methods that learn from an enriched or embedded label space (MLFE, CLEMS)."""
