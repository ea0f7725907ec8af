"""The FTL's inner steps run without Numba's reference counting (``jitkit.njit_no_refcount``): they borrow the
arrays of the state their caller holds. That is safe only while no such step returns an array (its caller would
count down a reference it was never given) and every array a call makes is released. These tests check both,
over every victim rule and trigger, so that a step that starts returning or keeping an array fails here
instead of freeing the device's state under it."""

import ast
import gc
import importlib
import inspect
import pkgutil
import sys
import textwrap

import numpy as np
import pytest
from numba.core import types
from numba.core.registry import CPUDispatcher
from numba.core.runtime import _nrt_python as nrt

from flashrepro.ftl import FTL, POLICIES, TRIGGERS, GCTrigger, Geometry, Policy, victims
from flashrepro.ftl import _kernel as K
from flashrepro.ftl.victims import VICTIM_RULES

POLICY_CASES = [*POLICIES.values(),
                *(Policy(r, r) for r in VICTIM_RULES if r not in POLICIES and r != "fifo_threshold"),
                POLICIES["2r++"].with_(select="interleaved", threshold=0.5)]
TRIGGER_CASES = [TRIGGERS["reserve"], TRIGGERS["femu"], TRIGGERS["femu"].with_(name="femu-lazy", host_line="lazy"),
                 GCTrigger("reserve+background", background_free=0.3, background_min_invalid=0.5)]


def writes(g: Geometry, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    hot = rng.random(n) < 0.7
    pages = np.where(hot, rng.integers(0, g.logical_pages // 8, n), rng.integers(0, g.logical_pages, n))
    return np.concatenate([np.arange(g.logical_pages), pages]).astype(np.int32)


def no_refcount_steps() -> dict[str, CPUDispatcher]:
    """Every FTL function compiled with ``_nrt=False``, by qualified name."""
    rules = (importlib.import_module(f"{victims.__name__}.{m.name}") for m in pkgutil.iter_modules(victims.__path__))
    mods = [K, *rules]
    return {f"{m.__name__}.{name}": f for m in mods for name, f in vars(m).items()
            if isinstance(f, CPUDispatcher) and f.targetoptions.get("_nrt") is False}


def arrays_in(ty) -> bool:
    if isinstance(ty, types.Array):
        return True
    return isinstance(ty, types.BaseTuple) and any(arrays_in(t) for t in ty.types)


@pytest.fixture(scope="module")
def stats():
    """Numba's allocation counters on, and Python's cyclic collector off for the module, after one collection.
    The counters are the process's: an array an earlier test left in a reference cycle, freed by the collector
    while a test writes, would count as a free without an allocation. One collection here, not one per test:
    each walks the whole heap (0.2 s in a process that has loaded the kernels, more in a busy test worker)."""
    was = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        if not was:
            nrt.memsys_disable_stats()


@pytest.mark.parametrize("trigger", TRIGGER_CASES, ids=lambda t: t.name)
@pytest.mark.parametrize("policy", POLICY_CASES, ids=lambda p: f"{p.name}-{p.select}")
def test_a_write_leaves_every_state_arrays_references_as_they_were(policy, trigger, stats):
    g = Geometry(16, 48, 16 * 48 * 3 // 4)
    f = FTL(g, policy, trigger)
    w = writes(g, 6000, 0)
    before = [sys.getrefcount(a) for a in f.state]
    alloc, free = nrt.memsys_get_stats_mi_alloc(), nrt.memsys_get_stats_mi_free()  # (the collector is off: stats)
    for part in np.array_split(w, 5):
        f.write(part)
    kept = (nrt.memsys_get_stats_mi_alloc() - alloc) - (nrt.memsys_get_stats_mi_free() - free)
    assert f.counters["erases"] > 0  # garbage collection ran
    f.check()
    assert [sys.getrefcount(a) for a in f.state] == before
    assert kept == 0, f"{kept} more of Numba's allocations than frees over the writes"  # nothing kept


def returned_parameters(fn) -> list[str]:
    """The parameters of ``fn`` that a ``return`` hands back (bare, or inside a returned tuple)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    params = {a.arg for a in tree.body[0].args.args}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and node.value is not None:
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            out += [v.id for v in values if isinstance(v, ast.Name) and v.id in params]
    return out


def test_the_check_sees_a_returned_parameter():
    def step(s, ln):
        if ln:
            return s, 1
        return 0, ln

    assert sorted(returned_parameters(step)) == ["ln", "s"]


def test_no_step_without_reference_counting_returns_an_array():
    """Numba refuses, at compile time, a step that returns an array it did not receive. One that returns an
    array it received would hand its caller a reference it never counted: no borrowing step returns any of its
    parameters. The steps compiled in this process (not those loaded from the kernel cache as part of their
    caller) also have no array in their return type."""
    steps = no_refcount_steps()
    assert {"flashrepro.ftl._kernel._copy_erase", "flashrepro.ftl._kernel._gc_pass", "flashrepro.ftl._kernel.sync_ages",
            "flashrepro.ftl.victims.greedy.pick", "flashrepro.ftl.victims.cost_benefit.pick"} <= set(steps)
    for name, f in steps.items():
        assert not returned_parameters(f.py_func), f"{name} returns a parameter"
        for sig, cres in f.overloads.items():
            assert not arrays_in(cres.signature.return_type), f"{name}{sig} returns an array"
