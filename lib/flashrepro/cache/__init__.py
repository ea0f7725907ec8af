"""Buffer-cache policies (Numba kernels), their registry, and the one-pass LRU miss-ratio curve."""

from . import cflru, clock, lru, spatial_clock  # noqa: F401  (each module registers its policy)
from .mrc import lru_mrc
from .registry import POLICIES, IOLog, SimResult, get_policy, make_params, policy_names, simulate

__all__ = ["POLICIES", "IOLog", "SimResult", "get_policy", "lru_mrc", "make_params", "policy_names", "simulate"]
