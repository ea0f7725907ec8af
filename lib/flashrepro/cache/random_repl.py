"""RANDOM replacement with dirty pages: evict a resident page drawn uniformly, from a seeded stream.

The resident pages sit in an array of frames (in no particular order); a miss in a full cache draws a frame
uniformly from all of them, from a splitmix64 stream that starts at ``seed`` (the stream of the FTL's
``random`` victim rule and FEMU's ``ftl_gc_rand``), so every run with the same seed is the same run. The
new page takes the victim's frame. Writes as in LRU: a write miss allocates the page without reading it,
a write makes the page dirty, and a dirty page costs a device write when it is evicted or flushed.
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
class RandomParams:
    """Parameters of RANDOM replacement.

    Attributes
    ----------
    seed : int
        Start of the splitmix64 stream the victims are drawn from (0 to 2**63 - 1). One draw per eviction:
        the victim is the frame ``draw % frames``.
    """

    seed: int = 0


class RandomState(typing.NamedTuple):
    page_frame: np.ndarray  # int32 per unit: its frame, -1 if not resident
    frame_page: np.ndarray  # int32 per frame
    dirty: np.ndarray  # uint8 per frame
    sc: np.ndarray  # int64: USED, CAPACITY
    rng: np.ndarray  # uint64[1]: the splitmix64 state


USED, CAPACITY = 0, 1
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def _splitmix64(z):
    """``(next state, draw)`` of the splitmix64 stream in state ``z`` (the state advances by the golden-ratio
    constant before each draw, as :func:`flashrepro.ftl.victims.splitmix64`)."""
    z = z + _GOLDEN
    x = (z ^ (z >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return z, x ^ (x >> np.uint64(31))


@njit(cache=True)
def _random_step(refs, start, state, counters, log, nlog, outcome, base, do_log):
    """RANDOM replacement over one chunk: a miss takes a free frame or a frame drawn uniformly from the seeded stream
    ``rng`` (written back if dirty) and holds the page there (a read miss reads it); a write makes its frame dirty.

    Advances the cache over ``refs`` (a :class:`~flashrepro.traces.trace.RefStream` chunk) from entry ``start``, as
    :mod:`flashrepro.cache.contract` says of every ``step``: it changes ``page_frame``, ``frame_page``, ``dirty``,
    ``sc``'s used count and the stream's state ``rng[0]``; adds the chunk's tallies to ``counters`` (the base
    counters); with ``do_log``, writes each reference's outcome to ``outcome`` (0 miss, 1 hit) and its device I/O as
    rows of ``log`` from row ``nlog`` (``ref`` = ``base`` + entry). Returns ``(stop, nlog)``: ``stop`` < the chunk's
    length when the log had no room for a reference's rows (the driver grows it and calls again from ``stop``)."""
    unit, event = refs.unit, refs.event
    page_frame, frame_page, dirty, sc, rng = state
    capacity = sc[CAPACITY]
    used = sc[USED]
    frames = np.uint64(capacity)
    z = rng[0]  # the stream's state in a register; stored back when the call returns
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
            if used < capacity:
                f = used
                used += 1
            else:
                z, r = _splitmix64(z)
                f = np.int64(r % frames)  # (modulo bias below frames / 2**64: at most 2**-33 here)
                v = frame_page[f]
                page_frame[v] = -1
                evictions += 1
                if dirty[f]:
                    dev_write_evict += 1
                    if do_log:
                        nlog = C.row(log, nlog, base + i, C.IO_WRITE, C.EVICTION, v, 1, 0)
            frame_page[f] = p
            page_frame[p] = f
            dirty[f] = 0
        d = dirty[f]
        dirty[f] = d | w
        dirtyings += (d | w) - d
    sc[USED] = used
    rng[0] = z
    C.add_base(counters, stop - start, hits, write_hits, write_refs, dev_reads, dev_reads, dev_write_evict,
               dev_write_evict, dirtyings, evictions)
    return stop, nlog


@register("random", RandomParams)
class Random(Kernel):
    """RANDOM: evict a resident page drawn uniformly at random (seeded splitmix64 stream)."""

    def new_state(self, units, tiers, params):
        # a cache larger than the footprint never fills: frames beyond it would never be used
        frames = min(tiers["capacity_pages"], units.n)
        sc = np.zeros(2, np.int64)
        sc[CAPACITY] = frames
        return RandomState(np.full(units.n, -1, np.int32), np.full(frames, -1, np.int32), np.zeros(frames, np.uint8),
                           sc, np.array([params.seed], np.uint64))

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        return _random_step(refs, start, state, counters, log, nlog, outcome, base, do_log)

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        frames = np.arange(state.sc[USED])  # frame order: the order the reference keeps its slots in
        return C.end_of_trace(state.frame_page[frames].astype(np.int64), state.dirty[frames], flush_at_end, counters,
                              log, nlog, do_log, last_ref, 0)
