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
from . import driver
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
        too: the text does not settle it. The default is the position reading; notebook 01's ambiguity table
        shows what the choice changes.
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
    sc: np.recarray  # the scalars (driver.new_scalars): used, frames and SCALARS


SCALARS = [
    ("hand", np.int64),  # the clock hand: a rank position (the next rank it looks at)
    ("n0", np.int64),  # the bitset's level sizes in words (jitkit.bits_new)
    ("n1", np.int64),
    ("n2", np.int64),
    ("init_ref", np.int64),  # the flags a new page enters with: REF (insert_referenced) or 0
    ("limit", np.int64),  # pages per write request, victim included (1: Spatial Clock)
    ("past_bulk", np.int64),  # hand_past_bulk
    ("behind", np.int64),  # insert_behind_hand
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


# The hooks of the per-reference loop (flashrepro.cache.driver). A unit is its own frame: the resident bitmap is the
# page table, so the loop's frame ``f`` is the page's rank. The registers: the hand, the pages bulk writes cleaned
# in this chunk, and the settings and bitmap sizes (read once per chunk, not once per eviction).
@njit(cache=True, inline="always")
def _lookup(st, p):
    """Page ``p`` itself if it is resident (its bit in the bitmap), else -1."""
    return p if jk.bits_contains(st.words, p) else np.int64(-1)


@njit(cache=True, inline="always")
def _ahead(st, p):
    """The bitmap word and the flags byte of page ``p``."""
    jk.prefetch(st.words, p >> 6)
    jk.prefetch(st.flags, p)


@njit(cache=True, inline="always")
def _no_unbind(st, p):
    """The victim left the bitmap in :func:`_victim`."""


@njit(cache=True, inline="always")
def _no_bind(st, p, f):
    """:func:`_admit` puts the page on the bitmap."""


@njit(cache=True, inline="always")
def _begin(st):
    """The registers: ``(hand, cleaned, (n0, n1, n2), init_ref, limit, past_bulk, behind)``."""
    sc = st.sc[0]
    return (sc.hand, 0, (sc.n0, sc.n1, sc.n2), np.uint8(sc.init_ref), sc.limit, sc.past_bulk != 0, sc.behind != 0
            and sc.frames > 1)


@njit(cache=True, inline="always")
def _hit(st, r, f, w):
    """Set the page's reference bit, and its dirty bit on a write."""
    old = st.flags[f]
    st.flags[f] = old | REF | (w << 1)
    return r, w & ~(old >> 1)  # the page was clean and this is a write


@njit(cache=True, inline="always")
def _victim(st, r):
    """The first unreferenced page from the hand, with its bulk write if dirty (:func:`_bs_evict`); the hand then
    stands just past the victim, or past the bulk with ``past_bulk``, or with ``behind`` on the next resident
    page from there, which the page about to be inserted cannot move. Returns the victim as its own frame and
    the pages written back in one request (0 for a clean victim)."""
    hand, cleaned, (n0, n1, n2), init_ref, limit, past_bulk, behind = r
    words = st.words
    v, npg, q = _bs_evict(words, st.flags, st.page, n0, n1, n2, hand, limit)
    if npg > 0:
        cleaned += npg - 1
    nxt = q if npg > 0 and past_bulk else v + 1
    hand = jk.bits_next_cyclic(words, n0, n1, n2, nxt) if behind else nxt  # (behind: only with frames to go to)
    return (hand, cleaned, (n0, n1, n2), init_ref, limit, past_bulk, behind), v, v, npg


@njit(cache=True, inline="always")
def _admit(st, r, f, p, w):
    """Page ``p`` joins the bitmap at its rank, with the reference bit of a new page, dirty if ``w``."""
    n0, n1, _ = r[2]
    jk.bits_add(st.words, n0, n1, p)
    st.flags[p] = r[3] | (w << 1)
    return r


@njit(cache=True, inline="always")
def _end(st, r):
    """Store the hand."""
    st.sc[0].hand = r[0]


@njit(cache=True, inline="always")
def _tally(st, r, counters):
    """The pages bulk writes cleaned."""
    counters[BULK_CLEANED] += r[1]


_bs_clock_step = driver.compose("bs_clock", evict_first=True, writeback_runs=True, lookup=_lookup, ahead=_ahead,
                                unbind=_no_unbind, bind=_no_bind, begin=_begin, hit=_hit, victim=_victim,
                                admit=_admit, end=_end, tally=_tally)
"""Spatial Clock / BS-CLOCK over one chunk (:func:`flashrepro.cache.driver.page_loop` with the hooks above, a
victim's write-back logged before the missed page's read and written as one request of its bulk): a hit sets the
page's reference bit; a miss with a full cache evicts the first unreferenced page from the hand (with its bulk if
dirty), and the missed page is inserted at its rank."""


@njit(cache=True)
def _hand_order(state):
    """Resident units from the hand onwards (the order a flush writes them)."""
    words, sc = state.words, state.sc[0]
    n0, n1, n2 = sc.n0, sc.n1, sc.n2
    order = np.empty(sc.used, np.int64)
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

    def new_state(self, units, tiers, params):
        words, n0, n1, n2 = jk.bits_new(units.n)
        # a cache larger than the footprint never fills: it never needs a victim either way
        sc = driver.new_scalars(min(tiers["capacity_pages"], units.n), SCALARS)
        s = sc[0]
        s.n0, s.n1, s.n2 = n0, n1, n2
        s.init_ref = REF if params.insert_referenced else 0
        s.limit, s.past_bulk, s.behind = self.limit(params), self.hand_past_bulk(params), params.insert_behind_hand
        return BSClockState(words, np.zeros(units.n, np.uint8), units.pages(np.arange(units.n)), sc)

    step_kernel = staticmethod(_bs_clock_step)

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
