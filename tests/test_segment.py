"""Paper 2's segment policies against tests/reference_segment.py, request by request, and the paper's
worked example (Fig. 5's lists: 4 blocks per segment, L1/L2 with B1/B2)."""

import functools

import numpy as np
import pytest
from conftest import random_trace
from hypothesis import given, settings
from hypothesis import strategies as hst
from reference_segment import readahead as ref_readahead
from reference_segment import segment as ref_segment

from flashrepro.cache import contract, simulate
from flashrepro.traces import Op, Trace

MODES = {"seg_lru": "lru", "seg_prefetch": "prefetch", "seg_cull_fixed": "fixed", "seg_cull_adaptive": "adaptive"}


@functools.cache  # a few seeded traces serve most cases here (a Trace is never changed by simulate)
def local_trace(seed, n=2500, span=400):
    """Short runs of nearby requests (so prefetching pays off sometimes), 1-6 pages each, 30% writes."""
    rng = np.random.default_rng(seed)
    out, t = [], 0
    while len(out) < n:
        base = int(rng.integers(0, span))
        for _ in range(int(rng.integers(1, 8))):
            size = int(rng.integers(1, 7))
            off = base * 4096 + int(rng.integers(0, 2)) * 2048  # some requests straddle pages
            out.append((t, Op.WRITE if rng.random() < 0.3 else Op.READ, off, size * 4096 - (off % 4096 > 0) * 100))
            base += size + int(rng.integers(0, 3))
            t += 1
    t, op, off, size = (np.array(c) for c in zip(*out[:n], strict=True))
    return Trace(t * 1e-3, op.astype(np.int8), off, size, name=f"local-{seed}")


def requests_in_units(tr, k, halo=0):
    refs = tr.to_pages()
    _, unit = refs.units(k, halo)
    first = np.r_[True, refs.req[1:] != refs.req[:-1]]
    return [(int(u), int(r), bool(w)) for u, r, w in zip(unit[first], refs.rest[first], refs.is_write[first],
                                                         strict=True)]


def in_pages(ios, units):
    """The reference's I/O rows ``(ref, op, cause, first unit, n)`` with each first unit as its page number."""
    first = units.pages(np.array([u for _, _, _, u, _ in ios], np.int64)).tolist()
    return [(r, op, cause, page, n) for (r, op, cause, _, n), page in zip(ios, first, strict=True)]


def compare(tr, policy, cap, segment_kib, flush=False, **params):
    res = simulate(tr, policy, cap, segment_kib=segment_kib, flush_at_end=flush, log_io=True, **params)
    k = segment_kib // 4
    units, _ = tr.to_pages().units(k)
    outcomes, ios, counters = ref_segment(requests_in_units(tr, k), MODES[policy], k, cap, flush, **params)
    assert res.outcome.tolist() == outcomes
    log = res.io_log
    got = list(zip(log.ref.tolist(), log.op.tolist(), log.cause.tolist(), log.first_page.tolist(),
                   log.n_pages.tolist(), strict=True))
    assert got == in_pages(ios, units)
    assert res.counters == counters
    return res


CASES = [(pol, seed, cap, seg) for pol in MODES for seed in (1, 2) for cap, seg in ((16, 16), (64, 16), (200, 32),
                                                                                      (40, 4), (128, 64))]


@pytest.mark.parametrize("policy,seed,cap,seg", CASES)
def test_kernel_matches_reference(policy, seed, cap, seg):
    compare(local_trace(seed), policy, cap, seg, flush=seed == 2)


@pytest.mark.parametrize("step,window_fraction,update_every,floor", [(0.25, 0.05, 3, "window"), (4.0, 0.2, 1, "zero"),
                                                                    (1.0, 0.5, 5, "window"), (8.0, 0.1, 2, "zero")])
def test_adaptive_variants_match_reference(step, window_fraction, update_every, floor):
    res = compare(local_trace(3), "seg_cull_adaptive", 96, 16, step=step, window_fraction=window_fraction,
                  update_every=update_every, n1_floor=floor)
    assert res.counters["n1_updates"] > 0  # the feedback ran


@pytest.mark.parametrize("policy,cap,seg", [("seg_cull_fixed", 16, 16), ("seg_cull_fixed", 200, 32),
                                            ("seg_cull_adaptive", 96, 16), ("seg_cull_adaptive", 128, 64)])
def test_culling_when_memory_is_short_matches_reference(policy, cap, seg):
    res = compare(local_trace(6), policy, cap, seg, cull_when="memory_short")
    always = simulate(local_trace(6), policy, cap, segment_kib=seg).counters
    if policy == "seg_cull_fixed":  # with N1 fixed, waiting for memory to run short culls fewer blocks
        assert res.counters["culled_pages"] < always["culled_pages"]
    else:  # (adaptive: N1 itself follows a different path)
        assert res.counters["culled_pages"] != always["culled_pages"]


OPEN_CHOICES = [  # (policy, the choice) for each open choice's non-default reading (issue 21)
    ("seg_cull_fixed", {"write_into": "l1"}), ("seg_cull_adaptive", {"write_into": "l1"}),
    ("seg_cull_fixed", {"room_first": "cull"}), ("seg_cull_adaptive", {"room_first": "cull"}),
    ("seg_cull_adaptive", {"partial_windows": "skip"}), ("seg_cull_adaptive", {"count_hits": "request"}),
    ("seg_cull_adaptive", {"carry_hits": True}), ("seg_cull_adaptive", {"update_at": "hit"}),
    ("seg_cull_adaptive", {"feedback_writes": True}), ("seg_cull_adaptive", {"n1_cap": "none"}),
    ("seg_cull_adaptive", {"window_round": "floor"}), ("seg_cull_adaptive", {"window_round": "ceil"}),
    ("seg_cull_adaptive", {"partial_windows": "skip", "count_hits": "request", "carry_hits": True,
                           "write_into": "l1", "room_first": "cull"})]


@pytest.mark.parametrize("policy,choice", OPEN_CHOICES)
@pytest.mark.parametrize("cap,seg", [(16, 16), (96, 16), (200, 32), (400, 16)])
def test_open_choices_match_reference(policy, choice, cap, seg):
    compare(local_trace(7), policy, cap, seg, flush=True, **choice)


@pytest.mark.parametrize("policy,choice", OPEN_CHOICES)
def test_each_open_choice_changes_the_run(policy, choice):
    """Each reading reaches the kernel: with windows of 30% of memory it changes the outcomes or the counters
    at 96 blocks (memory short) or at 400 (L2 stays shorter than its window for a while)."""
    extra = {"window_fraction": 0.3} if policy == "seg_cull_adaptive" else {}
    if "n1_cap" in choice:  # the cap binds only when the feedback pushes N1 past M/k
        extra["step"] = 8.0
    if "window_round" in choice:  # 24 segments x 0.33 = 7.92 (floor 7, nearest 8); x 0.31 = 7.44 (ceil 8, nearest 7)
        extra["window_fraction"] = 0.33 if choice["window_round"] == "floor" else 0.31
    tr = local_trace(7)
    changed = []
    for cap in (96, 400):
        a = simulate(tr, policy, cap, segment_kib=16, log_io=True, **extra, **choice)
        b = simulate(tr, policy, cap, segment_kib=16, log_io=True, **extra)
        changed.append(a.outcome.tolist() != b.outcome.tolist() or a.counters != b.counters)
    assert any(changed)


@settings(max_examples=40, deadline=None)
@given(seed=hst.integers(0, 10_000), policy=hst.sampled_from(sorted(MODES)), seg=hst.sampled_from([4, 8, 16, 32]),
       cap_segments=hst.integers(1, 12), cull_when=hst.sampled_from(["always", "memory_short"]),
       choice=hst.sampled_from([{}] + [c for _, c in OPEN_CHOICES]))
def test_kernel_matches_reference_on_drawn_traces(seed, policy, seg, cap_segments, cull_when, choice):
    extra = {"cull_when": cull_when} if policy in ("seg_cull_fixed", "seg_cull_adaptive") else {}
    if policy == "seg_cull_adaptive" or (policy == "seg_cull_fixed" and set(choice) <= {"write_into", "room_first"}):
        extra.update(choice)
    compare(local_trace(seed, n=300, span=120), policy, cap_segments * seg // 4, seg, flush=seed % 2 == 0, **extra)


def test_one_page_segments_are_lru():
    """With 4 KiB segments, seg_lru and seg_prefetch see exactly LRU's hits and misses, on any trace."""
    for seed in (4, 5):
        tr = random_trace(seed)
        lru = simulate(tr, "lru", 50, log_io=True)
        for policy in ("seg_lru", "seg_prefetch"):
            seg = simulate(tr, policy, 50, segment_kib=4, log_io=True)
            assert np.array_equal(seg.hit, lru.hit)
            for key in ("hits", "misses", "device_reads", "device_read_requests", "device_writes", "evictions"):
                assert seg.counters[key] == lru.counters[key], key


def test_fig5_worked_example():
    """Fig. 5's setting: segments of 4 blocks, memory of 16 blocks, L1 at most 2 segments (fixed culling).

    Segment A (blocks 0-3) is read for block 1: A enters L1 with block 1 cached and 0, 2, 3 prefetched.
    Segment B (4-7) is read for block 6, segment C (8-11) for block 8: C's arrival makes L1 hold three
    segments, so L1's LRU segment, A, moves to L2 and its three unrequested prefetched blocks are culled.
    Block 5 (prefetched with B) is a prefetch hit and moves B to L1's MRU end. Block 2 was culled: a miss that
    reads A from storage again into L1, which culls L1's LRU segment, now C (blocks 9-11 dropped). Block 1
    is then a cache hit, and block 9 a miss.
    """
    pg = 4096

    def reads(*blocks):
        n = len(blocks)
        return Trace(np.arange(n, dtype=float), np.zeros(n, np.int8), np.array(blocks) * pg, np.full(n, pg))

    r = simulate(reads(1, 6, 8), "seg_cull_fixed", 16, segment_kib=16, log_io=True, observe_every=1)
    c = r.counters
    assert (c["prefetched_pages"], c["culled_pages"], c["resident_at_end"]) == (9, 3, 9)  # A keeps block 1
    assert r.trajectory["l1_segments"].to_list()[-1] == 2 and r.trajectory["l2_segments"].to_list()[-1] == 1
    r = simulate(reads(1, 6, 8, 5, 2, 1, 9), "seg_cull_fixed", 16, segment_kib=16, log_io=True)
    assert r.outcome.tolist() == [0, 0, 0, 2, 0, 1, 0]
    assert r.io_log.first_page.tolist() == [0, 4, 8, 0, 8] and set(r.io_log.n_pages.tolist()) == {4}
    assert r.counters["culled_pages"] == 3 + 3 + 2  # A's, then C's three; then B's two left (9 re-reads C)
    # without culling (segment prefetch only) blocks 2 and 9 are still there: prefetch hits
    r = simulate(reads(1, 6, 8, 5, 2, 1, 9), "seg_prefetch", 16, segment_kib=16, log_io=True)
    assert r.outcome.tolist() == [0, 0, 0, 2, 2, 1, 2]


def test_fig5_setting_with_culling_only_when_memory_is_short():
    """The same lists with cull_when="memory_short": L1 outgrows N1 = 2 while the 16 blocks have room.
    A, B, C, D (blocks 1, 6, 8, 12) fill memory with no culling; E (block 16) needs 4 blocks: L1 would hold 5
    segments, so its LRU segment A is culled (3 blocks freed, not enough), then B (3 more): 10 blocks used,
    E fits, and L1 keeps C, D, E."""
    pg = 4096
    blocks = [1, 6, 8, 12]
    tr = Trace(np.arange(4.0), np.zeros(4, np.int8), np.array(blocks) * pg, np.full(4, pg))
    r = simulate(tr, "seg_cull_fixed", 16, segment_kib=16, cull_when="memory_short", observe_every=1)
    assert r.counters["culled_pages"] == 0 and r.trajectory["l1_segments"].to_list()[-1] == 4
    tr = Trace(np.arange(5.0), np.zeros(5, np.int8), np.array(blocks + [16]) * pg, np.full(5, pg))
    r = simulate(tr, "seg_cull_fixed", 16, segment_kib=16, cull_when="memory_short", observe_every=1)
    assert r.counters["culled_pages"] == 6 and r.counters["evictions"] == 0
    assert (r.trajectory["l1_segments"].to_list()[-1], r.trajectory["l2_segments"].to_list()[-1]) == (3, 2)


def test_one_adaptive_update_by_hand():
    """N1 <- N1 + S (dP - a dC), worked by hand. Memory 32 blocks, 4-block segments (k = 4, M/k = 8),
    window_fraction 0.125 (B1 and B2 of one segment each), N1 starts at M/2k = 4, S = 0.5, update after
    every 3 hits in B1, one-block reads only.

    Reads of blocks 0, 4, 8, 12, 16 bring segments 0-4 into L1 (one demanded block, 3 prefetched each); the
    fifth makes L1 exceed 4, so segment 0 is culled into L2 with block 0 alone. L1 = [4, 3, 2, 1] MRU first:
    B1 = segment 1 (4 blocks), B2 = segment 0 (1 cached block), so a = 4 / 1.
    A read of block 0 is a cache hit in B2: dC = 1 (segment 0 stays L2's only segment, still B2).
    Block 5 is a prefetch hit in B1 (dP = 1, one hit in B1) and moves segment 1 to L1's MRU end: L1 = [1, 4, 3,
    2], B1 = segment 2. Blocks 6 and 7 are prefetch hits in L1 outside B1 (they count for nothing). Block 9 is a
    prefetch hit in B1 (dP = 2); L1 = [2, 1, 4, 3]. Block 13 is the third (dP = 3); L1 = [3, 2, 1, 4].
    The update: a = blocks in B1 / cached blocks in B2, taken now: B1 is segment 4 (blocks 16-19, 4 blocks),
    B2 segment 0 (block 0 cached): a = 4. N1 = 4 + 0.5 (3 - 4 * 1) = 3.5."""
    pg = 4096
    blocks = [0, 4, 8, 12, 16, 0, 5, 6, 7, 9, 13]
    n = len(blocks)
    tr = Trace(np.arange(float(n)), np.zeros(n, np.int8), np.array(blocks) * pg, np.full(n, pg))
    r = simulate(tr, "seg_cull_adaptive", 32, segment_kib=16, step=0.5, window_fraction=0.125, update_every=3,
                 observe_every=1, log_io=True)
    c = r.counters
    assert r.outcome.tolist() == [0] * 5 + [1] + [2] * 5
    assert (c["hits_b1"], c["hits_b2"], c["n1_updates"], c["culled_pages"]) == (3, 1, 1, 3)
    n1 = r.trajectory["n1"].to_list()
    assert n1[-2] == 4.0 and n1[-1] == 3.5
    # the reference agrees, step by step
    outcomes, _, counters = ref_segment([(b, 1, False) for b in blocks], "adaptive", 4, 32, step=0.5,
                                        window_fraction=0.125, update_every=3)
    assert counters["n1_updates"] == 1 and outcomes == r.outcome.tolist()


def test_adaptive_target_moves_with_the_marginal_hits():
    """Prefetch hits in B1 and no cache hits in B2 grow L1 (N1 rises above its start, M / 2k)."""
    pg = 4096
    seq = np.arange(0, 4000, 2)  # every other block of a long run: each prefetched neighbour is asked next
    tr = Trace(np.arange(2 * len(seq), dtype=float), np.zeros(2 * len(seq), np.int8),
               np.repeat(seq, 2) * pg + np.tile([0, pg], len(seq)), np.full(2 * len(seq), pg))
    r = simulate(tr, "seg_cull_adaptive", 256, segment_kib=32, observe_every=500, window_fraction=0.5)
    n1 = r.trajectory["n1"].to_list()
    assert n1[0] >= 256 / 16 and max(n1) > 256 / 16


@pytest.mark.parametrize("seed,cap,min_kib,max_kib", [(1, 64, 16, 128), (2, 30, 8, 32), (3, 200, 16, 64)])
def test_readahead_matches_reference(seed, cap, min_kib, max_kib):
    tr = local_trace(seed)
    res = simulate(tr, "linux_readahead", cap, min_kib=min_kib, max_kib=max_kib, log_io=True, flush_at_end=True)
    k = max_kib // 4
    units, _ = tr.to_pages().units(k, 1)
    outcomes, ios, counters = ref_readahead(requests_in_units(tr, k, halo=1), min_kib // 4, k, units.n, cap, True)
    assert res.outcome.tolist() == outcomes
    log = res.io_log
    got = list(zip(log.ref.tolist(), log.op.tolist(), log.cause.tolist(), log.first_page.tolist(),
                   log.n_pages.tolist(), strict=True))
    assert got == in_pages(ios, units)
    assert res.counters == counters
    assert counters["prefetch_hits"] > 0 and counters["prefetched_pages"] > 0


@pytest.mark.parametrize("policy", ["seg_lru", "seg_prefetch", "seg_cull_fixed", "seg_cull_adaptive"])
def test_io_of_a_request_over_two_segments_is_logged_where_each_segment_is_reached(policy):
    """A memory of one segment and a write over two: serving the second segment evicts the first, with the
    blocks this very request just wrote. The write-back is logged at the reference that reaches the second
    segment, so a page-by-page replay sees the write before its write-back."""
    from test_clock_hbm import replay_write_backs

    k = 8  # 32 KiB segments of 4 KiB blocks
    tr = Trace(np.array([0.0]), np.array([Op.WRITE], np.int8), np.array([1 * 4096]), np.array([9 * 4096]))
    res = simulate(tr, policy, k, segment_kib=32, log_io=True)  # 7 blocks of segment 0, then 2 of segment 1
    wb = np.flatnonzero(res.io_log.op == contract.IO_WRITE)
    assert res.io_log.ref[wb[0]] == 7 and res.io_log.first_page[wb[0]] == 1  # at page 8, not at page 1
    assert replay_write_backs(tr, res) == {8, 9}


def test_a_segment_policy_is_its_hooks():
    """segment.compose makes a segment policy from hooks: seg_prefetch's fetch (the whole segment) with seg_lru's
    read (one request per run of the blocks read) keeps seg_prefetch's blocks, so its hits, and reads only the
    blocks it fetches, in runs."""
    from flashrepro.cache import segment
    from flashrepro.cache.registry import register, unregister

    step = segment.compose("toy_whole_runs", segment._fetch_segment, segment._read_runs, culling=False)
    assert step.py_func.__qualname__ == "toy_whole_runs_step"

    class WholeRuns(segment.SegPrefetch):
        def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
            return step(refs, start, state, counters, log, nlog, outcome, base, do_log)

    register("toy_whole_runs", segment.SegmentParams)(WholeRuns)
    try:
        tr = local_trace(3)
        whole = simulate(tr, "seg_prefetch", 64, segment_kib=32, log_io=True)
        runs = simulate(tr, "toy_whole_runs", 64, segment_kib=32, log_io=True)
    finally:
        unregister("toy_whole_runs")
    assert np.array_equal(runs.outcome, whole.outcome)
    assert runs.counters["hits"] == whole.counters["hits"] and runs.counters["prefetch_hits"] > 0
    assert runs.counters["prefetched_pages"] == 0  # (_read_runs does not count them)
    assert runs.counters["device_reads"] < whole.counters["device_reads"]  # blocks already held are not read again
    assert runs.counters["device_read_requests"] >= whole.counters["device_read_requests"]
