"""Stable seeds: every random draw comes from the config seed and a stable hash of named keys.

Python's ``hash()`` is salted per process, so it would break byte-identical reruns; SHA-256 is not.
"""

from __future__ import annotations

import hashlib

import numpy as np


def derive_seed(base_seed: int, *keys: object) -> int:
    """Return a 64-bit seed from ``base_seed`` and ``keys`` (e.g. experiment, metric, test), stable across runs."""
    text = "\x1f".join([str(int(base_seed)), *(str(k) for k in keys)])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def rng_for(base_seed: int, *keys: object) -> np.random.Generator:
    """A NumPy ``Generator`` (PCG64) seeded by :func:`derive_seed`."""
    return np.random.default_rng(derive_seed(base_seed, *keys))
