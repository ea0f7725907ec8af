"""Paper 5 (Kim and Bahn 2016): an LRU buffer cache flushed every 5 s and at syncs (``lru_flush``), and the
same cache that evicts write-only-once blocks right after their write-back at a flush (``write_once``).

Both work on 4 KiB blocks (units) and declare ``Caps(flushes=True)``: they see the time of every
reference and the trace's sync and delete events.

* **Flush.** Dirty blocks are written back at every point of a fixed grid ``period_s, 2 period_s, ...``
  (Sec. II.2: "every 5 seconds"; Fig. 3 flushes at 5 s and 10 s), noticed at the first stream entry whose
  time reaches it, and at every sync event. ``sync_scope`` says what a sync writes: ``"file"`` the synced
  file's dirty blocks (``fsync``; a flush event of the whole device writes everything), ``"all"``
  everything, ``"none"`` nothing (syncs are ignored). A flush writes the dirty blocks oldest dirtying
  first, one device write each, and leaves them clean and resident. Periodic and sync write-backs are
  counted apart from eviction write-backs (:data:`~flashrepro.cache.contract.FLUSH_COUNTERS`).
* **Deletes** (``on_delete``): ``"keep"`` leaves the blocks of a deleted or truncated file where they
  are until LRU evicts them (Sec. I: the stale journal "remains in the buffer cache"); ``"drop"`` removes
  them at once, dirty ones without a write.
* **The eviction flag** (``write_once``, Sec. II.2, Fig. 4): a block is flagged while it has had exactly
  one write and no read since it entered the cache (the read miss that loaded it counts as a read). At a
  flush, a flagged block is written back and then evicted. A FIFO history of ``history_pages`` blocks
  remembers the blocks evicted this way; a block that re-enters and is found there does not get the
  flag for that stay. Open choices, each a parameter: ``history_all_written`` (the history also records
  every written block that LRU evicts), ``consume_history`` (a history entry is removed when its block
  re-enters; default: kept), ``history_pages=None`` (as many blocks as the cache holds). A block put
  into the history while already there moves to its newest end (this matters only with
  ``history_all_written``: otherwise a block enters the history only at its flush eviction, when it is not
  cached, and it cannot be flushed again before it re-enters).
* **Eviction at a sync** (``evict_at_sync``, default True). Sec. II.2 calls both the write-back at a sync
  and the 5 s one a flush ("반영"), and the flag marks a block "to delete at flush time", so by default a
  sync that writes a flagged block back evicts it too. With False a sync only writes back (as
  ``lru_flush`` does); the flagged blocks it cleaned stay, and leave at the next periodic flush or never,
  by ``evict_clean_flagged``. (Whether a sync writes back at all is ``sync_scope``, shared with
  ``lru_flush``; ``sync_scope="none"`` moves both at once.)
* **Clean flagged blocks** (``evict_clean_flagged``, default True: the flag, not the dirty bit, marks a
  block for eviction at a flush). A flagged block is clean only when a sync wrote it back without evicting
  it (``evict_at_sync=False``); with True an evicting flush (periodic, or a sync with ``evict_at_sync``)
  evicts those of its scope first, oldest write-back first, with no device write; with False they stay
  until LRU evicts them or a reference clears the flag. With ``evict_at_sync=True`` no flagged block is ever
  clean, so this switch changes nothing there.
* **Write misses** (``write_miss_read``): by default a write miss allocates its block without reading
  flash, as for a write that covers the whole 4 KiB block (the paper's traces are references to whole
  blocks, Sec. III, and Table 1's time charges flash reads to read misses). With ``write_miss_read=True``
  every write miss first reads the block (a read-modify-write, what a page cache does for a write that
  covers part of a block): one more device read (cause ``DEMAND``), counted in ``device_reads`` and
  ``write_miss_reads``. The read is the device's, not the application's: it changes neither the LRU order
  nor the eviction flag. The stream carries whole units, not byte ranges, so the kernel cannot tell a
  partial write from a whole one; :func:`flashrepro.papers.write_once.experiments.partial_write_misses`
  counts, from the per-reference outcome, the write misses of writes that do not cover their block.

With ``period_s=0``, ``sync_scope="none"`` and ``history_pages=0`` both equal ``lru`` reference by
reference (``tests/test_write_once.py``).
"""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
from numba import njit

from .. import jitkit as jk
from ..traces.trace import Event
from . import contract as C
from . import driver
from .registry import Kernel, register

SCOPE_FILE, SCOPE_ALL, SCOPE_NONE = 0, 1, 2  # what a sync writes back
SCOPES = {"file": SCOPE_FILE, "all": SCOPE_ALL, "none": SCOPE_NONE}
DELETE_KEEP, DELETE_DROP = 0, 1
ON_DELETE = {"keep": DELETE_KEEP, "drop": DELETE_DROP}
ALL_FILES = np.int64(-1)  # a flush's file: every file


@dataclasses.dataclass(frozen=True)
class LRUFlushParams:
    """period_s: seconds between periodic flushes (0: none); sync_scope: "file" | "all" | "none";
    on_delete: "keep" | "drop"; write_miss_read: a write miss reads its block from flash first (False: the
    write allocates the block without a read)."""

    period_s: float = 5.0
    sync_scope: str = "file"
    on_delete: str = "keep"
    write_miss_read: bool = False


@dataclasses.dataclass(frozen=True)
class WriteOnceParams(LRUFlushParams):
    """LRU-flush parameters plus the history: history_pages (None: the cache's capacity; 0: no history),
    history_all_written, consume_history; and when flagged blocks leave: evict_at_sync (a sync's write-back
    evicts the flagged blocks it writes; False: only the periodic flush evicts), evict_clean_flagged (an
    evicting flush also evicts flagged blocks an earlier non-evicting sync cleaned)."""

    history_pages: int | None = None
    history_all_written: bool = False
    consume_history: bool = False
    evict_at_sync: bool = True
    evict_clean_flagged: bool = True


class FlushRules(typing.NamedTuple):
    """The parameters as the kernel reads them."""

    period: float  # period_s (0: no periodic flush)
    scope: int  # sync_scope: SCOPE_FILE, SCOPE_ALL or SCOPE_NONE
    on_delete: int  # DELETE_KEEP or DELETE_DROP
    write_once: bool  # write_once (else lru_flush)
    hist_all: bool  # history_all_written (write_once only)
    consume: bool  # consume_history (write_once only)
    write_miss_read: bool  # write_miss_read
    sync_evict: bool  # a sync's write-back evicts the flagged blocks it writes (evict_at_sync)
    track: bool  # clean flagged blocks are kept on their list for a later evicting flush (track_clean)


class FlushState(typing.NamedTuple):
    page_frame: np.ndarray  # int32 per unit: the frame holding it, -1 if not cached
    node: np.ndarray  # a row of W int32 per frame (jitkit records, sentinel row = frames): see the slots below
    hpos: np.ndarray  # int32 per unit: its entry's place in hq while it is in the history, else -1
    hq: np.ndarray  # int32: the history FIFO's entries hq[hhead:htail], oldest first (units; see _remember)
    file: np.ndarray  # int32 per unit (-1: none)
    free: np.ndarray  # int32 stack of frames a flush eviction or a delete emptied
    sc: np.recarray  # the scalars: driver.SCALARS (used, frames) and SCALARS; hooks read ``st.sc[0]``
    rules: FlushRules  # the parameters as the hooks read them (the registers ``r`` of the driver's loop)


SCALARS = [
    ("hist", np.int64),  # units in the history FIFO
    ("hcap", np.int64),  # the history's capacity in units (history_pages; 0: no history)
    ("n_free", np.int64),  # frames on the stack ``free``
    ("fresh", np.int64),  # the first frame never used
    ("hhead", np.int64),  # the history's entries are hq[hhead:htail], oldest first
    ("htail", np.int64),
    ("next_flush", np.float64),  # the next periodic flush's time, in seconds (a grid point of period_s)
    ("hist_hits", np.int64),  # history hits in this chunk (counted at its end)
]
F_READ, F_W1, F_W2, F_NOFLAG = 1, 2, 4, 8
FLAG_MASK = F_READ | F_W1 | F_W2 | F_NOFLAG
# A frame's row: its links on the LRU list (most recent at the front), on the dirty list (most recently dirtied
# at the front; on it = dirty) and on the list of clean flagged blocks (newest write-back at the front; used only
# when they are kept, see track_clean), its flags and its block. The lists link frames, not blocks: a move
# touches one 32-byte row, and the one random access per reference, page_frame[p], is prefetched ahead.
LRU, DIRTY, CLEAN, FLAGS, PAGE = 0, 2, 4, 6, 7
W = 8

# counter slots after BASE
PERIODIC_W, SYNC_W, FLUSHES, SYNCS = range(C.N_BASE, C.N_BASE + 4)
DELETES, DELETED, DELETED_DIRTY, WM_READS, FLUSH_EVICT, HIST_HITS = range(C.N_BASE + 4, C.N_BASE + 10)

FLUSH_BASE = C.BASE + C.FLUSH_COUNTERS + (
    C.Counter("deletes", None, "delete (or truncate) events seen"),
    C.Counter("deleted_pages", None, "resident pages a delete removed (on_delete='drop')"),
    C.Counter("deleted_dirty", None, "dirty pages a delete removed without a write (on_delete='drop')"),
    C.Counter("write_miss_reads", None, "device reads of write misses (write_miss_read=True), in device_reads"),
)
WRITE_ONCE_COUNTERS = FLUSH_BASE + (
    C.Counter("flush_evictions", None, "flagged pages evicted at a flush: right after their write-back, or "
              "clean (evict_clean_flagged after a sync that did not evict)"),
    C.Counter("history_hits", None, "pages that entered the cache while in the history (no flag)"),
)


def new_state(units, capacity: int, history_pages: int, rules: FlushRules) -> FlushState:
    n = units.n
    frames = min(capacity, n)  # a cache larger than the footprint never fills
    file = units.file if units.file is not None else np.full(n, -1, np.int32)
    scs = driver.new_scalars(frames, SCALARS)
    scs[0].hcap = history_pages
    node = jk.rec_new(frames, W, (LRU, DIRTY, CLEAN))
    node[W * np.arange(frames) + FLAGS] = 0
    hq = np.zeros(2 * min(max(history_pages, 0), n) + 2, np.int32)  # room for the live entries and as many stale
    return FlushState(np.full(n, -1, np.int32), node, np.full(n, -1, np.int32), hq,
                      np.ascontiguousarray(file, np.int32), np.zeros(frames, np.int32), scs, rules)


@njit(cache=True, inline="always")
def _on(node, x, L):
    """Whether frame x is on list L."""
    return node[W * x + L] >= 0


# The history FIFO is an array of entries in the order they were made, hq[hhead:htail] (the scalars' fields), and each
# unit's entry's place, hpos: a unit is in the history when hpos >= 0, and its entry is the one at hpos. Moving a unit
# to the newest end appends a new entry, and a unit that leaves (re-entering the cache with consume_history) just gets
# hpos -1: the entries it leaves behind are stale and are skipped when the oldest is dropped, or removed when the
# array is full. So no operation follows links between random units: the oldest live entry is the first one from hhead
# whose unit still points at it (a list over units cost write_once 3x at 1% capacity, measured).
@njit(cache=True)
def _compact(hpos, hq, scs):
    """Close up the live entries at the start of hq, dropping the stale ones."""
    sc = scs[0]
    k = 0
    for j in range(sc.hhead, sc.htail):
        y = hq[j]
        if hpos[y] == j:
            hq[k] = y
            hpos[y] = k
            k += 1
    sc.hhead, sc.htail = 0, k


@njit(cache=True, inline="always")
def _remember(hpos, hq, scs, x):
    """Put unit ``x`` at the newest end of the history FIFO (moving it if there), dropping the oldest past the cap."""
    sc = scs[0]
    if sc.hcap <= 0:
        return
    if hpos[x] < 0:
        sc.hist += 1
    if sc.htail == hq.shape[0]:  # at most hcap entries are live here: closing up frees at least half of hq
        _compact(hpos, hq, scs)
    t = sc.htail
    hq[t] = x
    hpos[x] = t
    sc.htail = t + 1
    if sc.hist > sc.hcap:  # drop the oldest unit still in the history
        h = sc.hhead
        while hpos[hq[h]] != h:
            h += 1
        hpos[hq[h]] = -1
        sc.hhead = h + 1
        sc.hist -= 1


@njit(cache=True, inline="always")
def _release(page_frame, node, free, scs, x):
    """Frame x leaves the LRU list and the cache, empty (its block is no longer cached): it goes on the free
    stack (the driver's loop learns of it from ``n_free``: :func:`_entry`). Changes ``page_frame``, frame x's
    row, ``free`` and the scalar ``n_free``."""
    sc = scs[0]
    jk.rec_unlink(node, W, x, LRU)
    page_frame[node[W * x + PAGE]] = -1
    node[W * x + FLAGS] = 0
    free[sc.n_free] = x
    sc.n_free += 1


# A flush (_flush), the periodic ones (_periodic) and an event (_on_event): functions of their own, called from the
# entry hook (_entry) when a flush is due or an entry is an event, not inlined into the loop. They take the arrays
# they change as arguments and, like the loop, are compiled without reference counting (they allocate nothing).
@jk.njit_no_refcount
def _flush(page_frame, node, hpos, hq, file, free, scs, counters, log, nlog, do_log, ref, only_file, cause, write_once,
           evict, track):
    """Write back the dirty units (of ``only_file``; all when it is < 0), oldest dirtying first. With ``write_once``
    and ``evict`` the flagged ones are evicted after their write, and (``track``) the clean flagged ones of
    the scope before them, oldest write-back first; with ``write_once``, ``track`` and not ``evict`` the flagged ones
    written back join the clean flagged list. Changes the frames' rows and lists, the cache (evictions) and the
    history; counts the writes. Returns ``nlog``."""
    S = free.shape[0]  # the sentinel row
    k = 0
    gone = 0
    if evict and track:
        x = jk.rec_back(node, W, S, CLEAN)
        while x != S:
            before = jk.rec_prev(node, W, x, CLEAN)
            u = node[W * x + PAGE]
            if only_file < 0 or file[u] == only_file:
                jk.rec_unlink(node, W, x, CLEAN)
                _release(page_frame, node, free, scs, x)
                gone += 1
                _remember(hpos, hq, scs, u)
            x = before
    x = jk.rec_back(node, W, S, DIRTY)
    while x != S:
        before = jk.rec_prev(node, W, x, DIRTY)
        u = node[W * x + PAGE]
        if only_file < 0 or file[u] == only_file:
            jk.rec_unlink(node, W, x, DIRTY)
            k += 1
            if do_log:
                nlog = C.row(log, nlog, ref, C.IO_WRITE, cause, u, 1, 0)
            if write_once and (node[W * x + FLAGS] & FLAG_MASK) == F_W1:
                if evict:
                    _release(page_frame, node, free, scs, x)
                    gone += 1
                    _remember(hpos, hq, scs, u)
                elif track:
                    jk.rec_push_front(node, W, S, x, CLEAN)
        x = before
    counters[PERIODIC_W if cause == C.PERIODIC_FLUSH else SYNC_W] += k
    counters[C.DEV_WRITE_REQS] += k
    counters[FLUSH_EVICT] += gone
    return nlog


@jk.njit_no_refcount
def _periodic(page_frame, node, hpos, hq, file, free, scs, t, counters, log, nlog, do_log, ref, r):
    """The periodic flushes of every grid point ``next_flush, next_flush + period_s, ...`` that time t has
    reached, those with nothing dirty included (evicting flagged blocks with write_once). Moves the scalar
    ``next_flush`` past t; what :func:`_flush` changes. Returns ``nlog``."""
    sc = scs[0]
    while t >= sc.next_flush:
        nlog = _flush(page_frame, node, hpos, hq, file, free, scs, counters, log, nlog, do_log, ref, ALL_FILES,
                      C.PERIODIC_FLUSH, r.write_once, r.write_once, r.track)
        counters[FLUSHES] += 1
        sc.next_flush += r.period
    return nlog


@jk.njit_no_refcount
def _on_event(page_frame, node, hpos, hq, file, free, scs, e, first, count, sync_file, counters, log, nlog, do_log,
              ref, r):
    """A trace event ``e``. DELETE of units [first, first + count): with on_delete="drop" their cached blocks
    leave at once, dirty ones without a write. SYNC_FILE (of ``sync_file``) or SYNC_ALL: a flush of the sync's
    scope (``sync_scope``; none with "none"), evicting flagged blocks with write_once and ``evict_at_sync``.
    Changes what the delete or the flush changes; counts. Returns ``nlog``."""
    if e == Event.DELETE:
        counters[DELETES] += 1
        if r.on_delete != DELETE_DROP:
            return nlog
        for u in range(first, first + count):
            x = page_frame[u]
            if x >= 0:
                counters[DELETED] += 1
                if r.track and _on(node, x, CLEAN):
                    jk.rec_unlink(node, W, x, CLEAN)
                if _on(node, x, DIRTY):
                    jk.rec_unlink(node, W, x, DIRTY)
                    counters[DELETED_DIRTY] += 1
                _release(page_frame, node, free, scs, x)
        return nlog
    counters[SYNCS] += 1
    if r.scope == SCOPE_NONE:
        return nlog
    only = np.int64(sync_file) if (e == Event.SYNC_FILE and r.scope == SCOPE_FILE) else ALL_FILES
    return _flush(page_frame, node, hpos, hq, file, free, scs, counters, log, nlog, do_log, ref, only, C.SYNC_FLUSH,
                  r.write_once, r.write_once and r.sync_evict, r.track)


# The hooks the driver's loop (driver.page_loop) is composed with, besides driver.rules_begin and rules_end:
# ``r`` is the state's FlushRules.
@njit(cache=True, inline="always")
def _entry(st, r, refs, i, counters, log, nlog, do_log, ref):
    """Before entry i: the periodic flushes its time has reached (:func:`_periodic`), then, if it is an event, the
    event (:func:`_on_event`), which is no reference. Returns ``(r, nlog, skip, the frames they emptied)``."""
    page_frame, node, hpos, hq, file, free, scs = st.page_frame, st.node, st.hpos, st.hq, st.file, st.free, st.sc
    n_free = scs[0].n_free
    t = refs.time_s[i]
    if r.period > 0.0 and t >= scs[0].next_flush:
        nlog = _periodic(page_frame, node, hpos, hq, file, free, scs, t, counters, log, nlog, do_log, ref, r)
    e = refs.event[i]
    skip = e >= Event.SYNC_FILE
    if skip:
        nlog = _on_event(page_frame, node, hpos, hq, file, free, scs, e, refs.unit[i], refs.count[i], refs.file[i],
                         counters, log, nlog, do_log, ref, r)
    return r, nlog, skip, scs[0].n_free - n_free


@njit(cache=True, inline="always")
def _ahead(st, p):
    """Prefetch hints for page p's entries (p < 0: an event's)."""
    q = max(p, 0)
    jk.prefetch(st.page_frame, q)
    if st.rules.write_once:
        jk.prefetch(st.hpos, q)  # read if it misses


NEAR_FRAMES = 1 << 15  # frames (32-byte rows) past which _near hints rows: 1 MiB of them, a core's L2 here


@njit(cache=True, inline="always")
def _near(st, p):
    """Page p is near (driver.near): the row of its frame, if it is cached (its page_frame entry was fetched by
    :func:`_ahead`); a hit reads and writes it. Only where the rows outgrow a core's L2 (:data:`NEAR_FRAMES`):
    on the bench stream write_once ran 1.14x faster at 100,000 frames with the hint, 0.89x at 10,000 (medians of
    12 interleaved runs), where the rows stay in L2 and the hint is only work."""
    if st.free.shape[0] > NEAR_FRAMES:
        f = np.int64(jk.load(st.page_frame, max(p, 0)))
        jk.prefetch(st.node, W * max(f, 0))  # no branch on whether it is cached (row 0 if not): it would mispredict


@njit(cache=True, inline="always")
def _hit(st, r, f, w):
    """A hit on frame f: it leaves the clean flagged list (any reference clears the flag) and moves to the front of
    the LRU list, and of the dirty list when it dirties its block; with write_once its flags record the read, or
    the first or a later write. Returns ``(r, dirtied)``."""
    node = st.node
    S = st.free.shape[0]  # the sentinel row
    jk.rec_unlink(node, W, f, LRU)
    if r.track and _on(node, f, CLEAN):
        jk.rec_unlink(node, W, f, CLEAN)
    if r.write_once:
        fl = node[W * f + FLAGS]
        if w:
            node[W * f + FLAGS] = fl | (F_W2 if fl & F_W1 else F_W1)
        else:
            node[W * f + FLAGS] = fl | F_READ
    jk.rec_push_front(node, W, S, f, LRU)
    if w and not _on(node, f, DIRTY):
        jk.rec_push_front(node, W, S, f, DIRTY)
        return r, 1
    return r, 0


@njit(cache=True, inline="always")
def _victim(st, r):
    """The cache is full: the least recently used block's frame leaves the LRU list, the dirty list (the loop writes
    a dirty block back) and the clean flagged list; with write_once and history_all_written a written block is
    remembered in the history. Returns ``(r, frame, its unit, dirty)``."""
    node = st.node
    f = jk.rec_back(node, W, st.free.shape[0], LRU)
    jk.rec_unlink(node, W, f, LRU)
    v = node[W * f + PAGE]
    dirty = _on(node, f, DIRTY)
    if dirty:
        jk.rec_unlink(node, W, f, DIRTY)
    if r.write_once and r.hist_all and node[W * f + FLAGS] & (F_W1 | F_W2):
        _remember(st.hpos, st.hq, st.sc, v)
    if r.track and _on(node, f, CLEAN):
        jk.rec_unlink(node, W, f, CLEAN)
    return r, np.int64(f), np.int64(v), np.uint8(dirty)


@njit(cache=True, inline="always")
def _fresh(st, used):
    """A frame a flush or a delete emptied, else the first one never used."""
    sc = st.sc[0]
    if sc.n_free > 0:
        sc.n_free -= 1
        return np.int64(st.free[sc.n_free])
    f = sc.fresh
    sc.fresh += 1
    return f


@njit(cache=True, inline="always")
def _admit(st, r, f, p, w):
    """Page p enters frame f at the front of the LRU list (and of the dirty list if w). With write_once it is
    flagged by this access (written once, or read) unless it is in the history: then it gets no flag for this
    stay (a history hit, counted at the chunk's end), and with consume_history it leaves the history."""
    node, hpos, sc = st.node, st.hpos, st.sc[0]
    S = st.free.shape[0]
    node[W * f + PAGE] = p
    fl = 0
    if r.write_once:
        fl = F_W1 if w else F_READ
        if hpos[p] >= 0:
            fl |= F_NOFLAG
            sc.hist_hits += 1
            if r.consume:  # it leaves the history (its entry goes stale)
                hpos[p] = -1
                sc.hist -= 1
    node[W * f + FLAGS] = fl
    jk.rec_push_front(node, W, S, f, LRU)
    if w:
        jk.rec_push_front(node, W, S, f, DIRTY)
    return r


@njit(cache=True, inline="always")
def _miss_reads(st, r, w, counters):
    """A read miss reads its block; a write miss too with write_miss_read (counted apart)."""
    if w and not r.write_miss_read:
        return 0
    counters[WM_READS] += w
    return 1


@njit(cache=True, inline="always")
def _rows(st):
    """A flush may write every cached page, then a read and an eviction write."""
    return st.sc[0].frames + 2


@njit(cache=True, inline="always")
def _tally(st, r, counters):
    sc = st.sc[0]
    if r.write_once:
        counters[HIST_HITS] += sc.hist_hits
    sc.hist_hits = 0


_step = driver.compose("lru_flush", begin=driver.rules_begin, hit=_hit, victim=_victim, admit=_admit,
                       end=driver.rules_end, entry=_entry, ahead=_ahead, near=_near, fresh=_fresh,
                       miss_reads=_miss_reads, rows=_rows, tally=_tally)
"""lru_flush and write_once (``r.write_once``): the driver's loop with the hooks above. Each entry first runs the
periodic flushes its time has reached and, for an event, the event (:func:`_entry`); a reference hits
(:func:`_hit`) or brings its block in (:func:`_fresh` while the cache has room, else :func:`_victim`; then
:func:`_admit`)."""


@njit(cache=True)
def _order(state):
    """Resident units least recently used first, and their dirty flags (the order an end flush writes)."""
    node = state.node
    frames = jk.rec_back_to_front(node, W, state.free.shape[0], LRU, state.sc[0].used)
    order = np.empty(frames.shape[0], np.int64)
    dirty = np.empty(frames.shape[0], np.uint8)
    for k in range(frames.shape[0]):
        order[k] = node[W * frames[k] + PAGE]
        dirty[k] = _on(node, frames[k], DIRTY)
    return order, dirty


def _codes(params) -> tuple[int, int]:
    if params.sync_scope not in SCOPES:
        raise ValueError(f"sync_scope must be one of {', '.join(SCOPES)}, got {params.sync_scope!r}")
    if params.on_delete not in ON_DELETE:
        raise ValueError(f"on_delete must be one of {', '.join(ON_DELETE)}, got {params.on_delete!r}")
    if params.period_s < 0 or not np.isfinite(params.period_s):
        raise ValueError(f"period_s must be a finite number >= 0, got {params.period_s}")
    return SCOPES[params.sync_scope], ON_DELETE[params.on_delete]


class _FlushKernel(Kernel):
    caps = C.Caps(flushes=True, evicts_without_miss=True)
    write_once = False

    def history_pages(self, tiers, params) -> int:
        return 0

    def track_clean(self, params) -> bool:
        """Whether the run keeps clean flagged blocks to evict later: only when a sync writes flagged blocks
        back without evicting them and a later flush evicts them."""
        return False

    def new_state(self, units, tiers, params):
        state = new_state(units, tiers["capacity_pages"], self.history_pages(tiers, params), self.flush_rules(params))
        state.sc[0].next_flush = params.period_s
        return state

    def log_rows_per_ref(self, tiers, params):
        # A flush may write every cached page; the kernel checks min(capacity, footprint) + 2 rows itself and
        # the driver doubles the log until they fit, so a huge capacity never sizes the first log.
        return min(tiers["capacity_pages"], 1 << 16) + 2

    step_kernel = staticmethod(_step)

    def flush_rules(self, params) -> FlushRules:
        """The parameters as the hooks read them (the state keeps them)."""
        scope, on_delete = _codes(params)
        once = self.write_once
        return FlushRules(float(params.period_s), scope, on_delete, once, once and params.history_all_written,
                          once and params.consume_history, bool(params.write_miss_read),
                          bool(not once or params.evict_at_sync), self.track_clean(params))

    def resident(self, state):
        return _order(state)

    def describe(self, state, units) -> dict:
        """Per unit (by original page): resident, dirty, flagged, in history (for timelines and tests)."""
        node = state.node
        out = {}
        for u in range(state.page_frame.shape[0]):
            page = int(units.pages(np.array([u]))[0])
            x = int(state.page_frame[u])
            out[page] = {"resident": x >= 0,
                         "dirty": bool(x >= 0 and node[W * x + DIRTY] >= 0),
                         "flag": bool(self.write_once and x >= 0 and (node[W * x + FLAGS] & FLAG_MASK) == F_W1),
                         "in_history": bool(state.hpos[u] >= 0)}
        return out


@register("lru_flush", LRUFlushParams)
class LRUFlush(_FlushKernel):
    """LRU over 4 KiB blocks, dirty blocks written back every period_s seconds and at syncs (paper 5's baseline)."""

    counters = FLUSH_BASE


@register("write_once", WriteOnceParams)
class WriteOnce(_FlushKernel):
    """LRU with flushes that also evicts blocks written once and never read since they entered, after their
    write-back at a flush; a FIFO history keeps such blocks from being flagged again (Kim and Bahn 2016)."""

    counters = WRITE_ONCE_COUNTERS
    write_once = True

    def track_clean(self, params) -> bool:
        return bool(params.evict_clean_flagged and not params.evict_at_sync)

    def history_pages(self, tiers, params) -> int:
        h = params.history_pages
        if h is None:
            return int(tiers["capacity_pages"])
        if h < 0:
            raise ValueError(f"history_pages must be >= 0 or None, got {h}")
        return int(h)
