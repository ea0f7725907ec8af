"""Buffer-cache policies (Numba kernels), their registry, the simulation driver and the LRU miss-ratio curve."""

from . import registry
from .contract import CAUSES, Caps, Counter
from .mrc import lru_mrc
from .registry import POLICIES, Kernel, get_policy, make_params, policy_names, register
from .simulate import IOLog, SimResult, Simulator, simulate, simulate_stream

# Each built-in policy's module, imported when the policy is first asked for (all of them when POLICIES is listed:
# registry._Registry). tests/test_contract.py checks that this names every built-in policy's module.
registry.builtin({name: f"{__name__}.{module}" for module, names in {
    "cflru": ["cflru"], "clock": ["clock"], "clock_dnv": ["clock_dnv"], "clock_hbm": ["clock_hbm"], "fifo": ["fifo"],
    "lru": ["lru"], "obl": ["lru_obl"], "random_repl": ["random"], "readahead": ["linux_readahead"],
    "segment": ["seg_lru", "seg_prefetch", "seg_cull_fixed", "seg_cull_adaptive"],
    "spatial_clock": ["spatial_clock", "bs_clock"], "write_once": ["lru_flush", "write_once"]}.items()
    for name in names})

__all__ = ["CAUSES", "POLICIES", "Caps", "Counter", "IOLog", "Kernel", "SimResult", "Simulator", "get_policy",
           "lru_mrc", "make_params", "policy_names", "register", "simulate", "simulate_stream"]
