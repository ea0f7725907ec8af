"""Spatial Clock and BS-CLOCK: CLOCK over the resident pages kept in logical-sector order.

Spatial Clock [Kim, Ryu, Ramachandran, SIGMETRICS 2012] keeps the resident pages sorted by LSN on a
circular list, sweeps the hand in that order, and inserts a new page at its sorted position, so its
evictions (and so its flash writes) come out in ascending LSN order. BS-CLOCK [Lee, Lee, Park 2016,
Fig. 3] adds bulk writes: when the victim under the hand is unreferenced and dirty, the pages that follow
it in LSN order are written with it in one request while each is unreferenced, dirty and exactly one page
after the previous one, up to ``max_bulk_pages``; only the victim is evicted, the others become clean.

Both are one kernel (Spatial Clock is BS-CLOCK with ``max_bulk_pages=1``). The sorted circular list is an
ordered bitmap over the dense page ranks (``jitkit.bits_*``): "next resident page in LSN order" is a
find-next-set-bit. The hand is a rank: the next page examined is the first resident page at or after it,
wrapping round. Where it stands after an eviction is an open reading (``insert_behind_hand``): just past the
victim's rank (a page inserted between the victim and the next resident page is examined next), or on the
next resident page itself (such a page is behind the hand and examined last). Because ranks are dense,
"the next resident page, exactly one page after" is rank + 1 if resident.

A miss evicts first, then loads (the paper's Fig. 1: "희생자 페이지를 선정한 후 버퍼에서 내보내고, 그 자리에
새로운 페이지를 적재"; Fig. 4: the victim is evicted and written to flash): the victim's write-back is logged
before the demand read of the missed page.
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
class SpatialClockParams:
    """Parameters of Spatial Clock.

    Attributes
    ----------
    insert_referenced : bool
        True (default): a new page enters with its reference bit set. The BS-CLOCK paper (Sec. II) says a
        page's bit is set when it is referenced, and insertion follows a reference. False: bit clear, as
        in our plain ``clock`` default; notebook 01 shows how much the choice matters.
    insert_behind_hand : bool
        Where the hand stands after an eviction, seen from a page the miss then inserts between the victim
        and the next resident page (in LSN order). False (default, the "position" reading): the hand is a
        position just past the victim, so that page is examined next. True (the "pointer" reading): the hand
        points at the next resident page, so that page is behind it and examined last. The paper speaks of
        a pointer that points at a page (Sec. II: "CLOCK 포인터가 ... 페이지를 가리킬 때까지"; Sec. III:
        "CLOCK 포인터가 가리키는 페이지") and loads the new page in the victim's place (Fig. 1), which favours
        True, but Fig. 3 finds the next page by key (``choose_next_page(q->lsn)``), which a position allows
        too: not settled, so the default keeps the earlier behaviour. Notebook 01's ambiguity table shows the
        effect.
    """

    insert_referenced: bool = True
    insert_behind_hand: bool = False


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
    hand_past_bulk : bool
        Where the hand goes after a bulk write. False (default): one page past the victim, as after any
        eviction (Fig. 3 evicts only the victim and says nothing about the hand), so the pages just cleaned
        are the next candidates. True: one page past the last page of the bulk write. Notebook 01's
        ambiguity table shows what the choice changes.
    insert_behind_hand : bool
        As for Spatial Clock (with ``hand_past_bulk``, "the victim" is the last page of the bulk write).
    """

    max_bulk_pages: int = 16
    max_counts_victim: bool = True
    insert_referenced: bool = True
    hand_past_bulk: bool = False
    insert_behind_hand: bool = False

    def __post_init__(self):
        if self.max_bulk_pages < 1:
            raise ValueError(f"max_bulk_pages must be at least 1, got {self.max_bulk_pages}")

    @property
    def limit(self) -> int:
        """Pages per write request, victim included."""
        return self.max_bulk_pages if self.max_counts_victim else self.max_bulk_pages + 1


class BSClockState(typing.NamedTuple):
    words: np.ndarray  # the resident units, as an ordered bitset over ranks (= LSN order)
    flags: np.ndarray  # uint8 per unit: REF | DIRTY (both bits in one byte: one access per reference, not two)
    page: np.ndarray  # int64 per unit: its page number (consecutive pages = consecutive ranks with +1 pages)
    sc: np.recarray  # the scalars, one record of SCALARS (jitkit.scalars); the step reads ``sc = state.sc[0]``


SCALARS = [
    ("hand", np.int64),  # the clock hand: a rank position (the next rank it looks at)
    ("size", np.int64),  # resident pages
    ("capacity", np.int64),  # the cache's size in pages
    ("n0", np.int64),  # the bitset's level sizes in words (jitkit.bits_new)
    ("n1", np.int64),
    ("n2", np.int64),
]
REF, DIRTY = np.uint8(1), np.uint8(2)  # a unit's flag bits
BULK_CLEANED = C.N_BASE  # counter slot after the base ones


@njit(cache=True, inline="always")
def _bs_evict(words, flags, page, n0, n1, n2, hand, limit):
    """The cache is full: sweep from ``hand`` over the resident pages in LSN order, clearing reference bits, to the
    first unreferenced page, the victim ``v``, and take it off the bitmap. A dirty victim is written with up to
    ``limit`` - 1 following dirty, unreferenced, consecutive pages in one request; those stay, now clean.
    Returns ``(v, npg, q)``: the pages written (0 for a clean victim) and the rank after the last one (after
    the victim for a clean one)."""
    v = jk.bits_next_cyclic(words, n0, n1, n2, hand)
    while flags[v] & REF:
        flags[v] &= DIRTY
        v = jk.bits_next_cyclic(words, n0, n1, n2, v + 1)
    npg = 0
    q = v + 1
    if flags[v] & DIRTY:
        # Ranks are dense and keep LSN order, so the page exactly one after rank q's page, if it exists at all,
        # has rank q + 1: a bulk step is an O(1) check, not a search.
        npg = 1
        # (cheapest test first: the bitmap is small and cached, page is not)
        while (npg < limit and q < page.shape[0] and jk.bits_contains(words, q) and flags[q] == DIRTY
               and page[q] == page[q - 1] + 1):  # (resident, unreferenced and dirty)
            flags[q] = 0
            npg += 1
            q += 1
        flags[v] = 0
    jk.bits_remove(words, n0, n1, v)
    return v, npg, q


@jk.njit_no_refcount
def _bs_clock_step(refs, start, state, counters, log, nlog, outcome, base, do_log, insert_referenced, limit,
                   hand_past_bulk, behind_hand):
    """Spatial Clock / BS-CLOCK over one chunk, the hand sweeping the resident pages in LSN order: a hit sets the
    page's reference bit; a miss with a full cache evicts (:func:`_bs_evict`: the first unreferenced page from the
    hand, with its bulk if dirty), the hand then standing as ``hand_past_bulk`` and ``behind_hand`` say; the
    missed page is inserted at its rank.

    Advances the cache over ``refs`` (a :class:`~flashrepro.traces.trace.RefStream` chunk) from entry ``start``, as
    :mod:`flashrepro.cache.contract` says of every ``step``: it changes the resident bitmap ``words``, the pages'
    ``flags`` and ``sc``'s hand and size; adds the chunk's tallies to ``counters`` (the base counters and the pages
    cleaned by bulk writes); with ``do_log``, writes each reference's outcome to ``outcome`` (0 miss, 1 hit) and its
    device I/O as rows of ``log`` from row ``nlog`` (``ref`` = ``base`` + entry). Returns ``(stop, nlog)``. Compiled
    without reference counting (it allocates nothing), so the inlined eviction step costs nothing."""
    unit, event = refs.unit, refs.event
    words, flags, page, sc = state.words, state.flags, state.page, state.sc[0]
    hand, size, capacity, n0, n1, n2 = sc.hand, sc.size, sc.capacity, sc.n0, sc.n1, sc.n2
    init_ref = np.uint8(1 if insert_referenced else 0)
    hits = write_hits = write_refs = dev_reads = dev_write_pages = dev_write_reqs = dirtyings = evictions = 0
    cleaned = 0
    n = unit.shape[0]
    stop = n
    for i in range(start, n):
        if do_log and nlog + C.ROWS_PER_REF > log.shape[0]:  # no room for this reference's rows: the log is grown
            stop = i
            break
        if i + jk.PREFETCH_DISTANCE < n:
            q = unit[i + jk.PREFETCH_DISTANCE]
            jk.prefetch(words, q >> 6)
            jk.prefetch(flags, q)
        p = unit[i]
        w = np.uint8(event[i])
        hit = jk.bits_contains(words, p)
        if do_log:
            outcome[i] = hit
        hits += hit
        write_hits += hit & w
        write_refs += w
        if hit:
            flags[p] |= REF
        else:
            dev_reads += 1 - w
            if size == capacity:
                v, npg, q = _bs_evict(words, flags, page, n0, n1, n2, hand, limit)
                evictions += 1
                size -= 1
                if npg > 0:
                    cleaned += npg - 1
                    dev_write_pages += npg
                    dev_write_reqs += 1
                    if do_log:
                        nlog = C.row(log, nlog, base + i, C.IO_WRITE, C.EVICTION, v, npg, 0)
                nxt = q if npg > 0 and hand_past_bulk else v + 1
                # position reading: just past the victim (or the bulk); pointer reading: on the next resident
                # page from there, which the page about to be inserted cannot move
                hand = jk.bits_next_cyclic(words, n0, n1, n2, nxt) if behind_hand and size > 0 else nxt
            if do_log and not w:  # evict first, then load (Fig. 1): the read follows the victim's write-back
                nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, 0)
            jk.bits_add(words, n0, n1, p)
            flags[p] = init_ref  # (clean: the dirty bit is set below)
            size += 1
        d = (flags[p] >> 1) & 1
        flags[p] |= w << 1
        dirtyings += (d | w) - d
    sc.hand, sc.size = hand, size
    C.add_base(counters, refs=stop - start, hits=hits, write_hits=write_hits, write_refs=write_refs,
               dev_reads=dev_reads, dev_read_reqs=dev_reads, dev_write_evict=dev_write_pages,
               dev_write_reqs=dev_write_reqs, dirtyings=dirtyings, evictions=evictions)
    counters[BULK_CLEANED] += cleaned
    return stop, nlog


@njit(cache=True)
def _hand_order(state):
    """Resident units from the hand onwards (the order a flush writes them)."""
    words, sc = state.words, state.sc[0]
    n0, n1, n2 = sc.n0, sc.n1, sc.n2
    order = np.empty(sc.size, np.int64)
    p = jk.bits_next_cyclic(words, n0, n1, n2, sc.hand)
    for k in range(order.shape[0]):
        order[k] = p
        p = jk.bits_next_cyclic(words, n0, n1, n2, p + 1)
    return order


class _BSClockKernel(Kernel):
    counters = C.BASE + (C.Counter("bulk_cleaned", "eviction",
                                   "dirty pages written along with a victim and kept, now clean"),)

    def limit(self, params) -> int:
        raise NotImplementedError

    def hand_past_bulk(self, params) -> bool:
        """Whether the hand stands past a victim's bulk write (Spatial Clock writes no bulk: no)."""
        return False

    def behind_hand(self, params) -> bool:
        return params.insert_behind_hand

    def new_state(self, units, tiers, params):
        words, n0, n1, n2 = jk.bits_new(units.n)
        scs = jk.scalars(SCALARS)
        sc = scs[0]
        sc.capacity, sc.n0, sc.n1, sc.n2 = tiers["capacity_pages"], n0, n1, n2
        return BSClockState(words, np.zeros(units.n, np.uint8), units.pages(np.arange(units.n)), scs)

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        # do_log or None: a run without the log gets a specialisation compiled without its branches
        return _bs_clock_step(refs, start, state, counters, log, nlog, outcome, base, do_log or None,
                              params.insert_referenced, self.limit(params), self.hand_past_bulk(params),
                              self.behind_hand(params))

    def resident(self, state):
        order = _hand_order(state)
        return order, state.flags[order] >> 1


@register("spatial_clock", SpatialClockParams)
class SpatialClock(_BSClockKernel):
    """Spatial Clock: CLOCK with the resident pages in LSN order; evictions come out sorted."""

    def limit(self, params) -> int:
        return 1


@register("bs_clock", BSClockParams)
class BSClock(_BSClockKernel):
    """BS-CLOCK: Spatial Clock that writes a dirty victim's sequential dirty successors with it, in one request."""

    def limit(self, params) -> int:
        return params.limit

    def hand_past_bulk(self, params) -> bool:
        return params.hand_past_bulk
