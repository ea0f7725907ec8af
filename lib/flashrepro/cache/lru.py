"""LRU with dirty pages: an intrusive circular doubly linked list over dense page ranks."""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from .. import jitkit as jk
from . import _state as st
from .registry import register


@dataclasses.dataclass(frozen=True)
class LRUParams:
    """LRU has no parameters."""


@njit(cache=True)
def _lru_kernel(pages, is_write, n_unique, capacity, flush_at_end, counters, log, hit_out, do_log):
    # the resident pages on an intrusive list with a sentinel (see jitkit); not on it: not resident
    S = n_unique
    link = jk.list_new(n_unique)
    dirty = np.zeros(n_unique, np.uint8)
    size = 0
    nlog = 0
    hits = write_hits = write_refs = dev_write_evict = dirtyings = evictions = 0
    n = pages.shape[0]
    for i in range(n):
        if i + jk.PREFETCH_DISTANCE < n:
            jk.prefetch(link, pages[i + jk.PREFETCH_DISTANCE] * 2)
        p = pages[i]
        w = np.uint8(is_write[i])
        hit = jk.list_contains(link, p)
        if do_log:
            hit_out[i] = hit
        write_refs += w
        if hit:
            hits += 1
            write_hits += w
            jk.list_unlink(link, p)
        else:
            if do_log and not w:  # a write miss covers the whole page: no read needed
                nlog = st.log_io(log, nlog, do_log, i, st.IO_READ, st.CAUSE_DEMAND, p, 1)
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
                    nlog = st.log_io(log, nlog, do_log, i, st.IO_WRITE, st.CAUSE_EVICT, v, 1)
            else:
                size += 1
        jk.list_push_front(link, S, p)
        d = dirty[p]
        dirty[p] = d | w
        dirtyings += (d | w) - d
    order = jk.list_back_to_front(link, S, size)  # LRU first: a flush writes the oldest dirty pages first
    return st.finish(order, dirty[order], flush_at_end, counters, log, nlog, do_log, n, hits, write_hits, write_refs,
                     dev_write_evict, dev_write_evict, dirtyings, evictions)

@register("lru", LRUParams)
def run_lru(pages, is_write, unique_pages, capacity, flush_at_end, counters, log, hit_out, do_log, params: LRUParams):
    """Least recently used: evict the page whose last reference is oldest."""
    return _lru_kernel(pages, is_write, len(unique_pages), capacity, flush_at_end, counters, log, hit_out, do_log)
