"""The per-reference loop written once (flashrepro.cache.driver): how it composes a policy's hooks, and that each
composed policy is its own cached kernel. What the composed kernels compute is checked reference by reference
against tests/reference.py in test_kernels.py and test_fifo_random.py."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

from flashrepro.cache import cflru, clock, driver, fifo, lru, obl, random_repl, simulate
from flashrepro.cache import contract as C
from flashrepro.traces import synthetic
from flashrepro.traces.trace import RefStream


@njit(inline="always")
def _begin(st):
    return (st.sc[0].frames,)


@njit(inline="always")
def _end(st, r):
    pass


@njit(inline="always")
def _victim_last(st, r):  # MRU's victim in a toy: always the last frame (a cache that keeps its first pages)
    f = r[0] - 1
    return r, f, np.int64(st.frame_page[f]), st.dirty[f]


def test_compose_refuses_a_missing_or_plain_hook():
    with pytest.raises(TypeError, match="needs the hooks"):
        driver.compose("toy", begin=_begin, hit=driver.hit_dirty_only, victim=_victim_last, admit=driver.admit_to_frame)
    with pytest.raises(TypeError, match="unknown \\['evict'\\]"):  # a misspelt optional hook is not ignored
        driver.compose("toy", begin=_begin, hit=driver.hit_dirty_only, victim=_victim_last,
                       admit=driver.admit_to_frame, end=_end, evict=_end)
    with pytest.raises(TypeError, match="hook end must be an @njit\\(inline='always'\\)"):
        driver.compose("toy", begin=_begin, hit=driver.hit_dirty_only, victim=_victim_last,
                       admit=driver.admit_to_frame, end=lambda st, r: None)


def test_a_toy_policy_from_hooks_keeps_its_first_pages():
    """Five hooks make a policy: with the last frame always the victim, the first frames - 1 pages stay."""
    import typing

    class Toy(typing.NamedTuple):
        page_frame: np.ndarray
        frame_page: np.ndarray
        dirty: np.ndarray
        sc: np.recarray

    step = driver.compose("toy", begin=_begin, hit=driver.hit_dirty_only, victim=_victim_last,
                          admit=driver.admit_to_frame, end=_end)
    units = np.array([0, 1, 2, 3, 0, 1, 4, 0, 3], np.int64)
    writes = np.array([0, 1, 0, 0, 0, 0, 1, 1, 0], np.int8)
    n = len(units)
    refs = RefStream(units, writes, np.zeros(n), np.full(n, -1, np.int32), np.ones(n, np.int64))
    st = Toy(np.full(5, -1, np.int32), np.full(3, -1, np.int32), np.zeros(3, np.uint8), driver.new_scalars(3))
    counters = np.zeros(32, np.int64)
    log, outcome = np.zeros((64, 6), np.int64), np.zeros(len(units), np.int8)
    stop, nlog = step(refs, 0, st, counters, log, 0, outcome, 100, True, None)
    assert stop == len(units)
    # frames 0 and 1 keep pages 0 and 1; the last frame takes 2, then 3, then 4 (dirty: written back for 3), then 3
    assert outcome.tolist() == [0, 0, 0, 0, 1, 1, 0, 1, 0]
    assert st.frame_page.tolist() == [0, 1, 3] and st.sc[0].used == 3
    assert st.page_frame.tolist() == [0, 1, -1, 2, -1]
    assert step.py_func.__qualname__ == "toy_step" and not step.targetoptions.get("cache")  # not the package's
    rows = [[100, C.IO_READ, C.DEMAND, 0, 1], [102, C.IO_READ, C.DEMAND, 2, 1], [103, C.IO_READ, C.DEMAND, 3, 1],
            [108, C.IO_READ, C.DEMAND, 3, 1], [108, C.IO_WRITE, C.EVICTION, 4, 1]]  # the read, then the write-back
    assert log[:nlog, :5].tolist() == rows
    assert counters[C.EVICTIONS] == 3 and counters[C.DEV_WRITES_EVICT] == 1 and counters[C.HITS] == 3


@njit(inline="always")
def _hit_move_written(st, r, p, f, w, counters, log, nlog, do_log, ref):  # a toy tier move: a written hit is logged
    r, dirtied = driver.hit_dirty_only(st, r, f, w)
    if w and do_log:
        nlog = C.row(log, nlog, ref, C.IO_WRITE, C.MIGRATION, p, 1, 0)
    return r, nlog, dirtied


def test_hit_move_takes_the_place_of_hit_and_logs_at_the_reference():
    """A policy that moves what it finds gives ``hit_move`` instead of ``hit``: the loop hands it the page, the log
    and the reference's number, and counts the dirtying it returns."""
    import typing

    class Toy(typing.NamedTuple):
        page_frame: np.ndarray
        frame_page: np.ndarray
        dirty: np.ndarray
        sc: np.recarray

    with pytest.raises(TypeError, match="missing \\['hit'\\]"):
        driver.compose("toy_moves", begin=_begin, victim=_victim_last, admit=driver.admit_to_frame, end=_end)
    step = driver.compose("toy_moves", begin=_begin, hit_move=_hit_move_written, victim=_victim_last,
                          admit=driver.admit_to_frame, end=_end)
    units = np.array([0, 1, 0, 1, 0, 2], np.int64)
    writes = np.array([0, 0, 1, 0, 1, 0], np.int8)
    n = len(units)
    refs = RefStream(units, writes, np.zeros(n), np.full(n, -1, np.int32), np.ones(n, np.int64))
    st = Toy(np.full(3, -1, np.int32), np.full(2, -1, np.int32), np.zeros(2, np.uint8), driver.new_scalars(2))
    counters = np.zeros(32, np.int64)
    log, outcome = np.zeros((64, 6), np.int64), np.zeros(n, np.int8)
    stop, nlog = step(refs, 0, st, counters, log, 0, outcome, 10, True, None)
    assert stop == n and outcome.tolist() == [0, 0, 1, 1, 1, 0]
    moves = [row[:5] for row in log[:nlog].tolist() if row[2] == C.MIGRATION]
    assert moves == [[12, C.IO_WRITE, C.MIGRATION, 0, 1], [14, C.IO_WRITE, C.MIGRATION, 0, 1]]
    assert counters[C.DIRTYINGS] == 1 and counters[C.HITS] == 3  # page 0 dirtied once, by its first written hit


def test_each_policy_is_its_own_cached_kernel():
    """compose names each loop after its policy, so Numba's cache holds one file per policy (a shared name would
    hand one policy another's compiled loop); in a new process every composed kernel comes from the cache."""
    kernels = (lru._lru_step, fifo._fifo_step, clock._clock_step, random_repl._random_step, cflru._cflru_step,
               obl._lru_obl_step)
    names = {k.py_func.__qualname__ for k in kernels}
    assert names == {"fifo_step", "lru_step", "clock_step", "random_step", "cflru_step", "lru_obl_step"}
    tr = synthetic.zipf(200, 2000, 0.9, seed=3, write_fraction=0.3)
    for pol in ("lru", "fifo", "random", "clock", "cflru", "lru_obl"):
        simulate(tr, pol, 20)  # compiled (or loaded) here, so the process below finds them in the cache
    probe = ("from flashrepro.cache import simulate, lru, fifo, clock, random_repl, cflru\n"
             "from flashrepro.traces import synthetic\n"
             "tr = synthetic.zipf(200, 2000, 0.9, seed=3, write_fraction=0.3)\n"
             "from flashrepro.cache import obl\n"
             "for pol in ('lru', 'fifo', 'random', 'clock', 'cflru', 'lru_obl'):\n    simulate(tr, pol, 20)\n"
             "ks = [lru._lru_step, fifo._fifo_step, clock._clock_step, random_repl._random_step, cflru._cflru_step,\n"
             "      obl._lru_obl_step]\n"
             "print(sum(k.stats.cache_hits.total() for k in ks), sum(k.stats.cache_misses.total() for k in ks))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    hits, misses = map(int, out.stdout.split()[-2:])
    assert misses == 0 and hits >= 6


@njit(inline="always")
def _pf_begin0(st):
    return 0, 0


@njit(inline="always")
def _pf_next_read(st, q, p, hit, w):  # a toy prefetcher: after every read, the next page
    return q, -1 if w else p + 1


@njit(inline="always")
def _pf_end0(st, q):
    pass


TOY_PREFETCHER = {"pf_begin": _pf_begin0, "pf_found": obl._pf_found, "pf_evicted": obl._pf_evicted,
                  "pf_admitted": obl._pf_admitted, "pf_next": _pf_next_read, "pf_end": _pf_end0}


def test_compose_refuses_a_prefetcher_without_its_six_hooks():
    hooks = {"begin": _begin, "hit": driver.hit_dirty_only, "victim": _victim_last, "admit": driver.admit_to_frame,
             "end": _end}
    partial = {k: v for k, v in TOY_PREFETCHER.items() if k != "pf_evicted"}
    with pytest.raises(TypeError, match="a prefetcher has the hooks"):
        driver.compose("toy_pf", prefetcher=partial, **hooks)
    with pytest.raises(TypeError, match="hook pf_next must be an @njit"):
        driver.compose("toy_pf", prefetcher=dict(TOY_PREFETCHER, pf_next=lambda st, q, p, hit, w: (q, -1)), **hooks)


def test_a_prefetcher_composes_with_any_policy_worked_by_hand():
    """The toy policy above (the last frame is always the victim) with a toy prefetcher (after a read of page p,
    page p + 1), two frames. 0 R: read 0, prefetch 1. 1 R: a prefetch hit; prefetch 2 evicts 1. 3 W: evicts 2,
    prefetched and never requested. 4 R: read 4, evict dirty 3 (written back); prefetch 5 evicts 4."""
    import typing

    class ToyPF(typing.NamedTuple):
        page_frame: np.ndarray
        frame_page: np.ndarray
        dirty: np.ndarray
        sc: np.recarray
        pf: np.ndarray

    hooks = {"begin": _begin, "hit": driver.hit_dirty_only, "victim": _victim_last, "admit": driver.admit_to_frame,
             "end": _end}
    step = driver.compose("toy_pf", prefetcher=TOY_PREFETCHER, **hooks)
    units = np.array([0, 1, 3, 4], np.int64)
    writes = np.array([0, 0, 1, 0], np.int8)
    n = len(units)
    refs = RefStream(units, writes, np.zeros(n), np.full(n, -1, np.int32), np.ones(n, np.int64))
    st = ToyPF(np.full(6, -1, np.int32), np.full(2, -1, np.int32), np.zeros(2, np.uint8), driver.new_scalars(2),
               np.zeros(2, np.uint8))
    counters = np.zeros(C.N_BASE + len(driver.PREFETCH_COUNTERS), np.int64)
    log, outcome = np.zeros((64, 6), np.int64), np.zeros(n, np.int8)
    stop, nlog = step(refs, 0, st, counters, log, 0, outcome, 100, True, None)
    assert stop == n
    assert outcome.tolist() == [C.MISS, C.PREFETCH_HIT, C.MISS, C.MISS]
    rows = [[100, C.IO_READ, C.DEMAND, 0, 1], [100, C.IO_READ, C.PREFETCH, 1, 1], [101, C.IO_READ, C.PREFETCH, 2, 1],
            [103, C.IO_READ, C.DEMAND, 4, 1], [103, C.IO_WRITE, C.EVICTION, 3, 1], [103, C.IO_READ, C.PREFETCH, 5, 1]]
    assert log[:nlog, :5].tolist() == rows
    assert st.frame_page.tolist() == [0, 5] and st.pf.tolist() == [0, 1]
    assert st.page_frame.tolist() == [0, -1, -1, -1, -1, 1]
    got = dict(zip([c.name for c in C.BASE + driver.PREFETCH_COUNTERS], counters.tolist(), strict=True))
    assert (got["hits"], got["evictions"], got["device_reads"], got["device_writes_eviction"]) == (1, 4, 5, 1)
    assert (got["prefetch_hits"], got["prefetched_pages"], got["prefetch_evicted"]) == (1, 3, 1)


def test_composing_without_a_prefetcher_leaves_the_prefetch_counters_alone():
    """A policy without a prefetcher writes only the base counters (its counter vector has no room for more)."""
    counters = np.full(C.N_BASE + 3, -7, np.int64)
    tr = synthetic.zipf(50, 500, 0.9, seed=1, write_fraction=0.3)
    res = simulate(tr, "lru", 10)
    assert "prefetch_hits" not in res.counters
    st = lru.new_lru_state(60, 10)
    counters[:C.N_BASE] = 0
    refs = RefStream(np.arange(20, dtype=np.int64) % 60, np.zeros(20, np.int8), np.zeros(20), np.full(20, -1, np.int32),
                     np.ones(20, np.int64))
    lru._lru_step(refs, 0, st, counters, np.zeros((8, 6), np.int64), 0, np.zeros(20, np.int8), 0, None, None)
    assert counters[C.N_BASE:].tolist() == [-7, -7, -7] and counters[C.REFS] == 20
