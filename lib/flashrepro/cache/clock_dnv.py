"""CLOCK-DNV (Kang et al. 2017) as paper 3 (Kim et al. 2019, Sec. II.2) describes it: a DRAM clock and an NVM
clock, each page with a reference and a dirty bit.

* Every page that misses enters DRAM (a read miss is read from flash first; with ``cache_reads=False``, a
  write buffer, a read miss is read from flash for the host and not kept). When DRAM is full, the DRAM hand
  takes the first unreferenced page (clearing the bits it passes): a dirty victim migrates to NVM, a clean
  one is dropped ("it discards the pages whose dirty bit is not set", Sec. II.2), even while NVM still has
  free frames (so, unlike every other policy here, it can drop a page while it has room: ``Caps``'
  ``drops_with_room``). ``clean_to_free_nvm=True`` lets a clean victim take an NVM frame that is still free
  instead; once NVM is full, clean victims are dropped either way.
* NVM pages stay in NVM when hit (there is no NVM -> DRAM migration). When NVM needs a frame, the NVM hand
  takes the first unreferenced page, and BPLRU's block padding is applied "only within the hybrid buffer":
  ``padding="buffer"`` (default) evicts every NVM page of the victim's flash block (``block_pages`` pages)
  with it and also writes back the dirty DRAM pages of that block, which stay in DRAM, clean;
  ``"buffer_evict"`` evicts those DRAM pages too; ``"nvm"`` evicts the NVM block-mates only; ``"none"`` evicts
  the victim alone. No page is read from flash to pad. Dirty pages are written, clean ones dropped; each page
  written is one row of the I/O log (``pad_order``). A page moving into NVM takes a frame padding freed
  (``nvm_free``) before the NVM hand runs.
* In the I/O log a reference's victim rows come before the new page's read (``incoming_first=False``: "migrates
  ..., then allocates the new page").

A page enters DRAM with its reference bit set (the access that brought it in sets it, as in CLOCK-HBM's
``SetPageBitFlags``; ``insert_referenced``) and NVM with it clear (``migrated_referenced``). With
``dram_pages=0`` (only in tiny property-test caches) pages enter NVM directly.
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

PADDINGS = ("buffer", "nvm", "none", "buffer_evict")
NVM_FREES = ("lifo", "lowest")
PAD_ORDERS = ("victim_first", "page")


MAX_BLOCK_PAGES = 1 << 16  # a padding block of 256 MiB; the I/O log must hold two of them per reference


@dataclasses.dataclass(frozen=True)
class ClockDNVParams:
    """Parameters of CLOCK-DNV (paper 3's description of Kang et al. 2017).

    Attributes
    ----------
    dram_pages, nvm_pages : int
        The tiers, 20% and 80% of ``capacity_pages`` unless both are given (paper 3, Table 3).
    block_pages : int
        Pages per flash block, the unit of block padding (Table 3: 64).
    padding : str
        ``"buffer"`` (default): an NVM eviction takes the victim's NVM block-mates with it and writes back its
        dirty DRAM block-mates (kept, clean); ``"buffer_evict"``: the DRAM block-mates leave the buffer too
        (dirty ones written; BPLRU evicts the whole block), and the next pages take their DRAM frames, lowest
        first; ``"nvm"``: NVM block-mates only; ``"none"``: no padding.
    clean_to_free_nvm : bool
        False (default, the paper's text: CLOCK-DNV "discards the pages whose dirty bit is not set" while making
        room in DRAM, "더티 비트가 설정되지 않은 페이지들을 폐기", Sec. II.2): clean DRAM victims are always
        dropped, even while NVM has free frames, so a cache larger than the footprint still misses. True: a clean
        victim takes a free NVM frame while there is one and is dropped only once NVM is full.
    write_miss_read : bool
        Whether a write miss first reads the page from flash (read-modify-write; default False). The kernel
        sees page references, not byte ranges, so True takes every write miss as a partial-page one.
    cache_reads : bool
        Whether a read miss is kept in the buffer (default True: paper 3 faults CLOCK-DNV for dropping clean
        DRAM pages "and so causing many swaps", which presumes it holds pages that were only read). False:
        the buffer holds written pages only (Kang et al. call CLOCK-DNV a write buffer): a read miss is read
        from flash for the host and not kept; reads of buffered pages still hit.
    insert_referenced : bool
        Whether the access that brings a page into the buffer sets its reference bit (default True: CLOCK's
        reference bit "tells that the page was accessed", Sec. II.2). False: it enters unreferenced.
    migrated_referenced : bool
        Whether a DRAM victim moved into NVM arrives with its reference bit set (default False: a move is not an
        access).
    nvm_free : str
        Which free NVM frame a page moving into NVM takes after block padding freed some: ``"lifo"`` (default)
        the one freed last, ``"lowest"`` the lowest numbered. The paper says nothing of free frames; the choice
        decides when the NVM hand next meets the page.
    pad_order : str
        The order of a padded block's writes in the I/O log (no count depends on it): ``"victim_first"``
        (default) the NVM victim, then the rest of its block in page order, either tier; ``"page"`` the block's
        pages in page order, the victim among them.
    incoming_first : bool
        The order of one reference's rows in the I/O log (no count depends on it). False (default, the paper's
        text: the DRAM policy "migrates the dirty pages to NVM, then allocates the new page", "이주한 후, 새로운
        페이지를 할당한다"): the victim's rows (NVM eviction, padding, migration or write-back) before the new
        page's read. True: the new page's read first.
    """

    dram_pages: int | None = C.tier(0.2, "DRAM pages (paper 3, Table 3: 20%)")
    nvm_pages: int | None = C.tier(0.8, "NVM pages (paper 3, Table 3: 80%)")
    block_pages: int = 64
    padding: str = "buffer"
    clean_to_free_nvm: bool = False
    write_miss_read: bool = False
    cache_reads: bool = True
    insert_referenced: bool = True
    migrated_referenced: bool = False
    nvm_free: str = "lifo"
    pad_order: str = "victim_first"
    incoming_first: bool = False

    def __post_init__(self):
        for name, allowed in (("padding", PADDINGS), ("nvm_free", NVM_FREES), ("pad_order", PAD_ORDERS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"clock_dnv: {name} must be one of {allowed}, got {getattr(self, name)!r}")
        if not 1 <= self.block_pages <= MAX_BLOCK_PAGES:
            raise ValueError(f"clock_dnv: block_pages must be 1 to {MAX_BLOCK_PAGES}, got {self.block_pages}")


class DNVRules(typing.NamedTuple):
    """:class:`ClockDNVParams` as the kernel reads them."""

    padding: int  # PAD_NONE, PAD_NVM, PAD_BUFFER or PAD_BUFFER_EVICT
    clean_to_free_nvm: bool
    write_miss_read: bool
    cache_reads: bool
    insert_ref: np.uint8  # reference bit of a page an access brings in (insert_referenced)
    migrated_ref: np.uint8  # reference bit of a DRAM victim moved into NVM (migrated_referenced)
    nvm_lowest: bool  # nvm_free="lowest"
    victim_late: bool  # pad_order="page" with padding: the NVM victim's row at its place in its block
    incoming_first: bool  # the new page's read before the victim's rows in the I/O log

    @classmethod
    def of(cls, p: ClockDNVParams) -> DNVRules:
        pad = PAD_CODES[p.padding]
        return cls(pad, p.clean_to_free_nvm, p.write_miss_read, p.cache_reads, np.uint8(p.insert_referenced),
                   np.uint8(p.migrated_referenced), p.nvm_free == "lowest", p.pad_order == "page" and pad != PAD_NONE,
                   p.incoming_first)


class DNVState(typing.NamedTuple):
    where: np.ndarray  # int32 per unit: its frame, -1 if not in the buffer
    funit: np.ndarray  # int32 per frame (DRAM 0..D-1, NVM D..D+N-1)
    dirty: np.ndarray  # uint8 per frame
    ref: np.ndarray  # uint8 per frame
    free: np.ndarray  # int32 stack of free NVM frames
    dfree: np.ndarray  # int32 stack of DRAM frames freed by padding="buffer_evict" (length 1 otherwise)
    ublock: np.ndarray  # int32 per unit: its flash block (dense)
    bstart: np.ndarray  # int32 per block + 1: the block's first unit (units are in page order)
    inbuf: np.ndarray  # uint64 words, one bit per unit: in the buffer (where >= 0); padding visits only these
    sc: np.recarray  # the scalars, hybrid.new_scalars (hybrid.SCALARS, then SCALARS), read as sc[0]
    rules: DNVRules  # the parameters as the hooks read them (the registers ``r`` of the driver's loop)


CLEAN_DROPS, BLOCK_EVICTIONS, PADDED_NVM, PADDED_DRAM = range(H.N_HYBRID, H.N_HYBRID + 4)
COUNTERS = C.BASE + H.TIER_COUNTERS + (
    C.Counter("clean_drops", None, "clean DRAM victims dropped (not moved to NVM)"),
    C.Counter("block_evictions", None, "NVM evictions (each takes its block's NVM pages with it when padding)"),
    C.Counter("padded_nvm_pages", None, "NVM pages evicted with a victim of their block"),
    C.Counter("padded_dram_pages", None, "dirty DRAM pages written back with an NVM victim of their block"),
)
PAD_NONE, PAD_NVM, PAD_BUFFER, PAD_BUFFER_EVICT = 0, 1, 2, 3
PAD_CODES = {"none": PAD_NONE, "nvm": PAD_NVM, "buffer": PAD_BUFFER, "buffer_evict": PAD_BUFFER_EVICT}
SCALARS = [  # the state's scalars after hybrid.SCALARS
    ("pad_pages", np.int64),  # pages of a block one eviction may write (0 without padding)
    ("n_dfree", np.int64),  # DRAM frames freed by padding="buffer_evict" (on the dfree stack)
    # this chunk's tallies by tier, added to the counters at its end (:func:`_tally`)
    ("hits_d", np.int64), ("hits_n", np.int64), ("writes_d", np.int64), ("write_hits_n", np.int64),
    ("fills", np.int64),
] + driver.SCALARS  # (used, frames: the driver's loop reads them; this policy places pages itself)


# The steps of placing a missed page (the hook _place, below). Each is a function of its own. LLVM inlines the small
# ones into the loop (its LLVM IR calls only the rare _lowest_freed and nvm_free_frame_lowest), and one that does not
# log is compiled once for both of the loop's specialisations (with and without the I/O log). Numba inlines _admit,
# too large for LLVM to inline, and the eviction of an NVM victim with its block's padding (_evict_nvm, _pad): as
# calls, once per NVM eviction, they cost the kernel 5-10% at 1% capacity (measured). The steps are compiled without
# reference counting (they allocate nothing) and take the arrays they change as arguments.
@jk.njit_no_refcount
def _lowest_freed(dfree, scs):
    """padding="buffer_evict": take the lowest of the DRAM frames padding freed (DRAM's fill order) off the
    ``dfree`` stack (``sc.n_dfree`` long). Returns it."""
    sc = scs[0]
    k = 0
    for j in range(1, sc.n_dfree):
        if dfree[j] < dfree[k]:
            k = j
    g = dfree[k]
    sc.n_dfree -= 1
    dfree[k] = dfree[sc.n_dfree]
    return g


@jk.njit_no_refcount
def _dram_hand(where, funit, ref, scs):
    """The DRAM clock's victim when DRAM is full: the first unreferenced page from the hand on, the bits it
    passes cleared. Changes ``ref`` of the frames passed and the hand (``sc.dhand``). Returns the frame."""
    sc = scs[0]
    D = sc.dcap
    h = sc.dhand
    while ref[h]:
        ref[h] = 0
        h += 1
        if h == D:
            h = 0
    g = h
    h += 1
    if h == D:
        h = 0
    sc.dhand = h
    # the next DRAM victim is likely the page under the hand: its entry in where, which it will update, fetched
    # now (with the NVM one in _nvm_hand, 1.2x at 1% capacity, measured)
    jk.prefetch(where, max(funit[h], 0))
    return g


@jk.njit_no_refcount
def _nvm_hand(where, funit, ref, ublock, scs):
    """The NVM clock's victim when NVM is full: the first unreferenced page from the hand on, the bits it passes
    cleared. Changes ``ref`` of the frames passed and the hand (``sc.nhand``). Returns the frame."""
    sc = scs[0]
    D, N = sc.dcap, sc.ncap
    h = sc.nhand
    while ref[D + h]:
        ref[D + h] = 0
        h += 1
        if h == N:
            h = 0
    t = D + h
    h += 1
    if h == N:
        h = 0
    sc.nhand = h
    nx = max(funit[D + h], 0)  # likely the next NVM victim: the entries its eviction reads, fetched now
    jk.prefetch(ublock, nx)
    jk.prefetch(where, nx)
    return t


@jk.njit_no_refcount
def _pad_nvm(where, funit, dirty, free, inbuf, scs, u, y, counters, log, nlog, do_log, at):
    """Block padding: unit u, an NVM block-mate of the NVM victim in frame y, leaves with it (written if dirty)
    and frees its frame. Changes ``where``, ``inbuf``, frame y and the free stack; counts. Returns ``nlog``."""
    sc = scs[0]
    counters[PADDED_NVM] += 1
    counters[C.EVICTIONS] += 1
    where[u] = -1
    jk.flat_remove(inbuf, u)
    funit[y] = -1
    if dirty[y]:
        dirty[y] = 0
        counters[C.DEV_WRITES_EVICT] += 1
        counters[C.DEV_WRITE_REQS] += 1
        counters[H.WB_N] += 1
        if do_log:
            nlog = C.row(log, nlog, at, C.IO_WRITE, C.EVICTION, u, 1, H.NVM)
    free[sc.nfree] = y
    sc.nfree += 1
    return nlog


@jk.njit_no_refcount
def _pad_dram(where, funit, dirty, dfree, inbuf, scs, u, y, evict, counters, log, nlog, do_log, at):
    """Block padding: unit u, a DRAM block-mate of the NVM victim in frame y, is written back if dirty (and
    stays, clean), or with ``evict`` (padding="buffer_evict") also leaves, freeing its DRAM frame. Changes
    frame y (``where``, ``inbuf`` and the ``dfree`` stack when it leaves); counts. Returns ``nlog``."""
    sc = scs[0]
    if dirty[y]:
        dirty[y] = 0
        counters[PADDED_DRAM] += 1
        counters[C.DEV_WRITES_EVICT] += 1
        counters[C.DEV_WRITE_REQS] += 1
        counters[H.WB_D] += 1
        if do_log:
            nlog = C.row(log, nlog, at, C.IO_WRITE, C.EVICTION, u, 1, H.DRAM)
    if evict:  # BPLRU evicts the whole block
        where[u] = -1
        jk.flat_remove(inbuf, u)
        funit[y] = -1
        counters[C.EVICTIONS] += 1
        dfree[sc.n_dfree] = y
        sc.n_dfree += 1
    return nlog


@njit(cache=True, inline="always")
def _pad(where, funit, dirty, free, dfree, inbuf, scs, lo, hi, v, vdirty, victim, counters, log, nlog, do_log, at,
         r):
    """BPLRU's block padding within the buffer, for the NVM victim v (``vdirty``: written) of the block of units
    [lo, hi): its NVM block-mates leave with it and, with padding="buffer" or "buffer_evict", its DRAM
    block-mates are written back (:func:`_pad_nvm`, :func:`_pad_dram`); page ``victim``, on its way from DRAM
    to NVM, is left alone. With pad_order="page" v's row comes at its place among them. Returns ``nlog``."""
    sc = scs[0]
    D = sc.dcap
    # The block's units in the buffer (and v), in page order: the set bits of inbuf over the block instead of
    # every unit of it (a 64-page block holds about one buffered page at 1% capacity: the scan of all of them
    # halved the kernel there, measured).
    for wd in range(lo >> 6, ((hi - 1) >> 6) + 1):
        m = jk.flat_word(inbuf, wd, lo, hi)
        while m != 0:
            u = (wd << 6) + jk.trailing_zeros(m)
            m &= m - jk.ONE
            y = where[u]
            if y < 0 or u == victim:  # the NVM victim itself, or on its way from DRAM
                if r.victim_late and u == v and vdirty and do_log:  # pad_order="page": its turn
                    nlog = C.row(log, nlog, at, C.IO_WRITE, C.EVICTION, v, 1, H.NVM)
            elif y >= D:
                nlog = _pad_nvm(where, funit, dirty, free, inbuf, scs, u, y, counters, log, nlog, do_log, at)
            elif r.padding >= PAD_BUFFER:
                nlog = _pad_dram(where, funit, dirty, dfree, inbuf, scs, u, y, r.padding == PAD_BUFFER_EVICT,
                                 counters, log, nlog, do_log, at)
    return nlog


@njit(cache=True, inline="always")
def _evict_nvm(where, funit, dirty, free, dfree, ublock, bstart, inbuf, scs, t, victim, counters, log, nlog, do_log,
               at, r):
    """The NVM victim in frame t leaves for flash, written if dirty, with its block's buffered pages as
    ``padding`` says (:func:`_pad`). Changes ``where`` and ``inbuf`` (and what padding changes); counts.
    Returns ``nlog``."""
    v = funit[t]
    where[v] = -1  # (its bit in inbuf is cleared after the padding, which visits it)
    counters[C.EVICTIONS] += 1
    counters[BLOCK_EVICTIONS] += 1
    vdirty = dirty[t]
    if vdirty:
        counters[C.DEV_WRITES_EVICT] += 1
        counters[C.DEV_WRITE_REQS] += 1
        counters[H.WB_N] += 1
        if do_log and not r.victim_late:
            nlog = C.row(log, nlog, at, C.IO_WRITE, C.EVICTION, v, 1, H.NVM)
    if r.padding != PAD_NONE:
        b = ublock[v]
        nlog = _pad(where, funit, dirty, free, dfree, inbuf, scs, bstart[b], bstart[b + 1], v, vdirty, victim,
                    counters, log, nlog, do_log, at, r)
    jk.flat_remove(inbuf, v)
    return nlog


@jk.njit_no_refcount
def _demote(where, funit, dirty, ref, inbuf, g, t, victim, mref, counters, log, nlog, do_log, at):
    """The DRAM victim, page ``victim`` of DRAM frame g, migrates to NVM frame t with reference bit ``mref``; with
    no NVM frame (t < 0) it leaves the buffer, a dirty one written, a clean one dropped. Changes ``where``, NVM
    frame t (or ``inbuf``); counts. Returns ``nlog``."""
    if t >= 0:
        funit[t] = victim
        where[victim] = t
        dirty[t] = dirty[g]
        ref[t] = mref
        counters[H.MIG_DN] += 1
        if do_log:
            nlog = C.row(log, nlog, at, C.IO_WRITE, C.MIGRATION, victim, 1, H.NVM)
        return nlog
    where[victim] = -1
    jk.flat_remove(inbuf, victim)
    counters[C.EVICTIONS] += 1
    if dirty[g]:
        counters[C.DEV_WRITES_EVICT] += 1
        counters[C.DEV_WRITE_REQS] += 1
        counters[H.WB_D] += 1
        if do_log:
            nlog = C.row(log, nlog, at, C.IO_WRITE, C.EVICTION, victim, 1, H.DRAM)
    else:
        counters[CLEAN_DROPS] += 1
    return nlog


@njit(cache=True, inline="always")
def _admit(where, funit, dirty, ref, free, dfree, ublock, bstart, inbuf, scs, p, w, read, counters, log, nlog,
           do_log, at, r):
    """Page p enters DRAM (NVM when there is none), after a miss (``read``: read from flash first) or a write
    miss. Its frame: one padding freed (buffer_evict), a never-used one, or the DRAM clock's victim's; a dirty
    victim (a clean one too while NVM has room, with clean_to_free_nvm) migrates to a free NVM frame or the
    NVM clock's victim's (:func:`_evict_nvm`), a clean one is dropped. p's read is logged before the victim's
    rows with ``incoming_first``, else after them. p enters referenced by ``insert_referenced``, dirty if
    written. Changes the state's arrays; counts. Returns ``nlog``."""
    sc = scs[0]
    D, N = sc.dcap, sc.ncap
    tier = H.DRAM if D > 0 else H.NVM
    if do_log and read and r.incoming_first:
        nlog = C.row(log, nlog, at, C.IO_READ, C.DEMAND, p, 1, tier)
    g = victim = t = -1
    if D > 0:
        if r.padding == PAD_BUFFER_EVICT and sc.n_dfree > 0:
            g = _lowest_freed(dfree, scs)
        elif sc.dused < D:
            g = sc.dused
            sc.dused += 1
        else:
            g = _dram_hand(where, funit, ref, scs)
            victim = funit[g]
    if N > 0 and (D == 0 or (victim >= 0 and (dirty[g] or (r.clean_to_free_nvm and H.nvm_room(scs))))):
        t = H.nvm_free_frame_lowest(free, scs) if r.nvm_lowest else H.nvm_free_frame(free, scs)
        if t < 0:
            t = _nvm_hand(where, funit, ref, ublock, scs)
            nlog = _evict_nvm(where, funit, dirty, free, dfree, ublock, bstart, inbuf, scs, t, victim, counters, log,
                              nlog, do_log, at, r)
    if victim >= 0:
        nlog = _demote(where, funit, dirty, ref, inbuf, g, t, victim, r.migrated_ref, counters, log, nlog, do_log,
                       at)
    if do_log and read and not r.incoming_first:
        nlog = C.row(log, nlog, at, C.IO_READ, C.DEMAND, p, 1, tier)
    if g < 0:  # no DRAM: p takes NVM frame t
        g = t
        counters[H.WRITES_N] += w
    else:
        counters[H.WRITES_D] += w
    funit[g] = p
    where[p] = g
    jk.flat_add(inbuf, p)
    ref[g] = r.insert_ref
    dirty[g] = w
    return nlog


@njit(cache=True, inline="always")
def rows_per_ref(pad_pages):
    """The most I/O log rows one reference makes: a read, a migration and a victim (3), and with padding
    (``pad_pages`` pages a block) its block's pages, each read and written."""
    return 3 + 2 * pad_pages


# The hooks the driver's loop (driver.page_loop) is composed with, besides driver.rules_begin and rules_end:
# ``r`` is the state's DNVRules.
@njit(cache=True, inline="always")
def _hit(st, r, f, w):
    """A hit in either tier sets the page's reference bit (and dirty bit); tallied by tier."""
    sc = st.sc[0]
    st.ref[f] = 1
    if f < sc.dcap:
        sc.hits_d += 1
        sc.writes_d += w
    else:
        sc.hits_n += 1
        sc.write_hits_n += w
    dirtied = 0
    if w:
        dirtied = 1 - st.dirty[f]
        st.dirty[f] = 1
    return r, dirtied


@njit(cache=True, inline="always")
def _place(st, r, p, w, read, counters, log, nlog, do_log, ref):
    """A miss is :func:`_admit`, except a read miss of a write buffer (``cache_reads=False``), read for the host
    and not kept."""
    if not w and not r.cache_reads:
        if do_log:
            nlog = C.row(log, nlog, ref, C.IO_READ, C.DEMAND, p, 1, H.DRAM if st.sc[0].dcap > 0 else H.NVM)
        return r, nlog
    st.sc[0].fills += read
    nlog = _admit(st.where, st.funit, st.dirty, st.ref, st.free, st.dfree, st.ublock, st.bstart, st.inbuf, st.sc, p,
                  w, read, counters, log, nlog, do_log, ref, r)
    return r, nlog


@njit(cache=True, inline="always")
def _rows(st):
    return rows_per_ref(st.sc[0].pad_pages)


@njit(cache=True, inline="always")
def _tally(st, r, counters):
    """The chunk's tallies by tier (migrations and write-backs are counted where they happen)."""
    sc = st.sc[0]
    H.add_tiers(counters, hits_d=sc.hits_d, hits_n=sc.hits_n, writes_d=sc.writes_d, writes_n=sc.write_hits_n,
                write_hits_n=sc.write_hits_n, fills=sc.fills, into_dram=sc.dcap > 0)
    sc.hits_d = sc.hits_n = sc.writes_d = sc.write_hits_n = sc.fills = 0


_dnv_step = driver.compose("clock_dnv", begin=driver.rules_begin, hit=_hit, end=driver.rules_end, lookup=H.lookup,
                           ahead=H.ahead, miss_reads=H.miss_reads, place=_place, rows=_rows, tally=_tally)
"""CLOCK-DNV (read as the state's rules say): the driver's loop with the hooks above. A hit sets the page's
reference bit (and dirty bit) in either tier (:func:`_hit`); a miss is placed by :func:`_place`."""


def blocks_of(units, block_pages: int) -> tuple[np.ndarray, np.ndarray]:
    """Each unit's flash block (dense ranks) and each block's first unit (units are pages in address order,
    so a block's units are consecutive)."""
    blk = units.pages(np.arange(units.n)) // block_pages
    first = np.r_[True, blk[1:] != blk[:-1]] if len(blk) else np.zeros(0, bool)
    ublock = np.cumsum(first) - 1
    bstart = np.r_[np.flatnonzero(first), len(blk)]
    return ublock.astype(np.int32), bstart.astype(np.int32)


@register("clock_dnv", ClockDNVParams)
class ClockDNV(Kernel):
    """CLOCK-DNV (Kang et al. 2017, as paper 3 describes it): DRAM and NVM clocks, block padding in the buffer."""

    caps = C.Caps(tiers=True, drops_with_room=True)
    counters = COUNTERS

    def new_state(self, units, tiers, params):
        if units.unit_pages != 1:
            raise ValueError("clock_dnv works on pages")
        D, N = H.tier_sizes(tiers, units.n)
        frames = D + N
        ublock, bstart = blocks_of(units, params.block_pages)
        sc = H.new_scalars(D, N, SCALARS)
        sc[0].pad_pages = params.block_pages if params.padding != "none" else 0
        sc[0].frames = frames
        return DNVState(np.full(units.n, -1, np.int32), np.full(frames, -1, np.int32), np.zeros(frames, np.uint8),
                        np.zeros(frames, np.uint8), np.zeros(max(N, 1), np.int32),
                        np.zeros(max(D, 1) if params.padding == "buffer_evict" else 1, np.int32), ublock, bstart,
                        np.zeros((units.n + 63) // 64, np.uint64), sc, DNVRules.of(params))

    def log_rows_per_ref(self, tiers, params):
        return rows_per_ref(params.block_pages if params.padding != "none" else 0)

    step_kernel = staticmethod(_dnv_step)

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        return H.finish_tiers(state, counters, log, nlog, do_log, flush_at_end, last_ref)
