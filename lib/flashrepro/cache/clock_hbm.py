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
from . import hybrid as H
from .registry import Kernel, register

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
        placed it (for a miss and a move up alike; before the clean-room review, False spared only misses).
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
        fills. True: the incoming page's row first (the order before the clean-room review).
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
    sc: np.ndarray  # int64 scalars (hybrid.DHAND, ...)


(LEVEL_UPS, LEVEL_DOWNS, TO_EVICTION, TO_MIGRATION, PROMOTE_SWAPS) = range(H.N_HYBRID, H.N_HYBRID + 5)
COUNTERS = C.BASE + H.TIER_COUNTERS + (
    C.Counter("level_ups", None, "DRAM level changes up (Table 2)"),
    C.Counter("level_downs", None, "DRAM level changes down (Table 2)"),
    C.Counter("to_eviction_candidate", None, "NVM migration candidates reclassified as eviction candidates"),
    C.Counter("to_migration_candidate", None, "NVM eviction candidates reclassified as migration candidates"),
    C.Counter("promote_swaps", None, "NVM -> DRAM moves that swapped with a DRAM victim (DRAM full)"),
)


@njit(cache=True)
def _hbm_step(refs, start, state, counters, log, nlog, outcome, base, do_log, levels, sweep, read_level, write_level,
              promote_level, l1_class, l2_class, promote_before, dram_ref, nvm_to_dram, second_chance,
              write_miss_read, miss_write_counts, evaluate_first, migrated_ref, migrated_read, insert_ref, promote_nvm,
              incoming_first):
    # Written out in one function: helpers that take the state's arrays (even inlined ones) cost this loop half
    # its speed (measured), so each step of Algorithm 1 appears once, with flags saying which case it serves.
    unit, event = refs.unit, refs.event
    where, funit, dirty, ref, cnt, lvl, free, sc = state
    D, N = sc[H.DCAP], sc[H.NCAP]
    promote = nvm_to_dram and D > 0
    hits = write_hits = write_refs = dev_reads = dirtyings = 0
    hits_d = hits_n = writes_d = writes_n = write_hits_n = 0
    evictions = written = wb_d = wb_n = mig_dn = mig_nd = swaps = fills = 0
    ups = downs = to_mig = to_evict = 0
    rl = np.uint8(read_level if levels else 1)
    wl = np.uint8(write_level if levels else 1)
    pl_ = np.uint8(promote_level if levels else 1)
    per_page = levels and not sweep  # Table 2 applied as the hand passes a page
    eval_first = per_page and evaluate_first
    eval_after = per_page and not evaluate_first
    mref = np.uint8(1 if migrated_ref else 0)
    mread = np.uint8(1 if migrated_read else 0)
    iref = np.uint8(1 if insert_ref else 0)
    own = np.uint8(1 if miss_write_counts else 0)
    n = unit.shape[0]
    stop = n
    for i in range(start, n):
        if do_log and nlog + 3 > log.shape[0]:  # a read, an NVM eviction and a migration at most
            stop = i
            break
        if i + jk.PREFETCH_DISTANCE < n:
            jk.prefetch(where, unit[i + jk.PREFETCH_DISTANCE])
        p = unit[i]
        w = np.uint8(event[i])
        f = where[p]
        hit = f >= 0
        if do_log:
            outcome[i] = hit
        hits += hit
        write_hits += hit & w
        write_refs += w
        # --- line 7, SetPageBitFlags, for a page found in the buffer -------------------------------------
        if hit and f < D:
            hits_d += 1
            writes_d += w
            ref[f] = 1
            if w:
                cnt[f] = min(cnt[f] + 1, 3)
                dirtyings += 1 - dirty[f]
                dirty[f] = 1
            continue
        src = -1  # p's NVM frame when a write moves it to DRAM (lines 8-11)
        late = -1  # the cause of p's own row when it is logged after the victim's (Algorithm 1's order)
        if hit:
            hits_n += 1
            was_referenced = ref[f]
            ref[f] = 1
            if not w:
                cnt[f] = 1  # read since the NVM hand last passed
                continue
            write_hits_n += 1
            dirtyings += 1 - dirty[f]
            if not (promote and (was_referenced or not promote_before)):
                dirty[f] = 1
                writes_n += 1
                continue
            src = f  # MigrateToDRAMBuffer
            mig_nd += 1
            if do_log:
                if incoming_first:
                    nlog = C.row(log, nlog, base + i, C.IO_READ, C.MIGRATION, p, 1, H.DRAM)
                else:
                    late = C.MIGRATION
        elif not w or write_miss_read:  # a miss that reads the page from flash: a swap
            dev_reads += 1
            fills += 1
            if do_log:
                if incoming_first:
                    nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, H.DRAM if D > 0 else H.NVM)
                else:
                    late = C.DEMAND
        # --- p needs a DRAM frame g (lines 1-6 and 10); the DRAM hand's victim leaves g when DRAM is full ----
        g = -1
        victim = -1  # the DRAM page leaving g
        if D > 0:
            if sc[H.DUSED] < D:
                g = sc[H.DUSED]
                sc[H.DUSED] += 1
            else:  # the DRAM hand: Table 2 once per rotation, the first page at level 1 or 2
                h = sc[H.DHAND]
                while True:
                    x = h
                    if eval_first:
                        old = lvl[x]
                        new = _NEXT[old * 4 + cnt[x]]
                        cnt[x] = 0
                        if new != old:
                            lvl[x] = new
                            ups += new > old
                            downs += new < old
                    found = False
                    if dram_ref and ref[x]:
                        ref[x] = 0
                    elif lvl[x] <= 2:
                        found = True
                    if eval_after and not found:  # Table 2 for a page the hand passes over
                        old = lvl[x]
                        new = _NEXT[old * 4 + cnt[x]]
                        cnt[x] = 0
                        if new != old:
                            lvl[x] = new
                            ups += new > old
                            downs += new < old
                    h += 1
                    if h == D:
                        h = 0
                        if levels and sweep:  # a rotation ends: every page re-evaluated (the leaving victim aside)
                            for y in range(D):
                                if found and y == x:
                                    continue
                                old = lvl[y]
                                new = _NEXT[old * 4 + cnt[y]]
                                cnt[y] = 0
                                if new != old:
                                    lvl[y] = new
                                    ups += new > old
                                    downs += new < old
                    if found:
                        break
                sc[H.DHAND] = h
                g = x
                victim = funit[g]
                # likely the next DRAM victim: the page under the hand; its entry in where, which it will update,
                # fetched now (with the NVM one below, 1.04x at 1% capacity and 1.1x at 10%, measured)
                jk.prefetch(where, max(funit[h], 0))
        # --- an NVM frame t: for the DRAM victim (it migrates) or, with no DRAM, for p itself ------------------
        t = -1
        if src >= 0:
            if victim >= 0:
                t = src  # swap: the DRAM victim takes the NVM frame p leaves
                swaps += 1
            else:
                funit[src] = -1  # DRAM had room: p's NVM frame is free
                free[sc[H.NFREE]] = src
                sc[H.NFREE] += 1
        elif N > 0 and (victim >= 0 or D == 0):
            t = H.nvm_free_frame(free, sc)
            if t < 0:  # the NVM hand: the first eviction candidate unread (and unwritten) since its last pass
                h = sc[H.NHAND]
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
                sc[H.NHAND] = h
                jk.prefetch(where, max(funit[D + h], 0))  # likely the next NVM victim's entry, fetched now
                v = funit[t]  # only NVM pages are evicted to flash: a dirty one is written, a clean one dropped
                where[v] = -1
                evictions += 1
                if dirty[t]:
                    written += 1
                    wb_n += 1
                    if do_log:
                        nlog = C.row(log, nlog, base + i, C.IO_WRITE, C.EVICTION, v, 1, H.NVM)
        # --- the DRAM victim moves to NVM frame t, or leaves for flash when there is no NVM ------------------
        if victim >= 0:
            if t >= 0:
                funit[t] = victim
                where[victim] = t
                dirty[t] = dirty[g]
                ref[t] = mref
                cnt[t] = mread
                lvl[t] = l1_class if lvl[g] <= 1 else l2_class
                mig_dn += 1
                if do_log:
                    nlog = C.row(log, nlog, base + i, C.IO_WRITE, C.MIGRATION, victim, 1, H.NVM)
            else:
                where[victim] = -1
                evictions += 1
                if dirty[g]:
                    written += 1
                    wb_d += 1
                    if do_log:
                        nlog = C.row(log, nlog, base + i, C.IO_WRITE, C.EVICTION, victim, 1, H.DRAM)
        if do_log and late >= 0:  # p's read (or move up) after the victim's rows: Algorithm 1 line 5 after 3
            nlog = C.row(log, nlog, base + i, C.IO_READ, late, p, 1, H.DRAM if D > 0 else H.NVM)
        # --- p takes its frame, with this access's bits set ----------------------------------------------------
        if g >= 0:
            funit[g] = p
            where[p] = g
            ref[g] = iref
            if src >= 0:  # moved up by this write
                dirty[g] = 1
                cnt[g] = own
                lvl[g] = pl_
                if promote_nvm:
                    writes_n += 1
                else:
                    writes_d += 1
            else:
                dirty[g] = w
                cnt[g] = w & own
                lvl[g] = wl if w else rl
                writes_d += w
                dirtyings += w
        else:  # no DRAM: p enters NVM frame t
            funit[t] = p
            where[p] = t
            ref[t] = 1
            dirty[t] = w
            cnt[t] = 1 - w  # a read is a read since the NVM hand last passed
            lvl[t] = l1_class if (wl if w else rl) <= 1 else l2_class
            writes_n += w
            dirtyings += w
    C.add_base(counters, stop - start, hits, write_hits, write_refs, dev_reads, dev_reads, written, written,
               dirtyings, evictions)
    H.add_tiers(counters, hits_d, hits_n, writes_d, writes_n, write_hits_n, mig_dn, mig_nd, fills, D > 0, wb_d,
                wb_n)
    counters[LEVEL_UPS] += ups
    counters[LEVEL_DOWNS] += downs
    counters[TO_MIGRATION] += to_mig
    counters[TO_EVICTION] += to_evict
    counters[PROMOTE_SWAPS] += swaps
    return stop, nlog


@register("clock_hbm", ClockHBMParams)
class ClockHBM(Kernel):
    """CLOCK-HBM (paper 3): DRAM clock with Table 2 write levels, NVM clock with eviction/migration candidates."""

    caps = C.Caps(tiers=True)
    counters = COUNTERS

    def new_state(self, units, tiers, params):
        D, N = H.tier_sizes(tiers, units.n)
        frames = D + N
        return HBMState(np.full(units.n, -1, np.int32), np.full(frames, -1, np.int32), np.zeros(frames, np.uint8),
                        np.zeros(frames, np.uint8), np.zeros(frames, np.uint8), np.zeros(frames, np.uint8),
                        np.zeros(max(N, 1), np.int32), H.new_scalars(D, N))

    def log_rows_per_ref(self, tiers, params):
        return 3

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        p = params
        l1, l2 = (MIGRATION_CAND, EVICTION_CAND) if p.nvm_classes == "respectively" else (EVICTION_CAND,
                                                                                          MIGRATION_CAND)
        # do_log or None: a run without the log gets a specialisation compiled without its branches
        return _hbm_step(refs, start, state, counters, log, nlog, outcome, base, do_log or None, p.levels,
                         p.rotation == "sweep", p.read_level, p.write_level, p.promote_level, l1, l2,
                         p.promote_test == "before", p.dram_ref_bit, p.nvm_to_dram, p.nvm_second_chance,
                         p.write_miss_read, p.miss_write_counts, p.evaluate_first, p.migrated_referenced,
                         p.migrated_read, p.insert_referenced, p.promote_write_tier == "nvm", p.incoming_first)

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        return H.finish_tiers(state, counters, log, nlog, do_log, flush_at_end, last_ref)
