"""LRU with dirty pages: an intrusive doubly linked list over dense units, most recent at the front."""

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
    """LRU has no parameters."""


class LRUState(typing.NamedTuple):
    link: np.ndarray  # the resident units on a list with sentinel n (jitkit); off the list: not resident
    dirty: np.ndarray  # uint8 per unit
    sc: np.ndarray  # int64 scalars: SIZE, CAPACITY


SIZE, CAPACITY = 0, 1


def new_lru_state(n_units: int, capacity: int) -> LRUState:
    sc = np.zeros(2, np.int64)
    sc[CAPACITY] = capacity
    return LRUState(jk.list_new(n_units), np.zeros(n_units, np.uint8), sc)


@njit(cache=True)
def _lru_step(refs, state, counters, log, nlog, outcome, base, do_log):
    unit, event = refs.unit, refs.event
    link, dirty, sc = state.link, state.dirty, state.sc
    S = dirty.shape[0]
    size, capacity = sc[SIZE], sc[CAPACITY]
    hits = write_hits = write_refs = dev_reads = dev_write_evict = dirtyings = evictions = 0
    n = unit.shape[0]
    for i in range(n):
        if i + jk.PREFETCH_DISTANCE < n:
            jk.prefetch(link, unit[i + jk.PREFETCH_DISTANCE] * 2)
        p = unit[i]
        w = np.uint8(event[i])
        hit = jk.list_contains(link, p)
        hits, write_hits, write_refs = C.tally(i, hit, w, outcome, do_log, hits, write_hits, write_refs)
        if hit:
            jk.list_unlink(link, p)
        else:
            dev_reads += 1 - w  # a write miss covers the whole page: no read needed
            if do_log and not w:
                log, nlog = C.emit(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, 0)
            if size == capacity:
                v = jk.list_back(link, S)
                jk.list_unlink(link, v)
                a = jk.list_back(link, S)
                jk.prefetch(link, jk.list_prev(link, a) * 2)  # the next victim's neighbour, touched next eviction
                jk.prefetch(dirty, a)  # the next victim's dirty byte
                evictions += 1
                if dirty[v]:
                    dirty[v] = 0
                    dev_write_evict += 1
                    if do_log:
                        log, nlog = C.emit(log, nlog, base + i, C.IO_WRITE, C.EVICTION, v, 1, 0)
            else:
                size += 1
        jk.list_push_front(link, S, p)
        d = dirty[p]
        dirty[p] = d | w
        dirtyings += (d | w) - d
    sc[SIZE] = size
    C.add_base(counters, n, hits, write_hits, write_refs, dev_reads, dev_reads, dev_write_evict, dev_write_evict,
               dirtyings, evictions)
    return log, nlog


@njit(cache=True)
def lru_order(state):
    """Resident units, least recently used first (the order a flush writes them)."""
    return jk.list_back_to_front(state.link, state.dirty.shape[0], state.sc[SIZE])


@register("lru", LRUParams)
class LRU(Kernel):
    """Least recently used: evict the page whose last reference is oldest."""

    def new_state(self, units, tiers, params):
        return new_lru_state(units.n, tiers["capacity_pages"])

    def step(self, refs, state, counters, log, nlog, outcome, base, do_log, params):
        return _lru_step(refs, state, counters, log, nlog, outcome, base, do_log)

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        order = lru_order(state)
        return C.end_of_trace(order, state.dirty[order], flush_at_end, counters, log, nlog, do_log, last_ref, 0)
