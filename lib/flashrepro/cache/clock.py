"""CLOCK (second chance) with dirty pages: a circular array of frames and one reference bit per frame."""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
from numba import njit

from .. import jitkit as jk
from . import contract as C
from .registry import Kernel, register


@dataclasses.dataclass(frozen=True)
class ClockParams:
    """Parameters of CLOCK.

    Attributes
    ----------
    insert_referenced : bool
        False (default, as libCacheSim's ``Clock``): a new page enters with its reference bit clear, so
        it is evicted on the hand's next pass unless referenced again. True: it enters with the bit set.
    cache_reads : bool
        True (default): a read miss allocates the page. False: a read miss reads the page from the device
        without allocating it (a write buffer; see :class:`~flashrepro.cache.lru.LRUParams`).
    """

    insert_referenced: bool = False
    cache_reads: bool = True


class ClockState(typing.NamedTuple):
    page_frame: np.ndarray  # int32 per unit: its frame, -1 if not resident
    frame_page: np.ndarray  # int32 per frame
    flags: np.ndarray  # uint8 per frame: REF | DIRTY (one byte per frame: one access per hit, not two)
    sc: np.ndarray  # int64: HAND, USED, CAPACITY


HAND, USED, CAPACITY = 0, 1, 2
REF, DIRTY = np.uint8(1), np.uint8(2)  # the frame's flag bits; DIRTY >> 1 is the dirty bit as 0/1


@njit(cache=True)
def _clock_step(refs, start, state, counters, log, nlog, outcome, base, do_log, insert_referenced, no_read_alloc):
    """CLOCK over one chunk: a hit sets its frame's reference bit; a miss takes a free frame or sweeps the hand,
    clearing set bits, to the first frame without one (written back if dirty), and reads the page into it with the
    bit set only if ``insert_referenced`` (with ``no_read_alloc``, a read miss is not allocated); a write sets the
    dirty bit.

    Advances the cache over ``refs`` (a :class:`~flashrepro.traces.trace.RefStream` chunk) from entry ``start``, as
    :mod:`flashrepro.cache.contract` says of every ``step``: it changes ``page_frame``, ``frame_page``, the frames'
    ``flags`` and ``sc``'s hand and used count; adds the chunk's tallies to ``counters`` (the base counters); with
    ``do_log``, writes each reference's outcome to ``outcome`` (0 miss, 1 hit) and its device I/O as rows of ``log``
    from row ``nlog`` (``ref`` = ``base`` + entry). Returns ``(stop, nlog)``: ``stop`` < the chunk's length when the
    log had no room for a reference's rows (the driver grows it and calls again from ``stop``).

    Both bits of a frame are in one byte: a hit reads and writes one byte instead of one in each of two arrays.
    Every index here is in range by construction, so the hot accesses go through ``jk.load``/``jk.store``."""
    unit, event = refs.unit, refs.event
    page_frame, frame_page, flags, sc = state
    capacity = sc[CAPACITY]
    hand, used = sc[HAND], sc[USED]
    init_ref = REF if insert_referenced else np.uint8(0)
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
        w = np.uint8(jk.load(event, i))
        f = np.int64(jk.load(page_frame, p))
        hit = f >= 0
        if do_log:
            outcome[i] = hit
        hits += hit
        write_hits += hit & w
        write_refs += w
        if hit:
            old = jk.load(flags, f)
            jk.store(flags, f, old | REF | (w << 1))
            dirtyings += w & ~(old >> 1)  # the page was clean and this is a write
        else:
            if no_read_alloc is not None:  # (pruned at compile time when None: the default keeps its code)
                if not w:  # a read that bypasses the cache: read from the device, the hand stays
                    dev_reads += 1
                    if do_log:
                        nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, 0)
                    continue
            dev_reads += 1 - w  # a write miss covers the whole page: no read needed
            if do_log and not w:
                nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, 0)
            if used < capacity:  # filling: frames in order, so frame 0 is the oldest when the hand starts
                f = used
                used += 1
            else:
                while jk.load(flags, hand) & REF:
                    jk.store(flags, hand, jk.load(flags, hand) & DIRTY)
                    hand += 1
                    if hand == capacity:
                        hand = 0
                f = hand
                v = jk.load(frame_page, f)
                jk.store(page_frame, v, -1)
                evictions += 1
                if jk.load(flags, f) & DIRTY:
                    dev_write_evict += 1
                    if do_log:
                        nlog = C.row(log, nlog, base + i, C.IO_WRITE, C.EVICTION, v, 1, 0)
                # the new page takes the victim's frame and is the last the hand will reach
                hand += 1
                if hand == capacity:
                    hand = 0
            jk.store(frame_page, f, p)
            jk.store(page_frame, p, f)
            jk.store(flags, f, init_ref | (w << 1))
            dirtyings += w
    sc[HAND], sc[USED] = hand, used
    C.add_base(counters, stop - start, hits, write_hits, write_refs, dev_reads, dev_reads, dev_write_evict,
               dev_write_evict, dirtyings, evictions)
    return stop, nlog


@register("clock", ClockParams)
class Clock(Kernel):
    """CLOCK: a hand sweeps the frames, clearing reference bits, and evicts the first unreferenced page."""

    def new_state(self, units, tiers, params):
        # a cache larger than the footprint never fills: frames beyond it would never be used
        frames = min(tiers["capacity_pages"], units.n)
        sc = np.zeros(3, np.int64)
        sc[CAPACITY] = frames
        return ClockState(np.full(units.n, -1, np.int32), np.full(frames, -1, np.int32), np.zeros(frames, np.uint8), sc)

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        # do_log or None: a run without the log gets a specialisation compiled without its branches (1.2x)
        return _clock_step(refs, start, state, counters, log, nlog, outcome, base, do_log or None,
                           params.insert_referenced, None if params.cache_reads else 1)

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        hand, used, capacity = state.sc[HAND], state.sc[USED], state.sc[CAPACITY]
        frames = (hand + np.arange(used)) % used if used == capacity else np.arange(used)  # hand order
        return C.end_of_trace(state.frame_page[frames].astype(np.int64), state.flags[frames] >> 1, flush_at_end,
                              counters, log, nlog, do_log, last_ref, 0)
