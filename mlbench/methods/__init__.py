"""Methods: the registry and one subpackage per family (see ``registry.py``); method specs
(``MODULE:CLASS(...)``, nested, gridded) are read by ``_spec.py``."""
from mlbench.methods._spec import canonical_spec
from mlbench.methods.registry import all_methods, get, make, register

__all__ = ["all_methods", "canonical_spec", "get", "make", "register"]
