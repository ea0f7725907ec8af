"""Paper 3's buffers: CLOCK-HBM and CLOCK-DNV against their references over every open choice (the generic
comparison in test_kernels.py sweeps only their boolean parameters), the degenerate cases, the baselines'
``cache_reads`` switch, and conservation on every policy."""


import numpy as np
import pytest
from conftest import random_trace
from hypothesis import given, note, settings
from hypothesis import strategies as st
from reference import REFERENCES
from reference_clock_hbm import TABLE2
from reference_clock_hbm import clock_dnv as ref_dnv
from reference_clock_hbm import clock_hbm as ref_hbm
from test_kernels import SIZES, compare_to_reference, flush_turns, seeded_trace
from test_properties import min_capacity, traces

from flashrepro.cache import POLICIES, Simulator, contract, make_params, simulate
from flashrepro.cache.clock_hbm import next_level
from flashrepro.traces import Op, Trace


def _compare(tr, policy, ref_fn, capacity, flush, **params):
    return compare_to_reference(tr, policy, ref_fn, capacity, flush, with_tiers=True, **params)


HBM_VARIANTS = [{}, {"rotation": "sweep"}, {"nvm_classes": "swapped"}, {"promote_test": "after"},
                {"read_level": 2, "write_level": 3}, {"read_level": 1, "write_level": 1, "promote_level": 4},
                {"write_level": 4, "dram_ref_bit": True}, {"rotation": "sweep", "dram_ref_bit": True},
                {"levels": False, "dram_ref_bit": True}, {"nvm_to_dram": False, "nvm_classes": "swapped"},
                {"nvm_second_chance": False},
                {"nvm_second_chance": False, "promote_test": "after", "nvm_classes": "swapped"},
                {"write_miss_read": True, "rotation": "sweep"},
                {"miss_write_counts": False}, {"evaluate_first": False}, {"migrated_referenced": True},
                {"miss_write_counts": False, "evaluate_first": False, "dram_ref_bit": True},
                {"evaluate_first": False, "rotation": "sweep"},
                {"migrated_referenced": True, "nvm_second_chance": False, "promote_test": "after"},
                {"migrated_referenced": True, "nvm_classes": "swapped", "write_level": 4},
                {"migrated_read": True}, {"migrated_referenced": True, "migrated_read": True},
                {"migrated_read": True, "nvm_classes": "swapped", "nvm_second_chance": False},
                {"miss_write_counts": False, "promote_test": "after"},
                {"promote_write_tier": "nvm"}, {"promote_write_tier": "nvm", "promote_test": "after"},
                {"dram_ref_bit": True, "insert_referenced": False},
                {"dram_ref_bit": True, "insert_referenced": False, "rotation": "sweep", "promote_test": "after"},
                {"insert_referenced": False}, {"incoming_first": True},
                {"incoming_first": True, "promote_test": "after", "write_miss_read": True}]
DNV_VARIANTS = [{}, {"padding": "nvm"}, {"padding": "none"}, {"block_pages": 4}, {"block_pages": 1},
                {"block_pages": 8, "clean_to_free_nvm": True}, {"padding": "nvm", "block_pages": 16},
                {"write_miss_read": True, "block_pages": 4}, {"cache_reads": False, "block_pages": 4},
                {"cache_reads": False, "padding": "nvm", "clean_to_free_nvm": True},
                {"insert_referenced": False, "block_pages": 4}, {"migrated_referenced": True, "block_pages": 4},
                {"insert_referenced": False, "migrated_referenced": True, "clean_to_free_nvm": True},
                {"padding": "buffer_evict", "block_pages": 4}, {"padding": "buffer_evict"},
                {"padding": "buffer_evict", "block_pages": 8, "clean_to_free_nvm": True, "nvm_free": "lowest"},
                {"nvm_free": "lowest", "block_pages": 4}, {"nvm_free": "lowest", "padding": "nvm"},
                {"pad_order": "page", "block_pages": 4}, {"pad_order": "page", "padding": "buffer_evict"},
                {"pad_order": "page", "padding": "none", "block_pages": 2},
                {"incoming_first": True, "block_pages": 4},
                {"incoming_first": True, "write_miss_read": True, "padding": "buffer_evict", "block_pages": 4}]


@pytest.mark.parametrize("params", HBM_VARIANTS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "-")
@pytest.mark.parametrize("write_fraction", [0.4, 0.8])
def test_hbm_matches_reference(params, write_fraction):
    """Every size, with the end flush on and off by turns (as in test_kernels.py): each variant meets both."""
    turn = HBM_VARIANTS.index(params) + (write_fraction > 0.5)
    for (seed, cap, n), flush in zip(SIZES, flush_turns(turn, len(SIZES)), strict=True):
        _compare(seeded_trace(seed, n=n, write_fraction=write_fraction), "clock_hbm", ref_hbm, cap, flush, **params)


@pytest.mark.parametrize("params", DNV_VARIANTS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "-")
def test_dnv_matches_reference(params):
    for (seed, cap, n), flush in zip(SIZES, flush_turns(DNV_VARIANTS.index(params), len(SIZES)), strict=True):
        _compare(seeded_trace(seed, n=n, write_fraction=0.6), "clock_dnv", ref_dnv, cap, flush, **params)


def trace_at_150(write_fraction):
    """The seeded trace the comparisons above run at a cache of 150 pages (the tests of the rules use it too)."""
    seed, n = next((seed, n) for seed, cap, n in SIZES if cap == 150)
    return seeded_trace(seed, n=n, write_fraction=write_fraction)


def test_tiers_given_explicitly_match_the_reference():
    tr = random_trace(6, write_fraction=0.6)
    _compare(tr, "clock_hbm", ref_hbm, None, True, dram_pages=13, nvm_pages=51)
    _compare(tr, "clock_hbm", ref_hbm, None, True, dram_pages=40, nvm_pages=0)
    _compare(tr, "clock_dnv", ref_dnv, None, True, dram_pages=13, nvm_pages=51, block_pages=4)


def test_the_comparison_traces_reach_every_rule():
    """The seeded traces the references are compared on exercise every level, class and move."""
    tr = trace_at_150(0.8)
    c = simulate(tr, "clock_hbm", 150).counters
    for k in ("level_ups", "level_downs", "to_eviction_candidate", "to_migration_candidate", "promote_swaps",
              "migrations_dram_nvm", "migrations_nvm_dram", "write_hits_nvm", "writebacks_nvm"):
        assert c[k] > 0, k
    c = simulate(trace_at_150(0.6), "clock_dnv", 150, block_pages=4).counters
    for k in ("clean_drops", "padded_nvm_pages", "padded_dram_pages", "migrations_dram_nvm", "writebacks_dram"):
        assert c[k] > 0, k
    r = simulate(trace_at_150(0.8), "clock_hbm", 150, rotation="sweep").counters
    assert r["level_ups"] > 0 and r["level_downs"] > 0


def test_table2_as_printed():
    """Table 2: level 1 up on 1-3 writes, stays on 0; level 2 up on 2-3, stays on 1, down on 0; level 3 up on
    3, stays on 1-2, down on 0; level 4 stays on 2-3, down on 0-1."""
    for level, row in TABLE2.items():
        for writes, want in row.items():
            assert next_level(level, writes) == want
    assert [next_level(4, w) for w in range(4)] == [3, 3, 4, 4]


def test_parameters_are_checked():
    with pytest.raises(ValueError, match="rotation"):
        make_params("clock_hbm", rotation="lap")
    with pytest.raises(ValueError, match="level 1-4"):
        make_params("clock_hbm", write_level=5)
    with pytest.raises(ValueError, match="padding"):
        make_params("clock_dnv", padding="disk")


# --- degenerate cases --------------------------------------------------------------------------------------
DEGENERATE = {"nvm_pages": 0, "levels": False, "nvm_to_dram": False}


@pytest.mark.parametrize("seed,cap", [(1, 1), (2, 7), (3, 40), (5, 300)])
def test_hbm_without_nvm_and_migrations_is_clock(seed, cap):
    """NVM size 0, levels and NVM -> DRAM off, with a DRAM reference bit: CLOCK whose pages enter referenced
    (the access that brings a page in sets its bit), page by page and I/O by I/O (in CLOCK's log order, the
    read before the victim's write: ``incoming_first``)."""
    tr = random_trace(seed, write_fraction=0.5)
    clock = simulate(tr, "clock", cap, flush_at_end=True, log_io=True, insert_referenced=True)
    hbm = simulate(tr, "clock_hbm", flush_at_end=True, log_io=True, dram_pages=cap, dram_ref_bit=True,
                   incoming_first=True, **DEGENERATE)
    assert np.array_equal(clock.outcome, hbm.outcome)
    for col in ("ref", "op", "cause", "first_page", "n_pages"):
        assert np.array_equal(getattr(clock.io_log, col), getattr(hbm.io_log, col)), col
    assert all(hbm.counters[k] == v for k, v in clock.counters.items())
    assert hbm.counters["migrations_dram_nvm"] == hbm.counters["resident_nvm"] == 0


def test_hbm_without_nvm_migrations_or_bit_is_fifo():
    tr = random_trace(8, write_fraction=0.5)
    refs = tr.to_pages()
    cap = 30
    hbm = simulate(tr, "clock_hbm", flush_at_end=False, log_io=True, dram_pages=cap, **DEGENERATE)
    queue, hits = [], []
    for p in refs.page.tolist():
        hits.append(p in queue)
        if p not in queue:
            if len(queue) == cap:
                queue.pop(0)
            queue.append(p)
    assert hbm.hit.tolist() == hits
    # with levels on, the same buffer is no longer FIFO: written pages climb and stay
    leveled = simulate(tr, "clock_hbm", dram_pages=cap, nvm_pages=0, nvm_to_dram=False)
    assert leveled.counters["hits"] != hbm.counters["hits"]


def test_dnv_without_nvm_is_clock_with_referenced_inserts():
    tr = random_trace(9, write_fraction=0.5)
    clock = simulate(tr, "clock", 40, flush_at_end=True, insert_referenced=True).counters
    dnv = simulate(tr, "clock_dnv", flush_at_end=True, dram_pages=40, nvm_pages=0).counters
    assert all(dnv[k] == v for k, v in clock.items())


# --- the baselines' cache_reads switch ---------------------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(tr=traces(), cap=st.integers(1, 80))
def test_without_cache_reads_only_written_pages_are_held(tr, cap):
    """LRU and CLOCK on each drawn trace (20 traces each, as drawing one of the two for 40 examples gave)."""
    refs = tr.to_pages()
    written = int(np.unique(refs.page[refs.is_write]).size)
    for policy in ("lru", "clock"):
        note(policy)
        c = simulate(tr, policy, cap, flush_at_end=True, cache_reads=False).counters
        assert c["resident_at_end"] <= min(cap, written)
        assert c["device_reads"] == c["read_misses"]
        # every write miss allocates; reads never do
        assert c["resident_at_end"] == c["write_misses"] - c["evictions"]
        # a read hits only a page written before and still held
        res = simulate(tr, policy, cap, log_io=True, cache_reads=False)
        seen_written = set()
        for p, w, h in zip(refs.page.tolist(), refs.is_write.tolist(), res.hit.tolist(), strict=True):
            if h:
                assert p in seen_written
            if w:
                seen_written.add(p)


def test_cache_reads_on_is_the_default():
    """(That the default keeps every earlier result is tests/data/golden.json, unchanged for lru and clock.)"""
    tr = random_trace(3)
    for policy in ("lru", "clock"):
        on = simulate(tr, policy, 40).counters
        assert on == simulate(tr, policy, 40, cache_reads=True).counters
        assert on != simulate(tr, policy, 40, cache_reads=False).counters


# --- conservation on every policy --------------------------------------------------------------------------
VARIANTS = [(p, {}) for p in sorted(POLICIES)] + [
    ("lru", {"cache_reads": False}), ("clock", {"cache_reads": False}),
    ("clock_hbm", {"rotation": "sweep", "dram_ref_bit": True}), ("clock_hbm", {"promote_test": "after"}),
    ("clock_hbm", {"nvm_classes": "swapped", "write_level": 4}),
    ("clock_dnv", {"block_pages": 2}), ("clock_dnv", {"clean_to_free_nvm": False, "block_pages": 4})]


def replay_write_backs(tr, res):
    """Walk the references and the I/O log in order, page by page: a page is written to flash only while
    dirty and becomes clean when written, so each dirtying is written at most once; returns the pages still
    dirty at the end."""
    refs = tr.to_pages()
    log = res.io_log
    wb = (log.op == contract.IO_WRITE) & (log.cause != contract.MIGRATION)
    at = {}
    for k in np.flatnonzero(wb & (log.cause != contract.END_FLUSH)):  # a row covers a run of pages
        for q in range(int(log.first_page[k]), int(log.first_page[k] + log.n_pages[k])):
            at.setdefault(int(log.ref[k]), []).append((q, int(log.cause[k])))
    dirty = set()
    for i, (p, w) in enumerate(zip(refs.page.tolist(), refs.is_write.tolist(), strict=True)):
        for q, cause in at.get(i, []):  # written back while reference i was served
            assert q in dirty, f"page {q} written at reference {i} while clean"
            assert q != p or cause != contract.EVICTION  # a victim is never the page being served
            dirty.discard(q)
        if w:
            dirty.add(p)
    for k in np.flatnonzero(wb & (log.cause == contract.END_FLUSH)):
        for q in range(int(log.first_page[k]), int(log.first_page[k] + log.n_pages[k])):
            assert q in dirty, f"page {q} flushed at the end while clean"
            dirty.discard(q)
    return dirty


@settings(max_examples=60, deadline=None)
@given(tr=traces(), cap=st.integers(1, 80), variant=st.sampled_from(VARIANTS), flush=st.booleans())
def test_conservation(tr, cap, variant, flush):
    """Every page the host wrote is resident and dirty or was written to flash exactly once per dirtying;
    the pages held never exceed a tier's size, at every prefix of the trace."""
    policy, params = variant
    cap = max(cap, min_capacity(policy, **params))  # a segment policy holds at least one segment
    res = simulate(tr, policy, cap, flush_at_end=flush, log_io=True, **params)
    c = res.counters
    still_dirty = replay_write_backs(tr, res)
    assert len(still_dirty) == c["dirty_at_end"]
    if flush:
        assert not still_dirty
    assert c["dirtyings"] == c["device_writes"] + c["dirty_at_end"]
    n_req = len(tr)
    for k in sorted({1, n_req // 3, n_req // 2, n_req}):
        c = simulate(tr.head(max(k, 1)), policy, cap, **params).counters
        assert c["resident_at_end"] <= cap
        for t, size in res.tiers.items():
            name = t.removesuffix("_pages")
            if f"resident_{name}" in c:
                assert c[f"resident_{name}"] <= size


@settings(max_examples=30, deadline=None)
@given(tr=traces(max_len=120), cap=st.integers(3, 40), policy=st.sampled_from(["clock_hbm", "clock_dnv"]))
def test_hybrid_state_stays_consistent(tr, cap, policy):
    """After every request: each page in at most one frame and every frame's page pointing back to it, DRAM
    and NVM within their sizes."""
    refs = tr.to_pages()
    params = make_params(policy)
    tiers = contract.resolve_tiers(params, cap)
    units, _ = refs.units(1)
    sim = Simulator(policy, units, tiers, params)
    D, N = tiers["dram_pages"], tiers["nvm_pages"]
    for part, _ in refs.stream(1, chunk=1):
        sim.feed(part)
        s = sim.state
        held = np.flatnonzero(s.where >= 0)
        assert np.array_equal(s.funit[s.where[held]], held)
        occupied = np.flatnonzero(s.funit >= 0)
        assert len(occupied) == len(held) <= D + N
        assert np.count_nonzero(occupied < D) <= D and np.count_nonzero(occupied >= D) <= N


def test_a_trace_with_only_writes_never_reads_flash():
    tr = Trace(np.zeros(200), np.full(200, Op.WRITE), (np.arange(200) % 37) * 4096, np.full(200, 4096))
    for policy in ("clock_hbm", "clock_dnv", "lru", "clock"):
        c = simulate(tr, policy, 20).counters
        assert c["device_reads"] == 0 and c["fills_dram" if "fills_dram" in c else "device_reads"] == 0


def test_generic_comparison_covers_paper3():
    assert {"clock_hbm", "clock_dnv"} <= set(REFERENCES)


def _tiny(seq, policy="clock_hbm", **params):
    """``seq`` of ("R"/"W", page) on a buffer of DRAM 1 page and NVM 2: the pages evicted to flash, in order."""
    ops = np.array([Op.WRITE if o == "W" else Op.READ for o, _ in seq], np.int8)
    pages = np.array([pg for _, pg in seq]) * 4096
    tr = Trace(np.arange(len(seq)) * 1e-3, ops, pages, np.full(len(seq), 4096))
    res = simulate(tr, policy, dram_pages=1, nvm_pages=2, log_io=True, **params)
    log = res.io_log
    evicted = [int(pg) for pg, c in zip(log.first_page, log.cause, strict=True) if c == contract.EVICTION]
    return evicted, res.counters


def test_nvm_victim_considers_writes():
    """Review 3, finding 3: A and B migrate to NVM as eviction candidates, A is written there (no move: its bit
    was clear), then the DRAM victim C needs an NVM frame. The paper's victims have "low read/write access
    frequency" (Sec. III): by default the written A gets a second chance and the untouched B goes; with
    ``nvm_second_chance=False`` (only reads count) A, written a moment ago, goes first."""
    A, B, C, D = 0, 1, 2, 3
    seq = [("W", A), ("W", B), ("W", C), ("W", A), ("W", D)]
    assert _tiny(seq)[0] == [B]
    assert _tiny(seq, nvm_second_chance=False)[0] == [A]
    for args, victim in (({}, B), ({"nvm_second_chance": False}, A)):  # the reference agrees
        _, ios, _ = ref_hbm([p for _, p in seq], [o == "W" for o, _ in seq], None, False, dram_pages=1,
                            nvm_pages=2, **args)
        assert [io[3] for io in ios if io[2] == contract.EVICTION] == [victim]


@pytest.mark.parametrize("policy", ["clock_hbm", "clock_dnv"])
def test_write_miss_read_reads_every_write_miss(policy):
    """``write_miss_read``: a write miss reads its page from flash first (a swap), so a write-only trace, which
    never reads flash by default (test below), reads each write miss once."""
    seq = [("W", p) for p in (0, 1, 2, 0, 3, 4, 1, 0)]
    _, off = _tiny(seq, policy)
    _, on = _tiny(seq, policy, write_miss_read=True)
    assert off["device_reads"] == 0
    assert on["device_reads"] == on["write_misses"] == off["write_misses"] > 0
    assert on["hits"] == off["hits"] and on["device_writes"] == off["device_writes"]


# --- the rules the paper leaves open (issue 21): each on a scenario whose outcome it decides -----------------
def _migrated(seq, dram_pages, nvm_pages, policy="clock_hbm", **params):
    """``seq`` of ("R"/"W", page): the pages moved DRAM -> NVM in order, and the counters (kernel and reference
    must agree on both)."""
    ops = np.array([Op.WRITE if o == "W" else Op.READ for o, _ in seq], np.int8)
    pages = np.array([pg for _, pg in seq]) * 4096
    tr = Trace(np.arange(len(seq)) * 1e-3, ops, pages, np.full(len(seq), 4096))
    res = simulate(tr, policy, dram_pages=dram_pages, nvm_pages=nvm_pages, log_io=True, **params)
    log = res.io_log
    moved = [int(pg) for pg, c, op in zip(log.first_page, log.cause, log.op, strict=True)
             if c == contract.MIGRATION and op == contract.IO_WRITE]
    ref = ref_hbm if policy == "clock_hbm" else ref_dnv
    _, ios, counters = ref([p for _, p in seq], [o == "W" for o, _ in seq], None, False, dram_pages=dram_pages,
                           nvm_pages=nvm_pages, **params)
    assert [io[3] for io in ios if io[2] == contract.MIGRATION and io[1] == contract.IO_WRITE] == moved
    assert counters == res.counters
    return moved, res.counters


def test_miss_write_counts_decides_whether_a_written_page_climbs():
    """A write miss then one write hit: counted, A has two writes in its first rotation and climbs from level 2
    to 3 as the hand passes (Table 2), so the read page B goes to NVM; not counted, A has one write, stays at
    level 2 and goes."""
    A, B, C = 0, 1, 2
    seq = [("W", A), ("W", A), ("R", B), ("R", C)]
    assert _migrated(seq, 2, 2)[0] == [B]
    assert _migrated(seq, 2, 2, miss_write_counts=False)[0] == [A]


def test_evaluate_first_decides_whether_a_page_leaves_at_its_old_level():
    """A at level 2 with three writes: Table 2 first lifts it to level 3 and the hand takes B; applied after the
    test, A leaves at level 2 before it is re-evaluated."""
    A, B, C = 0, 1, 2
    seq = [("W", A), ("W", A), ("W", A), ("R", B), ("R", C)]
    assert _migrated(seq, 2, 2)[0] == [B]
    assert _migrated(seq, 2, 2, evaluate_first=False)[0] == [A]
    # with rotation="sweep" Table 2 is applied when the hand wraps, so the order does not apply
    assert _migrated(seq, 2, 2, rotation="sweep")[1] == _migrated(seq, 2, 2, rotation="sweep",
                                                                   evaluate_first=False)[1]


def test_migrated_referenced_moves_a_page_written_in_nvm_back_at_once():
    """A migrates to NVM and is written there: unreferenced on arrival, the NVM -> DRAM test (the bit before this
    access) keeps it in NVM; referenced on arrival, it moves back to DRAM."""
    A, B = 0, 1
    seq = [("W", A), ("R", B), ("W", A)]
    moved, c = _migrated(seq, 1, 2)
    assert moved == [A] and c["migrations_nvm_dram"] == 0 and c["write_hits_nvm"] == 1
    moved, c = _migrated(seq, 1, 2, migrated_referenced=True)
    assert moved == [A, B] and c["migrations_nvm_dram"] == 1  # B, DRAM's victim, takes A's NVM frame


def test_dnv_without_read_caching_holds_written_pages_only():
    """``cache_reads=False``: every read of a page never written misses and is read from flash each time; a
    written page is held and its reads hit."""
    A, B = 0, 1
    seq = [("R", A), ("R", A), ("W", B), ("R", B), ("R", A)]
    _, on = _migrated(seq, 2, 2, policy="clock_dnv")
    _, off = _migrated(seq, 2, 2, policy="clock_dnv", cache_reads=False)
    assert (on["hits"], on["device_reads"], on["resident_at_end"]) == (3, 1, 2)
    assert (off["hits"], off["device_reads"], off["resident_at_end"]) == (1, 3, 1)
    assert off["fills_dram"] == 0


RULES = [("clock_hbm", {}, {"miss_write_counts": False}), ("clock_hbm", {}, {"evaluate_first": False}),
         ("clock_hbm", {}, {"migrated_referenced": True}), ("clock_hbm", {}, {"migrated_read": True}),
         ("clock_hbm", {"migrated_referenced": True}, {"migrated_read": True}),
         ("clock_hbm", {}, {"promote_write_tier": "nvm"}),
         ("clock_hbm", {"dram_ref_bit": True}, {"insert_referenced": False}),
         ("clock_dnv", {"block_pages": 4}, {"clean_to_free_nvm": True}),
         ("clock_dnv", {"block_pages": 4}, {"insert_referenced": False}),
         ("clock_dnv", {"block_pages": 4}, {"migrated_referenced": True}),
         ("clock_dnv", {"block_pages": 4}, {"padding": "buffer_evict"}),
         ("clock_dnv", {"block_pages": 4, "clean_to_free_nvm": True}, {"nvm_free": "lowest"}),
         ("clock_dnv", {"block_pages": 4}, {"nvm_free": "lowest"})]
LOG_RULES = [("clock_hbm", {}, {"incoming_first": True}), ("clock_dnv", {"block_pages": 4}, {"incoming_first": True}),
             ("clock_dnv", {"block_pages": 4}, {"pad_order": "page"})]


def _ids(r):
    return f"{r[0]}-{','.join(f'{k}={v}' for k, v in {**r[1], **r[2]}.items())}"


@pytest.mark.parametrize("rule", RULES, ids=_ids)
def test_each_open_rule_changes_the_comparison_traces(rule):
    """The seeded traces the reference comparison runs on are ones where each rule matters."""
    policy, base, params = rule
    tr = trace_at_150(0.6)
    assert simulate(tr, policy, 150, **base).counters != simulate(tr, policy, 150, **base, **params).counters


@pytest.mark.parametrize("rule", LOG_RULES, ids=_ids)
def test_each_log_order_rule_changes_only_the_order(rule):
    """A log-order rule changes the order of the comparison traces' I/O log and nothing else: the same rows as a
    multiset within each reference, the same outcomes and counters."""
    policy, base, params = rule
    tr = trace_at_150(0.6)
    a = simulate(tr, policy, 150, log_io=True, flush_at_end=True, **base)
    b = simulate(tr, policy, 150, log_io=True, flush_at_end=True, **base, **params)
    assert a.counters == b.counters and np.array_equal(a.outcome, b.outcome)
    cols = ("ref", "op", "cause", "first_page", "n_pages", "tier")
    rows = [list(zip(*(getattr(r.io_log, c).tolist() for c in cols), strict=True)) for r in (a, b)]
    assert rows[0] != rows[1]
    assert sorted(rows[0]) == sorted(rows[1])
    assert [r[0] for r in rows[0]] == [r[0] for r in rows[1]]  # reordered within a reference only


def _rows(seq, dram_pages, nvm_pages, policy="clock_hbm", **params):
    """``seq`` of ("R"/"W", page): the I/O log as (ref, op, cause, page, tier), the counters and the outcomes,
    after checking all three against the reference."""
    ops = np.array([Op.WRITE if o == "W" else Op.READ for o, _ in seq], np.int8)
    tr = Trace(np.arange(len(seq)) * 1e-3, ops, np.array([pg for _, pg in seq]) * 4096, np.full(len(seq), 4096))
    res = compare_to_reference(tr, policy, ref_hbm if policy == "clock_hbm" else ref_dnv, None, False,
                               with_tiers=True, dram_pages=dram_pages, nvm_pages=nvm_pages, **params)
    log = res.io_log
    rows = list(zip(log.ref.tolist(), log.op.tolist(), log.cause.tolist(), log.first_page.tolist(), log.tier.tolist(),
                    strict=True))
    return rows, res.counters, res.hit.tolist()


R_, W_ = contract.IO_READ, contract.IO_WRITE
DEM, EVI, MIG = contract.DEMAND, contract.EVICTION, contract.MIGRATION


def test_miss_write_counts_covers_the_write_that_moves_a_page_up():
    """The write that moves A up from NVM is, like a write miss's, one of its first rotation's writes: with one
    more write A has two, climbs to level 3 as the hand passes and stays (D goes); not counted, A has one, stays
    at level 2 and goes (the clean-room review's reading of "own write", settled for both ways into DRAM)."""
    A, B, C, D, E = range(5)
    seq = [("W", A), ("R", B), ("R", C), ("W", A), ("W", A), ("W", A), ("R", D), ("R", E)]
    assert _migrated(seq, 2, 2)[0] == [A, B, C, D]
    assert _migrated(seq, 2, 2, miss_write_counts=False)[0] == [A, B, C, A]


def test_migrated_read_makes_a_moved_page_a_migration_candidate():
    """Level 1 -> migration, level 2 -> eviction candidate; the NVM hand demotes 0 and evicts 1 (dirty, written).
    Counted as read on arrival (``migrated_read``), both are migration candidates at the first pass, demoted at
    the second, and 0 (clean) goes instead."""
    seq = [("R", 0), ("W", 1), ("R", 2), ("R", 3)]
    rows, c, _ = _rows(seq, 1, 2)
    assert [r[3] for r in rows if r[2] == EVI] == [1] and c["to_migration_candidate"] == 0
    rows, c, _ = _rows(seq, 1, 2, migrated_read=True)
    assert [r[3] for r in rows if r[2] == EVI] == [] and c["evictions"] == 1 and c["to_migration_candidate"] == 1
    assert c["resident_nvm"] == 2 and c["dirty_at_end"] == 1  # 1 is still there, dirty


def test_promote_write_tier_moves_only_the_write_counter():
    seq = [("R", 0), ("R", 1), ("W", 0), ("W", 0)]
    _, dram, _ = _rows(seq, 1, 1)
    _, nvm, _ = _rows(seq, 1, 1, promote_write_tier="nvm")
    assert (dram["writes_dram"], dram["writes_nvm"], nvm["writes_dram"], nvm["writes_nvm"]) == (1, 1, 0, 2)
    assert {k: v for k, v in dram.items() if not k.startswith("writes_")} == \
        {k: v for k, v in nvm.items() if not k.startswith("writes_")}


@pytest.mark.parametrize("seed,cap", [(1, 7), (3, 40)])
def test_hbm_inserting_unreferenced_is_clock_inserting_unreferenced(seed, cap):
    """The degenerate CLOCK-HBM (one DRAM clock, see above) with ``insert_referenced=False`` is CLOCK with pages
    inserted unreferenced, I/O by I/O."""
    tr = random_trace(seed, write_fraction=0.5)
    clock = simulate(tr, "clock", cap, flush_at_end=True, log_io=True, insert_referenced=False)
    hbm = simulate(tr, "clock_hbm", flush_at_end=True, log_io=True, dram_pages=cap, dram_ref_bit=True,
                   insert_referenced=False, incoming_first=True, **DEGENERATE)
    assert np.array_equal(clock.outcome, hbm.outcome)
    for col in ("ref", "op", "cause", "first_page", "n_pages"):
        assert np.array_equal(getattr(clock.io_log, col), getattr(hbm.io_log, col)), col


def test_hbm_log_order_is_algorithm_1s():
    """Algorithm 1: MigrateToNVMsBuffer (line 3) frees the frame AllocateToDRAMBuffer (line 5) fills, so the NVM
    eviction and the victim's migration come before the new page's read; a move up swaps with the DRAM victim,
    whose move comes first too. ``incoming_first=True``: the incoming page's row first."""
    seq = [("R", 1), ("W", 2), ("R", 3), ("W", 2), ("R", 4), ("W", 1), ("W", 1), ("R", 5)]
    rows, _, _ = _rows(seq, 2, 2)
    assert rows[5:] == [(6, W_, MIG, 2, 1), (6, R_, MIG, 1, 0), (7, W_, EVI, 2, 1), (7, W_, MIG, 4, 1),
                        (7, R_, DEM, 5, 0)]
    rows, _, _ = _rows(seq, 2, 2, incoming_first=True)
    assert rows[5:] == [(6, R_, MIG, 1, 0), (6, W_, MIG, 2, 1), (7, R_, DEM, 5, 0), (7, W_, EVI, 2, 1),
                        (7, W_, MIG, 4, 1)]


def test_dnv_drops_clean_victims_even_with_room():
    """Paper 3 (Sec. II.2): CLOCK-DNV "discards the pages whose dirty bit is not set" when it makes room in DRAM,
    NVM empty or not (the default since the clean-room review); ``clean_to_free_nvm=True`` keeps them in free
    NVM frames."""
    seq = [("R", 0), ("R", 1), ("R", 0)]
    _, c, hit = _rows(seq, 1, 2, policy="clock_dnv")
    assert hit == [False] * 3 and (c["clean_drops"], c["resident_nvm"]) == (2, 0)
    _, c, hit = _rows(seq, 1, 2, policy="clock_dnv", clean_to_free_nvm=True)
    assert hit == [False, False, True] and c["clean_drops"] == 0 and c["hits_nvm"] == 1


def test_dnv_buffer_evict_takes_the_dram_block_mates_out():
    """Blocks of 4: at reference 3 NVM evicts 0; its dirty DRAM block-mate 1 is written back and kept
    (``padding="buffer"``), or written and evicted (``"buffer_evict"``), so 1 misses next and takes the DRAM frame
    it left, with no victim."""
    seq = [("W", 0), ("W", 5), ("W", 1), ("R", 9), ("W", 1)]
    kept, c, hit = _rows(seq, 2, 1, policy="clock_dnv", block_pages=4)
    assert hit[-1] and c["evictions"] == 1 and c["padded_dram_pages"] == 1
    out, c, hit = _rows(seq, 2, 1, policy="clock_dnv", block_pages=4, padding="buffer_evict")
    assert not hit[-1] and c["evictions"] == 2 and c["padded_dram_pages"] == 1 and c["resident_dram"] == 2
    assert [r for r in out if r[0] == 3] == [r for r in kept if r[0] == 3]  # the same writes at reference 3
    assert [r for r in out if r[0] == 4] == []  # a free DRAM frame: no victim, no read (a write miss)


def test_dnv_free_nvm_frame_choice():
    """After padding frees NVM frames, the next page moving into NVM takes the one freed last (``lifo``) or the
    lowest (``lowest``): a different page is next under the NVM hand, and reference 9 evicts clean page 5 (no
    write) or dirty page 53 (written). The clean-room review's minimal trace, clean victims kept while NVM has
    room."""
    seq = [("W", 4), ("R", 3), ("W", 1), ("W", 0), ("W", 14), ("R", 5), ("W", 53), ("W", 56), ("R", 3), ("R", 37)]
    kw = {"block_pages": 4, "clean_to_free_nvm": True}
    lifo, _, _ = _rows(seq, 2, 3, policy="clock_dnv", **kw)
    low, _, _ = _rows(seq, 2, 3, policy="clock_dnv", nvm_free="lowest", **kw)
    assert [r for r in lifo if r[0] == 9 and r[2] == EVI] == []
    assert [r for r in low if r[0] == 9 and r[2] == EVI] == [(9, W_, EVI, 53, 1)]


def test_dnv_log_orders():
    """``pad_order``: a padded block's writes victim first (default) or in page order; ``incoming_first``: the new
    page's read after the victim's rows (default: "migrates the dirty pages, then allocates the new page") or
    before them."""
    seq = [("W", 50), ("W", 48), ("W", 8), ("W", 32), ("W", 3), ("R", 53)]
    kw = {"policy": "clock_dnv", "block_pages": 4}
    rows, _, _ = _rows(seq, 2, 3, **kw)
    assert [r for r in rows if r[0] == 5] == [(5, W_, EVI, 50, 1), (5, W_, EVI, 48, 1), (5, W_, MIG, 32, 1),
                                              (5, R_, DEM, 53, 0)]
    rows, _, _ = _rows(seq, 2, 3, pad_order="page", **kw)
    assert [r for r in rows if r[0] == 5][:2] == [(5, W_, EVI, 48, 1), (5, W_, EVI, 50, 1)]
    rows, _, _ = _rows(seq, 2, 3, incoming_first=True, **kw)
    assert [r for r in rows if r[0] == 5] == [(5, R_, DEM, 53, 0), (5, W_, EVI, 50, 1), (5, W_, EVI, 48, 1),
                                              (5, W_, MIG, 32, 1)]
