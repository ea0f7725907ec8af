"""Invariants every policy must keep, on traces hypothesis draws."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrepro.cache import POLICIES, lru_mrc, make_params, simulate
from flashrepro.traces import Op, Trace

POLICY = st.sampled_from(sorted(POLICIES))


@st.composite
def traces(draw, max_len=300):
    n = draw(st.integers(1, max_len))
    pages = draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))
    writes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    sizes = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    op = np.where(writes, Op.WRITE, Op.READ)
    return Trace(np.zeros(n), op, np.array(pages) * 4096, np.array(sizes) * 4096, name="hyp")


@settings(max_examples=60, deadline=None)
@given(tr=traces(), cap=st.integers(1, 80), policy=POLICY, flush=st.booleans())
def test_accounting_invariants(tr, cap, policy, flush):
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


@settings(max_examples=40, deadline=None)
@given(tr=traces(), policy=POLICY)
def test_cache_larger_than_footprint_only_cold_misses(tr, policy):
    refs = tr.to_pages()
    pol = POLICIES[policy]
    k = min_capacity(policy)
    units, _ = refs.units(k, pol.kernel.unit_halo(make_params(policy), 4096))
    c = simulate(tr, policy, units.n + 1).counters  # room for every unit, prefetched ones too
    if pol.caps.drops_with_room:  # its paper drops some pages even with room: each extra miss follows a drop
        assert c["evictions"] >= c["misses"] - refs.n_unique >= 0
        return
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


@settings(max_examples=60, deadline=None)
@given(tr=traces(), cap=st.integers(1, 20), policy=st.sampled_from(PAGE_PREFETCHERS), k=st.integers(0, 3),
       tagged=st.booleans())
def test_a_page_read_ahead_is_requested_evicted_or_still_held(tr, cap, policy, k, tagged):
    """Every page a page-granular prefetcher reads is a device read beyond the read misses, and ends as a prefetch
    hit, evicted unrequested, or held unrequested at the end (so at most what is held)."""
    params = {"sequential_k": k, "tagged": tagged} if policy == "lru_obl" else {}
    c = simulate(tr, policy, cap, **params).counters
    assert c["device_reads"] == c["read_misses"] + c["prefetched_pages"]
    held_unrequested = c["prefetched_pages"] - c["prefetch_hits"] - c["prefetch_evicted"]
    assert 0 <= held_unrequested <= c["resident_at_end"]


def test_page_prefetchers_include_lru_obl():
    assert "lru_obl" in PAGE_PREFETCHERS
