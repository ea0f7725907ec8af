"""Three toy policies that exercise what the paper 2, 3 and 5 policies need from the kernel contract:
time and sync/delete events (a cache flushed every few seconds), a unit space of segments with blocks
nobody asked for (a segment prefetcher), and two memory tiers with migrations (a DRAM + NVM buffer).

They are deliberately simple and are registered only while a test uses them (:func:`registered`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import typing
from pathlib import Path

import numpy as np
from numba import njit

from flashrepro import jitcache
from flashrepro import jitkit as jk
from flashrepro.cache import contract as C
from flashrepro.cache.registry import Kernel, register, unregister
from flashrepro.traces.trace import Event


# --- 1. LRU flushed every `period_s` seconds (on a grid from t = 0) and on sync events ------------------
@dataclasses.dataclass(frozen=True)
class FlushParams:
    period_s: float = 5.0  # 0: no periodic flush


class FlushState(typing.NamedTuple):
    link: np.ndarray
    dirty: np.ndarray
    file: np.ndarray  # per unit
    sc: np.ndarray  # SIZE, CAPACITY
    next_flush: np.ndarray  # float64[1]


class ToysLocator(jitcache.PackageLocator):
    """Where this file's kernels are cached: beside the package's, in its source version's folder (so a change
    to a package module they inline is a new folder too), stamped with this file's own content hash. Numba's
    default keys them by the file's modification time, so every clean clone (CI's included) compiled them again,
    some 13 s of a test run; like the package's kernels, they now compile once per machine and source."""

    FILE = Path(__file__).resolve()
    STAMP = hashlib.sha256(FILE.read_bytes()).hexdigest()[:16]

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(self.folder / "tests")

    def get_source_stamp(self):
        return self.STAMP

    @classmethod
    def from_function(cls, py_func, py_file):
        if cls.folder is None or not py_file or Path(py_file).resolve() != cls.FILE:
            return None
        return super(jitcache.PackageLocator, cls).from_function(py_func, py_file)


_LOCATORS = jitcache.locator_classes()
if ToysLocator not in _LOCATORS:  # after the package's own (which takes no file outside the package)
    _LOCATORS.insert(_LOCATORS.index(jitcache.PackageLocator) + 1 if jitcache.PackageLocator in _LOCATORS else 0,
                     ToysLocator)


F_DELETED = C.N_BASE + len(C.FLUSH_COUNTERS)
F_PERIODIC_W, F_SYNC_W, F_FLUSHES, F_SYNCS = range(C.N_BASE, C.N_BASE + 4)


@njit(cache=True)
def _write_back(link, dirty, file, S, only_file, log, nlog, do_log, ref, cause):
    """Write back the dirty pages (of ``only_file``, or all when it is -1), oldest first. Returns
    ``(pages, nlog)``."""
    n = 0
    x = jk.list_back(link, S)
    while x != S:
        if dirty[x] and (only_file < 0 or file[x] == only_file):
            dirty[x] = 0
            n += 1
            if do_log:
                nlog = C.row(log, nlog, ref, C.IO_WRITE, cause, x, 1, 0)
        x = jk.list_prev(link, x)
    return n, nlog


@njit(cache=True)
def _flush_step(refs, start, state, counters, log, nlog, outcome, base, do_log, period):
    link, dirty, file, sc, next_flush = state
    S = dirty.shape[0]
    size, capacity = sc[0], sc[1]
    n = refs.unit.shape[0]
    stop = n
    for i in range(start, n):
        if do_log and nlog + capacity + 2 > log.shape[0]:  # a flush may write the whole cache
            stop = i
            break
        t = refs.time_s[i]
        while period > 0 and t >= next_flush[0]:  # every grid point passed, even those with nothing dirty
            k, nlog = _write_back(link, dirty, file, S, -1, log, nlog, do_log, base + i, C.PERIODIC_FLUSH)
            counters[F_PERIODIC_W] += k
            counters[C.DEV_WRITE_REQS] += k
            counters[F_FLUSHES] += 1
            next_flush[0] += period
        e = refs.event[i]
        if e == Event.SYNC_ALL or e == Event.SYNC_FILE:
            k, nlog = _write_back(link, dirty, file, S, refs.file[i] if e == Event.SYNC_FILE else -1,
                                       log, nlog, do_log, base + i, C.SYNC_FLUSH)
            counters[F_SYNC_W] += k
            counters[C.DEV_WRITE_REQS] += k
            counters[F_SYNCS] += 1
            continue
        if e == Event.DELETE:  # deleted pages leave without a write
            for p in range(refs.unit[i], refs.unit[i] + refs.count[i]):
                if jk.list_contains(link, p):
                    jk.list_unlink(link, p)
                    dirty[p] = 0
                    size -= 1
                    counters[F_DELETED] += 1
            continue
        p = refs.unit[i]
        w = np.uint8(e)
        hit = jk.list_contains(link, p)
        if do_log:
            outcome[i] = hit
        counters[C.REFS] += 1
        counters[C.HITS] += hit
        counters[C.WRITE_HITS] += hit & w
        counters[C.WRITE_REFS] += w
        if hit:
            jk.list_unlink(link, p)
        else:
            if not w:
                counters[C.DEV_READS] += 1
                counters[C.DEV_READ_REQS] += 1
                if do_log:
                    nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, 0)
            if size == capacity:
                v = jk.list_back(link, S)
                jk.list_unlink(link, v)
                nlog = _leave(v, dirty, counters, log, nlog, do_log, base + i, 0)
            else:
                size += 1
        jk.list_push_front(link, S, p)
        if w and not dirty[p]:
            dirty[p] = 1
            counters[C.DIRTYINGS] += 1
    sc[0] = size
    return stop, nlog


class ToyFlush(Kernel):
    """Toy: LRU written back every period_s seconds and at every sync; deletes drop pages."""

    caps = C.Caps(flushes=True, evicts_without_miss=True)
    counters = C.BASE + C.FLUSH_COUNTERS + (C.Counter("deleted", None, "resident pages a delete dropped"),)

    def new_state(self, units, tiers, params):
        n = units.n
        sc = np.array([0, tiers["capacity_pages"]], np.int64)
        file = units.file if units.file is not None else np.full(n, -1, np.int32)
        return FlushState(jk.list_new(n), np.zeros(n, np.uint8), file, sc, np.array([params.period_s]))

    def log_rows_per_ref(self, tiers, params):
        return tiers["capacity_pages"] + 2

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        return _flush_step(refs, start, state, counters, log, nlog, outcome, base, do_log, params.period_s)

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        order = jk.list_back_to_front(state.link, state.dirty.shape[0], state.sc[0])
        return C.end_of_trace(order, state.dirty[order], flush_at_end, counters, log, nlog, do_log, last_ref, 0)


# --- 2. a segment prefetcher: a read miss on an absent segment reads all its blocks ---------------------
@dataclasses.dataclass(frozen=True)
class SegmentParams:
    segment_pages: int = 4


class SegState(typing.NamedTuple):
    link: np.ndarray  # resident segments, LRU order
    present: np.ndarray  # uint64 bit mask per segment: blocks held
    pf: np.ndarray  # uint64 per segment: blocks prefetched and not yet requested
    dirty: np.ndarray  # uint64 per segment
    sc: np.ndarray  # USED (blocks), CAPACITY (blocks), K


S_PF_HITS, S_PREFETCHED, S_WASTED = C.N_BASE, C.N_BASE + 1, C.N_BASE + 2
ONE = np.uint64(1)


@njit(cache=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - ONE
        n += 1
    return n


@njit(cache=True)
def _evict_segment(state, counters, log, nlog, do_log, ref):
    link, present, pf, dirty, sc = state
    S = present.shape[0]
    k = sc[2]
    s = jk.list_back(link, S)
    jk.list_unlink(link, s)
    for b in range(k):
        if dirty[s] >> np.uint64(b) & ONE:
            counters[C.DEV_WRITES_EVICT] += 1
            counters[C.DEV_WRITE_REQS] += 1
            if do_log:
                nlog = C.row(log, nlog, ref, C.IO_WRITE, C.EVICTION, s * k + b, 1, 0)
    held = _popcount(present[s])
    counters[C.EVICTIONS] += held
    counters[S_WASTED] += _popcount(pf[s])
    sc[0] -= held
    present[s] = pf[s] = dirty[s] = 0
    return nlog


@njit(cache=True)
def _seg_step(refs, start, state, counters, log, nlog, outcome, base, do_log):
    link, present, pf, dirty, sc = state
    S = present.shape[0]
    k = sc[2]
    n = refs.unit.shape[0]
    stop = n
    for i in range(start, n):
        if do_log and nlog + 2 * k + 1 > log.shape[0]:  # a read, and write-backs of up to k evicted blocks
            stop = i
            break
        u = refs.unit[i]
        s, b = u // k, u % k
        bit = ONE << np.uint64(b)
        w = refs.event[i] == Event.WRITE
        counters[C.REFS] += 1
        counters[C.WRITE_REFS] += w
        resident = jk.list_contains(link, s)
        if resident and present[s] & bit:
            counters[C.HITS] += 1
            counters[C.WRITE_HITS] += w
            hit_kind = 1
            if pf[s] & bit:
                pf[s] &= ~bit
                counters[S_PF_HITS] += 1
                hit_kind = 2
            if do_log:
                outcome[i] = hit_kind
            jk.list_unlink(link, s)
        else:
            need = k if (not resident and not w) else 1
            if resident:
                jk.list_unlink(link, s)  # never evict the segment being filled
            while sc[0] + need > sc[1]:
                nlog = _evict_segment(state, counters, log, nlog, do_log, base + i)
            if not w and not resident:  # read the whole aligned segment: the demanded block and the rest
                counters[C.DEV_READS] += k
                counters[C.DEV_READ_REQS] += 1
                counters[S_PREFETCHED] += k - 1
                if do_log:
                    nlog = C.row(log, nlog, base + i, C.IO_READ, C.PREFETCH, s * k, k, 0)
                present[s] = (ONE << np.uint64(k)) - ONE if k < 64 else ~np.uint64(0)
                pf[s] = present[s] & ~bit
                sc[0] += k
            else:
                if not w:
                    counters[C.DEV_READS] += 1
                    counters[C.DEV_READ_REQS] += 1
                    if do_log:
                        nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, u, 1, 0)
                present[s] |= bit
                sc[0] += 1
        jk.list_push_front(link, S, s)
        if w and not dirty[s] & bit:
            dirty[s] |= bit
            counters[C.DIRTYINGS] += 1
    return stop, nlog


class ToySegment(Kernel):
    """Toy: segment-level LRU; a read miss on an absent segment reads the whole aligned segment."""

    caps = C.Caps(prefetches=True)
    counters = C.BASE + (C.Counter("prefetch_hits", None, "references to blocks prefetched and not yet asked for"),
                         C.Counter("prefetched_pages", "prefetch", "blocks read that nobody asked for"),
                         C.Counter("prefetch_wasted", None, "prefetched blocks evicted before any request"))

    def unit_pages(self, params, page_bytes):
        return params.segment_pages

    def new_state(self, units, tiers, params):
        k = units.unit_pages
        cap = tiers["capacity_pages"]
        if cap < k:
            raise ValueError(f"capacity_pages={cap} cannot hold one segment of {k} pages")
        n_seg = units.n // k
        return SegState(jk.list_new(n_seg), np.zeros(n_seg, np.uint64), np.zeros(n_seg, np.uint64),
                        np.zeros(n_seg, np.uint64), np.array([0, cap, k], np.int64))

    def log_rows_per_ref(self, tiers, params):
        return 2 * params.segment_pages + 1

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        return _seg_step(refs, start, state, counters, log, nlog, outcome, base, do_log)

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        k = int(state.sc[2])
        segs = jk.list_back_to_front(state.link, state.present.shape[0], int(np.count_nonzero(state.present)))
        units = [s * k + b for s in segs for b in range(k) if state.present[s] >> np.uint64(b) & ONE]
        dirty = [bool(state.dirty[u // k] >> np.uint64(u % k) & ONE) for u in units]
        return C.end_of_trace(np.array(units, np.int64), np.array(dirty, np.uint8), flush_at_end, counters, log, nlog,
                              do_log, last_ref, 0)


# --- 3. two tiers: DRAM in front of NVM, both LRU -----------------------------------------------------
@dataclasses.dataclass(frozen=True)
class TwoTierParams:
    dram_pages: int | None = C.tier(0.25, "DRAM pages")
    nvm_pages: int | None = C.tier(0.75, "NVM pages")


class TierState(typing.NamedTuple):
    dram: np.ndarray  # list over units, sentinel n
    nvm: np.ndarray
    dirty: np.ndarray
    sc: np.ndarray  # DRAM_USED, NVM_USED, DRAM_CAP, NVM_CAP


(T_HITS_D, T_WRITES_D, T_RES_D, T_HITS_N, T_WRITES_N, T_RES_N, T_MIG_DN, T_MIG_ND) = range(C.N_BASE, C.N_BASE + 8)
DRAM, NVM = 0, 1


@njit(cache=True)
def _out_of_nvm(state, counters, log, nlog, do_log, ref):
    dram, nvm, dirty, sc = state
    S = dirty.shape[0]
    v = jk.list_back(nvm, S)
    jk.list_unlink(nvm, v)
    sc[1] -= 1
    return _leave(v, dirty, counters, log, nlog, do_log, ref, NVM)


@njit(cache=True)
def _leave(v, dirty, counters, log, nlog, do_log, ref, tier):
    """Page v leaves the cache from ``tier``, written back if dirty."""
    counters[C.EVICTIONS] += 1
    if dirty[v]:
        dirty[v] = 0
        counters[C.DEV_WRITES_EVICT] += 1
        counters[C.DEV_WRITE_REQS] += 1
        if do_log:
            nlog = C.row(log, nlog, ref, C.IO_WRITE, C.EVICTION, v, 1, tier)
    return nlog


@njit(cache=True)
def _make_dram_room(state, counters, log, nlog, do_log, ref):
    """DRAM's least recent page moves to NVM (making room there first); with no NVM it leaves."""
    dram, nvm, dirty, sc = state
    S = dirty.shape[0]
    v = jk.list_back(dram, S)
    jk.list_unlink(dram, v)
    sc[0] -= 1
    if sc[3] == 0:
        return _leave(v, dirty, counters, log, nlog, do_log, ref, DRAM)
    if sc[1] == sc[3]:
        nlog = _out_of_nvm(state, counters, log, nlog, do_log, ref)
    jk.list_push_front(nvm, S, v)
    sc[1] += 1
    counters[T_MIG_DN] += 1
    if do_log:
        nlog = C.row(log, nlog, ref, C.IO_WRITE, C.MIGRATION, v, 1, NVM)
    return nlog


@njit(cache=True)
def _tier_step(refs, start, state, counters, log, nlog, outcome, base, do_log):
    dram, nvm, dirty, sc = state
    S = dirty.shape[0]
    n = refs.unit.shape[0]
    stop = n
    for i in range(start, n):
        if do_log and nlog + 3 > log.shape[0]:  # a read or promotion, a demotion and a write-back
            stop = i
            break
        p = refs.unit[i]
        w = np.uint8(refs.event[i])
        in_dram = jk.list_contains(dram, p)
        in_nvm = jk.list_contains(nvm, p)
        hit = in_dram or in_nvm
        if do_log:
            outcome[i] = hit
        counters[C.REFS] += 1
        counters[C.HITS] += hit
        counters[C.WRITE_HITS] += hit & w
        counters[C.WRITE_REFS] += w
        if in_dram:
            counters[T_HITS_D] += 1
            jk.list_unlink(dram, p)
            sc[0] -= 1
        elif in_nvm:  # promote: NVM -> DRAM
            counters[T_HITS_N] += 1
            jk.list_unlink(nvm, p)
            sc[1] -= 1
            counters[T_MIG_ND] += 1
            if do_log:
                nlog = C.row(log, nlog, base + i, C.IO_READ, C.MIGRATION, p, 1, DRAM)
        else:
            if not w:
                counters[C.DEV_READS] += 1
                counters[C.DEV_READ_REQS] += 1
                if do_log:
                    nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, DRAM)
        if sc[0] == sc[2]:
            nlog = _make_dram_room(state, counters, log, nlog, do_log, base + i)
        jk.list_push_front(dram, S, p)
        sc[0] += 1
        counters[T_WRITES_D] += w
        if w and not dirty[p]:
            dirty[p] = 1
            counters[C.DIRTYINGS] += 1
    return stop, nlog


class ToyTwoTier(Kernel):
    """Toy: a DRAM LRU in front of an NVM LRU; new and promoted pages enter DRAM."""

    caps = C.Caps(tiers=True)
    counters = C.BASE + C.tier_counters(("dram", "nvm"))

    def new_state(self, units, tiers, params):
        if tiers["dram_pages"] < 1:
            raise ValueError("the toy needs at least one DRAM page")
        n = units.n
        return TierState(jk.list_new(n), jk.list_new(n), np.zeros(n, np.uint8),
                         np.array([0, 0, tiers["dram_pages"], tiers["nvm_pages"]], np.int64))

    def log_rows_per_ref(self, tiers, params):
        return 3

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        return _tier_step(refs, start, state, counters, log, nlog, outcome, base, do_log)

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        n = state.dirty.shape[0]
        counters[T_RES_D] = state.sc[0]
        counters[T_RES_N] = state.sc[1]
        for tier_id, link, used in ((NVM, state.nvm, state.sc[1]), (DRAM, state.dram, state.sc[0])):
            order = jk.list_back_to_front(link, n, used)
            log, nlog = C.end_of_trace(order, state.dirty[order], flush_at_end, counters, log, nlog, do_log,
                                       last_ref, tier_id)
        return log, nlog


TOYS = {"toy_flush": (ToyFlush, FlushParams), "toy_segment": (ToySegment, SegmentParams),
        "toy_two_tier": (ToyTwoTier, TwoTierParams)}


@contextlib.contextmanager
def registered(*names):
    """Register the named toys (all by default) for the duration of a ``with`` block."""
    names = names or tuple(TOYS)
    try:
        for n in names:
            cls, params = TOYS[n]
            register(n, params)(cls)
        yield
    finally:
        for n in names:
            unregister(n)
