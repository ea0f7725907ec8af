"""CLOCK (second chance) with dirty pages: a circular array of frames and one reference bit per frame."""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from ._state import (CAUSE_DEMAND, CAUSE_EVICT, CAUSE_FLUSH, DEV_READ_REQS, DEV_READS, DEV_WRITE_REQS,
                     DEV_WRITES_EVICT, DEV_WRITES_FLUSH, DIRTY_AT_END, DIRTYINGS, EVICTIONS, IO_READ, IO_WRITE,
                     count_ref, log_io)
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
def _clock_kernel(pages, is_write, n_unique, capacity, flush_at_end, counters, log, hit_out, do_log, insert_referenced):
    frame_page = np.full(capacity, -1, np.int64)
    page_frame = np.full(n_unique, -1, np.int64)
    ref = np.zeros(capacity, np.bool_)
    dirty = np.zeros(n_unique, np.bool_)
    hand = 0
    used = 0
    nlog = 0
    for i in range(pages.shape[0]):
        p = pages[i]
        w = is_write[i]
        f = page_frame[p]
        count_ref(counters, f >= 0, w)
        if do_log:
            hit_out[i] = f >= 0
        if f >= 0:
            ref[f] = True
        else:
            if not w:
                counters[DEV_READS] += 1
                counters[DEV_READ_REQS] += 1
                nlog = log_io(log, nlog, do_log, i, IO_READ, CAUSE_DEMAND, p, 1)
            if used < capacity:  # filling: frames in order, so frame 0 is the oldest when the hand starts
                f = used
                used += 1
            else:
                while ref[hand]:
                    ref[hand] = False
                    hand += 1
                    if hand == capacity:
                        hand = 0
                f = hand
                v = frame_page[f]
                page_frame[v] = -1
                counters[EVICTIONS] += 1
                if dirty[v]:
                    dirty[v] = False
                    counters[DEV_WRITES_EVICT] += 1
                    counters[DEV_WRITE_REQS] += 1
                    nlog = log_io(log, nlog, do_log, i, IO_WRITE, CAUSE_EVICT, v, 1)
                # the new page takes the victim's frame and is the last the hand will reach
                hand += 1
                if hand == capacity:
                    hand = 0
            frame_page[f] = p
            page_frame[p] = f
            ref[f] = insert_referenced
        if w and not dirty[p]:
            dirty[p] = True
            counters[DIRTYINGS] += 1
    n = pages.shape[0]
    for k in range(used):  # hand order
        f = (hand + k) % used if used == capacity else k
        p = frame_page[f]
        if dirty[p]:
            if flush_at_end:
                dirty[p] = False
                counters[DEV_WRITES_FLUSH] += 1
                counters[DEV_WRITE_REQS] += 1
                nlog = log_io(log, nlog, do_log, n - 1, IO_WRITE, CAUSE_FLUSH, p, 1)
            else:
                counters[DIRTY_AT_END] += 1
    return nlog


@register("clock", ClockParams)
def run_clock(pages, is_write, n_unique, capacity, flush_at_end, counters, log, hit_out, do_log, params: ClockParams):
    """CLOCK: a hand sweeps the frames, clearing reference bits, and evicts the first unreferenced page."""
    return _clock_kernel(pages, is_write, n_unique, capacity, flush_at_end, counters, log, hit_out, do_log,
                         params.insert_referenced)
