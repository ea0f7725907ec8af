"""Spatial Clock and BS-CLOCK: CLOCK over the resident pages kept in logical-sector order.

Spatial Clock [Kim, Ryu, Ramachandran, SIGMETRICS 2012] keeps the resident pages sorted by LSN on a
circular list, sweeps the hand in that order, and inserts a new page at its sorted position, so its
evictions (and so its flash writes) come out in ascending LSN order. BS-CLOCK [Lee, Lee, Park 2016,
Fig. 3] adds bulk writes: when the victim under the hand is unreferenced and dirty, the pages that follow
it in LSN order are written with it in one request while each is unreferenced, dirty and exactly one page
after the previous one, up to ``max_bulk_pages``; only the victim is evicted, the others become clean.

Both are one kernel (Spatial Clock is BS-CLOCK with ``max_bulk_pages=1``). The sorted circular list is an
ordered bitmap over the dense page ranks (``jitkit.bits_*``): "next resident page in LSN order" is a
find-next-set-bit, and the hand is a rank position, so a page inserted ahead of it is met in order.
Because ranks are dense, "the next resident page, exactly one page after" is rank + 1 if resident.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from .. import jitkit as jk
from . import _state as st
from .registry import register


@dataclasses.dataclass(frozen=True)
class SpatialClockParams:
    """Parameters of Spatial Clock.

    Attributes
    ----------
    insert_referenced : bool
        True (default): a new page enters with its reference bit set. The BS-CLOCK paper (Sec. II) says a
        page's bit is set when it is referenced, and insertion follows a reference. False: bit clear, as
        in our plain ``clock`` default; notebook 01 shows how much the choice matters.
    """

    insert_referenced: bool = True


@dataclasses.dataclass(frozen=True)
class BSClockParams:
    """Parameters of BS-CLOCK.

    Attributes
    ----------
    max_bulk_pages : int
        The most pages one bulk write may hold (the paper's SEQ_DIRTIED_PAGES; 16 = 64 KiB in Sec. 4.2).
    max_counts_victim : bool
        True (default): the maximum includes the victim, so a write is at most ``max_bulk_pages`` pages,
        which matches the paper's Table 3 (amount = pages x 4 KiB). False: up to ``max_bulk_pages``
        pages follow the victim (Fig. 3's loop bound ``i < SEQ_DIRTIED_PAGES`` counts only followers).
    insert_referenced : bool
        As for Spatial Clock.
    """

    max_bulk_pages: int = 16
    max_counts_victim: bool = True
    insert_referenced: bool = True

    def __post_init__(self):
        if self.max_bulk_pages < 1:
            raise ValueError(f"max_bulk_pages must be at least 1, got {self.max_bulk_pages}")

    @property
    def limit(self) -> int:
        """Pages per write request, victim included."""
        return self.max_bulk_pages if self.max_counts_victim else self.max_bulk_pages + 1


@njit(cache=True)
def _bs_clock_kernel(pages, is_write, unique_pages, capacity, flush_at_end, counters, log, hit_out, do_log,
                     insert_referenced, limit):
    n_unique = unique_pages.shape[0]
    words, n0, n1, n2 = jk.bits_new(n_unique)  # resident pages, in rank (= LSN) order
    ref = np.zeros(n_unique, np.uint8)
    dirty = np.zeros(n_unique, np.uint8)
    init_ref = np.uint8(1 if insert_referenced else 0)
    hand = 0  # a rank position: the sweep resumes at the first resident page at or after it
    size = 0
    nlog = 0
    hits = write_hits = write_refs = dev_write_pages = dev_write_reqs = dirtyings = evictions = cleaned = 0
    n = pages.shape[0]
    for i in range(n):
        if i + jk.PREFETCH_DISTANCE < n:
            q = pages[i + jk.PREFETCH_DISTANCE]
            jk.prefetch(words, q >> 6)
            jk.prefetch(dirty, q)
            jk.prefetch(ref, q)
        p = pages[i]
        w = np.uint8(is_write[i])
        hit = jk.bits_contains(words, p)
        if do_log:
            hit_out[i] = hit
        write_refs += w
        if hit:
            hits += 1
            write_hits += w
            ref[p] = 1
        else:
            if do_log and not w:
                nlog = st.log_io(log, nlog, do_log, i, st.IO_READ, st.CAUSE_DEMAND, p, 1)
            if size == capacity:
                v = jk.bits_next_cyclic(words, n0, n1, n2, hand)
                while ref[v]:
                    ref[v] = 0
                    v = jk.bits_next_cyclic(words, n0, n1, n2, v + 1)
                evictions += 1
                if dirty[v]:
                    # Ranks are dense and keep LSN order, so the page exactly one after rank q's page, if
                    # it exists at all, has rank q + 1: a bulk step is an O(1) check, not a search.
                    npg = 1
                    q = v + 1
                    # (cheapest test first: the bitmap is small and cached, unique_pages is not)
                    while (npg < limit and q < n_unique and jk.bits_contains(words, q) and ref[q] == 0
                           and dirty[q] != 0 and unique_pages[q] == unique_pages[q - 1] + 1):
                        dirty[q] = 0
                        npg += 1
                        q += 1
                    dirty[v] = 0
                    cleaned += npg - 1
                    dev_write_pages += npg
                    dev_write_reqs += 1
                    nlog = st.log_io(log, nlog, do_log, i, st.IO_WRITE, st.CAUSE_EVICT, v, npg)
                jk.bits_remove(words, n0, n1, v)
                size -= 1
                hand = v + 1
            jk.bits_add(words, n0, n1, p)
            ref[p] = init_ref
            size += 1
        d = dirty[p]
        dirty[p] = d | w
        dirtyings += (d | w) - d
    order = np.empty(size, np.int64)  # hand order
    p = jk.bits_next_cyclic(words, n0, n1, n2, hand)
    for k in range(size):
        order[k] = p
        p = jk.bits_next_cyclic(words, n0, n1, n2, p + 1)
    nlog = st.finish(order, dirty[order], flush_at_end, counters, log, nlog, do_log, n, hits, write_hits, write_refs,
                     dev_write_pages, dev_write_reqs, dirtyings, evictions)
    counters[st.BULK_CLEANED] = cleaned
    return nlog

@register("spatial_clock", SpatialClockParams)
def run_spatial_clock(pages, is_write, unique_pages, capacity, flush_at_end, counters, log, hit_out, do_log,
                      params: SpatialClockParams):
    """Spatial Clock: CLOCK with the resident pages in LSN order; evictions come out sorted."""
    return _bs_clock_kernel(pages, is_write, unique_pages, capacity, flush_at_end, counters, log, hit_out, do_log,
                            params.insert_referenced, 1)


@register("bs_clock", BSClockParams)
def run_bs_clock(pages, is_write, unique_pages, capacity, flush_at_end, counters, log, hit_out, do_log,
                 params: BSClockParams):
    """BS-CLOCK: Spatial Clock that writes a dirty victim's sequential dirty successors with it, in one request."""
    return _bs_clock_kernel(pages, is_write, unique_pages, capacity, flush_at_end, counters, log, hit_out, do_log,
                            params.insert_referenced, params.limit)
