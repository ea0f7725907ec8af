"""Policies written with the Python base class (issue 15 part 4) run through simulate() and match the fast
kernels they prototype, reference by reference: the outcome of every page reference, every device I/O in
order, every counter."""

import dataclasses

import numpy as np
import pytest
from conftest import random_trace
from reference import REFERENCES

from flashrepro.cache import POLICIES, prototype, simulate
from flashrepro.cache.registry import unregister

# kernel -> (its prototype, the parameter sets both take)
PAIRS = {"lru": (prototype.PyLRU, [{}]),
         "clock": (prototype.PyClock, [{"insert_referenced": False}, {"insert_referenced": True}])}


@pytest.fixture(scope="module", autouse=True)
def prototypes():
    with prototype.registered(prototype.PyLRU, prototype.PyClock, prototype.PySieve):
        yield


def assert_same_run(a, b):
    """Two SimResults (with log_io) agree reference by reference."""
    diff = np.flatnonzero(a.hit != b.hit)
    assert diff.size == 0, f"first differing reference: {diff[:1]}"
    la, lb = a.io_log, b.io_log
    for col in ("ref", "op", "cause", "first_page", "n_pages", "tier"):
        assert np.array_equal(getattr(la, col), getattr(lb, col)), col
    assert a.counters == b.counters


@pytest.mark.parametrize("kernel", sorted(PAIRS))
@pytest.mark.parametrize("seed,capacity", [(1, 1), (2, 7), (3, 40), (4, 150), (5, 1000)])
@pytest.mark.parametrize("flush", [False, True])
def test_kernel_matches_its_python_prototype(kernel, seed, capacity, flush):
    proto, grid = PAIRS[kernel]
    tr = random_trace(seed)
    for params in grid:
        fast = simulate(tr, kernel, capacity, flush_at_end=flush, log_io=True, **params)
        slow = simulate(tr, proto.name, capacity, flush_at_end=flush, log_io=True, **params)
        assert_same_run(fast, slow)
        # and the prototype agrees with the tests' plain reference (the third, independent reading)
        refs = tr.to_pages()
        hits, ios, counters = REFERENCES[kernel][0](refs.page.tolist(), refs.is_write.tolist(), capacity, flush,
                                                    **params)
        assert slow.hit.tolist() == hits and slow.counters == counters


def test_prototypes_are_policies_like_any_other():
    pol = POLICIES["py_clock"]
    assert pol.params is prototype.PyClockParams and "CLOCK" in pol.description
    with pytest.raises(ValueError, match="no parameter"):
        simulate(random_trace(1), "py_lru", 10, insert_referenced=True)


def test_sieve_by_hand():
    """SIEVE on a hand-worked sequence (capacity 3): a, b, c, a(hit: visited), d -> the hand starts at the
    oldest (a), clears its bit, evicts b; e -> the hand goes on from c (unvisited): evicts c."""
    pages = [0, 1, 2, 0, 3, 4, 0]
    from flashrepro.traces import Op, Trace

    tr = Trace(np.arange(len(pages)) * 1.0, np.full(len(pages), Op.READ, np.int8), np.array(pages) * 4096,
               np.full(len(pages), 4096), name="sieve-hand")
    res = simulate(tr, "py_sieve", 3, log_io=True)
    assert res.hit.tolist() == [False, False, False, True, False, False, True]
    assert res.counters["evictions"] == 2 and res.counters["resident_at_end"] == 3


def test_a_bad_victim_is_an_error():
    class Bad(prototype.PythonPolicy):
        name = "py_bad"

        def choose_victim(self):
            return -5

    with prototype.registered(Bad), pytest.raises(ValueError, match="not resident"):
        simulate(random_trace(1), "py_bad", 4)
    assert "py_bad" not in POLICIES


def test_a_flushing_prototype_sees_syncs():
    """With Caps(flushes=True) the base class hands sync events to on_flush and counts the write-backs."""
    from flashrepro.cache import Caps
    from flashrepro.traces import Op, Trace

    class PyLRUSync(prototype.PyLRU):
        name = "py_lru_sync"
        caps = Caps(flushes=True)

    op = np.array([Op.WRITE, Op.WRITE, Op.FLUSH, Op.WRITE, Op.READ], np.int8)
    tr = Trace(np.arange(5) * 1.0, op, np.array([0, 1, 0, 2, 0]) * 4096, np.array([4096, 4096, 0, 4096, 4096]),
               name="sync")
    with prototype.registered(PyLRUSync):
        res = simulate(tr, "py_lru_sync", 8, log_io=True)
    c = res.counters
    assert c["device_writes_sync_flush"] == 2 and c["syncs"] == 1 and c["dirty_at_end"] == 1
    assert dataclasses.asdict(res.params) == {}
    unregister("py_lru_sync")
