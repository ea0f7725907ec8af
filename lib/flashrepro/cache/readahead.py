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
    link: np.ndarray  # resident units, MRU first
    dirty: np.ndarray  # uint8 per unit
    pf: np.ndarray  # uint8 per unit: prefetched, not yet requested
    sc: np.ndarray  # USED, CAP, LAST_END (unit after the previous read, -1), WINDOW (pages), MIN, MAX


USED, CAP, LAST_END, WINDOW, MINW, MAXW = range(6)
PF_HITS, PREFETCHED, PF_EVICTED = range(C.N_BASE, C.N_BASE + 3)


@njit(cache=True, inline="always")  # a call passing the state costs a refcount update per array
def _evict_one(st, counters, log, nlog, do_log, ref):
    S = st.dirty.shape[0]
    v = jk.list_back(st.link, S)
    jk.list_unlink(st.link, v)
    st.sc[USED] -= 1
    counters[C.EVICTIONS] += 1
    counters[PF_EVICTED] += st.pf[v]
    st.pf[v] = 0
    if st.dirty[v]:
        st.dirty[v] = 0
        counters[C.DEV_WRITES_EVICT] += 1
        counters[C.DEV_WRITE_REQS] += 1
        if do_log:
            nlog = C.row(log, nlog, ref, C.IO_WRITE, C.EVICTION, v, 1, 0)
    return nlog


@njit(cache=True, inline="always")  # a call passing the state costs a refcount update per array
def _insert(st, p, counters, log, nlog, do_log, ref):
    """Make p resident at the MRU end, evicting the LRU page when full."""
    if st.sc[USED] == st.sc[CAP]:
        nlog = _evict_one(st, counters, log, nlog, do_log, ref)
    jk.list_push_front(st.link, st.dirty.shape[0], p)
    st.sc[USED] += 1
    return nlog


@njit(cache=True)
def _ra_step(refs, start, state, counters, log, nlog, outcome, base, do_log):
    st = state
    sc = st.sc
    S = st.dirty.shape[0]
    unit, event, count = refs.unit, refs.event, refs.count
    n = unit.shape[0]
    i = start
    while i < n:
        u0 = unit[i]
        r = count[i]
        if do_log and nlog + 2 * (r + sc[MAXW]) + 2 > log.shape[0]:
            return i, nlog
        w = event[i] == 1
        ref = base + i
        counters[C.REFS] += r
        if w:
            counters[C.WRITE_REFS] += r
        run_start = -1  # the current run of missing demanded pages, read as one request
        for j in range(r):
            p = u0 + j
            hit = jk.list_contains(st.link, p)
            pfh = hit and st.pf[p] == 1
            if do_log:
                outcome[i + j] = 2 if pfh else (1 if hit else 0)
            if hit:
                counters[C.HITS] += 1
                counters[PF_HITS] += pfh
                if w:
                    counters[C.WRITE_HITS] += 1
                st.pf[p] = 0
                jk.list_unlink(st.link, p)
                jk.list_push_front(st.link, S, p)
            else:
                nlog = _insert(st, p, counters, log, nlog, do_log, ref)
            if not w and not hit:
                if run_start < 0:
                    run_start = p
            elif run_start >= 0:
                counters[C.DEV_READS] += p - run_start
                counters[C.DEV_READ_REQS] += 1
                if do_log:
                    nlog = C.row(log, nlog, ref, C.IO_READ, C.DEMAND, run_start, p - run_start, 0)
                run_start = -1
            if w and st.dirty[p] == 0:
                st.dirty[p] = 1
                counters[C.DIRTYINGS] += 1
        end = u0 + r
        if w:
            i += r
            continue
        # read-ahead: only when this read continues the previous one
        if u0 == sc[LAST_END]:
            sc[WINDOW] = sc[MINW] if sc[WINDOW] == 0 else min(2 * sc[WINDOW], sc[MAXW])
        else:
            sc[WINDOW] = 0
        ra_first = -1
        ra_n = 0
        for j in range(sc[WINDOW]):
            p = end + j
            if p >= S or jk.list_contains(st.link, p):
                break  # read ahead up to the first page already in memory (or the end of the unit space)
            nlog = _insert(st, p, counters, log, nlog, do_log, ref)
            st.pf[p] = 1
            if ra_first < 0:
                ra_first = p
            ra_n += 1
        counters[PREFETCHED] += ra_n
        if run_start >= 0 and ra_n > 0:  # the demand's last run touches the window: one request
            counters[C.DEV_READS] += end - run_start + ra_n
            counters[C.DEV_READ_REQS] += 1
            if do_log:
                nlog = C.row(log, nlog, ref, C.IO_READ, C.PREFETCH, run_start, end - run_start + ra_n, 0)
        else:
            if run_start >= 0:
                counters[C.DEV_READS] += end - run_start
                counters[C.DEV_READ_REQS] += 1
                if do_log:
                    nlog = C.row(log, nlog, ref, C.IO_READ, C.DEMAND, run_start, end - run_start, 0)
            if ra_n > 0:
                counters[C.DEV_READS] += ra_n
                counters[C.DEV_READ_REQS] += 1
                if do_log:
                    nlog = C.row(log, nlog, ref, C.IO_READ, C.PREFETCH, ra_first, ra_n, 0)
        sc[LAST_END] = end
        i += r
    return n, nlog


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
        sc = np.zeros(6, np.int64)
        sc[CAP] = tiers["capacity_pages"]
        sc[LAST_END] = -1
        k = units.unit_pages
        sc[MAXW] = k
        sc[MINW] = max(1, min(k, k * params.min_kib // params.max_kib))
        return RAState(jk.list_new(n), np.zeros(n, np.uint8), np.zeros(n, np.uint8), sc)

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        return _ra_step(refs, start, state, counters, log, nlog, outcome, base, do_log)

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        order = jk.list_back_to_front(state.link, state.dirty.shape[0], state.sc[USED])
        return C.end_of_trace(order, state.dirty[order], flush_at_end, counters, log, nlog, do_log, last_ref, 0)
