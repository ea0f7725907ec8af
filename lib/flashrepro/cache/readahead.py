"""``linux_readahead``: an LRU page cache with Linux-style sequential read-ahead (paper 2's background
section, after SARC [Gill and Modha 2005]): no read-ahead on a read that does not continue the previous one;
on one that does, the window doubles, from ``min_kib`` up to ``max_kib`` (Linux's 16-128 KiB defaults).

A labelled extra baseline, not in paper 2's evaluation. Simplified from Linux's ``ondemand_readahead``: one
stream (no per-file state), a read is sequential when it starts where the previous read ended, and the
window is read right after the request (merged into one device read with the request's last missing run
when they touch). Prefetched pages enter at the MRU end after the demanded ones; a request to one is a
prefetch hit. Writes allocate without a read and do not change the read-ahead state.
"""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
from numba import njit

from .. import jitkit as jk
from ..traces.trace import Event
from . import contract as C
from .registry import Kernel, register

MAX_KIB = 1 << 16  # 64 MiB: every touched window-sized segment gets units for each of its pages


@dataclasses.dataclass(frozen=True)
class ReadaheadParams:
    """Attributes
    ----------
    min_kib, max_kib : int
        The first window after a sequential read and the largest one (Linux: 16 and 128 KiB).
    """

    min_kib: int = 16
    max_kib: int = 128

    def __post_init__(self):
        if not 0 < self.min_kib <= self.max_kib <= MAX_KIB:
            raise ValueError(f"need 0 < min_kib <= max_kib <= {MAX_KIB}, got {self.min_kib}, {self.max_kib}")


class RAState(typing.NamedTuple):
    page_frame: np.ndarray  # int32 per unit: the frame holding it, -1 if not resident
    frame_page: np.ndarray  # int32 per frame: its unit
    link: np.ndarray  # the frames in use on a list (jitkit), most recently used first; sentinel = frames
    dirty: np.ndarray  # uint8 per frame
    pf: np.ndarray  # uint8 per frame: prefetched, not yet requested
    sc: np.recarray  # the scalars, one record of SCALARS (jitkit.scalars); the step reads ``sc = state.sc[0]``


SCALARS = [
    ("used", np.int64),  # frames in use (filled in order 0, 1, ...)
    ("frames", np.int64),  # frames of the cache
    ("last_end", np.int64),  # the unit after the previous read's last page (-1 before the first read)
    ("window", np.int64),  # the read-ahead window, in pages (0: closed)
    ("minw", np.int64),  # the window a sequential read opens, in pages (min_kib)
    ("maxw", np.int64),  # the largest window, in pages (max_kib)
]
PF_HITS, PREFETCHED, PF_EVICTED = range(C.N_BASE, C.N_BASE + 3)


@njit(cache=True, inline="always")
def _ra_window(u0, last_end, window, minw, maxw):
    """The read-ahead window, in pages, after a read that starts at unit ``u0``: opened at ``minw`` or doubled up
    to ``maxw`` when the read continues the previous one (it starts at ``last_end``), else closed (0)."""
    if u0 == last_end:
        return minw if window == 0 else min(2 * window, maxw)
    return 0


@njit(cache=True, inline="always")
def _ra_take(page_frame, frame_page, link, dirty, pf, used, frames, p, demand):
    """Page ``p``, not resident, takes a free frame or the least recently used one (its page unmapped) and enters
    at the front of the list, clean, flagged prefetched unless ``demand``. Returns ``(frame, used, the victim's
    page or -1, its dirty bit, its prefetch flag)``.

    It takes the state's arrays, not the state: the same helper taking the state tuple, inlined here, indexed
    out of bounds (``NUMBA_BOUNDSCHECK=1``; a segmentation fault without it), with or without reference
    counting. Not understood; the driver's hooks and the FTL's steps take the state and are exact against
    their references."""
    S = frame_page.shape[0]  # the list's sentinel
    victim = -1
    victim_dirty = victim_pf = np.uint8(0)
    if used < frames:
        g = used
        n_used = used + 1
    else:  # evict the least recently used page
        n_used = used
        g = jk.list_back(link, S)
        jk.list_unlink(link, g)
        victim = frame_page[g]
        page_frame[victim] = -1
        victim_dirty, victim_pf = dirty[g], pf[g]
    frame_page[g] = p
    page_frame[p] = g
    dirty[g] = 0
    pf[g] = 0 if demand else 1
    jk.list_push_front(link, S, g)
    return g, n_used, victim, victim_dirty, victim_pf


@njit(cache=True, inline="always")
def _ra_reads(log, nlog, ref, run_start, end, ra_first, ra_n, do_log):
    """The device reads a request ending at ``end`` leaves after its pages: its last run of missing demanded
    pages (from ``run_start``, -1: none) and the window's ``ra_n`` pages from ``ra_first``, in one request when
    they touch. Writes their log rows from ``nlog`` (``do_log``). Returns ``(pages read, requests, nlog)``."""
    if run_start >= 0 and ra_n > 0:  # the demand's last run touches the window: one request
        if do_log:
            nlog = C.row(log, nlog, ref, C.IO_READ, C.PREFETCH, run_start, end - run_start + ra_n, 0)
        return end - run_start + ra_n, 1, nlog
    pages = reqs = 0
    if run_start >= 0:
        pages, reqs = end - run_start, 1
        if do_log:
            nlog = C.row(log, nlog, ref, C.IO_READ, C.DEMAND, run_start, end - run_start, 0)
    if ra_n > 0:
        pages, reqs = pages + ra_n, reqs + 1
        if do_log:
            nlog = C.row(log, nlog, ref, C.IO_READ, C.PREFETCH, ra_first, ra_n, 0)
    return pages, reqs, nlog


@njit(cache=True, inline="always")
def _ra_page(page_frame, frame_page, link, dirty, pf, counters, log, nlog, outcome, used, frames, f, p, demand, w,
             o, ref, do_log):
    """Page ``p`` (frame ``f``, -1 if not resident) of a request (``demand``) or of its read-ahead window, made
    most recently used: a demanded hit clears the page's prefetch flag and moves its frame to the front; any
    other page takes a frame (:func:`_ra_take`, the victim's write-back logged); a demanded write dirties it.
    With ``do_log`` a demanded page's outcome goes to ``outcome[o]``. Adds the hits, prefetch hits, write hits,
    evictions, write-backs and dirtyings to ``counters``. Returns ``(hit, used, nlog)``."""
    hit = demand and f >= 0
    if hit:
        pfh = pf[f]
        if do_log:
            outcome[o] = C.PREFETCH_HIT if pfh else C.HIT
        counters[C.HITS] += 1
        counters[PF_HITS] += pfh
        counters[C.WRITE_HITS] += w  # (no branch on a write: reads and writes mix at random)
        pf[f] = 0
        jk.list_unlink(link, f)
        jk.list_push_front(link, frame_page.shape[0], f)
    else:
        if do_log and demand:
            outcome[o] = C.MISS
        f, used, v, vd, vpf = _ra_take(page_frame, frame_page, link, dirty, pf, used, frames, p, demand)
        if v >= 0:
            counters[C.EVICTIONS] += 1
            counters[PF_EVICTED] += vpf
            counters[C.DEV_WRITES_EVICT] += vd
            counters[C.DEV_WRITE_REQS] += vd
            if do_log and vd:
                nlog = C.row(log, nlog, ref, C.IO_WRITE, C.EVICTION, v, 1, 0)
    if demand and w and dirty[f] == 0:
        dirty[f] = 1
        counters[C.DIRTYINGS] += 1
    return hit, used, nlog


@jk.njit_no_refcount
def _ra_step(refs, start, state, counters, log, nlog, outcome, base, do_log):
    """LRU with Linux-style sequential read-ahead over one chunk of requests (``count`` pages each). A read that
    continues the previous one opens or doubles the read-ahead window (:func:`_ra_window`), any other read closes
    it; the request's pages, then the window's pages up to the first one already resident, are each made most
    recently used in turn (:func:`_ra_page`). The missing demanded pages are read in runs, the last run joined
    with the window's pages when they touch (:func:`_ra_reads`); prefetched pages are flagged until referenced.

    It changes ``page_frame``, ``frame_page``, the list ``link``, ``dirty``, the prefetch flags ``pf`` and
    ``sc``'s used count, last read end and window; adds the base counters and the prefetch ones to
    ``counters``; with ``do_log``, writes each demanded page's outcome (``C.MISS``, ``C.HIT``,
    ``C.PREFETCH_HIT``) and the device I/O rows from ``nlog``. Returns ``(stop, nlog)`` as every step does
    (:mod:`flashrepro.cache.contract`)."""
    unit, event, count = refs.unit, refs.event, refs.count
    page_frame, frame_page, link, dirty, pf, sc = state.page_frame, state.frame_page, state.link, state.dirty, \
        state.pf, state.sc[0]
    n_units = page_frame.shape[0]
    used, frames, last_end, window, minw, maxw = sc.used, sc.frames, sc.last_end, sc.window, sc.minw, sc.maxw
    dev_reads = dev_read_reqs = prefetched = 0
    n = unit.shape[0]
    i = start
    while i < n:
        r = count[i]
        if do_log and nlog + 2 * (r + maxw) + 2 > log.shape[0]:
            break
        if i + jk.PREFETCH_DISTANCE < n:
            jk.prefetch(page_frame, unit[i + jk.PREFETCH_DISTANCE])
        u0, w, ref = unit[i], event[i] == Event.WRITE, base + i
        end = u0 + r
        if not w:  # read-ahead only when this read continues the previous one; the window is read after it
            window = _ra_window(u0, last_end, window, minw, maxw)
            last_end = end
        run_start = ra_first = -1  # the current run of missing demanded pages, read as one request
        ra_n = 0
        for p in range(u0, end if w else end + window):
            demand = p < end
            f = page_frame[p] if p < n_units else -2
            if not demand and f != -1:
                break  # read ahead up to the first page already in memory (or the end of the unit space)
            hit, used, nlog = _ra_page(page_frame, frame_page, link, dirty, pf, counters, log, nlog, outcome, used,
                                       frames, f, p, demand, w, i + p - u0, ref, do_log)
            if not demand:
                ra_first, ra_n = p if ra_first < 0 else ra_first, ra_n + 1
            elif not w and not hit:
                run_start = p if run_start < 0 else run_start
            elif run_start >= 0:
                dev_reads, dev_read_reqs = dev_reads + p - run_start, dev_read_reqs + 1
                if do_log:
                    nlog = C.row(log, nlog, ref, C.IO_READ, C.DEMAND, run_start, p - run_start, 0)
                run_start = -1
        prefetched += ra_n
        pages, reqs, nlog = _ra_reads(log, nlog, ref, run_start, end, ra_first, ra_n, do_log)
        dev_reads, dev_read_reqs = dev_reads + pages, dev_read_reqs + reqs
        i += r
    sc.used, sc.last_end, sc.window = used, last_end, window
    C.add_refs(counters, event, start, i)
    counters[C.DEV_READS] += dev_reads
    counters[C.DEV_READ_REQS] += dev_read_reqs
    counters[PREFETCHED] += prefetched
    return i, nlog


@register("linux_readahead", ReadaheadParams)
class LinuxReadahead(Kernel):
    """LRU page cache with Linux-style sequential read-ahead, doubling 16 -> 128 KiB (paper 2's background)."""

    caps = C.Caps(prefetches=True)
    counters = C.BASE + (
        C.Counter("prefetch_hits", None, "requested pages that a read-ahead had read"),
        C.Counter("prefetched_pages", "prefetch", "pages read ahead"),
        C.Counter("prefetch_evicted", None, "read-ahead pages evicted before any request"),
    )

    def _pages(self, kib, page_bytes):
        return max(1, kib * 1024 // page_bytes)

    def unit_pages(self, params, page_bytes):
        return self._pages(params.max_kib, page_bytes)  # a window never reaches past the next segment

    def unit_halo(self, params, page_bytes):
        return 1

    def new_state(self, units, tiers, params):
        n = units.n
        frames = min(tiers["capacity_pages"], n)  # a cache larger than the unit space never fills
        scs = jk.scalars(SCALARS)
        sc = scs[0]
        sc.frames, sc.last_end = frames, -1
        k = units.unit_pages
        sc.maxw, sc.minw = k, max(1, min(k, k * params.min_kib // params.max_kib))
        return RAState(np.full(n, -1, np.int32), np.full(frames, -1, np.int32), jk.list_new(frames),
                       np.zeros(frames, np.uint8), np.zeros(frames, np.uint8), scs)

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        # do_log or None: a run without the log gets a specialisation compiled without its branches
        return _ra_step(refs, start, state, counters, log, nlog, outcome, base, do_log or None)

    def resident(self, state):
        frames = jk.list_back_to_front(state.link, state.frame_page.shape[0], state.sc[0].used)
        return state.frame_page[frames].astype(np.int64), state.dirty[frames]
