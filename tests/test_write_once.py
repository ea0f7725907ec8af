"""Paper 5's policies: the worked timeline of Figs. 3-4, the kernels against tests/reference_write_once.py
reference by reference on traces with time, syncs, flushes and deletes, and the equivalences the issue asks
for (no flushes and no history: write_once = lru_flush = lru)."""

import functools
import itertools

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_write_once import entries, flush_cache

from flashrepro.cache import POLICIES, Simulator, contract, make_params, simulate
from flashrepro.papers.write_once import claims as C
from flashrepro.papers.write_once import experiments as E
from flashrepro.papers.write_once import workloads as W
from flashrepro.traces import Op, Trace

PG = 4096
A, B = W.A_BLOCK, W.B_BLOCK  # the two blocks of Figs. 3-4 (the notebook draws this same run)


# --- Figs. 3 and 4 ---------------------------------------------------------------------------------------
def test_fig3_existing_cache_writes_a_and_b_back_and_keeps_them():
    """Fig. 3: A written at 0 s and read at 3 s, B written at 2 s; the 5 s flush writes both back and both
    stay; B written at 7 s and 9 s is written back once, at 10 s, with its 9 s content."""
    tr = W.fig3_trace()
    r = simulate(tr, "lru_flush", 10, log_io=True)
    assert r.outcome.tolist() == [0, 0, 1, 1, 1, 1]  # B's writes at 7 s and 9 s hit
    log = r.io_log
    rows = list(zip(tr.time_s[log.req].tolist(), log.cause.tolist(), log.first_page.tolist(), strict=True))
    assert rows == [(7.0, contract.PERIODIC_FLUSH, A), (7.0, contract.PERIODIC_FLUSH, B),  # the 5 s flush
                    (11.0, contract.PERIODIC_FLUSH, B)]  # the 10 s flush, noticed at the next request
    c = r.counters
    assert (c["misses"], c["device_reads"], c["device_writes"], c["periodic_flushes"]) == (2, 0, 3, 2)


def test_fig4_write_once_evicts_b_at_the_flush_and_history_keeps_it():
    """Fig. 4: at 5 s A (read at 3 s) is written back and stays; B (one write, no read: flag 'o') is written
    back and evicted; at 7 s B re-enters, is found in the history and gets flag 'x', so the 10 s flush
    writes it back and keeps it."""
    tr = W.fig3_trace()
    r = simulate(tr, "write_once", 10, log_io=True)
    assert r.outcome.tolist() == [0, 0, 1, 0, 1, 1]  # B's write at 7 s misses: it left at 5 s
    c = r.counters
    assert (c["flush_evictions"], c["history_hits"], c["misses"], c["device_reads"]) == (1, 1, 3, 0)
    assert c["device_writes_periodic_flush"] == 3 and c["resident_at_end"] == 2
    states = E.timeline(tr, "write_once", 10)
    flag = {(row["time_s"], row["block"]): row["flag"] for row in states.iter_rows(named=True)}
    assert flag[(0.0, A)] and not flag[(3.0, A)]  # the read clears A's flag
    assert flag[(2.0, B)]  # written once, never read
    after5 = states.filter(states["time_s"] == 7.0)
    assert after5.filter(after5["block"] == B)["flag"].to_list() == [False]  # found in the history
    assert after5.filter(after5["block"] == B)["in_history"].to_list() == [True]  # entries are kept
    # without the history B is flagged again at 7 s, its 9 s write clears it (two writes), same outcome
    r0 = simulate(tr, "write_once", 10, history_pages=0)
    assert r0.counters["history_hits"] == 0 and r0.counters["flush_evictions"] == 1


def test_a_reference_at_a_grid_point_comes_after_its_flush():
    tr = Trace([0.0, 5.0], [Op.WRITE, Op.READ], [0, 0], [PG, PG])
    assert simulate(tr, "write_once", 4).outcome is None
    r = simulate(tr, "write_once", 4, log_io=True)
    assert r.outcome.tolist() == [0, 0] and r.counters["flush_evictions"] == 1
    assert simulate(tr, "lru_flush", 4, log_io=True).outcome.tolist() == [0, 1]


def test_timeline_table_matches_the_io_log():
    tl = E.timeline(W.fig3_trace(), "lru_flush", 10)
    assert set(tl["block"].to_list()) == {A, B}
    assert not tl.filter(tl["time_s"] == 7.0)["dirty"].to_list()[0]  # A clean after the 5 s flush


def test_timeline_io_puts_a_periodic_write_at_the_grid_point_that_caused_it():
    """Block 0 written at 1 s, the next request at 12 s: the 5 s flush writes it back (noticed at 12 s, when
    the 10 s point is passed too, with nothing left to write)."""
    tr = Trace([1.0, 12.0], [Op.WRITE, Op.READ], [0, PG], [PG, PG])
    for pol in (E.BASELINE, E.PROPOSED):
        io = E.timeline_io(tr, pol, 4)
        periodic = io.filter(io["cause"] == contract.PERIODIC_FLUSH)
        assert periodic["time_s"].to_list() == [5.0] and periodic["block"].to_list() == [0]
    # two grid points with writes in between: each write at its own point
    tr = Trace([1.0, 6.0, 7.0, 23.0], [Op.WRITE, Op.WRITE, Op.READ, Op.READ], [0, PG, 2 * PG, 2 * PG], [PG] * 4)
    io = E.timeline_io(tr, E.BASELINE, 4)
    periodic = io.filter(io["cause"] == contract.PERIODIC_FLUSH)
    assert list(zip(periodic["time_s"].to_list(), periodic["block"].to_list(), strict=True)) == [(5.0, 0), (10.0, 1)]


def test_timeline_has_a_row_per_entry_events_included():
    """A write, a sync of its file, a read: three rows, each with its own time, kind and block."""
    tr = Trace([0.0, 1.0, 2.0], [Op.WRITE, Op.SYNC, Op.READ], [0, 0, PG], [PG, 0, PG], file=[0, 0, 0])
    tl = E.timeline(tr, E.PROPOSED, 4)
    entries = tl.select("time_s", "op", "ref_block", "ref").unique(maintain_order=True).rows()
    assert entries == [(0.0, "write", 0, 0), (1.0, "sync", -1, -1), (2.0, "read", 1, 1)]
    state = {(r["time_s"], r["block"]): r["resident"] for r in tl.iter_rows(named=True)}
    assert state[(0.0, 0)] and not state[(1.0, 0)]  # written once: evicted after its write-back at the sync
    assert not state[(1.0, 1)] and state[(2.0, 1)]  # block 1 enters at 2 s, not before


# --- kernel against reference, reference by reference -----------------------------------------------------
@functools.cache  # a few seeded traces serve many cases (simulate never changes a trace)
def event_trace(seed, n=700, n_files=3, pages_per_file=40, span_s=60.0, p=(0.45, 0.43, 0.03, 0.06, 0.03)):
    """Reads and writes over a few files, flushes, per-file syncs and deletes of a file's range, over
    ``span_s`` seconds (several 5 s grid points)."""
    rng = np.random.default_rng(seed)
    op = rng.choice([Op.READ, Op.WRITE, Op.FLUSH, Op.SYNC, Op.TRIM], n, p=list(p)).astype(np.int8)
    file = rng.integers(0, n_files, n)
    hot = rng.random(n) < 0.6
    block = np.where(hot, rng.integers(0, pages_per_file // 8, n), rng.integers(0, pages_per_file, n))
    size = np.where(op == Op.TRIM, rng.integers(1, pages_per_file // 2, n), rng.integers(1, 3, n)) * PG
    size = np.where((op == Op.FLUSH) | (op == Op.SYNC), 0, size)
    time = np.sort(np.round(rng.uniform(0, span_s, n), 1))  # some fall on grid points
    page = (file << 32) | block
    return Trace(time, op, page * PG, size, name=f"wo-{seed}", file=file.astype(np.int32))


VARIANTS = [{}, {"sync_scope": "all"}, {"sync_scope": "none"}, {"on_delete": "drop"}, {"period_s": 0.0},
            {"period_s": 2.5, "on_delete": "drop", "sync_scope": "all"}, {"write_miss_read": True}]
WO_VARIANTS = [{}, {"history_pages": 0}, {"history_pages": 3}, {"history_all_written": True},
               {"consume_history": True}, {"history_pages": 5, "history_all_written": True, "consume_history": True},
               {"evict_at_sync": False}, {"evict_at_sync": False, "evict_clean_flagged": False},
               {"evict_clean_flagged": False},
               {"evict_at_sync": False, "history_pages": 3, "history_all_written": True, "consume_history": True}]
CASES = ([("lru_flush", v) for v in VARIANTS]
         + [("write_once", {**v, **h}) for v, h in itertools.product(VARIANTS, WO_VARIANTS)])


@functools.cache
def trace_entries(tr):
    """The reference's input for ``tr`` (:func:`entries`), made once per trace: flush_cache only reads it."""
    return entries(tr)


def compare(tr, policy, capacity, flush_at_end, **params):
    res = simulate(tr, policy, capacity, flush_at_end=flush_at_end, log_io=True, **params)
    hits, ios, counters = flush_cache(trace_entries(tr), capacity, flush_at_end, write_once=policy == "write_once",
                                      **params)
    differ = np.flatnonzero(res.hit != np.array(hits, bool))
    assert differ.size == 0, f"first differing page reference: {differ[:1]}"
    log = res.io_log
    got = list(zip(log.ref.tolist(), log.op.tolist(), log.cause.tolist(), log.first_page.tolist(),
                   log.n_pages.tolist(), strict=True))
    assert got == ios
    assert res.counters == counters  # every counter the kernel reports
    return res


@pytest.mark.parametrize("policy,params", CASES)
@pytest.mark.parametrize("seed,capacity", [(1, 4), (2, 17), (3, 60)])
def test_kernel_matches_reference_with_time_and_events(policy, params, seed, capacity):
    res = compare(event_trace(seed), policy, capacity, seed % 2 == 0, **params)
    c = res.counters
    assert c["periodic_flushes"] > 0 or params.get("period_s") == 0.0
    assert c["syncs"] > 0 and c["deletes"] > 0


def test_the_comparison_exercises_every_rule():
    """The seeded traces reach the flag, the history and its re-entries, deletes of dirty pages, and
    evictions: a reference that got any of them wrong would differ."""
    totals = dict.fromkeys(("flush_evictions", "history_hits", "deleted_dirty", "evictions",
                            "device_writes_sync_flush", "device_writes_periodic_flush"), 0)
    totals["clean_flush_evictions"] = 0  # flagged blocks a non-evicting sync cleaned, evicted at a later flush
    for seed, cap in [(1, 4), (2, 17), (3, 60)]:
        c = simulate(event_trace(seed), "write_once", cap, on_delete="drop").counters
        for k in totals:
            totals[k] += c.get(k, 0)
        taken, kept = (simulate(event_trace(seed), "write_once", cap, evict_at_sync=False, evict_clean_flagged=x)
                       .counters["flush_evictions"] for x in (True, False))
        totals["clean_flush_evictions"] += taken - kept
    assert all(v > 0 for v in totals.values()), totals


def test_chunked_write_once_equals_whole():
    tr = event_trace(5, n=2000)
    whole = simulate(tr, "write_once", 20, log_io=True, flush_at_end=True)
    part = simulate(tr, "write_once", 20, log_io=True, flush_at_end=True, chunk_refs=3)
    assert whole.counters == part.counters
    assert np.array_equal(whole.io_log.first_page, part.io_log.first_page)


def test_a_file_sync_writes_only_that_file():
    # file 0 block 0 and file 1 block 0 written; fsync(file 1) writes only file 1's block and (write_once)
    # evicts it; the flush of everything then writes file 0's block
    p0, p1 = 0, (1 << 32)
    tr = Trace([0, 1, 2, 3], [Op.WRITE, Op.WRITE, Op.SYNC, Op.FLUSH], [p0 * PG, p1 * PG, 0, 0], [PG, PG, 0, 0],
               file=[0, 1, 1, -1])
    r = simulate(tr, "write_once", 10, log_io=True)
    sync = r.io_log.cause == contract.SYNC_FLUSH
    assert r.io_log.first_page[sync].tolist() == [p1, p0]
    assert r.counters["flush_evictions"] == 2 and r.counters["resident_at_end"] == 0
    r_all = simulate(tr, "write_once", 10, log_io=True, sync_scope="all")
    assert r_all.io_log.first_page[r_all.io_log.cause == contract.SYNC_FLUSH].tolist() == [p0, p1]
    assert simulate(tr, "write_once", 10, sync_scope="none").counters["device_writes_sync_flush"] == 0


def test_bad_parameters_are_errors():
    tr = W.fig3_trace()
    with pytest.raises(ValueError, match="sync_scope"):
        simulate(tr, "lru_flush", 4, sync_scope="some")
    with pytest.raises(ValueError, match="on_delete"):
        simulate(tr, "write_once", 4, on_delete="later")
    with pytest.raises(ValueError, match="history_pages"):
        simulate(tr, "write_once", 4, history_pages=-1)
    with pytest.raises(ValueError, match="period_s"):
        simulate(tr, "lru_flush", 4, period_s=-5.0)


# --- write misses: read-modify-write -----------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["lru_flush", "write_once"])
def test_write_miss_read_adds_a_read_per_write_miss_and_changes_nothing_else(policy):
    tr = event_trace(11, n=900)
    off = simulate(tr, policy, 17, flush_at_end=True, log_io=True)
    on = simulate(tr, policy, 17, flush_at_end=True, log_io=True, write_miss_read=True)
    assert np.array_equal(on.outcome, off.outcome)  # the device read is not a reference: same hits, same flags
    a, b = off.counters, on.counters
    assert b["write_miss_reads"] == b["write_misses"] > 0 and a["write_miss_reads"] == 0
    assert b["device_reads"] == a["device_reads"] + b["write_misses"] == b["read_misses"] + b["write_misses"]
    same = {k for k in a if not k.startswith("device_read") and k != "write_miss_reads"}
    assert {k: a[k] for k in same} == {k: b[k] for k in same}  # flush evictions and history hits included


def test_partial_write_misses_counts_writes_that_do_not_cover_their_block():
    # block 0 written whole, block 1 from its middle, block 2 by a write that spans blocks 2-3 unaligned
    tr = Trace([0.0, 0.1, 0.2, 0.3], [Op.WRITE] * 4, [0, PG + 100, 2 * PG + 8, 0], [PG, 12, PG, PG])
    assert E.partial_write_misses(tr, "lru_flush", 8) == 3  # block 1, block 2 (from byte 8), block 3 (8 bytes)
    whole = Trace([0.0, 0.1], [Op.WRITE] * 2, [0, 5 * PG], [PG, 2 * PG])
    assert E.partial_write_misses(whole, "write_once", 8) == 0
    # every write partial: the count is the kernel's write_miss_reads with write_miss_read=True
    tr = event_trace(12, n=600)
    part = Trace(tr.time_s, tr.op, tr.offset_bytes + np.where(tr.op <= Op.WRITE, 1, 0),
                 np.where(tr.op <= Op.WRITE, 100, tr.size_bytes), file=tr.file)
    for pol in ("lru_flush", "write_once"):
        on = simulate(part, pol, 9, write_miss_read=True).counters
        assert E.partial_write_misses(part, pol, 9) == on["write_miss_reads"] > 0


# --- equivalences -----------------------------------------------------------------------------------------
@st.composite
def file_traces(draw, max_len=200):
    n = draw(st.integers(1, max_len))
    op = draw(st.lists(st.sampled_from([Op.READ, Op.WRITE, Op.WRITE, Op.READ, Op.SYNC, Op.FLUSH, Op.TRIM]),
                       min_size=n, max_size=n))
    file = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    block = draw(st.lists(st.integers(0, 25), min_size=n, max_size=n))
    size = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    gaps = draw(st.lists(st.floats(0, 4), min_size=n, max_size=n))
    op = np.array(op, np.int8)
    size = np.where((op == Op.SYNC) | (op == Op.FLUSH), 0, np.array(size) * PG)
    page = (np.array(file, np.int64) << 32) | np.array(block)
    return Trace(np.cumsum(gaps), op, page * PG, size, name="hyp-files", file=np.array(file, np.int32))


NO_FLUSH = {"period_s": 0.0, "sync_scope": "none"}
COMMON = [c.name for c in contract.BASE]


@settings(max_examples=60, deadline=None)
@given(tr=file_traces(), cap=st.integers(1, 40), flush=st.booleans())
def test_without_flushes_write_once_is_lru_flush_is_lru(tr, cap, flush):
    if not ((tr.op == Op.READ) | (tr.op == Op.WRITE)).any():
        return
    lru = simulate(tr, "lru", cap, flush_at_end=flush, log_io=True)
    lf = simulate(tr, "lru_flush", cap, flush_at_end=flush, log_io=True, **NO_FLUSH)
    wo = simulate(tr, "write_once", cap, flush_at_end=flush, log_io=True, history_pages=0, **NO_FLUSH)
    for r in (lf, wo):
        assert np.array_equal(r.outcome, lru.outcome)
        assert {k: r.counters[k] for k in COMMON} == {k: lru.counters[k] for k in COMMON}
        assert np.array_equal(r.io_log.first_page, lru.io_log.first_page)
        assert np.array_equal(r.io_log.cause, lru.io_log.cause)
    assert wo.counters["flush_evictions"] == 0 and lf.counters["periodic_flushes"] == 0


@settings(max_examples=40, deadline=None)
@given(tr=file_traces(), cap=st.integers(1, 40))
def test_every_dirtying_is_written_once_with_flushes_and_deletes(tr, cap):
    """Same writes, always: every dirtying is written once, on eviction, at a flush or at the end."""
    if not ((tr.op == Op.READ) | (tr.op == Op.WRITE)).any():
        return
    for pol, extra in (("lru_flush", {}), ("write_once", {"history_pages": 0}), ("write_once", {})):
        for drop in ("keep", "drop"):
            c = simulate(tr, pol, cap, flush_at_end=True, on_delete=drop, **extra).counters
            assert c["dirtyings"] == c["device_writes"] + c["deleted_dirty"]
            assert c["hits"] + c["misses"] == c["references"]
            assert c["resident_at_end"] <= cap


def _clean_flagged_after_each_entry(tr, capacity, **params):
    """Per stream entry: how many resident flagged blocks are clean, and whether the entry was a periodic
    flush point passed (the states through the kernel contract, one entry at a time)."""
    pol = POLICIES["write_once"]
    refs = tr.to_pages()
    units, _ = refs.units()
    sim = Simulator("write_once", units, {"capacity_pages": capacity}, make_params("write_once", **params))
    out = []
    for part, _ in refs.stream(1, events=True, chunk=1):
        sim.feed(part)
        out.append(sum(s["flag"] and not s["dirty"] for s in pol.kernel.describe(sim.state, units).values()
                       if s["resident"]))
    return out


@pytest.mark.parametrize("params", [{}, {"evict_clean_flagged": False}, {"sync_scope": "all"}])
def test_flagged_blocks_are_always_dirty_while_syncs_evict(params):
    """The flag needs a write since entry and every flush that cleans a block evicts it when flagged, so a
    resident flagged block is dirty (and evict_clean_flagged has nothing to act on)."""
    assert max(_clean_flagged_after_each_entry(event_trace(7, n=300), 12, **params)) == 0


def test_a_sync_that_does_not_evict_leaves_clean_flagged_blocks():
    """With evict_at_sync=False a sync cleans flagged blocks and keeps them: some appear on the seeded trace,
    and with evict_clean_flagged the next periodic flush takes them (more flush evictions than without)."""
    tr = event_trace(7, n=300)
    assert max(_clean_flagged_after_each_entry(tr, 12, evict_at_sync=False, evict_clean_flagged=False)) > 0
    kept = simulate(tr, "write_once", 12, evict_at_sync=False, evict_clean_flagged=False).counters
    taken = simulate(tr, "write_once", 12, evict_at_sync=False).counters
    assert taken["flush_evictions"] > kept["flush_evictions"]
    assert taken["device_writes"] == kept["device_writes"]  # a clean eviction writes nothing


def test_eviction_at_a_sync_and_clean_flagged_blocks_by_hand():
    """Block 0 of file 1 written at 1 s and synced at 2 s; a read of another block at 6 s passes the 5 s flush.
    Default: the sync writes it back and evicts it. evict_at_sync=False: the sync writes it back and keeps it;
    the 5 s flush then evicts it without a write (evict_clean_flagged) or keeps it (False)."""
    p1 = 1 << 32
    tr = Trace([1.0, 2.0, 6.0], [Op.WRITE, Op.SYNC, Op.READ], [p1 * PG, 0, 0], [PG, 0, PG], file=[1, 1, 0])
    cases = {(True, True): (1, 1), (False, True): (1, 1), (False, False): (0, 2), (True, False): (1, 1)}
    for (at_sync, clean), (evicted, resident) in cases.items():
        r = simulate(tr, "write_once", 8, log_io=True, evict_at_sync=at_sync, evict_clean_flagged=clean)
        c = r.counters
        assert (c["flush_evictions"], c["resident_at_end"]) == (evicted, resident), (at_sync, clean)
        assert c["device_writes_sync_flush"] == 1 and c["device_writes_periodic_flush"] == 0
        assert r.io_log.first_page[r.io_log.op == 1].tolist() == [p1]
    # a read of the block between the sync and the flush clears its flag: it stays
    tr = Trace([1.0, 2.0, 3.0, 6.0], [Op.WRITE, Op.SYNC, Op.READ, Op.READ], [p1 * PG, 0, p1 * PG, 0],
               [PG, 0, PG, PG], file=[1, 1, 1, 0])
    c = simulate(tr, "write_once", 8, evict_at_sync=False).counters
    assert (c["flush_evictions"], c["resident_at_end"], c["hits"]) == (0, 2, 1)


def test_the_new_switches_are_write_once_only():
    with pytest.raises(ValueError, match="evict_at_sync"):
        make_params("lru_flush", evict_at_sync=False)
    pb, pp = E.split({"evict_at_sync": False, "evict_clean_flagged": False, "sync_scope": "all"})
    assert pb == {"sync_scope": "all"} and pp["evict_at_sync"] is False


# --- the paper package -------------------------------------------------------------------------------------
def test_table1_time_and_energy():
    # one reference, one flash read, one flash write, a 1 GiB cache: T and energy by hand from Table 1
    got = E.time_energy(1, 1, 1, 2**30 // 4096, span_s=100.0)
    t = 50e-9 + 284.2e-6 + 1833e-6
    assert got["time_s"] == pytest.approx(t)
    assert got["dynamic_j"] == pytest.approx(0.1e-9 * 32768 + 9.5e-6 + 76.1e-6)
    assert got["energy_j"] == pytest.approx(got["dynamic_j"] + 1.0 * t)
    assert got["energy_span_j"] == pytest.approx(got["dynamic_j"] + 100.0)


@pytest.mark.parametrize("name", ["Facebook", "Worldwar", "Mix2"])
def test_models_meet_their_calibration_targets(name):
    m = W.model(name)
    tr = W.generate(m, 8000)
    st = W.characterise(tr)
    assert st["references"] == 8000
    assert st["write_share"] == pytest.approx(m.writes_per_read / (1 + m.writes_per_read), abs=1e-3)
    assert st["written_once_share"] == pytest.approx(0.95, abs=2e-3)
    assert 0.95 * m.span_s < st["span_s"] <= m.span_s
    assert np.array_equal(W.generate(m, 8000).offset_bytes, tr.offset_bytes)  # seeded


def test_claims_cover_every_paper_number():
    traces = {f"writeonce/{w}": W.generate(W.model(w), 3000) for w in ("Facebook", "Mix1")}
    tab2 = W.table2(traces)
    curves = E.miss_curves(traces, fractions=(0.02, 0.1))
    q78 = E.quarter_cache(traces, fractions=(0.1, 0.5))
    eq6 = E.equal_miss_sizes(traces["writeonce/Mix1"], fractions=(0.01, 0.05, 0.2))
    df = C.claims(tab2, E.reductions(curves), eq6, q78)
    sources = set(df["source"].to_list())
    assert df.filter(pl.col("claim").str.contains("not the smaller cache")).height == 2  # the mechanism, per workload
    for fig in ("Table 2", "Fig. 1", "Fig. 2", "Fig. 5", "Fig. 6", "Fig. 7", "Fig. 8"):
        assert any(s.startswith(fig) for s in sources), fig
    assert df.height >= 15 and set(df["verdict"]) <= {"holds", "partly", "does not hold", "not comparable"}


def _small_claims(n=3000):
    traces = {f"writeonce/{w}": W.generate(W.model(w), n) for w in ("Facebook", "Mix1")}
    tab2 = W.table2(traces)
    red = E.reductions(E.miss_curves(traces, fractions=(0.02, 0.1, 0.5)))
    q78 = E.quarter_cache(traces, fractions=(0.1, 0.5))
    eq6 = E.equal_miss_sizes(traces["writeonce/Mix1"], fractions=(0.01, 0.05, 0.2))
    return traces, tab2, red, eq6, q78, C.claims(tab2, red, eq6, q78)


def test_a_row_the_control_also_meets_is_not_comparable():
    """Figs. 7-8 go through the ledger's against_control with lru_flush at a quarter of the cache as the
    control: a holding row it meets as well is "not comparable" with both numbers in the note; any other
    row keeps its verdict and carries the control's number in its detail."""
    *_, q78, df = _small_claims()
    fig7 = df.filter(pl.col("claim").str.starts_with("Fig. 7"))
    pts = C.equal_miss_points(q78)
    for r in fig7.iter_rows(named=True):
        p = pts.filter(pl.col("workload") == f"writeonce/{r['workload']}").row(0, named=True)
        mine = abs(p["time_ratio"] - 1) <= 0.05
        ctrl = abs(p["time_ratio_lru_q"] - 1) <= 0.05
        if mine and ctrl:
            assert r["verdict"] == "not comparable" and "a control meets it too" in r["note"]
        else:
            assert r["verdict"] == ("holds" if mine else "does not hold")
            assert "control, lru_flush at 1/4 of the cache" in r["detail"]
    assert not hasattr(C, "_controlled")  # the shared rule, not a local copy


def test_the_reading_rows_count_the_points_where_the_readings_disagree():
    *_, red, _, _, df = _small_claims()
    r = df.filter(pl.col("claim").str.starts_with(C.READING)).row(0, named=True)
    a, b = red["miss_reduction"].to_numpy(), red["flash_read_reduction"].to_numpy()
    assert r["verdict"] == "not comparable" and r["workload"] == "models"
    assert r["our_value"] == pytest.approx(float(((a > 0) != (b > 0)).mean()))
    assert "cache miss ratio" in r["claim"] and "second reading" in r["claim"]


@pytest.mark.parametrize("ratio,at_bound", [(0.2525, "does not hold"), (0.2, "holds"), (0.3, "does not hold")])
def test_fig6_rows_say_why_the_tolerance_and_what_the_bound_alone_gives(ratio, at_bound):
    eq6 = pl.DataFrame({"workload": ["writeonce/Mix1"] * 2, "capacity_blocks": [100, 200], "fraction": [0.1, 0.2],
                        "miss_ratio": [0.5, 0.4], "write_once_blocks": [100 * ratio, 200 * ratio + 10],
                        "size_ratio": [ratio, ratio + 0.05], "write_once_same_size": [0.45, 0.35]})
    out = []
    C._fig6(out, eq6, "Mix1", real=False)
    best = out[0]
    assert best.tolerance == 0.25 and best.verdict == ("holds" if ratio <= 0.3125 else "does not hold")
    assert "read off Fig. 6" in best.note and f"this row {at_bound}" in best.note


def test_quarter_cache_control_is_lru_flush_at_the_quarter():
    tr = W.generate(W.model("Facebook"), 3000)
    q = E.quarter_cache({"f": tr}, fractions=(0.2,))
    r = q.row(0, named=True)
    k = E.run(tr, "lru_flush", r["write_once_blocks"])
    b = E.run(tr, "lru_flush", r["capacity_blocks"])
    assert r["miss_ratio_lru_q"] == k["miss_ratio"] and r["time_ratio_lru_q"] == k["time_s"] / b["time_s"]
    assert r["energy_reduction_lru_q"] == 1 - k["energy_j"] / b["energy_j"]


def test_shared_settings_reach_both_policies():
    pb, pp = E.split({"period_s": 2.0, "write_miss_read": True, "history_pages": 3})
    assert pb == {"period_s": 2.0, "write_miss_read": True} and pp["history_pages"] == 3
    with pytest.raises(TypeError, match="unknown"):
        E.split({"histroy_pages": 3})


# --- the model's syncs, the public traces' values, the why table ---------------------------------------------
def _bincount_share(is_w, rank, u, x):
    """The written-once share at log share x, counted directly (what the model did before the curve)."""
    log = is_w & (u < x)
    data_w = rank[is_w & ~log]
    counts = np.bincount(data_w) if data_w.size else np.zeros(1, int)
    n_log = int(log.sum())
    return (n_log + int((counts == 1).sum())) / max(n_log + int((counts > 0).sum()), 1)


@pytest.mark.parametrize("name,n,seed", [("Facebook", 3000, 0), ("Worldwar", 500, 1), ("Mix2", 5000, 2)])
def test_the_written_once_curve_is_the_direct_count(name, n, seed):
    is_w, rank, u, _ = W._draws(W.model(name), n, seed)
    share = W._once_curve(is_w, rank, u)
    for x in [0.0, 1e-9, *np.random.default_rng(seed).random(40).tolist(), *u[is_w][:20].tolist(), 1.0]:
        assert share(x) == _bincount_share(is_w, rank, u, x)


def test_a_synced_model_has_the_same_references_and_an_fsync_after_writes():
    m = W.model("Facebook")
    base = W.generate(m, 4000)
    for r in (0.25, 1.5):
        tr = W.generate(W.model("Facebook", syncs_per_write=r), 4000)
        data = tr.op != Op.SYNC
        for col in ("time_s", "op", "offset_bytes", "size_bytes", "file"):
            assert np.array_equal(getattr(tr, col)[data], getattr(base, col))
        sync = np.flatnonzero(~data)
        prev = sync - 1
        while (tr.op[prev] == Op.SYNC).any():  # a write's second sync follows its first
            prev = np.where(tr.op[prev] == Op.SYNC, prev - 1, prev)
        assert (tr.op[prev] == Op.WRITE).all() and np.array_equal(tr.file[sync], tr.file[prev])
        assert np.array_equal(tr.time_s[sync], tr.time_s[prev])
        writes = int((base.op == Op.WRITE).sum())
        assert abs(sync.size - r * writes) < 4 * np.sqrt(writes)  # floor(r) each, + Bernoulli(r - floor(r))
        assert W.characterise(tr)["syncs"] == sync.size
    with pytest.raises(ValueError, match="syncs_per_write"):
        W.generate(W.model("Facebook", syncs_per_write=float("nan")), 100)


def test_public_trace_stats_measure_what_is_present_and_fall_back_to_the_committed_file():
    committed, measured = W.public_trace_stats({})
    assert not measured and committed.height >= 1
    assert committed["source"].str.contains("measured by flashrepro").all()
    assert ((committed["written_once_share"] > 0) & (committed["written_once_share"] <= 1)).all()
    fake = W.generate(W.model("Facebook", syncs_per_write=0.3), 3000).renamed("real/android_sql/fake")
    got, measured = W.public_trace_stats({"writeonce/Facebook": W.generate(W.model("Facebook"), 100),
                                          "real/android_sql/fake": fake})
    st = W.characterise(fake)
    assert measured and got["workload"].to_list() == ["real/android_sql/fake"]
    assert got["written_once_share"][0] == st["written_once_share"]
    assert got["syncs_per_write"][0] == st["syncs"] / st["writes"]


def test_the_committed_trace_stats_match_the_traces_when_present():
    reals = W.real_traces("paper")
    if not reals:
        pytest.skip("the public traces are absent (FLASHREPRO_TRACE_DIRS)")
    got, measured = W.public_trace_stats(reals)
    committed = pl.read_csv(paths_paper() / W.TRACE_STATS_FILE)
    assert measured
    j = committed.join(got, on="workload", suffix="_now")
    assert j.height == got.height
    for col in ("written_once_share", "syncs_per_write"):
        assert np.allclose(j[col], j[f"{col}_now"], rtol=1e-12), col


def paths_paper():
    from flashrepro import paths

    return paths.paper


def test_trace_variants_and_the_shared_ones():
    stats = pl.DataFrame({"workload": ["real/a", "real/b", "real/c"], "written_once_share": [0.8, 0.7, 0.9],
                          "syncs_per_write": [0.2, 0.4, 0.3]})
    v = E.trace_variants(stats)
    assert v["as a (80.0% written once, 0.200 syncs per write)"] == {"once_share": 0.8, "syncs_per_write": 0.2}
    assert {"once_share": 0.7} in v.values() and {"syncs_per_write": 0.3} in v.values()  # lowest, median
    assert E.shared_variants(stats) == [{"once_share": 0.7}, {"syncs_per_write": 0.3}]
    make = W.maker(500, 0, keep=E.shared_variants(stats))
    assert make("Facebook", once_share=0.7) is make("Facebook", once_share=0.7)  # kept
    assert make("Facebook", once_share=0.8) is not make("Facebook", once_share=0.8)  # not kept


def test_why_loss_splits_the_extra_misses_and_chains_each_cause_to_its_reference():
    stats = pl.DataFrame({"workload": ["real/a"], "written_once_share": [0.8], "syncs_per_write": [0.25]})
    make = W.maker(3000, 0, keep=E.shared_variants(stats))
    models = {"writeonce/Facebook": make("Facebook")}
    why = E.why_loss(models, {}, make, ["Facebook"], stats, 0.5)
    d = why.filter(pl.col("run") == "default").row(0, named=True)
    tr = models["writeonce/Facebook"]
    c = d["capacity_blocks"]
    misses = [simulate(tr, p, c).counters["misses"] for p in (E.BASELINE, E.PROPOSED)]
    assert d["net_extra_misses"] == misses[1] - misses[0]
    assert d["extra_misses_data_or_db"] + d["extra_misses_log_or_journal"] == d["net_extra_misses"]
    assert d["extra_misses_log_or_journal"] == 0 == d["extra_misses_journal_first_block"]  # log blocks never return
    runs = why["run"].to_list()
    assert set(why["compared_with"].to_list()) - {""} <= set(runs)  # every reference run is in the table
    kinds = dict(zip(why["cause"], why["kind"], strict=False))
    assert sorted(set(kinds.values())) == ["choice", "mechanism", "workload model"]
    # the choice runs differ from their reference in the policy's switches only: same trace, same lru_flush
    for r in why.filter(pl.col("kind") == "choice").iter_rows(named=True):
        ref = why.filter((pl.col("run") == r["compared_with"]) & (pl.col("workload") == r["workload"]))
        ref = ref.row(0, named=True)
        assert r["miss_ratio"] == ref["miss_ratio"] and r["capacity_blocks"] == ref["capacity_blocks"]


def test_replay_settings_are_checked_and_only_the_changes_kept():
    assert W.replay_settings(page_size=4096, journal_mode="delete", synchronous="full", cache_pages=500,
                             span_s=1050.0) == {}
    assert W.replay_settings(synchronous="normal", cache_pages=500) == {"synchronous": "normal"}
    for bad, msg in [({"page_size": 3000}, "power of two"), ({"journal_mode": "wal"}, "rollback"),
                     ({"synchronous": "FULL"}, "lower case"), ({"cache_pages": -2}, "positive"),
                     ({"span_s": float("inf")}, "positive finite"), ({"pages": 1}, "unknown replay settings")]:
        with pytest.raises(ValueError, match=msg):
            W.replay_settings(**bad)
    assert E.base_label({}) == next(iter(E.REPLAY_VARIANTS))
    assert E.base_label({"synchronous": "normal", "page_size": 1024}).startswith("the notebook's settings (NORMAL")


# --- the closing text ----------------------------------------------------------------------------------------
def _text_tables():
    traces, tab2, red, eq6, q78, df = _small_claims()
    stats, _ = W.public_trace_stats({})
    make = W.maker(3000, 0, keep=E.shared_variants(stats))
    t = {"claims": df, "red": red, "eq6": eq6, "q78": q78, "amb": E.ambiguities(traces), "tab2": tab2,
         "inputs": E.model_ambiguities(make, ["Facebook"], extra=E.trace_variants(stats)),
         "wm": E.write_miss_reads(traces), "why": E.why_loss(traces, {}, make, ["Facebook"], stats, 0.5),
         "stats": stats}
    return t


def test_the_closing_text_is_built_from_the_tables():
    from flashrepro import prose
    from flashrepro.papers.write_once import text as T

    t = _text_tables()
    md = T.closing(t, scale="ci", stats_measured=False)
    cl = t["claims"]
    n = dict(cl["verdict"].value_counts().iter_rows())
    assert f"{cl.height} rows: {n.get('holds', 0)} hold" in md
    top = t["red"].filter(pl.col("workload").str.starts_with("writeonce/")).sort("miss_reduction").row(-1, named=True)
    assert f"The largest gain is {prose.pct(top['miss_reduction'], signed=False)}" in md
    assert "The public traces are absent here" in md and "committed measurement" in md
    assert "### Why it does not reproduce" in md and "| cause | kind | run | against | what it shows |" in md
    hi = prose.row(cl, "Fig. 5: miss ratio (all references) 5-33% lower (largest gain)", "models")
    # a verdict-dependent sentence follows the verdict
    flipped = {"holds": "does not hold", "does not hold": "holds", "partly": "does not hold"}[hi["verdict"]]
    t2 = dict(t, claims=cl.with_columns(pl.when(pl.col("claim").str.starts_with("Fig. 5: miss ratio (all references) "
                                                                                "5-33% lower (largest"))
                                        .then(pl.lit(flipped)).otherwise(pl.col("verdict")).alias("verdict")))
    md2 = T.closing(t2, scale="ci", stats_measured=False)
    said = {"holds": "holds", "partly": "holds partly", "does not hold": "does not hold"}
    assert f"{prose.pct(hi['our_value'])}, {said[hi['verdict']]}" in md
    assert f"{prose.pct(hi['our_value'])}, {said[flipped]}" in md2
    with pytest.raises(KeyError, match="why"):
        T.closing({k: v for k, v in t.items() if k != "why"})
