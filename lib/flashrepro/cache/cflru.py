"""CFLRU [Park et al., CASES 2006]: LRU whose last ``window`` positions form a clean-first region.

On a miss with a full cache the victim is the least recently used clean page inside the clean-first
region (the ``window`` least recently used pages); if that region holds no clean page, the LRU page
(then dirty) is evicted. Evicting clean pages first trades hit ratio for fewer flash writes.

Finding "the least recent clean page, if it is within the window" without scanning the window: clean
pages are also kept on a second LRU list, and every resident page carries an "in the window" flag kept up
to date as pages move (when a window page leaves, the next more recent page joins), so the check is O(1)
per miss and the state does not grow with the trace.
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
class CFLRUParams:
    """Parameters of CFLRU.

    Attributes
    ----------
    window_fraction : float
        Size of the clean-first region as a fraction of the cache (at least one page). 0 gives LRU;
        1 makes every clean page a candidate before any dirty one. The CFLRU paper tunes it per
        workload; 0.5 is our default, not the paper's.
    """

    window_fraction: float = 0.5

    def __post_init__(self):
        if not 0.0 <= self.window_fraction <= 1.0:
            raise ValueError(f"window_fraction must be in [0, 1], got {self.window_fraction}")


class CFLRUState(typing.NamedTuple):
    link: np.ndarray  # all resident units, most recent at the front (jitkit list, sentinel n)
    clean: np.ndarray  # the clean resident units, same order
    dirty: np.ndarray  # uint8 per unit
    inwin: np.ndarray  # uint8 per unit: among the `window` least recently used
    sc: np.ndarray  # int64: SIZE, CAPACITY, WINDOW, WFRONT (most recent window unit, -1: none), WCOUNT


SIZE, CAPACITY, WINDOW, WFRONT, WCOUNT = range(5)


@njit(cache=True, inline="always")
def _leave(link, inwin, S, x, wfront, wcount):
    """Take x off the list; if it was in the window, the next more recent page joins it. Returns the new
    (wfront, wcount)."""
    if inwin[x]:
        inwin[x] = 0
        wcount -= 1
        y = jk.list_prev(link, wfront)  # more recent than the window's front (x == wfront: than x)
        if y != S:
            inwin[y] = 1
            wcount += 1
            wfront = y
        elif x == wfront:  # nothing more recent: the window now holds every page
            wfront = jk.list_next(link, x) if wcount > 0 else -1
    jk.list_unlink(link, x)
    return wfront, wcount


@njit(cache=True)
def _cflru_step(refs, start, state, counters, log, nlog, outcome, base, do_log):
    unit, event = refs.unit, refs.event
    link, clean, dirty, inwin, sc = state
    S = dirty.shape[0]
    size, capacity, window, wfront, wcount = sc[SIZE], sc[CAPACITY], sc[WINDOW], sc[WFRONT], sc[WCOUNT]
    hits = write_hits = write_refs = dev_reads = dev_write_evict = dirtyings = evictions = 0
    n = unit.shape[0]
    stop = n
    for i in range(start, n):
        if do_log and nlog + 2 > log.shape[0]:  # no room for this reference's rows: the driver grows the log
            stop = i
            break
        p = unit[i]
        w = np.uint8(event[i])
        hit = jk.list_contains(link, p)
        if do_log:
            outcome[i] = hit
        hits += hit
        write_hits += hit & w
        write_refs += w
        if hit:
            wfront, wcount = _leave(link, inwin, S, p, wfront, wcount)
            if dirty[p] == 0:
                jk.list_unlink(clean, p)
        else:
            dev_reads += 1 - w
            if do_log and not w:
                nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, 0)
            if size == capacity:
                c = jk.list_back(clean, S)  # the least recently used clean page
                v = c if c != S and inwin[c] else jk.list_back(link, S)
                wfront, wcount = _leave(link, inwin, S, v, wfront, wcount)
                evictions += 1
                if dirty[v]:
                    dirty[v] = 0
                    dev_write_evict += 1
                    if do_log:
                        nlog = C.row(log, nlog, base + i, C.IO_WRITE, C.EVICTION, v, 1, 0)
                else:
                    jk.list_unlink(clean, v)
            else:
                size += 1
        jk.list_push_front(link, S, p)
        if wcount < window:  # the window is not full only while every page is in it: p joins, most recent
            inwin[p] = 1
            wcount += 1
            wfront = p
        if w and dirty[p] == 0:
            dirty[p] = 1
            dirtyings += 1
        elif dirty[p] == 0:
            jk.list_push_front(clean, S, p)
    sc[SIZE], sc[WFRONT], sc[WCOUNT] = size, wfront, wcount
    C.add_base(counters, stop - start, hits, write_hits, write_refs, dev_reads, dev_reads, dev_write_evict,
               dev_write_evict, dirtyings, evictions)
    return stop, nlog


@register("cflru", CFLRUParams)
class CFLRU(Kernel):
    """CFLRU: LRU that evicts clean pages from its clean-first region before any dirty page."""

    def new_state(self, units, tiers, params):
        capacity = tiers["capacity_pages"]
        f = params.window_fraction
        sc = np.zeros(5, np.int64)
        sc[CAPACITY] = capacity
        sc[WINDOW] = max(1, int(round(f * capacity))) if f > 0 else 0
        sc[WFRONT] = -1
        n = units.n
        return CFLRUState(jk.list_new(n), jk.list_new(n), np.zeros(n, np.uint8), np.zeros(n, np.uint8), sc)

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        return _cflru_step(refs, start, state, counters, log, nlog, outcome, base, do_log)

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        order = jk.list_back_to_front(state.link, state.dirty.shape[0], state.sc[SIZE])
        return C.end_of_trace(order, state.dirty[order], flush_at_end, counters, log, nlog, do_log, last_ref, 0)
