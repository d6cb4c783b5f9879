"""Methods: the registry and one subpackage per family (see ``registry.py``)."""
from mlbench.methods.registry import all_methods, get, make, register

__all__ = ["all_methods", "get", "make", "register"]
