"""The kernel contract: events and time in the reference stream, segment units, tiers, a growing I/O log,
chunked runs equal to whole ones, and the write-back stream into the FTL. Three toy policies (tests/toys.py)
stand in for what papers 2, 3 and 5 need."""

import numpy as np
import pytest
from conftest import random_trace
from hypothesis import given, settings
from hypothesis import strategies as st
from test_properties import check_accounting, traces
from toys import TOYS, registered

from flashrepro.cache import POLICIES, contract, simulate
from flashrepro.traces import Op, Trace
from flashrepro.traces.trace import Event


@pytest.fixture(scope="module", autouse=True)
def toys():
    with registered():
        yield


def event_trace(seed: int, n: int = 2500, n_pages: int = 200, n_files: int = 4) -> Trace:
    """Reads and writes over a few files, with flushes, per-file syncs and trims between them."""
    rng = np.random.default_rng(seed)
    op = rng.choice([Op.READ, Op.WRITE, Op.FLUSH, Op.SYNC, Op.TRIM], n, p=[0.5, 0.38, 0.04, 0.05, 0.03])
    file = rng.integers(0, n_files, n)
    page = file * n_pages + rng.integers(0, n_pages, n)  # each file its own page range
    size = np.where(op == Op.TRIM, rng.integers(1, 9, n), rng.integers(1, 4, n)) * 4096
    size = np.where((op == Op.FLUSH) | (op == Op.SYNC), 0, size)
    time = np.cumsum(rng.exponential(0.05, n))
    return Trace(time, op.astype(np.int8), page * 4096, size, name=f"events-{seed}", file=file)


def all_policies():
    return sorted(POLICIES)


def _run(tr, policy, cap, chunk, **params):
    return simulate(tr, policy, cap, flush_at_end=True, log_io=True, chunk_refs=chunk, **params)


def _same(a, b):
    assert a.counters == b.counters
    assert np.array_equal(a.outcome, b.outcome)
    for col in ("ref", "req", "op", "cause", "first_page", "n_pages", "tier"):
        assert np.array_equal(getattr(a.io_log, col), getattr(b.io_log, col)), col


@pytest.mark.parametrize("seed", [1, 2])
def test_chunked_runs_equal_whole_runs(seed):
    """Every registered policy (the toys included) keeps its state between chunks exactly."""
    tr = event_trace(seed)
    for policy in all_policies():
        whole = _run(tr, policy, 60, None)
        for chunk in (1, 7, 333):
            _same(whole, _run(tr, policy, 60, chunk))


def test_references_and_events_keep_their_order():
    tr = event_trace(3, n=300)
    refs = tr.to_pages()
    parts = list(refs.stream(1, events=True, chunk=50))
    idx = np.concatenate([i for _, i in parts])
    ev = np.concatenate([p.event for p, _ in parts])
    assert np.array_equal(idx[idx >= 0], np.arange(len(refs)))  # every page reference once, in order
    assert (ev[idx < 0] >= Event.SYNC_FILE).all() and len(ev[idx < 0]) == len(refs.events)
    req = np.where(idx >= 0, refs.req[np.maximum(idx, 0)], refs.events.req[np.cumsum(idx < 0) - 1])
    assert np.all(np.diff(req) >= 0)  # the stream follows the trace's request order
    times = np.concatenate([p.time_s for p, _ in parts])
    assert np.all(np.diff(times) >= 0)


def test_chunks_never_split_a_request_and_carry_its_extent():
    # requests of 1..5 pages: the first entry of each says how many pages follow, and no chunk ends inside one
    rng = np.random.default_rng(4)
    size = rng.integers(1, 6, 400) * 4096
    tr = Trace(np.arange(400.0), np.zeros(400, np.int8), np.cumsum(size) - size + 40960 * np.arange(400), size)
    refs = tr.to_pages()
    parts = [p for p, _ in refs.stream(1, chunk=7)]
    assert sum(len(p.unit) for p in parts) == len(refs)
    for p in parts:
        assert p.count[-1] == 1  # the chunk ends with the last page of a request
    first = np.r_[True, refs.req[1:] != refs.req[:-1]]
    assert np.array_equal(refs.rest[first], size // 4096)
    allc = np.concatenate([p.count for p in parts])
    assert np.array_equal(allc, refs.rest)


def test_a_halo_gives_units_to_the_segments_after_touched_ones():
    tr = Trace([0, 1], [Op.READ, Op.READ], [0, 40 * 4096], [4096, 4096])
    units, unit = tr.to_pages().units(4, halo=1)
    assert units.segments.tolist() == [0, 1, 10, 11] and unit.tolist() == [0, 8]
    assert units.pages(np.arange(units.n)).tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 40, 41, 42, 43, 44, 45, 46, 47]


def test_delete_ranges_become_unit_ranges():
    # pages 0, 1, 2, 7 are referenced; a trim of pages 1..5 covers the units of pages 1 and 2 only
    tr = Trace([0, 1, 2, 3], [Op.WRITE, Op.WRITE, Op.TRIM, Op.READ], [0, 4096, 4096, 7 * 4096],
               [4096, 8192, 5 * 4096, 4096])
    (part, idx), = tr.to_pages().stream(1, events=True)
    d = part.event == Event.DELETE
    assert part.unit[d].tolist() == [1] and part.count[d].tolist() == [2]
    (part, idx), = tr.to_pages().stream(4, events=True)  # segments of 4 pages: units are blocks
    assert part.unit[d].tolist() == [1] and part.count[d].tolist() == [5]  # blocks 1..5 of segment 0


def test_a_stream_of_chunks_runs_in_bounded_memory():
    """A generated stream fed chunk by chunk (never held whole) gives what simulate gives on all of it."""
    from flashrepro.cache import Simulator, make_params
    from flashrepro.traces.trace import RefStream, Units

    n_pages, chunks = 5000, [np.random.default_rng(s).zipf(1.3, 4000) % 5000 for s in range(5)]
    units = Units.contiguous(n_pages)
    for policy in ("lru", "clock", "cflru", "bs_clock"):
        params = make_params(policy)
        sim = Simulator(policy, units, {"capacity_pages": 300}, params)
        for k, pages in enumerate(chunks):
            w = (np.arange(len(pages)) + k) % 3 == 0
            sim.feed(RefStream(pages.astype(np.int64), w.view(np.int8), np.zeros(len(pages)),
                               np.full(len(pages), -1, np.int32), np.ones(len(pages), np.int64)))
        sim.finish()
        allp = np.concatenate(chunks)
        allw = np.concatenate([(np.arange(len(c)) + k) % 3 == 0 for k, c in enumerate(chunks)])
        whole = simulate(Trace(np.zeros(len(allp)), allw.astype(np.int8), allp * 4096, np.full(len(allp), 4096)),
                         policy, 300)
        assert sim.counter_dict() == whole.counters, policy


# --- toy 1: time and sync events ------------------------------------------------------------------------
def test_periodic_flush_on_a_five_second_grid():
    """A written at 0 s and read at 3 s is written back at the 5 s flush; B written at 6 s at the 10 s
    one; nothing is dirty at 15 s, yet the grid point is counted."""
    pg = 4096
    tr = Trace([0.0, 3.0, 6.0, 16.0], [Op.WRITE, Op.READ, Op.WRITE, Op.READ], [0, 0, pg, 2 * pg], [pg, pg, pg, pg])
    r = simulate(tr, "toy_flush", 10, log_io=True, period_s=5.0)
    c = r.counters
    assert c["device_writes_periodic_flush"] == 2 and c["periodic_flushes"] == 3 and c["device_writes"] == 2
    log = r.io_log
    flushed = log.cause == contract.PERIODIC_FLUSH
    assert log.first_page[flushed].tolist() == [0, 1]
    assert log.req[flushed].tolist() == [2, 3]  # noticed before request 2 (6 s) and request 3 (16 s)
    assert simulate(tr, "toy_flush", 10, period_s=0.0).counters["dirty_at_end"] == 2


def test_sync_of_one_file_and_of_everything():
    pg = 4096
    # file 0 writes page 0, file 1 writes page 10; fsync(file 1) writes only page 10; a flush writes page 0
    tr = Trace([0, 1, 2, 3], [Op.WRITE, Op.WRITE, Op.SYNC, Op.FLUSH], [0, 10 * pg, 0, 0], [pg, pg, 0, 0],
               file=[0, 1, 1, -1])
    r = simulate(tr, "toy_flush", 10, log_io=True, period_s=0.0)
    sync = r.io_log.cause == contract.SYNC_FLUSH
    assert r.io_log.first_page[sync].tolist() == [10, 0]
    assert r.io_log.req[sync].tolist() == [2, 3] and r.io_log.ref[sync].tolist() == [-1, -1]
    assert r.counters["syncs"] == 2 and r.counters["device_writes_sync_flush"] == 2


def test_policies_without_events_never_see_them():
    tr = event_trace(4)
    plain = Trace(tr.time_s, np.where(tr.op <= Op.WRITE, tr.op, Op.READ), tr.offset_bytes,
                  np.where(tr.op <= Op.WRITE, tr.size_bytes, 0))
    for policy in ("lru", "clock", "bs_clock"):
        assert simulate(tr, policy, 50).counters == simulate(plain, policy, 50).counters


# --- toy 2: segments ------------------------------------------------------------------------------------
def test_prefetched_blocks_the_trace_never_touched_have_units():
    pg = 4096
    # read page 13, then page 14: with 4-page segments the first read fetches pages 12..15
    tr = Trace([0, 1, 2], [Op.READ, Op.READ, Op.READ], [13 * pg, 14 * pg, 40 * pg], [pg, pg, pg])
    r = simulate(tr, "toy_segment", 8, log_io=True, segment_pages=4)
    assert r.outcome.tolist() == [0, 2, 0]  # miss, prefetch hit, miss
    assert r.io_log.first_page.tolist() == [12, 40] and r.io_log.n_pages.tolist() == [4, 4]
    assert r.io_log.cause.tolist() == [contract.PREFETCH] * 2
    c = r.counters
    assert (c["prefetch_hits"], c["prefetched_pages"], c["device_reads"], c["read_misses"]) == (1, 6, 8, 2)
    assert c["resident_at_end"] == 8  # prefetched blocks occupy memory
    # with one page per segment the prefetcher is LRU
    lru = simulate(random_trace(5), "lru", 30).counters
    seg = simulate(random_trace(5), "toy_segment", 30, segment_pages=1).counters
    assert all(seg[k] == v for k, v in lru.items())


# --- toy 3: two tiers -----------------------------------------------------------------------------------
def test_tiers_split_the_capacity_or_are_given():
    tr = random_trace(6)
    r = simulate(tr, "toy_two_tier", 100)
    assert r.tiers == {"dram_pages": 25, "nvm_pages": 75} and r.capacity_pages == 100
    r2 = simulate(tr, "toy_two_tier", dram_pages=25, nvm_pages=75)
    assert r2.counters == r.counters
    t = r.tier_table()
    assert t["tier"].to_list() == ["dram_pages", "nvm_pages"] and t["pages"].to_list() == [25, 75]
    assert t["hits"].sum() == r.counters["hits"] and t["resident"].sum() == r.counters["resident_at_end"]
    assert r.counters["migrations_dram_nvm"] > 0 and r.counters["migrations_nvm_dram"] > 0
    for bad, msg in (({"dram_pages": 25}, "every tier"), ({"dram_pages": 25, "nvm_pages": 70}, "not the sum"),
                     ({"dram_pages": 2.5, "nvm_pages": 70}, "not a valid int")):
        with pytest.raises(ValueError, match=msg):
            simulate(tr, "toy_two_tier", 100, **bad)


def test_two_tiers_without_nvm_are_lru():
    tr = random_trace(7)
    lru = simulate(tr, "lru", 40, flush_at_end=True).counters
    two = simulate(tr, "toy_two_tier", dram_pages=40, nvm_pages=0, flush_at_end=True).counters
    assert all(two[k] == v for k, v in lru.items())
    assert two["migrations_dram_nvm"] == 0


def test_write_back_stream_feeds_the_ftl():
    from flashrepro.ftl import FTL, Geometry

    tr = random_trace(8, n=4000)
    r = simulate(tr, "toy_two_tier", 60, flush_at_end=True, log_io=True)
    assert (r.io_log.cause == contract.MIGRATION).any()
    stream = r.io_log.to_write_stream()
    assert stream.n_writes == r.counters["device_writes"]  # migrations are not device writes
    g = Geometry.for_logical(stream.logical_pages, 8)
    ftl = FTL(g, "greedy")
    for part in stream.chunks(500):
        ftl.write(part)
    assert ftl.counters["host_writes"] == r.counters["device_writes"]
    assert ftl.counters["first_writes"] == stream.logical_pages
    folded = r.io_log.to_write_stream(logical_pages=16, fold="modulo")
    assert folded.lpns.max() < 16 and folded.n_writes == stream.n_writes
    with pytest.raises(ValueError, match="do not fit"):
        r.io_log.to_write_stream(logical_pages=4)
    # the migrations are in the log but not in the after-cache trace
    assert len(r.io_log.to_trace()) == int(r.io_log.device.sum()) < len(r.io_log)


# --- the log ----------------------------------------------------------------------------------------------
def test_log_grows_past_any_preset_bound():
    """One flush that writes a whole 5,000-page cache at once: more rows than two per reference allow."""
    n = 5000
    tr = Trace(np.arange(n + 1) * 0.001, np.r_[np.full(n, Op.WRITE), Op.FLUSH].astype(np.int8),
               np.r_[np.arange(n) * 4096, 0], np.r_[np.full(n, 4096), 0])
    r = simulate(tr, "toy_flush", n, log_io=True, period_s=0.0, chunk_refs=64)
    assert r.counters["device_writes_sync_flush"] == n == len(r.io_log)
    assert sorted(r.io_log.first_page.tolist()) == list(range(n))


def test_a_kernel_stops_where_the_log_is_full_and_resumes():
    """Every policy on a log of 2 rows: it stops before any reference that might not fit, the driver grows
    the log and calls it again there, and the result is the same as with room to spare."""
    from flashrepro.cache.simulate import Simulator

    tr = random_trace(11, n=1500)
    refs = tr.to_pages()
    for policy in all_policies():
        pol = POLICIES[policy]
        params = pol.params()
        tiers = contract.resolve_tiers(params, 50)
        halo = pol.kernel.unit_halo(params, 4096)  # (a prefetcher reads into the units after the touched ones)
        units, _ = refs.units(pol.kernel.unit_pages(params, 4096), halo)
        sim = Simulator(policy, units, tiers, params, log_io=True)
        sim.log = contract.new_log(0, True)[:0]  # start with no room at all
        for part, _ in refs.stream(units.unit_pages, chunk=100, halo=halo):
            sim.feed(part)
        sim.finish()
        whole = simulate(tr, policy, 50, log_io=True)
        assert sim.counter_dict() == whole.counters
        rows = sim.log_rows()
        assert len(rows) == len(whole.io_log) and sim.log.shape[0] > 2
        assert np.array_equal(units.pages(rows[:, 3]), whole.io_log.first_page)
        assert np.array_equal(rows[:, 2], whole.io_log.cause)


# --- invariants on the toys -----------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(tr=traces(), cap=st.integers(8, 80), policy=st.sampled_from(sorted(TOYS)), flush=st.booleans())
def test_toys_keep_the_accounting_rules(tr, cap, policy, flush):
    check_accounting(tr, cap, policy, flush)


def test_builtin_policies_are_imported_when_asked_for():
    """The table in flashrepro/cache/__init__.py names the module of every built-in policy (so that asking for
    one imports what registers it), and looking one policy up imports only its module, in a fresh interpreter;
    listing POLICIES then gives every policy, in the order importing all the modules at once gave."""
    import os
    import subprocess
    import sys

    from flashrepro.cache import registry

    ours = {n: type(p.kernel).__module__ for n, p in POLICIES.items()
            if type(p.kernel).__module__.startswith("flashrepro.cache.") and not hasattr(p.kernel, "prototype")}
    assert ours == registry._BUILTIN
    probe = ("import sys\nfrom flashrepro.cache import POLICIES, get_policy, make_params\n"
             "get_policy('lru'); make_params('seg_lru', segment_kib=16); print('clock' in POLICIES)\n"
             "print(sorted(m for m in sys.modules if m.startswith('flashrepro.cache.')))\nprint(list(POLICIES))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    clock, modules, names = out.stdout.strip().splitlines()[-3:]
    assert clock == "True"
    assert eval(modules) == ["flashrepro.cache.clock", "flashrepro.cache.contract", "flashrepro.cache.driver",
                             "flashrepro.cache.lru",
                             "flashrepro.cache.mrc", "flashrepro.cache.registry", "flashrepro.cache.segment",
                             "flashrepro.cache.simulate"]
    assert eval(names) == [n for n in POLICIES if n in ours]
