"""Seeds derived from what a computation is, never from when it runs.

Every random choice of a run (a split's permutation, a method's ``random_state``) takes a seed
derived from one base seed and the names that identify the computation, e.g.
``derive_seed(0, "split", "soshf", "emotions", 3)``.  The parts are joined into a string, hashed with
SHA-256, and the digest seeds a :class:`numpy.random.SeedSequence`; so the same base seed gives the
same numbers whatever the number of worker processes and whatever order cells run in
(benchopt's rule: seeds derived from one base seed).
"""
from __future__ import annotations

import hashlib

import numpy as np


def _entropy(*parts) -> int:
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest(), "little")


def seed_sequence(*parts) -> np.random.SeedSequence:
    """A SeedSequence whose entropy is the SHA-256 of ``parts`` (order matters)."""
    return np.random.SeedSequence(_entropy(*parts))


def derive_rng(*parts) -> np.random.Generator:
    """A fresh PCG64 generator seeded from ``parts``."""
    return np.random.default_rng(seed_sequence(*parts))


def derive_seed(*parts) -> int:
    """A 31-bit integer seed from ``parts`` (fits every scikit-learn ``random_state``)."""
    return int(seed_sequence(*parts).generate_state(1, dtype=np.uint32)[0] >> 1)
