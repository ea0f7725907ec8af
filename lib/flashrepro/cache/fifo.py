"""FIFO with dirty pages: a circular array of frames and a hand at the oldest inserted page.

A hit changes nothing (no reference bit, no reordering): the page leaves ``capacity`` misses after it came
in. It is CLOCK without reference bits, and the baseline of the characteristic-time approximation
(:mod:`flashrepro.theory.cache`). Writes as in LRU: a write miss allocates the page without reading it, a
write makes the page dirty, and a dirty page costs a device write when it is evicted or flushed.
"""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
from numba import njit

from .. import jitkit as jk
from . import contract as C
from .registry import Kernel, register


@dataclasses.dataclass(frozen=True)
class FIFOParams:
    """FIFO has no parameters."""


class FIFOState(typing.NamedTuple):
    page_frame: np.ndarray  # int32 per unit: its frame, -1 if not resident
    frame_page: np.ndarray  # int32 per frame
    dirty: np.ndarray  # uint8 per frame
    sc: np.ndarray  # int64: HAND, USED, CAPACITY


HAND, USED, CAPACITY = 0, 1, 2


@njit(cache=True)
def _fifo_step(refs, start, state, counters, log, nlog, outcome, base, do_log):
    """FIFO over one chunk: a hit changes no order; a miss takes a free frame or the one under the hand, the oldest
    page (written back if dirty), holds the page there (a read miss reads it; a write miss covers the whole page)
    and moves the hand on; a write makes its frame dirty.

    Advances the cache over ``refs`` (a :class:`~flashrepro.traces.trace.RefStream` chunk) from entry ``start``, as
    :mod:`flashrepro.cache.contract` says of every ``step``: it changes ``page_frame``, ``frame_page``, ``dirty``
    and ``sc``'s hand and used count; adds the chunk's tallies to ``counters`` (the base counters); with ``do_log``,
    writes each reference's outcome to ``outcome`` (0 miss, 1 hit) and its device I/O as rows of ``log`` from row
    ``nlog`` (``ref`` = ``base`` + entry). Returns ``(stop, nlog)``: ``stop`` < the chunk's length when the log had
    no room for a reference's rows (the driver grows it and calls again from ``stop``)."""
    unit, event = refs.unit, refs.event
    page_frame, frame_page, dirty, sc = state
    capacity = sc[CAPACITY]
    hand, used = sc[HAND], sc[USED]
    hits = write_hits = write_refs = dev_reads = dev_write_evict = dirtyings = evictions = 0
    n = unit.shape[0]
    stop = n
    for i in range(start, n):
        if do_log and nlog + 2 > log.shape[0]:  # no room for this reference's rows: the driver grows the log
            stop = i
            break
        if i + jk.PREFETCH_DISTANCE < n:
            jk.prefetch(page_frame, unit[i + jk.PREFETCH_DISTANCE])
        p = unit[i]
        w = np.uint8(event[i])
        f = page_frame[p]
        hit = f >= 0
        if do_log:
            outcome[i] = hit
        hits += hit  # counted branch-free: reads and writes interleave at random
        write_hits += hit & w
        write_refs += w
        if not hit:
            dev_reads += 1 - w  # a write miss covers the whole page: no read needed
            if do_log and not w:
                nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, 0)
            if used < capacity:  # filling: frames in order, so frame 0 is the oldest when the hand starts
                f = used
                used += 1
            else:
                f = hand  # the oldest inserted page's frame
                v = frame_page[f]
                page_frame[v] = -1
                evictions += 1
                if dirty[f]:
                    dev_write_evict += 1
                    if do_log:
                        nlog = C.row(log, nlog, base + i, C.IO_WRITE, C.EVICTION, v, 1, 0)
                # the new page takes the victim's frame and is now the newest: the next oldest is one on
                hand += 1
                if hand == capacity:
                    hand = 0
                jk.prefetch(page_frame, frame_page[hand])  # the next victim's entry
            frame_page[f] = p
            page_frame[p] = f
            dirty[f] = 0
        d = dirty[f]
        dirty[f] = d | w
        dirtyings += (d | w) - d
    sc[HAND], sc[USED] = hand, used
    C.add_base(counters, stop - start, hits, write_hits, write_refs, dev_reads, dev_reads, dev_write_evict,
               dev_write_evict, dirtyings, evictions)
    return stop, nlog


def fifo_order(state: FIFOState) -> np.ndarray:
    """Frames of the resident pages, oldest inserted first (the order a flush writes them)."""
    hand, used, capacity = (int(x) for x in state.sc[[HAND, USED, CAPACITY]])
    return (hand + np.arange(used)) % used if used == capacity and used else np.arange(used)


@register("fifo", FIFOParams)
class FIFO(Kernel):
    """FIFO: evict the page inserted longest ago; hits do not reorder."""

    def new_state(self, units, tiers, params):
        # a cache larger than the footprint never fills: frames beyond it would never be used
        frames = min(tiers["capacity_pages"], units.n)
        sc = np.zeros(3, np.int64)
        sc[CAPACITY] = frames
        return FIFOState(np.full(units.n, -1, np.int32), np.full(frames, -1, np.int32), np.zeros(frames, np.uint8),
                         sc)

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        return _fifo_step(refs, start, state, counters, log, nlog, outcome, base, do_log)

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        frames = fifo_order(state)
        return C.end_of_trace(state.frame_page[frames].astype(np.int64), state.dirty[frames], flush_at_end, counters,
                              log, nlog, do_log, last_ref, 0)
