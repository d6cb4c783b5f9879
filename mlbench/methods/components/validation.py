"""Parameter checks shared by the method families (each raises a one-line ConfigError)."""
from __future__ import annotations

from mlbench.errors import ConfigError


def check_fraction(name, value):
    """``value`` must lie strictly between 0 and 1 (a hold-out or validation fraction)."""
    if not 0.0 < float(value) < 1.0:
        raise ConfigError(f"{name} must lie strictly between 0 and 1, got {value!r}")
