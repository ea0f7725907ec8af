"""What the two hybrid DRAM + NVM buffer kernels share (paper 3: CLOCK-DNV and CLOCK-HBM).

Both keep their pages in one array of frames: frames ``0 .. D-1`` are DRAM and ``D .. D+N-1`` NVM, so every
per-page bit (dirty, reference, counts) is one random access per reference whichever tier holds the page.
Each tier has its own clock hand. DRAM frames are filled in order and never freed (a page leaves DRAM only
to make room for another, except under CLOCK-DNV's ``padding="buffer_evict"``); NVM frames are filled in order,
and a frame freed by a move to DRAM or by a block eviction goes on a stack that the next page takes before the
NVM hand runs (the frame freed last, or with CLOCK-DNV's ``nvm_free="lowest"`` the lowest numbered).

Counters, after :data:`~flashrepro.cache.contract.BASE` and the contract's per-tier set
(:func:`~flashrepro.cache.contract.tier_counters`), are the ones paper 3's figures need to count buffer
operations either way (host hits only, or every DRAM / NVM access with migration copies):
``write_hits_nvm``, ``fills_dram`` / ``fills_nvm`` (pages read from flash into a tier) and
``writebacks_dram`` / ``writebacks_nvm`` (dirty pages written to flash out of a tier).

Each kernel is the driver's per-reference loop (:mod:`flashrepro.cache.driver`) composed with hooks that call named
steps (choose a victim, evict, migrate, place), each a function that takes the arrays it changes. The loops and their
steps are compiled without Numba's reference counting: with it, every call increfs and decrefs each array passed,
atomically, which cost CLOCK-HBM's loop two thirds of its speed (measured: 10 against 32 M references/s with a
10k-page buffer). The helpers and hooks below are shared by both kernels.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import jitkit as jk
from . import contract as C

DRAM, NVM = 0, 1  # tier ids in the I/O log
TIER_COUNTERS = C.tier_counters(("dram", "nvm")) + (
    C.Counter("write_hits_nvm", None, "page writes found in NVM"),
    C.Counter("fills_dram", None, "pages read from flash into DRAM (read misses kept there)"),
    C.Counter("fills_nvm", None, "pages read from flash into NVM (read misses kept there)"),
    C.Counter("writebacks_dram", None, "dirty pages written to flash out of DRAM (evictions, padding, end flush)"),
    C.Counter("writebacks_nvm", None, "dirty pages written to flash out of NVM (evictions, padding, end flush)"),
)
(HITS_D, WRITES_D, RES_D, HITS_N, WRITES_N, RES_N, MIG_DN, MIG_ND, WRITE_HITS_N, FILLS_D, FILLS_N, WB_D,
 WB_N) = range(C.N_BASE, C.N_BASE + len(TIER_COUNTERS))
N_HYBRID = C.N_BASE + len(TIER_COUNTERS)  # a policy's own counters start here

# The scalars both kernels keep in their state's ``sc``: a one-element record array whose dtype starts with
# these fields (a kernel may add its own, new_scalars' ``extra``); a kernel reads them by name from its record
# ``sc[0]``, a reference into the array. Steps take the array (``scs``) and take the record themselves: a record
# passed as an argument cost CLOCK-HBM's loop about 30% more instructions a reference (perf stat, measured).
SCALARS = [
    ("dhand", np.int64), ("nhand", np.int64),  # the DRAM and the NVM clock hand (a frame of its tier)
    ("dused", np.int64),  # DRAM frames ever used (filled in order)
    ("nfill", np.int64),  # NVM frames ever used (filled in order, after the free stack)
    ("nfree", np.int64),  # freed NVM frames on the free stack
    ("dcap", np.int64), ("ncap", np.int64),  # DRAM and NVM frames
]


@njit(cache=True)
def add_tiers(counters, hits_d, hits_n, writes_d, writes_n, write_hits_n, fills, into_dram):
    """Add one step's per-tier tallies (after :func:`~flashrepro.cache.contract.add_base`): hits and page
    writes in DRAM and NVM, write hits in NVM, and ``fills``, to DRAM's count when ``into_dram`` (misses enter
    DRAM when there is one), else NVM's. (Migrations and write-backs are counted where they happen.)"""
    counters[HITS_D] += hits_d
    counters[HITS_N] += hits_n
    counters[WRITES_D] += writes_d
    counters[WRITES_N] += writes_n
    counters[WRITE_HITS_N] += write_hits_n
    counters[FILLS_D if into_dram else FILLS_N] += fills


def new_scalars(dram: int, nvm: int, extra=()) -> np.recarray:
    """The state's scalars for ``dram`` + ``nvm`` frames: a one-element record array of :data:`SCALARS` and the
    kernel's ``extra`` fields."""
    sc = jk.scalars(SCALARS + list(extra))
    sc[0].dcap, sc[0].ncap = dram, nvm
    return sc


@njit(cache=True, inline="always")
def nvm_room(scs):
    """Whether NVM has a frame free without evicting anything."""
    sc = scs[0]
    return sc.nfree > 0 or sc.nfill < sc.ncap


@njit(cache=True, inline="always")
def nvm_free_frame(free, scs):
    """Take a free NVM frame (the stack first: the one freed last; then the next never-used one); -1 if there is
    none."""
    sc = scs[0]
    if sc.nfree > 0:
        sc.nfree -= 1
        return free[sc.nfree]
    if sc.nfill < sc.ncap:
        sc.nfill += 1
        return sc.dcap + sc.nfill - 1
    return -1


@njit(cache=True)
def nvm_free_frame_lowest(free, scs):
    """:func:`nvm_free_frame`, but of the freed frames the lowest numbered (CLOCK-DNV's ``nvm_free="lowest"``; not
    inlined, so the default path's loop stays as it was)."""
    sc = scs[0]
    n = sc.nfree
    if n > 0:
        k = 0
        for j in range(1, n):
            if free[j] < free[k]:
                k = j
        f = free[k]
        free[k] = free[n - 1]
        sc.nfree = n - 1
        return f
    return nvm_free_frame(free, scs)


# Hooks of the driver's loop (driver.page_loop) that both kernels compose: the page table ``st.where`` and the rule
# ``write_miss_read`` of their rules (the registers ``r``).
@njit(cache=True, inline="always")
def lookup(st, p):
    """The frame holding page ``p``, or -1."""
    return np.int64(st.where[p])


@njit(cache=True, inline="always")
def ahead(st, p):
    """A CPU prefetch hint for page ``p``'s entry in ``st.where``."""
    jk.prefetch(st.where, p)


@njit(cache=True, inline="always")
def miss_reads(st, r, w, counters):
    """A read miss reads the page from flash, and with ``write_miss_read`` a write miss too (read-modify-write)."""
    return 1 if not w or r.write_miss_read else 0


def hand_order(funit: np.ndarray, first: int, size: int, hand: int) -> np.ndarray:
    """Frames ``first .. first+size-1`` that hold a page, from the hand on (the order a flush writes them)."""
    if size == 0:
        return np.zeros(0, np.int64)
    frames = first + (hand + np.arange(size)) % size
    return frames[funit[frames] >= 0]


def finish_tiers(state, counters, log, nlog, do_log, flush_at_end, last_ref):
    """End of trace for a hybrid kernel: NVM's pages then DRAM's, each from its hand on, written back or counted
    as dirty; ``resident_*`` and ``writebacks_*`` filled in."""
    funit, dirty, sc = state.funit, state.dirty, state.sc[0]
    D, N = int(sc.dcap), int(sc.ncap)
    nvm = hand_order(funit, D, N, int(sc.nhand))
    dram = hand_order(funit, 0, D, int(sc.dhand))
    counters[RES_D] = len(dram)
    counters[RES_N] = len(nvm)
    for tier, frames, wb in ((NVM, nvm, WB_N), (DRAM, dram, WB_D)):
        d = dirty[frames].astype(bool)
        if flush_at_end:
            counters[wb] += int(d.sum())
        log, nlog = C.end_of_trace(funit[frames].astype(np.int64), d, flush_at_end, counters, log, nlog, do_log,
                                   last_ref, tier)
    return log, nlog


def tier_sizes(tiers: dict, n_units: int) -> tuple[int, int]:
    """Frames per tier: a tier larger than the footprint (``n_units`` pages) never fills, so frames past it
    would never be used (``--capacity-pages 3000000000`` on a small trace must not allocate them). The results
    do not change: a tier holding every page of the trace meets no miss that needs its room."""
    return min(int(tiers["dram_pages"]), n_units), min(int(tiers["nvm_pages"]), n_units)
