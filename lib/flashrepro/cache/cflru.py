"""CFLRU [Park et al., CASES 2006]: LRU whose last ``window`` positions form a clean-first region.

On a miss with a full cache the victim is the least recently used clean page inside the clean-first
region (the ``window`` least recently used pages); if that region holds no clean page, the LRU page
(then dirty) is evicted. Evicting clean pages first trades hit ratio for fewer flash writes.

Finding "the least recent clean page, if it is within the window" without scanning the window: clean
pages are also kept on a second LRU list, and a Fenwick tree over reference times counts how many
resident pages are older than a given page, so the check is O(log N) per miss.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from .. import jitkit as jk
from . import _state as st
from .registry import register


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


@njit(cache=True)
def _cflru_kernel(pages, is_write, n_unique, capacity, flush_at_end, counters, log, hit_out, do_log, window):
    S = n_unique
    link = jk.list_new(n_unique)  # all resident pages (see jitkit)
    clean = jk.list_new(n_unique)  # the clean resident pages
    dirty = np.zeros(n_unique, np.uint8)
    t_last = np.zeros(n_unique, np.int64)
    n = pages.shape[0]
    tree = jk.fenwick_new(n)  # a mark at the last reference time of every resident page
    size = 0
    nlog = 0
    hits = write_hits = write_refs = dev_write_evict = dirtyings = evictions = 0
    for i in range(n):
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
            jk.fenwick_add(tree, t_last[p], -1)
            if dirty[p] == 0:
                jk.list_unlink(clean, p)
        else:
            if do_log and not w:
                nlog = st.log_io(log, nlog, do_log, i, st.IO_READ, st.CAUSE_DEMAND, p, 1)
            if size == capacity:
                c = jk.list_back(clean, S)  # the least recently used clean page
                if c != S and jk.fenwick_before(tree, t_last[c]) < window:
                    v = c
                else:
                    v = jk.list_back(link, S)
                jk.list_unlink(link, v)
                jk.fenwick_add(tree, t_last[v], -1)
                evictions += 1
                if dirty[v]:
                    dirty[v] = 0
                    dev_write_evict += 1
                    nlog = st.log_io(log, nlog, do_log, i, st.IO_WRITE, st.CAUSE_EVICT, v, 1)
                else:
                    jk.list_unlink(clean, v)
            else:
                size += 1
        jk.list_push_front(link, S, p)
        t_last[p] = i
        jk.fenwick_add(tree, i, 1)
        if w and dirty[p] == 0:
            dirty[p] = 1
            dirtyings += 1
        elif dirty[p] == 0:
            jk.list_push_front(clean, S, p)
    order = jk.list_back_to_front(link, S, size)
    return st.finish(order, dirty[order], flush_at_end, counters, log, nlog, do_log, n, hits, write_hits, write_refs,
                     dev_write_evict, dev_write_evict, dirtyings, evictions)

@register("cflru", CFLRUParams)
def run_cflru(pages, is_write, unique_pages, capacity, flush_at_end, counters, log, hit_out, do_log,
              params: CFLRUParams):
    """CFLRU: LRU that evicts clean pages from its clean-first region before any dirty page."""
    window = max(1, int(round(params.window_fraction * capacity))) if params.window_fraction > 0 else 0
    return _cflru_kernel(pages, is_write, len(unique_pages), capacity, flush_at_end, counters, log, hit_out, do_log,
                         window)
