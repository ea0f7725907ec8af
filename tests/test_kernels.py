"""Every registered kernel against its reference implementation, reference by reference."""

import functools
import itertools

import numpy as np
import pytest
from conftest import random_trace
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import REFERENCES, SEPARATE_TESTS, stack_distances

from flashrepro.cache import POLICIES, lru_mrc, simulate


@functools.cache
def seeded_trace(seed, **kw):
    """``random_trace(seed, **kw)``, made once per test module: many cases share a few seeded traces, and a Trace
    keeps its page expansion for the next case (simulate never changes a trace)."""
    return random_trace(seed, **kw)


def test_every_policy_has_a_reference():
    missing = set(POLICIES) - set(REFERENCES) - set(SEPARATE_TESTS)
    assert not missing, f"policies without a reference: {missing}"


EXTRA = {"bs_clock": [{"max_bulk_pages": 1}, {"max_bulk_pages": 2}, {"max_bulk_pages": 5},
                     {"max_bulk_pages": 64}],
         "cflru": [{"window_fraction": 0.0}, {"window_fraction": 0.1}, {"window_fraction": 1.0}],
         "lru_obl": [{"sequential_k": 1}, {"sequential_k": 2, "tagged": False}, {"sequential_k": 3}]}
# (beyond the boolean grid and the defaults)


def flush_turns(turn, n):
    """The end-of-trace flush for ``n`` sizes of the parameter set numbered ``turn``: off and on by turns,
    starting on for an odd ``turn``."""
    return [(turn + k) % 2 == 1 for k in range(n)]


def _param_grid(policy):
    names = REFERENCES[policy][1]
    for values in itertools.product([False, True], repeat=len(names)):
        yield dict(zip(names, values, strict=True))
    yield from EXTRA.get(policy, [])


SIZES = [(1, 1, 1500), (2, 7, 1500), (3, 40, 1500), (4, 150, 1500), (5, 1000, 3000)]  # (trace seed, capacity, requests)
# The caches smaller than the footprint (300 pages) fill within a few hundred references: 1,500 requests (some
# 3,300 page references) turn them over again and again and reach every counter 3,000 would, in every case here
# and in test_clock_hbm.py. The cache larger than the footprint keeps 3,000: there CLOCK-HBM's 200 DRAM pages take
# that long to move a level down.
# Every parameter set of every policy at every size, with the end-of-trace flush on and off by turns (flush_turns):
# a run with the flush differs from one without it only after the last reference, so running every case both
# ways would repeat everything else. By turns, each parameter set meets both at some sizes and each size meets
# both across the parameter sets.
CASES = [(pol, params, seed, cap, n, flush)
         for turn, (pol, params) in enumerate((pol, p) for pol in sorted(REFERENCES) for p in _param_grid(pol))
         for (seed, cap, n), flush in zip(SIZES, flush_turns(turn, len(SIZES)), strict=True)]


@pytest.mark.parametrize("policy,params,seed,capacity,n,flush", CASES)
def test_kernel_matches_reference(policy, params, seed, capacity, n, flush):
    compare_to_reference(seeded_trace(seed, n=n), policy, REFERENCES[policy][0], capacity, flush, **params)


def compare_to_reference(tr, policy, ref_fn, capacity, flush, *, with_tiers=False, **params):
    """Reference by reference: the outcome of every page reference, every device I/O in order (and its tier,
    ``with_tiers``: the reference then takes ``tiers_out``) and every counter the kernel reports."""
    refs = tr.to_pages()
    res = simulate(tr, policy, capacity, flush_at_end=flush, log_io=True, **params)
    tiers = []
    hits, ios, counters = ref_fn(refs.page.tolist(), refs.is_write.tolist(), capacity, flush,
                                 **({"tiers_out": tiers} if with_tiers else {}), **params)
    first_miss = np.flatnonzero(res.hit != np.array(hits))
    assert first_miss.size == 0, f"first differing reference: {first_miss[:1]}"
    log = res.io_log
    got = list(zip(log.ref.tolist(), log.op.tolist(), log.cause.tolist(), log.first_page.tolist(),
                   log.n_pages.tolist(), strict=True))
    assert got == ios
    if with_tiers:
        assert log.tier.tolist() == tiers
    assert res.counters == counters  # the full set: nothing the kernel reports goes unchecked
    return res


def test_io_log_maps_back_to_requests():
    tr = random_trace(9)
    res = simulate(tr, "lru", 20, log_io=True)
    refs = tr.to_pages()
    assert np.array_equal(res.io_log.req, refs.req[res.io_log.ref])
    after = res.io_log.to_trace(tr.time_s)
    assert len(after) == len(res.io_log)
    assert after.n_writes == res.counters["device_write_requests"]
    assert after.n_reads == res.counters["device_read_requests"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_stack_distances_match_reference(seed):
    from flashrepro.cache.mrc import _stack_distances

    refs = random_trace(seed, n=1500).to_pages()
    got = _stack_distances(refs.dense, refs.n_unique)
    assert got.tolist() == stack_distances(refs.dense.tolist())


@pytest.mark.parametrize("seed", [1, 6])
def test_stack_distances_over_a_small_window_match_reference(seed):
    """The window of times renumbered every few references (down to one more time than distinct pages, where it
    is full after almost every reference), and at its default, larger than the trace (never renumbered)."""
    from flashrepro.cache.mrc import _stack_distances

    refs = random_trace(seed, n=1500).to_pages()
    want = stack_distances(refs.dense.tolist())
    for window in (refs.n_unique + 1, refs.n_unique + 7, 2 * refs.n_unique, len(refs.dense) - 1, 0):
        assert _stack_distances(refs.dense, refs.n_unique, window).tolist() == want, window
    with pytest.raises(ValueError, match="window must hold more times"):
        _stack_distances(refs.dense, refs.n_unique, refs.n_unique)


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 300), data=st.data())
def test_fenwick_ones_equals_k_additions(m, data):
    """The window's rebuild (jitkit.fenwick_ones) against the tree that k single additions make, and its sums."""
    from flashrepro import jitkit as jk

    k = data.draw(st.integers(0, m))
    got, want = jk.fenwick_new(m), jk.fenwick_new(m)
    got[:] = 7  # whatever the tree held before
    jk.fenwick_ones(got, k)
    for t in range(k):
        jk.fenwick_add(want, t, 1)
    assert got.tolist() == want.tolist()
    assert [jk.fenwick_before(got, t) for t in range(m + 1)] == [min(t, k) for t in range(m + 1)]


@settings(max_examples=60, deadline=None)
@given(pages=st.lists(st.integers(0, 40), min_size=1, max_size=300), extra=st.integers(1, 50))
def test_stack_distances_over_any_window_match_reference(pages, extra):
    from flashrepro.cache.mrc import _stack_distances

    dense = np.unique(np.asarray(pages), return_inverse=True)[1].astype(np.int64)
    n_unique = int(dense.max()) + 1
    assert _stack_distances(dense, n_unique, n_unique + extra).tolist() == stack_distances(dense.tolist())


@pytest.mark.parametrize("seed", [4, 5])
def test_mrc_equals_lru_at_every_capacity(seed):
    tr = random_trace(seed, n=2000)
    mrc = lru_mrc(tr)
    caps = [1, 2, 3, 5, 10, 30, 100, 299, 300, 1000]
    assert mrc.misses(caps).tolist() == [simulate(tr, "lru", c).counters["misses"] for c in caps]


def _with_holes(tr):
    """The same trace with a hole after every 7th page: consecutive ranks are no longer consecutive pages."""
    from flashrepro.traces import Trace

    page = tr.offset_bytes // 4096
    holes = Trace(tr.time_s, tr.op, (page + page // 7) * 4096, np.full(len(tr), 4096), name="holes")
    assert np.any(np.diff(holes.to_pages().unique_pages) > 1)
    return holes


@pytest.mark.parametrize("seed", [11, 12])
@pytest.mark.parametrize("max_bulk", [4, 16])
def test_bs_clock_only_bulks_page_consecutive_runs(seed, max_bulk):
    tr = _with_holes(random_trace(seed))
    refs = tr.to_pages()
    res = simulate(tr, "bs_clock", 40, log_io=True, max_bulk_pages=max_bulk)
    hits, ios, counters = REFERENCES["bs_clock"][0](refs.page.tolist(), refs.is_write.tolist(), 40,
                                                   max_bulk_pages=max_bulk)
    log = res.io_log
    assert list(zip(log.ref.tolist(), log.op.tolist(), log.cause.tolist(), log.first_page.tolist(),
                    log.n_pages.tolist(), strict=True)) == ios
    bulk = log.n_pages > 1
    assert bulk.any(), "the test trace must produce bulk writes"
    # no bulk write crosses a hole: every page it covers is a page the trace references
    present = set(refs.unique_pages.tolist())
    for first, count in zip(log.first_page[bulk].tolist(), log.n_pages[bulk].tolist(), strict=True):
        assert set(range(first, first + count)) <= present
    assert log.n_pages.max() <= max_bulk


def test_seeded_traces_exercise_bulk_writes():
    res = simulate(random_trace(3), "bs_clock", 40, log_io=True)
    assert res.counters["bulk_cleaned"] > 0 and res.io_log.n_pages.max() > 1
