"""The FIFO and RANDOM replacement kernels (issue 22): reference by reference on seeded traces, and the
invariants that define them on traces hypothesis draws."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import random_trace
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import fifo as fifo_ref
from reference import random_replacement as random_ref
from test_kernels import compare_to_reference, seeded_trace
from test_properties import check_accounting, traces

from flashrepro.cache import simulate
from flashrepro.traces import Op, Trace

SEEDS = [0, 1, 12345, 2**63 - 1]


def _pages_trace(pages, writes=None, name="pages") -> Trace:
    """One-page requests, page numbers as given (all reads unless ``writes``)."""
    pages = np.asarray(pages, np.int64)
    w = np.zeros(len(pages), bool) if writes is None else np.asarray(writes, bool)
    return Trace(np.arange(len(pages)) * 1e-3, np.where(w, Op.WRITE, Op.READ).astype(np.int8), pages * 4096,
                 np.full(len(pages), 4096), name=name)


# --- reference by reference ------------------------------------------------------------------------------
@pytest.mark.parametrize("seed,capacity", [(11, 1), (12, 3), (13, 40), (14, 150), (15, 299)])
@pytest.mark.parametrize("write_fraction", [0.0, 0.4, 1.0])
@pytest.mark.parametrize("flush", [False, True])
def test_fifo_matches_reference(seed, capacity, write_fraction, flush):
    compare_to_reference(seeded_trace(seed, write_fraction=write_fraction), "fifo", fifo_ref, capacity, flush)


@pytest.mark.parametrize("rng_seed", SEEDS)
@pytest.mark.parametrize("seed,capacity", [(21, 1), (22, 7), (23, 64), (24, 250)])
@pytest.mark.parametrize("write_fraction,flush", [(0.0, False), (0.4, True), (1.0, False)])
def test_random_matches_reference(rng_seed, seed, capacity, write_fraction, flush):
    compare_to_reference(seeded_trace(seed, write_fraction=write_fraction), "random", random_ref, capacity, flush,
                         seed=rng_seed)


@settings(max_examples=60, deadline=None)
@given(tr=traces(), cap=st.integers(1, 80), rng_seed=st.integers(0, 2**63 - 1), flush=st.booleans())
def test_hypothesis_traces_match_the_references(tr, cap, rng_seed, flush):
    compare_to_reference(tr, "fifo", fifo_ref, cap, flush)
    compare_to_reference(tr, "random", random_ref, cap, flush, seed=rng_seed)


@settings(max_examples=40, deadline=None)
@given(tr=traces(), cap=st.integers(1, 80), rng_seed=st.integers(0, 2**63 - 1), flush=st.booleans())
def test_accounting_with_any_seed(tr, cap, rng_seed, flush):
    """The registry-wide accounting rules (occupancy <= capacity, hits + misses = references, every dirtying
    written once, evictions = misses - capacity) for seeds other than the default."""
    check_accounting(tr, cap, "random", flush, seed=rng_seed)


# --- what defines FIFO -------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(pages=st.lists(st.integers(0, 40), min_size=1, max_size=300), cap=st.integers(1, 45))
def test_fifo_state_moves_only_on_misses(pages, cap):
    """A hit changes nothing: the trace with its hits removed misses on exactly the same references."""
    hit = simulate(_pages_trace(pages), "fifo", cap, log_io=True).hit
    misses_only = [p for p, h in zip(pages, hit, strict=True) if not h]
    again = simulate(_pages_trace(misses_only), "fifo", cap, log_io=True).hit
    assert not again.any()


@settings(max_examples=60, deadline=None)
@given(pages=st.lists(st.integers(0, 40), min_size=1, max_size=300), cap=st.integers(1, 45))
def test_fifo_evicts_in_insertion_order(pages, cap):
    """With every reference a write, each eviction is logged; the k-th page evicted is the k-th page that
    came in, and it leaves exactly ``cap`` misses later."""
    res = simulate(_pages_trace(pages, np.ones(len(pages), bool)), "fifo", cap, log_io=True)
    missed_at = np.flatnonzero(~res.hit)
    inserted = np.asarray(pages)[missed_at]
    log = res.io_log
    ev = log.cause == 1
    n_ev = int(ev.sum())
    assert n_ev == max(len(missed_at) - cap, 0) == res.counters["evictions"]
    assert np.array_equal(log.first_page[ev], inserted[:n_ev])
    assert np.array_equal(log.ref[ev], missed_at[cap:])


@settings(max_examples=40, deadline=None)
@given(pages=st.lists(st.integers(0, 40), min_size=1, max_size=300), extra=st.integers(0, 5))
def test_a_cache_holding_every_page_misses_only_cold(pages, extra):
    cap = len(set(pages)) + extra
    for policy, kw in (("fifo", {}), ("random", {"seed": 7})):
        c = simulate(_pages_trace(pages), policy, cap, **kw).counters
        assert c["misses"] == len(set(pages)) and c["evictions"] == 0


@settings(max_examples=40, deadline=None)
@given(tr=traces(), rng_seed=st.integers(0, 2**63 - 1))
def test_one_frame_is_lru_for_every_policy(tr, rng_seed):
    """With one frame there is no choice: FIFO, RANDOM and LRU are the same cache."""
    want = simulate(tr, "lru", 1, flush_at_end=True, log_io=True)
    for policy, kw in (("fifo", {}), ("random", {"seed": rng_seed})):
        got = simulate(tr, policy, 1, flush_at_end=True, log_io=True, **kw)
        assert got.counters == want.counters
        assert np.array_equal(got.hit, want.hit)


# --- what defines RANDOM -----------------------------------------------------------------------------------
def test_random_is_reproducible_and_the_seed_matters():
    tr = random_trace(31, n=4000, n_pages=400)
    runs = {s: simulate(tr, "random", 50, log_io=True, seed=s) for s in (0, 1, 2)}
    again = simulate(tr, "random", 50, log_io=True, seed=1)
    assert np.array_equal(again.hit, runs[1].hit) and again.counters == runs[1].counters
    assert not np.array_equal(runs[0].hit, runs[1].hit)
    assert not np.array_equal(runs[1].hit, runs[2].hit)


@pytest.mark.parametrize("cap", [2, 8, 100])
def test_random_victims_are_uniform(cap):
    """Every reference a new page, every one a write: each miss in the full cache evicts a uniformly drawn
    resident page, so a page's age when it leaves (misses since it came in) is geometric with p = 1/cap
    (FIFO: exactly cap). A chi-square test of the ages against that law, with bins of expected count >= 50."""
    n = 60_000
    res = simulate(_pages_trace(np.arange(n), np.ones(n, bool)), "random", cap, log_io=True, seed=2024)
    log = res.io_log
    ev = log.cause == 1
    age = log.ref[ev] - log.first_page[ev]  # page k came in at reference k
    assert len(age) == n - cap and age.min() >= 1
    p = 1 / cap
    edges = [1]  # bins of the geometric law with expected count >= 50 each, the tail in the last
    mass = 0.0
    for k in range(1, 100 * cap):
        mass += p * (1 - p) ** (k - 1)
        if mass * len(age) >= 50 and (1 - p) ** k * len(age) >= 50:
            edges.append(k + 1)
            mass = 0.0
    counts = np.histogram(age, bins=[*edges, max(age.max(), edges[-1]) + 1])[0]
    cdf = 1 - (1 - p) ** (np.asarray(edges[1:], float) - 1)  # P(age <= edge - 1)
    expected = np.diff(np.concatenate(([0.0], cdf, [1.0]))) * len(age)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    dof = len(counts) - 1
    # the 1 - 1e-6 quantile of chi-square(dof), by the Wilson-Hilferty approximation (z = 4.75)
    limit = dof * (1 - 2 / (9 * dof) + 4.75 * math.sqrt(2 / (9 * dof))) ** 3
    assert chi2 < limit, (chi2, limit, dof)
