"""Invariants every policy must keep, on traces hypothesis draws."""

import numpy as np
from hypothesis import given, note, settings
from hypothesis import strategies as st

from flashrepro.cache import POLICIES, lru_mrc, make_params, simulate
from flashrepro.traces import Op, Trace

ALL_POLICIES = sorted(POLICIES)  # the registered policies, as collection finds them


@st.composite
def traces(draw, max_len=300):
    n = draw(st.integers(1, max_len))
    pages = draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))
    writes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    sizes = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    op = np.where(writes, Op.WRITE, Op.READ)
    return Trace(np.zeros(n), op, np.array(pages) * 4096, np.array(sizes) * 4096, name="hyp")


# Drawing a trace costs more than running every policy on it: each example checks every policy (25 traces each,
# where drawing one policy per example gave each policy 3 or 4).
@settings(max_examples=25, deadline=None)
@given(tr=traces(), cap=st.integers(1, 80), flush=st.booleans())
def test_accounting_invariants(tr, cap, flush):
    for policy in ALL_POLICIES:
        note(f"policy {policy}")
        check_accounting(tr, cap, policy, flush)


def min_capacity(policy: str, **params) -> int:
    """The smallest cache a policy accepts (a segment policy holds at least one segment)."""
    pol = POLICIES[policy]
    return pol.kernel.unit_pages(make_params(policy, **params), 4096)


def check_accounting(tr, cap, policy, flush, **params):
    """The rules every policy keeps, minus those its capabilities exempt it from."""
    caps = POLICIES[policy].caps
    cap = max(cap, min_capacity(policy, **params))
    c = simulate(tr, policy, cap, flush_at_end=flush, **params).counters
    refs = tr.to_pages()
    assert c["hits"] + c["misses"] == c["references"] == len(refs)
    assert c["read_hits"] + c["write_hits"] == c["hits"]
    assert c["write_references"] == int(refs.is_write.sum())
    # every dirtying is written exactly once: on eviction, by a flush, or still dirty at the end
    written = sum(v for k, v in c.items() if k.startswith("device_writes_") and k != "device_writes")
    assert c["dirtyings"] == written + c["dirty_at_end"] == c["device_writes"] + c["dirty_at_end"]
    assert (c["dirty_at_end"] == 0) if flush else (c["device_writes_end_flush"] == 0)
    assert c["device_write_requests"] <= c["device_writes"]
    assert 0 <= c["resident_at_end"] <= cap
    if not caps.prefetches:  # a demand-paged cache reads a page for each read miss, and holds only what it was asked
        assert c["misses"] >= refs.n_unique  # every first reference misses
        assert c["device_reads"] == c["device_read_requests"] == c["read_misses"]
        assert c["resident_at_end"] <= refs.n_unique
    if not (caps.prefetches or caps.evicts_without_miss or caps.tiers):
        # occupancy at the end = pages brought in - pages evicted; evictions start when the cache is full
        assert c["resident_at_end"] == c["misses"] - c["evictions"] == min(cap, c["misses"])
        assert c["evictions"] == max(c["misses"] - cap, 0)


@settings(max_examples=40, deadline=None)
@given(tr=traces(), caps=st.lists(st.integers(1, 70), min_size=2, max_size=5))
def test_lru_misses_never_rise_with_capacity(tr, caps):
    caps = sorted(caps)
    misses = [simulate(tr, "lru", c).counters["misses"] for c in caps]
    assert all(a >= b for a, b in zip(misses, misses[1:], strict=False))
    assert misses == lru_mrc(tr).misses(caps).tolist()


@settings(max_examples=15, deadline=None)
@given(tr=traces())
def test_cache_larger_than_footprint_only_cold_misses(tr):
    """Every policy on each drawn trace (15 traces each; one policy per example gave each 2 or 3)."""
    refs = tr.to_pages()
    for policy in ALL_POLICIES:
        note(f"policy {policy}")
        pol = POLICIES[policy]
        k = min_capacity(policy)
        units, _ = refs.units(k, pol.kernel.unit_halo(make_params(policy), 4096))
        c = simulate(tr, policy, units.n + 1).counters  # room for every unit, prefetched ones too
        if pol.caps.drops_with_room:  # its paper drops some pages even with room: each extra miss follows a drop
            assert c["evictions"] >= c["misses"] - refs.n_unique >= 0
            continue
        if pol.caps.prefetches:  # prefetch hits stand in for some first references
            assert c["misses"] + c["prefetch_hits"] >= refs.n_unique >= c["misses"]
        else:
            assert c["misses"] == refs.n_unique
        assert c["evictions"] == 0


@settings(max_examples=40, deadline=None)
@given(pages=st.lists(st.integers(0, 10**12), min_size=1, max_size=200))
def test_dense_remap_preserves_order(pages):
    from flashrepro.traces import dense_remap

    p = np.array(pages, dtype=np.int64)
    dense, uniq = dense_remap(p)
    assert np.array_equal(uniq[dense], p)
    assert np.all(np.diff(uniq) > 0)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(dense[order]) >= 0)


PAGE_PREFETCHERS = sorted(n for n, p in POLICIES.items()
                          if [c.name for c in p.kernel.counters][-3:] == ["prefetch_hits", "prefetched_pages",
                                                                         "prefetch_evicted"]
                          and not n.startswith("seg_"))


def _prefetcher_settings():
    """Every page-granular prefetcher, lru_obl with each sequential_k 0-3, tagged or not."""
    for policy in PAGE_PREFETCHERS:
        if policy == "lru_obl":
            yield from ((policy, {"sequential_k": k, "tagged": t}) for k in range(4) for t in (False, True))
        else:
            yield policy, {}


@settings(max_examples=30, deadline=None)
@given(tr=traces(), cap=st.integers(1, 20))
def test_a_page_read_ahead_is_requested_evicted_or_still_held(tr, cap):
    """Every page a page-granular prefetcher reads is a device read beyond the read misses, and ends as a prefetch
    hit, evicted unrequested, or held unrequested at the end (so at most what is held). Each drawn trace meets
    every prefetcher setting (30 traces each; one setting per example gave lru_obl's eight about 4 each)."""
    for policy, params in _prefetcher_settings():
        note(f"{policy} {params}")
        c = simulate(tr, policy, cap, **params).counters
        assert c["device_reads"] == c["read_misses"] + c["prefetched_pages"]
        held_unrequested = c["prefetched_pages"] - c["prefetch_hits"] - c["prefetch_evicted"]
        assert 0 <= held_unrequested <= c["resident_at_end"]


def test_page_prefetchers_include_lru_obl():
    assert "lru_obl" in PAGE_PREFETCHERS
