"""CLOCK-HBM (Kim et al. 2019, paper 3): a DRAM clock with write levels in front of an NVM clock with
eviction and migration candidates, inside an SSD.

The paper's Algorithm 1, Fig. 3 and Table 2, as implemented here (the open choices are parameters, see
:class:`ClockHBMParams`):

* **Misses.** Every page that misses (a swap when it is read from flash: a read miss, and with
  ``write_miss_read`` a write miss too) enters DRAM (Sec. III, solution 1),
  at ``read_level`` after a read and ``write_level`` after a write ("allocated differentially by read or
  write", Fig. 3); a write miss's own write counts toward the page's first rotation
  (``miss_write_counts``; Algorithm 1 runs ``SetPageBitFlags`` after ``AllocateToDRAMBuffer``). When DRAM is
  full, ``MigrateToNVMsBuffer``: the DRAM hand finds a page at level 1 or 2 and moves it to NVM (with its
  reference bit clear unless ``migrated_referenced``, unread unless ``migrated_read``), evicting an NVM page
  first when NVM is full. In the I/O log the victim's rows come first, then the new page's read (Algorithm 1's
  order, ``incoming_first=False``).
* **DRAM levels (Table 2).** Each DRAM page counts its writes in a 2-bit counter (0-3). Once per rotation
  of the DRAM clock its level moves at most one step: level 1 up on 1-3 writes, else stays; level 2 up on
  2-3, stays on 1, down on 0; level 3 up on 3, stays on 1-2, down on 0; level 4 stays on 2-3, down on
  0-1. ``rotation="page"``: a page is re-evaluated when the hand passes it, from the writes since the hand
  last passed it (before the hand tests its level, or with ``evaluate_first=False`` after, only when the
  hand passes over it); ``"sweep"``: every DRAM page is re-evaluated at once each time the hand wraps round.
* **NVM classes.** A page moved from DRAM enters NVM as a migration or an eviction candidate by its level
  ("level 1 and level 2 respectively": ``nvm_classes``). When the NVM hand passes a page it is reclassified
  by whether it was read since the hand last passed it (read: migration candidate, else eviction
  candidate), and its reference bit is cleared. The NVM victim is the first eviction candidate the hand
  finds unread since its last pass (migration candidates are demoted first: eviction candidates go first)
  and, with ``nvm_second_chance`` (default), also unwritten since then: a page read or written since the
  hand last passed gets a second chance, as the paper's victims are the pages "with low read/write access
  frequency" (Sec. III, last paragraph); without it a page written a moment ago can be evicted ahead of
  one nobody touched. Only NVM pages are evicted to flash (solution 3); a dirty one is written, a clean
  one dropped.
* **NVM -> DRAM (Algorithm 1, lines 8-11).** A write to an NVM page whose reference bit is set moves it to
  DRAM at ``promote_level``; when DRAM is full it swaps places with the DRAM hand's victim, which takes
  the NVM frame it leaves. ``promote_test="before"``: the bit as it was before this access (an access
  since the NVM hand last passed the page); ``"after"``: after ``SetPageBitFlags`` of this access, the
  literal order of Algorithm 1, in which every write to an NVM page moves it.

With ``nvm_pages=0``, ``levels=False`` and ``nvm_to_dram=False`` the policy degenerates to one clock over
DRAM: with ``dram_ref_bit=True`` it is CLOCK with pages inserted referenced (``clock`` with
``insert_referenced=True``), and without a DRAM reference bit it is FIFO (``tests/test_clock_hbm.py``).
With ``dram_pages=0`` (only in tiny property-test caches) pages enter NVM directly.
"""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
from numba import njit

from .. import jitkit as jk
from . import contract as C
from . import driver
from . import hybrid as H
from .registry import Kernel, register

ROWS_PER_REF = 3  # the most I/O log rows one reference makes: an NVM eviction, a migration and a read
ROTATIONS = ("page", "sweep")
NVM_CLASSES = ("respectively", "swapped")
PROMOTE_TESTS = ("before", "after")
PROMOTE_WRITE_TIERS = ("dram", "nvm")
MIGRATION_CAND, EVICTION_CAND = 0, 1  # NVM classes

# Table 2: the next level from (level, writes in the last rotation), indexed level * 4 + writes
_NEXT = np.zeros(20, np.uint8)
for _lv, _row in ((1, (1, 2, 2, 2)), (2, (1, 2, 3, 3)), (3, (2, 3, 3, 4)), (4, (3, 3, 4, 4))):
    _NEXT[_lv * 4:_lv * 4 + 4] = _row


def next_level(level: int, writes: int) -> int:
    """Table 2: the level after one rotation at ``level`` with ``writes`` (0-3) writes in it."""
    return int(_NEXT[level * 4 + min(writes, 3)])


@dataclasses.dataclass(frozen=True)
class ClockHBMParams:
    """Parameters of CLOCK-HBM (paper 3, Sec. III, Algorithm 1, Fig. 3, Table 2).

    Attributes
    ----------
    dram_pages, nvm_pages : int
        The tiers, 20% and 80% of ``capacity_pages`` unless both are given (Table 3: 6.4 MB + 25.6 MB).
    rotation : str
        What "one rotation" of the DRAM clock is for Table 2: ``"page"`` (default) the writes since the hand
        last passed the page, re-evaluated as it passes; ``"sweep"`` every page at once when the hand wraps.
    read_level, write_level : int
        Starting DRAM level (1-4) of a page that missed on a read / on a write (Fig. 3 allocates them
        differently so that written pages stay longer; defaults 1 and 2).
    promote_level : int
        DRAM level (1-4) of a page moved up from NVM by a write (default 2, the level of a written page).
    nvm_classes : str
        Which NVM class DRAM levels 1 and 2 become: ``"respectively"`` (default, the paper's word order)
        level 1 a migration candidate and level 2 an eviction candidate; ``"swapped"`` the reverse.
    promote_test : str
        Whether the NVM -> DRAM test reads the reference bit ``"before"`` (default) or ``"after"`` this
        access sets it (Algorithm 1's literal order, which moves every written NVM page).
    dram_ref_bit : bool
        Whether DRAM pages also have a reference bit that buys a referenced page one more pass of the hand
        (default False: the levels alone decide).
    levels : bool
        Table 2's levels (default True). False: every DRAM page stays at level 1, so the DRAM hand takes the
        first page it finds (unreferenced, with ``dram_ref_bit``).
    nvm_to_dram : bool
        Whether a written NVM page with its reference bit set moves to DRAM (default True).
    nvm_second_chance : bool
        Whether an NVM page read or written since the NVM hand last passed it is spared by the hand (default
        True, the paper's reading: CLOCK-HBM "selects as swap targets the pages with low read/write access
        frequency in the hybrid buffer", Sec. III, last paragraph). False: only reads spare a page (the NVM
        classes are by reads), so a page written a moment ago can be the next victim.
    write_miss_read : bool
        Whether a write miss first reads the page from flash (read-modify-write, a swap; default False: the
        paper counts swaps without saying, and a whole-page write needs no read). The kernel sees page
        references, not byte ranges, so True takes every write miss as a partial-page one: an upper bound.
    miss_write_counts : bool
        Whether the write that brings a page into DRAM, a write miss or a write that moves it up from NVM, is
        one of the writes of its first rotation (default True: Algorithm 1 runs ``SetPageBitFlags``, line 7,
        after ``AllocateToDRAMBuffer``, line 5). False: a page's first rotation starts after the access that
        placed it (for a miss and a move up alike).
    evaluate_first : bool
        Whether the DRAM hand applies Table 2 to a page before testing it as a victim (default True) or only to
        the pages it passes over (False: a page leaves at the level it had).
    migrated_referenced : bool
        Whether a page moved from DRAM to NVM arrives with its reference bit set (default False: a move is not
        an access). The bit is the one line 8 tests and the NVM hand's second chance reads.
    migrated_read : bool
        Whether a page moved from DRAM to NVM counts as read in its first NVM rotation, i.e. is a migration
        candidate when the NVM hand first passes it (default False: the NVM classes follow "whether a read
        occurred" after allocation, Sec. III, and a move is a write into NVM, not a read). The clean-room
        review's reading "a migrated page arrives referenced" is ``migrated_referenced=True`` with this.
    insert_referenced : bool
        With ``dram_ref_bit``: whether the access that brings a page into DRAM (a miss, or a write moving it up)
        sets its DRAM reference bit (default True, as every access does: ``SetPageBitFlags``). Pages that enter
        NVM directly (only with ``dram_pages=0``) are always referenced.
    promote_write_tier : str
        Where the write that moves an NVM page up is counted: ``"dram"`` (default: in the DRAM frame the page
        takes, ``writes_dram``) or ``"nvm"`` (``writes_nvm``: Algorithm 1 sets the page's bits, line 7, while it
        is still in NVM, then moves it, line 10). Only the per-tier write counters change.
    incoming_first : bool
        The order of one reference's rows in the I/O log (no count depends on it). False (default, Algorithm 1):
        the DRAM victim's rows (the NVM eviction it needs, its migration) come before the incoming page's read
        or move up, since ``MigrateToNVMsBuffer`` (line 3) frees the frame ``AllocateToDRAMBuffer`` (line 5)
        fills. True: the incoming page's row first.
    """

    dram_pages: int | None = C.tier(0.2, "DRAM pages (Table 3: 6.4 MB, 20%)")
    nvm_pages: int | None = C.tier(0.8, "NVM pages (Table 3: 25.6 MB, 80%)")
    rotation: str = "page"
    read_level: int = 1
    write_level: int = 2
    promote_level: int = 2
    nvm_classes: str = "respectively"
    promote_test: str = "before"
    dram_ref_bit: bool = False
    levels: bool = True
    nvm_to_dram: bool = True
    nvm_second_chance: bool = True
    write_miss_read: bool = False
    miss_write_counts: bool = True
    evaluate_first: bool = True
    migrated_referenced: bool = False
    migrated_read: bool = False
    insert_referenced: bool = True
    promote_write_tier: str = "dram"
    incoming_first: bool = False

    def __post_init__(self):
        for name, allowed in (("rotation", ROTATIONS), ("nvm_classes", NVM_CLASSES),
                              ("promote_test", PROMOTE_TESTS), ("promote_write_tier", PROMOTE_WRITE_TIERS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"clock_hbm: {name} must be one of {allowed}, got {getattr(self, name)!r}")
        for name in ("read_level", "write_level", "promote_level"):
            if not 1 <= getattr(self, name) <= 4:
                raise ValueError(f"clock_hbm: {name} must be a level 1-4, got {getattr(self, name)}")


class HBMState(typing.NamedTuple):
    where: np.ndarray  # int32 per unit: its frame, -1 if not in the buffer
    funit: np.ndarray  # int32 per frame (DRAM 0..D-1, NVM D..D+N-1): its unit, -1 if empty
    dirty: np.ndarray  # uint8 per frame
    ref: np.ndarray  # uint8 per frame: reference bit
    cnt: np.ndarray  # uint8 per frame: DRAM writes since the last evaluation (0-3); NVM read since the hand passed
    lvl: np.ndarray  # uint8 per frame: DRAM level 1-4; NVM class (0 migration, 1 eviction candidate)
    free: np.ndarray  # int32 stack of free NVM frames
    sc: np.recarray  # the scalars, hybrid.new_scalars (hybrid.SCALARS, then SCALARS), read as sc[0]
    rules: HBMRules  # the parameters as the hooks read them (the registers ``r`` of the driver's loop)


SCALARS = [  # the state's scalars after hybrid.SCALARS: this chunk's DRAM tallies and fills, added at its end (_tally)
    ("hits_d", np.int64), ("writes_d", np.int64), ("fills", np.int64),
] + driver.SCALARS  # (used, frames: the driver's loop reads them; this policy places pages itself)


(LEVEL_UPS, LEVEL_DOWNS, TO_EVICTION, TO_MIGRATION, PROMOTE_SWAPS) = range(H.N_HYBRID, H.N_HYBRID + 5)
COUNTERS = C.BASE + H.TIER_COUNTERS + (
    C.Counter("level_ups", None, "DRAM level changes up (Table 2)"),
    C.Counter("level_downs", None, "DRAM level changes down (Table 2)"),
    C.Counter("to_eviction_candidate", None, "NVM migration candidates reclassified as eviction candidates"),
    C.Counter("to_migration_candidate", None, "NVM eviction candidates reclassified as migration candidates"),
    C.Counter("promote_swaps", None, "NVM -> DRAM moves that swapped with a DRAM victim (DRAM full)"),
)


class HBMRules(typing.NamedTuple):
    """:class:`ClockHBMParams` as the kernel reads them (levels already 1 where ``levels=False``)."""

    eval_first: bool  # rotation="page", evaluate_first: Table 2 for a page before the DRAM hand tests it
    eval_after: bool  # rotation="page", not evaluate_first: Table 2 only for the pages the hand passes over
    sweep: bool  # rotation="sweep" (with levels): Table 2 for every DRAM page when the hand wraps round
    read_level: np.uint8  # DRAM level of a page read from flash
    write_level: np.uint8  # ... of a page a write miss brings in
    promote_level: np.uint8  # ... of a page a write moves up from NVM
    l1_class: int  # the NVM class of a DRAM page leaving at level 1 (MIGRATION_CAND or EVICTION_CAND)
    l2_class: int  # ... at level 2
    promote_before: bool  # the NVM -> DRAM test reads the reference bit before this access sets it
    dram_ref: bool  # DRAM pages have a reference bit (dram_ref_bit)
    nvm_to_dram: bool  # nvm_to_dram, and there is a DRAM tier to move to
    second_chance: bool  # nvm_second_chance
    write_miss_read: bool
    own: np.uint8  # 1: the write that places a page counts toward its first rotation (miss_write_counts)
    migrated_ref: np.uint8  # reference bit of a page moved from DRAM to NVM (migrated_referenced)
    migrated_read: np.uint8  # its read-since-the-hand mark (migrated_read)
    insert_ref: np.uint8  # DRAM reference bit of a page placed by an access (insert_referenced)
    promote_nvm: bool  # the write that moves a page up counts in writes_nvm (promote_write_tier="nvm")
    incoming_first: bool  # the incoming page's row before the victim's in the I/O log

    @classmethod
    def of(cls, p: ClockHBMParams, dram: int) -> HBMRules:
        """The rules of ``p`` for a DRAM tier of ``dram`` frames."""
        lv = p.levels
        per_page = lv and p.rotation == "page"
        l1, l2 = (MIGRATION_CAND, EVICTION_CAND) if p.nvm_classes == "respectively" else (EVICTION_CAND,
                                                                                          MIGRATION_CAND)
        u8 = np.uint8
        return cls(per_page and p.evaluate_first, per_page and not p.evaluate_first, lv and p.rotation == "sweep",
                   u8(p.read_level if lv else 1), u8(p.write_level if lv else 1), u8(p.promote_level if lv else 1),
                   l1, l2, p.promote_test == "before", p.dram_ref_bit, p.nvm_to_dram and dram > 0, p.nvm_second_chance,
                   p.write_miss_read, u8(p.miss_write_counts), u8(p.migrated_referenced), u8(p.migrated_read),
                   u8(p.insert_referenced), p.promote_write_tier == "nvm", p.incoming_first)


# The steps of one reference, in Algorithm 1's order, called by the hooks below. Each is a function of its own, which
# LLVM inlines into the composed loop (its LLVM IR calls only _sweep, once per rotation of the DRAM clock); one that
# does not log is compiled once for both of the kernel's specialisations (with and without the I/O log). _dram_victim
# with the sweep's loop written in was too large for LLVM to inline, and the kernel ran 1.3x slower (measured); _admit
# is, so Numba inlines it. Like the loop they are compiled without reference counting (they allocate nothing), which
# would incref and decref every array passed. They take the arrays they change as arguments, never the state tuple
# (the hooks, which Numba inlines, may): Numba's dead-code elimination does not see that arrays unpacked from a tuple
# are the caller's, and drops stores to them that it deems unused (it did here: a run without the I/O log kept no
# page).
@jk.njit_no_refcount
def _evaluate(lvl, cnt, x):
    """Table 2 for DRAM frame x: its level ``lvl[x]`` moves at most one step by its writes since its last
    evaluation, ``cnt[x]``, which restart from 0. Returns the move (-1, 0 or 1)."""
    old = lvl[x]
    new = _NEXT[old * 4 + cnt[x]]
    cnt[x] = 0
    lvl[x] = new
    return np.int64(new) - np.int64(old)


@jk.njit_no_refcount
def _sweep(lvl, cnt, D, skip, counters):
    """rotation="sweep": the DRAM hand wrapped round, so Table 2 re-evaluates every DRAM page but frame ``skip``
    (the victim leaving; -1: none). Changes ``lvl`` and ``cnt`` of DRAM frames; counts the level moves."""
    ups = downs = 0
    for y in range(D):
        if y != skip:
            d = _evaluate(lvl, cnt, y)
            ups += d > 0
            downs += d < 0
    counters[LEVEL_UPS] += ups
    counters[LEVEL_DOWNS] += downs


@jk.njit_no_refcount
def _dram_victim(where, funit, ref, cnt, lvl, scs, counters, eval_first, eval_after, dram_ref, sweep):
    """The DRAM hand's victim when DRAM is full (MigrateToNVMsBuffer's choice): from the hand on, Table 2 once per
    rotation (as ``k`` reads it) and the first page at level 1 or 2; with ``dram_ref_bit`` a referenced page
    has its bit cleared instead. Changes ``lvl``, ``cnt`` and ``ref`` of the frames the hand passes and the
    hand (``sc.dhand``); counts level moves. Returns the victim's frame."""
    sc = scs[0]
    D = sc.dcap
    h = sc.dhand
    ups = downs = 0
    while True:
        x = h
        if eval_first:
            d = _evaluate(lvl, cnt, x)
            ups += d > 0
            downs += d < 0
        found = False
        if dram_ref and ref[x]:
            ref[x] = 0
        elif lvl[x] <= 2:
            found = True
        if eval_after and not found:  # Table 2 for a page the hand passes over
            d = _evaluate(lvl, cnt, x)
            ups += d > 0
            downs += d < 0
        h += 1
        if h == D:
            h = 0
            if sweep:  # a rotation ends: every page re-evaluated, the leaving victim aside
                _sweep(lvl, cnt, D, x if found else -1, counters)
        if found:
            break
    sc.dhand = h
    counters[LEVEL_UPS] += ups
    counters[LEVEL_DOWNS] += downs
    # likely the next DRAM victim: the page under the hand; its entry in where, which it will update, fetched
    # now (with the NVM one in _nvm_victim, 1.04x at 1% capacity and 1.1x at 10%, measured)
    jk.prefetch(where, max(funit[h], 0))
    return x


@jk.njit_no_refcount
def _nvm_victim(where, funit, ref, cnt, lvl, scs, counters, second_chance):
    """The NVM hand's victim when NVM is full: each page the hand passes is reclassified by whether it was read
    since the hand last passed it (a migration candidate if so, else an eviction candidate) and has its read
    mark and reference bit cleared; the hand stops at the first eviction candidate unread since its last pass
    (with ``nvm_second_chance``, also unreferenced) and moves past it. Changes ``lvl``, ``cnt`` and ``ref`` of
    the frames passed and the hand (``sc.nhand``); counts reclassifications. Returns the victim's frame."""
    sc = scs[0]
    D, N = sc.dcap, sc.ncap
    h = sc.nhand
    to_mig = to_evict = 0
    while True:
        t = D + h
        if lvl[t] == EVICTION_CAND and cnt[t] == 0 and not (second_chance and ref[t]):
            break
        if cnt[t]:
            to_mig += lvl[t] != MIGRATION_CAND
            lvl[t] = MIGRATION_CAND
        else:
            to_evict += lvl[t] != EVICTION_CAND
            lvl[t] = EVICTION_CAND
        cnt[t] = 0
        ref[t] = 0
        h += 1
        if h == N:
            h = 0
    h += 1
    if h == N:
        h = 0
    sc.nhand = h
    counters[TO_MIGRATION] += to_mig
    counters[TO_EVICTION] += to_evict
    jk.prefetch(where, max(funit[D + h], 0))  # likely the next NVM victim's entry, fetched now
    return t


@jk.njit_no_refcount
def _evict(where, funit, dirty, t, counters, log, nlog, do_log, at):
    """NVM frame t's page leaves for flash (only NVM pages are evicted to flash): a dirty one is written, a clean
    one dropped. Changes ``where``; counts the eviction and the write. Returns ``nlog``."""
    v = funit[t]
    where[v] = -1
    counters[C.EVICTIONS] += 1
    if dirty[t]:
        counters[C.DEV_WRITES_EVICT] += 1
        counters[C.DEV_WRITE_REQS] += 1
        counters[H.WB_N] += 1
        if do_log:
            nlog = C.row(log, nlog, at, C.IO_WRITE, C.EVICTION, v, 1, H.NVM)
    return nlog


@jk.njit_no_refcount
def _demote(where, funit, dirty, ref, cnt, lvl, g, t, victim, counters, log, nlog, do_log, at, k):
    """The DRAM victim, page ``victim`` of DRAM frame g, moves to NVM frame t as a migration or an eviction
    candidate by its level (``nvm_classes``), with ``migrated_referenced``'s and ``migrated_read``'s bits; with
    no NVM frame (t < 0) it leaves for flash, written if dirty. Changes ``where`` and NVM frame t; counts.
    Returns ``nlog``."""
    if t >= 0:
        funit[t] = victim
        where[victim] = t
        dirty[t] = dirty[g]
        ref[t] = k.migrated_ref
        cnt[t] = k.migrated_read
        lvl[t] = k.l1_class if lvl[g] <= 1 else k.l2_class
        counters[H.MIG_DN] += 1
        if do_log:
            nlog = C.row(log, nlog, at, C.IO_WRITE, C.MIGRATION, victim, 1, H.NVM)
    else:
        where[victim] = -1
        counters[C.EVICTIONS] += 1
        if dirty[g]:
            counters[C.DEV_WRITES_EVICT] += 1
            counters[C.DEV_WRITE_REQS] += 1
            counters[H.WB_D] += 1
            if do_log:
                nlog = C.row(log, nlog, at, C.IO_WRITE, C.EVICTION, victim, 1, H.DRAM)
    return nlog


@jk.njit_no_refcount
def _occupy(where, funit, dirty, ref, cnt, lvl, p, w, g, t, moved_up, counters, k):
    """Page p takes its frame with this access's bits set (AllocateToDRAMBuffer, then SetPageBitFlags): DRAM
    frame g at ``promote_level`` when a write moved it up from NVM (``moved_up``), else at the write or read
    level; with no DRAM (g < 0), NVM frame t as the candidate class of that level. Changes ``where`` and the
    frame's ``funit``, ``dirty``, ``ref``, ``cnt`` and ``lvl``; counts the write per tier (the driver's loop counts
    a miss's dirtying, :func:`_nvm_hit` a move's)."""
    if g < 0:
        funit[t] = p
        where[p] = t
        ref[t] = 1
        dirty[t] = w
        cnt[t] = 1 - w  # a read is a read since the NVM hand last passed
        lvl[t] = k.l1_class if (k.write_level if w else k.read_level) <= 1 else k.l2_class
        counters[H.WRITES_N] += w
    else:
        funit[g] = p
        where[p] = g
        ref[g] = k.insert_ref
        if moved_up:
            dirty[g] = 1
            cnt[g] = k.own
            lvl[g] = k.promote_level
            counters[H.WRITES_N if k.promote_nvm else H.WRITES_D] += 1
        else:
            dirty[g] = w
            cnt[g] = w & k.own
            lvl[g] = k.write_level if w else k.read_level
            counters[H.WRITES_D] += w


@njit(cache=True, inline="always")
def _admit(where, funit, dirty, ref, cnt, lvl, free, scs, p, w, src, cause, counters, log, nlog, do_log, at, k):
    """Page p enters DRAM (NVM when there is none) after a miss or, ``src`` >= 0, moved up from NVM frame src by
    a write: the DRAM hand's victim leaves its frame for NVM, which makes room first (MigrateToNVMsBuffer, line
    3; the victim takes src when p leaves it, a swap), then p takes the frame (lines 5-7). p's read or move up
    (``cause``; -1: a write miss, nothing read) is logged before the victim's rows with ``incoming_first``,
    else after them. Changes the state's arrays; counts. Returns ``nlog``."""
    sc = scs[0]
    D, N = sc.dcap, sc.ncap
    tier = H.DRAM if D > 0 else H.NVM
    if do_log and k.incoming_first and cause >= 0:
        nlog = C.row(log, nlog, at, C.IO_READ, cause, p, 1, tier)
    g = victim = t = -1
    if D > 0:
        if sc.dused < D:  # a DRAM frame never used
            g = sc.dused
            sc.dused += 1
        else:
            g = _dram_victim(where, funit, ref, cnt, lvl, scs, counters, k.eval_first, k.eval_after, k.dram_ref,
                             k.sweep)
            victim = funit[g]
    if src >= 0:
        if victim >= 0:  # a swap
            t = src
            counters[PROMOTE_SWAPS] += 1
        else:  # DRAM had room: p's NVM frame is free
            funit[src] = -1
            free[sc.nfree] = src
            sc.nfree += 1
    elif N > 0 and (victim >= 0 or D == 0):  # an NVM frame for the victim (for p with no DRAM)
        t = H.nvm_free_frame(free, scs)
        if t < 0:
            t = _nvm_victim(where, funit, ref, cnt, lvl, scs, counters, k.second_chance)
            nlog = _evict(where, funit, dirty, t, counters, log, nlog, do_log, at)
    if victim >= 0:
        nlog = _demote(where, funit, dirty, ref, cnt, lvl, g, t, victim, counters, log, nlog, do_log, at, k)
    if do_log and not k.incoming_first and cause >= 0:
        nlog = C.row(log, nlog, at, C.IO_READ, cause, p, 1, tier)
    _occupy(where, funit, dirty, ref, cnt, lvl, p, w, g, t, src >= 0, counters, k)
    return nlog


@jk.njit_no_refcount
def _nvm_hit(ref, cnt, dirty, f, w, promote, counters, k):
    """A hit in NVM frame f (SetPageBitFlags): sets its reference bit, and for a read its read-since-the-hand
    mark. A write dirties it in place unless it moves the page to DRAM (lines 8-11: ``promote``, and the
    reference bit set before this access, or with promote_test="after" always): returns whether it moves.
    Changes the frame's ``ref``, ``cnt`` and ``dirty``; counts the NVM hit and write."""
    was_referenced = ref[f]
    ref[f] = 1
    counters[H.HITS_N] += 1
    if not w:
        cnt[f] = 1
        return False
    counters[H.WRITE_HITS_N] += 1
    counters[C.DIRTYINGS] += 1 - dirty[f]
    if promote and (was_referenced or not k.promote_before):
        counters[H.MIG_ND] += 1  # MigrateToDRAMBuffer
        return True
    dirty[f] = 1
    counters[H.WRITES_N] += 1
    return False


# The hooks the driver's loop (driver.page_loop) is composed with, besides driver.rules_begin and rules_end and
# hybrid's lookup, ahead and miss_reads: ``r`` is the state's HBMRules.
@njit(cache=True, inline="always")
def _hit_move(st, r, p, f, w, counters, log, nlog, do_log, ref):
    """A hit in DRAM sets the page's bits (line 7, SetPageBitFlags: a write counts toward its level); a hit in NVM is
    :func:`_nvm_hit`, and a write that moves the page up to DRAM (lines 8-11) is :func:`_admit` from its NVM frame.
    Tallied by tier."""
    sc = st.sc[0]
    if f < sc.dcap:
        sc.hits_d += 1
        sc.writes_d += w
        st.ref[f] = 1
        dirtied = 0
        if w:
            st.cnt[f] = min(st.cnt[f] + 1, 3)
            dirtied = 1 - st.dirty[f]
            st.dirty[f] = 1
        return r, nlog, dirtied
    if _nvm_hit(st.ref, st.cnt, st.dirty, f, w, r.nvm_to_dram, counters, r):
        nlog = _admit(st.where, st.funit, st.dirty, st.ref, st.cnt, st.lvl, st.free, st.sc, p, w, f, C.MIGRATION,
                      counters, log, nlog, do_log, ref, r)
    return r, nlog, 0


@njit(cache=True, inline="always")
def _place(st, r, p, w, read, counters, log, nlog, do_log, ref):
    """A miss enters DRAM (NVM when there is none): :func:`_admit`, after its read from flash (a swap) if ``read``."""
    st.sc[0].fills += read
    nlog = _admit(st.where, st.funit, st.dirty, st.ref, st.cnt, st.lvl, st.free, st.sc, p, w, -1,
                  C.DEMAND if read else -1, counters, log, nlog, do_log, ref, r)
    return r, nlog


@njit(cache=True, inline="always")
def _rows(st):
    return ROWS_PER_REF


@njit(cache=True, inline="always")
def _tally(st, r, counters):
    """The chunk's DRAM tallies and fills (NVM hits, migrations and write-backs are counted where they happen)."""
    sc = st.sc[0]
    H.add_tiers(counters, hits_d=sc.hits_d, hits_n=0, writes_d=sc.writes_d, writes_n=0, write_hits_n=0,
                fills=sc.fills, into_dram=sc.dcap > 0)
    sc.hits_d = sc.writes_d = sc.fills = 0


_hbm_step = driver.compose("clock_hbm", begin=driver.rules_begin, hit_move=_hit_move, end=driver.rules_end,
                           lookup=H.lookup, ahead=H.ahead, miss_reads=H.miss_reads, place=_place, rows=_rows,
                           tally=_tally)
"""CLOCK-HBM (Algorithm 1, read as the state's rules say): the driver's loop with the hooks above. A hit is
:func:`_hit_move`; a miss is placed by :func:`_place`. A reference writes three log rows at most: an NVM eviction, a
migration and a read."""


@register("clock_hbm", ClockHBMParams)
class ClockHBM(Kernel):
    """CLOCK-HBM (paper 3): DRAM clock with Table 2 write levels, NVM clock with eviction/migration candidates."""

    caps = C.Caps(tiers=True)
    counters = COUNTERS

    def new_state(self, units, tiers, params):
        D, N = H.tier_sizes(tiers, units.n)
        frames = D + N
        sc = H.new_scalars(D, N, SCALARS)
        sc[0].frames = frames
        return HBMState(np.full(units.n, -1, np.int32), np.full(frames, -1, np.int32), np.zeros(frames, np.uint8),
                        np.zeros(frames, np.uint8), np.zeros(frames, np.uint8), np.zeros(frames, np.uint8),
                        np.zeros(max(N, 1), np.int32), sc, HBMRules.of(params, D))

    def log_rows_per_ref(self, tiers, params):
        return ROWS_PER_REF

    step_kernel = staticmethod(_hbm_step)

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        return H.finish_tiers(state, counters, log, nlog, do_log, flush_at_end, last_ref)
