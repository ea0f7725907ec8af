"""Buffer-cache policies (Numba kernels), their registry, the simulation driver and the LRU miss-ratio curve."""

from . import cflru, clock, clock_dnv, clock_hbm, fifo, lru, random_repl, readahead, segment, spatial_clock, write_once  # noqa: F401,E501  (they register)
from .contract import CAUSES, Caps, Counter
from .mrc import lru_mrc
from .registry import POLICIES, Kernel, get_policy, make_params, policy_names, register
from .simulate import IOLog, SimResult, Simulator, simulate, simulate_stream

__all__ = ["CAUSES", "POLICIES", "Caps", "Counter", "IOLog", "Kernel", "SimResult", "Simulator", "get_policy",
           "lru_mrc", "make_params", "policy_names", "register", "simulate", "simulate_stream"]
