"""LRU with dirty pages: an intrusive doubly linked list of frames, most recently used at the front."""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
from numba import njit

from .. import jitkit as jk
from . import contract as C
from .registry import Kernel, register


@dataclasses.dataclass(frozen=True)
class LRUParams:
    """Parameters of LRU.

    Attributes
    ----------
    cache_reads : bool
        True (default): a read miss allocates the page (a demand-paged cache). False: a read miss reads the
        page from the device without allocating it, so only written pages are ever held (a write buffer;
        paper 3, CLOCK-HBM, leaves open whether its baselines cache reads).
    """

    cache_reads: bool = True


class LRUState(typing.NamedTuple):
    page_frame: np.ndarray  # int32 per unit: the frame holding it, -1 if not resident
    node: np.ndarray  # a row of W int32 per frame (jitkit records, sentinel row = frames): PREV, NEXT, PAGE, DIRTY
    sc: np.ndarray  # int64 scalars: USED, FRAMES


USED, FRAMES = 0, 1
# A frame's row: its links on the list of frames in use (most recently used first), its page and its dirty bit.
# One 16-byte row per frame: a hit touches one row, not a cache line of the links and one of the dirty bits
# (1.3x at 1% capacity on the bench stream, measured).
LINKS, PAGE, DIRTY = 0, 2, 3
W = 4


def new_lru_state(n_units: int, capacity: int) -> LRUState:
    """Frames for min(capacity, n_units) pages: a cache larger than the footprint never fills."""
    frames = min(capacity, n_units)
    sc = np.zeros(2, np.int64)
    sc[FRAMES] = frames
    node = jk.rec_new(frames, W, (LINKS,))
    node[W * np.arange(frames) + DIRTY] = 0
    return LRUState(np.full(n_units, -1, np.int32), node, sc)


@njit(cache=True, inline="always")
def _unlink(node, f):
    """jitkit.rec_unlink of frame f (which is pushed back at once, so its own links are left as they are), through
    jk.load/jk.store: every link is a frame or the sentinel. With the unchecked accesses here and in the loop LRU
    is 1.1-1.3x faster (measured)."""
    a = np.int64(jk.load(node, W * f + LINKS))
    b = np.int64(jk.load(node, W * f + LINKS + 1))
    jk.store(node, W * a + LINKS + 1, b)
    jk.store(node, W * b + LINKS, a)


@njit(cache=True, inline="always")
def _push_front(node, S, f):
    """jitkit.rec_push_front of frame f, through jk.load/jk.store."""
    first = np.int64(jk.load(node, W * S + LINKS + 1))
    jk.store(node, W * f + LINKS, S)
    jk.store(node, W * f + LINKS + 1, first)
    jk.store(node, W * first + LINKS, f)
    jk.store(node, W * S + LINKS + 1, f)


@njit(cache=True)
def _lru_step(refs, start, state, counters, log, nlog, outcome, base, do_log, no_read_alloc):
    """LRU over one chunk: a hit moves its frame to the front of the list; a miss takes a free frame or the back one
    (written back if dirty) and reads the page (with ``no_read_alloc``, a read miss reads the page without
    allocating it); a write makes its frame dirty.

    Advances the cache over ``refs`` (a :class:`~flashrepro.traces.trace.RefStream` chunk) from entry ``start``, as
    :mod:`flashrepro.cache.contract` says of every ``step``: it changes ``page_frame``, the list ``node`` and
    ``sc``'s used count; adds the chunk's tallies to ``counters`` (the base counters); with ``do_log``, writes each
    reference's outcome to ``outcome`` (0 miss, 1 hit) and its device I/O as rows of ``log`` from row ``nlog``
    (``ref`` = ``base`` + entry). Returns ``(stop, nlog)``: ``stop`` < the chunk's length when the log had no room
    for a reference's rows (the driver grows it and calls again from ``stop``).

    The list links frames, not pages: at a small capacity every list operation stays in a few cache lines, and the
    only random access per reference is ``page_frame[p]`` (prefetched ahead), as in CLOCK. Every index here is in
    range by construction, so the hot accesses go through ``jk.load``/``jk.store`` (no negative-index fix-up; see
    jitkit)."""
    unit, event = refs.unit, refs.event
    page_frame, node, sc = state
    S = sc[FRAMES]  # the list's sentinel row
    used, frames = sc[USED], sc[FRAMES]
    hits = write_hits = write_refs = dev_reads = dev_write_evict = dirtyings = evictions = 0
    n = unit.shape[0]
    stop = n
    for i in range(start, n):
        if do_log and nlog + 2 > log.shape[0]:  # no room for this reference's rows: the driver grows the log
            stop = i
            break
        if i + jk.PREFETCH_DISTANCE < n:
            jk.prefetch(page_frame, jk.load(unit, i + jk.PREFETCH_DISTANCE))
        p = jk.load(unit, i)
        w = np.int32(jk.load(event, i))
        f = np.int64(jk.load(page_frame, p))
        hit = f >= 0
        if do_log:
            outcome[i] = hit
        hits += hit  # counted branch-free: reads and writes interleave at random
        write_hits += hit & w
        write_refs += w
        if hit:
            _unlink(node, f)
        else:
            if no_read_alloc is not None:  # (pruned at compile time when None: the default keeps its code)
                if not w:  # a read that bypasses the cache: read from the device, nothing moves
                    dev_reads += 1
                    if do_log:
                        nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, 0)
                    continue
            dev_reads += 1 - w  # a write miss covers the whole page: no read needed
            if do_log and not w:
                nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, 0)
            if used < frames:
                f = used
                used += 1
            else:
                f = np.int64(jk.load(node, W * S + LINKS))  # the least recently used page's frame
                _unlink(node, f)
                v = np.int64(jk.load(node, W * f + PAGE))
                jk.store(page_frame, v, -1)
                evictions += 1
                dev_write_evict += jk.load(node, W * f + DIRTY)
                if do_log and jk.load(node, W * f + DIRTY):
                    nlog = C.row(log, nlog, base + i, C.IO_WRITE, C.EVICTION, v, 1, 0)
                # the next victim's entry in page_frame, fetched now
                jk.prefetch(page_frame, jk.load(node, W * np.int64(jk.load(node, W * S + LINKS)) + PAGE))
            jk.store(node, W * f + PAGE, p)
            jk.store(page_frame, p, f)
            jk.store(node, W * f + DIRTY, 0)
        _push_front(node, S, f)
        d = jk.load(node, W * f + DIRTY)
        jk.store(node, W * f + DIRTY, d | w)
        dirtyings += (d | w) - d
    sc[USED] = used
    C.add_base(counters, stop - start, hits, write_hits, write_refs, dev_reads, dev_reads, dev_write_evict,
               dev_write_evict, dirtyings, evictions)
    return stop, nlog


@njit(cache=True)
def lru_order(state):
    """Resident units, least recently used first (the order a flush writes them), and their dirty bits."""
    node = state.node
    frames = jk.rec_back_to_front(node, W, state.sc[FRAMES], LINKS, state.sc[USED])
    order = np.empty(frames.shape[0], np.int64)
    dirty = np.empty(frames.shape[0], np.uint8)
    for k in range(frames.shape[0]):
        order[k] = node[W * frames[k] + PAGE]
        dirty[k] = node[W * frames[k] + DIRTY]
    return order, dirty


@register("lru", LRUParams)
class LRU(Kernel):
    """Least recently used: evict the page whose last reference is oldest."""

    def new_state(self, units, tiers, params):
        return new_lru_state(units.n, tiers["capacity_pages"])

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        # do_log or None: a run without the log gets a specialisation compiled without its branches (1.1x)
        return _lru_step(refs, start, state, counters, log, nlog, outcome, base, do_log or None,
                         None if params.cache_reads else 1)

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        order, dirty = lru_order(state)
        return C.end_of_trace(order, dirty, flush_at_end, counters, log, nlog, do_log, last_ref, 0)
