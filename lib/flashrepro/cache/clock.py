"""CLOCK (second chance) with dirty pages: a circular array of frames and one reference bit per frame."""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from .. import jitkit as jk
from . import _state as st
from .registry import register


@dataclasses.dataclass(frozen=True)
class ClockParams:
    """Parameters of CLOCK.

    Attributes
    ----------
    insert_referenced : bool
        False (default, as libCacheSim's ``Clock``): a new page enters with its reference bit clear, so
        it is evicted on the hand's next pass unless referenced again. True: it enters with the bit set.
    """

    insert_referenced: bool = False


@njit(cache=True)
def _clock_kernel(pages, is_write, n_unique, capacity, flush_at_end, counters, log, hit_out, do_log,
                  insert_referenced):
    page_frame = np.full(n_unique, -1, np.int32)
    frame_page = np.full(capacity, -1, np.int32)
    ref = np.zeros(capacity, np.uint8)
    dirty = np.zeros(capacity, np.uint8)  # per frame: one random access per reference, not two
    init_ref = np.uint8(1 if insert_referenced else 0)
    hand = 0
    used = 0
    nlog = 0
    hits = write_hits = write_refs = dev_write_evict = dirtyings = evictions = 0
    n = pages.shape[0]
    for i in range(n):
        if i + jk.PREFETCH_DISTANCE < n:
            jk.prefetch(page_frame, pages[i + jk.PREFETCH_DISTANCE])
        p = pages[i]
        w = np.uint8(is_write[i])
        f = page_frame[p]
        if do_log:
            hit_out[i] = f >= 0
        write_refs += w
        if f >= 0:
            hits += 1
            write_hits += w
            ref[f] = 1
        else:
            if do_log and not w:  # a write miss covers the whole page: no read needed
                nlog = st.log_io(log, nlog, do_log, i, st.IO_READ, st.CAUSE_DEMAND, p, 1)
            if used < capacity:  # filling: frames in order, so frame 0 is the oldest when the hand starts
                f = used
                used += 1
            else:
                while ref[hand]:
                    ref[hand] = 0
                    hand += 1
                    if hand == capacity:
                        hand = 0
                f = hand
                v = frame_page[f]
                page_frame[v] = -1
                evictions += 1
                if dirty[f]:
                    dev_write_evict += 1
                    nlog = st.log_io(log, nlog, do_log, i, st.IO_WRITE, st.CAUSE_EVICT, v, 1)
                # the new page takes the victim's frame and is the last the hand will reach
                hand += 1
                if hand == capacity:
                    hand = 0
            frame_page[f] = p
            page_frame[p] = f
            ref[f] = init_ref
            dirty[f] = 0
        d = dirty[f]
        dirty[f] = d | w
        dirtyings += (d | w) - d
    frames = (hand + np.arange(used)) % used if used == capacity else np.arange(used)  # hand order
    return st.finish(frame_page[frames].astype(np.int64), dirty[frames], flush_at_end, counters, log, nlog, do_log, n,
                     hits, write_hits, write_refs, dev_write_evict, dev_write_evict, dirtyings, evictions)

@register("clock", ClockParams)
def run_clock(pages, is_write, unique_pages, capacity, flush_at_end, counters, log, hit_out, do_log,
              params: ClockParams):
    """CLOCK: a hand sweeps the frames, clearing reference bits, and evicts the first unreferenced page."""
    return _clock_kernel(pages, is_write, len(unique_pages), capacity, flush_at_end, counters, log, hit_out, do_log,
                         params.insert_referenced)
