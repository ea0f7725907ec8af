"""LRU with dirty pages: an intrusive doubly linked list over dense page ranks."""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from ._state import (CAUSE_DEMAND, CAUSE_EVICT, CAUSE_FLUSH, DEV_READ_REQS, DEV_READS, DEV_WRITE_REQS,
                     DEV_WRITES_EVICT, DEV_WRITES_FLUSH, DIRTY_AT_END, DIRTYINGS, EVICTIONS, IO_READ, IO_WRITE,
                     count_ref, log_io)
from .registry import register


@dataclasses.dataclass(frozen=True)
class LRUParams:
    """LRU has no parameters."""


@njit(cache=True)
def _lru_kernel(pages, is_write, n_unique, capacity, flush_at_end, counters, log, hit_out, do_log):
    prev = np.full(n_unique, -1, np.int64)
    nxt = np.full(n_unique, -1, np.int64)
    resident = np.zeros(n_unique, np.bool_)
    dirty = np.zeros(n_unique, np.bool_)
    head = -1  # most recently used
    tail = -1  # least recently used
    size = 0
    nlog = 0
    for i in range(pages.shape[0]):
        p = pages[i]
        w = is_write[i]
        hit = resident[p]
        count_ref(counters, hit, w)
        if do_log:
            hit_out[i] = hit
        if hit:
            if p != head:  # unlink, then push at head
                nxt[prev[p]] = nxt[p]
                if nxt[p] >= 0:
                    prev[nxt[p]] = prev[p]
                else:
                    tail = prev[p]
                prev[p] = -1
                nxt[p] = head
                prev[head] = p
                head = p
        else:
            if not w:  # a write miss covers the whole page: no read needed
                counters[DEV_READS] += 1
                counters[DEV_READ_REQS] += 1
                nlog = log_io(log, nlog, do_log, i, IO_READ, CAUSE_DEMAND, p, 1)
            if size == capacity:
                v = tail
                tail = prev[v]
                if tail >= 0:
                    nxt[tail] = -1
                else:
                    head = -1
                prev[v] = -1
                resident[v] = False
                size -= 1
                counters[EVICTIONS] += 1
                if dirty[v]:
                    dirty[v] = False
                    counters[DEV_WRITES_EVICT] += 1
                    counters[DEV_WRITE_REQS] += 1
                    nlog = log_io(log, nlog, do_log, i, IO_WRITE, CAUSE_EVICT, v, 1)
            nxt[p] = head
            prev[p] = -1
            if head >= 0:
                prev[head] = p
            else:
                tail = p
            head = p
            resident[p] = True
            size += 1
        if w and not dirty[p]:
            dirty[p] = True
            counters[DIRTYINGS] += 1
    n = pages.shape[0]
    p = tail
    while p >= 0:  # LRU order, so a flush writes the oldest dirty pages first
        if dirty[p]:
            if flush_at_end:
                dirty[p] = False
                counters[DEV_WRITES_FLUSH] += 1
                counters[DEV_WRITE_REQS] += 1
                nlog = log_io(log, nlog, do_log, n - 1, IO_WRITE, CAUSE_FLUSH, p, 1)
            else:
                counters[DIRTY_AT_END] += 1
        p = prev[p]
    return nlog


@register("lru", LRUParams)
def run_lru(pages, is_write, n_unique, capacity, flush_at_end, counters, log, hit_out, do_log, params: LRUParams):
    """Least recently used: evict the page whose last reference is oldest."""
    return _lru_kernel(pages, is_write, n_unique, capacity, flush_at_end, counters, log, hit_out, do_log)
