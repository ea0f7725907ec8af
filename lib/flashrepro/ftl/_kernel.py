"""The page-mapped FTL kernel: the mechanism of host writes and line-based garbage collection.

Everything here takes arrays and scalars only: one simulated SSD is an :class:`FTLState`, a
``NamedTuple`` of NumPy arrays that :class:`flashrepro.ftl.FTL` owns, and :func:`write_chunk` advances
it by a chunk of host writes, so a stream of any length is processed in pieces. *Which* line GC takes
is not decided here: the victim rule is a compiled function passed in (a Numba first-class function
with signature :data:`VICTIM_SIG`), one per file in :mod:`flashrepro.ftl.victims`.

Notes
-----
**Layout.** A physical page is ``line * P + offset``. ``p2l[ppn]`` is the logical page last written
there; it is valid iff ``l2p[p2l[ppn]] == ppn`` (nothing is cleared on overwrite, so a host write
touches one random cache line, ``l2p[lpn]``). Each line has a *kind*, the frontier it was opened for:
0 = normal (2R++ bits 00, host writes), 1 = normal second chance (01), 2 = cold (10). GC copies a
victim's valid pages to the frontier ``copy_dest[kind]``.

**What the mechanism keeps for every victim rule.**

* ``fifo``: the closed lines in close order (write completion), oldest at the front.
* ``buckets``: the closed lines by valid count ``v`` (list ``L + v``), each bucket in the order its
  lines took that count (``entered[line]``, a stamp from the event counter ``sc[TICK]``, set when the
  line closes and whenever a host write takes a page from it); ``sc[BMIN]`` is a lower bound on the
  smallest non-empty bucket. Moving a line between buckets on every host write costs a third of the
  host path's time, so the lists follow each change only when the victim rule reads them
  (``prm[EAGER_BUCKETS]``, from the rule's registration); otherwise only the stamps do, and
  :func:`rebuild_buckets` restores the lists from ``(valid, entered)`` at the end of every
  :func:`write_chunk` (and whenever a rule calls it). Either way the lists are exact whenever
  anything reads them.
* ``cands[:sc[N_CANDS]]``: the *candidates*, closed lines with at least one invalid page (FEMU's victim
  queue; fully valid lines sit apart), as an array set: a line is appended when it closes with an
  invalid page or when a closed full line loses its first page, and removed by moving the last one
  into its slot. Uniform sampling is ``cands[r % n]``.
* ``close_seq`` (close number) and ``close_time`` (the host-write clock ``sc[CLOCK]`` when the line
  closed: host writes since the device was created, never reset).
* ``sc[CURSOR]``: the closed line after the last victim in close order, where 2R's scan resumes: the
  FIFO sentinel ``L`` (the head) if the victim was the newest closed line, or with ``prm[CURSOR_RESUME]``
  -1 until the next line closes, which then becomes the cursor.
* ``heap[1:sc[HEAP_SIZE] + 1]``: with ``prm[HEAP]`` (a rule registered ``reads_heap``), FEMU's victim
  priority queue (``victim_line_pq``, ``hw/femu/lib/pqueue.c``): a binary min-heap on valid counts of
  the candidates, ``hpos[line]`` a line's slot (0 = not in it), with pqueue's exact moves (a line is
  inserted when it closes with an invalid page or when a closed full line loses its first page, bubbles
  up whenever it loses a page, and leaves by pqueue's pop), so ties fall as they do in FEMU.
  ``prm[HEAP] == HEAP_STALE`` is FEMU before its commit fe007e336 (2021-10-04): a line that loses a page
  keeps its slot (its count drops in place), so the root need not be the least valid line.

**Garbage collection.** A *GC pass* asks the victim rule for a first victim, then, until the stop rule
holds ("one" victim, the victims' valid pages exceed a line, their invalid pages reach a line, or
``max_victims``), for follow-up victims. Each victim is taken off every structure (*detached*), its
valid pages are copied, and it is erased and queued as free. With ``prm[SELECT_UPFRONT]`` (paper 4's
reading: "희생 블록을 여러 개 선정한 후 ... 병합", victims are all chosen, then copied) every victim of
the pass is detached before the first copy, so lines the copies close cannot change the choice;
otherwise (*interleaved*) each follow-up is chosen after the previous victim was copied and erased.
Passes are triggered by up to three rules (``prm``, from :class:`flashrepro.ftl.GCTrigger`):

* *reserve*: when the host frontier needs a new line and free lines <= ``RESERVE``, passes run until
  free lines > ``RESERVE`` (paper 4's runs: 1);
* *forced*: before each host write, passes run while free lines <= ``FORCED`` (FEMU's
  ``should_gc_high``; -1 = off);
* *background*: after each host write, if free lines <= ``BACKGROUND``, one pass that takes its first
  victim only if the victim has at least ``BG_MIN_INVALID`` invalid pages, and otherwise does nothing
  and counts a skip (FEMU's ``should_gc`` and ``select_victim_line(force=false)``; -1 = off).

A victim with ``v`` valid pages opens at most one copy line and frees one, so GC never needs more than
one free line at a time; the Python wrapper refuses triggers that keep none free.

**The host's write pointer.** With ``prm[HOST_EAGER]`` the host frontier takes its next line as soon as
its line fills, by a host write (after the reserve rule's GC) or by GC copies that share it (if a line
is free then): FEMU's ``ssd_advance_write_pointer`` and Fig. 7's GET_NEW_BLOCK(), so FEMU's thresholds
count that line as taken. Otherwise (*lazy*) the next host write takes it, the reserve rule's GC running
before that write invalidates its page's old copy.

References
----------
.. [1] FEMU, the QEMU-based flash emulator, blackbox SSD FTL: ``hw/femu/bbssd/ftl.c`` and
   ``ftl-line-gc.c`` in https://github.com/MoatLab/FEMU (Li et al., "The CASE of FEMU", FAST 2018).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba import njit, types

from .. import jitkit as jk
from ..jitkit import prefetch

PREFETCH = 16

# line status
FREE, OPEN, CLOSED = 0, 1, 2
N_KINDS = 3  # normal (2R++ bits 00), normal second chance (01), cold (10)
COLD = 2

# prm (int64 parameters)
(P_PAGES, P_LINES, LIMIT, RECENT, STOP, MAX_VICTIMS, RESERVE, FORCED, BACKGROUND, BG_MIN_INVALID,
 D_CHOICES, EAGER_BUCKETS, DIV_MAGIC, DIV_SHIFT, FALLBACK, STABLE_SKIP, SELECT_UPFRONT, HOST_EAGER, CURSOR_RESUME,
 HEAP) = range(20)
N_PRM = 20
STOP_VALID, STOP_INVALID, STOP_ONE = 0, 1, 2  # more than a line of valid / a line of invalid / one victim

# sc (int64 scalar state kept between chunks)
FREE_HEAD, FREE_COUNT, SEQ, CURSOR, BMIN, N_CLOSED, NLOG_V, CLOCK, N_CANDS, REGION, TICK = range(11)
FRONT_LINE = 11  # 11, 12, 13: open line per kind (-1 = none)
FRONT_OFF = 14  # 14, 15, 16
PICK_NOTE = 17  # set by a victim rule: how it chose the last first victim (0 = its rule, else FALLBACKS/GLOBAL)
N_BG_OK = 18  # closed lines with at least max(1, BG_MIN_INVALID) invalid pages (kept only with background GC)
BG_GEN = 19  # events that can change a stable rule's background choice: closes, erases, lines reaching N_BG_OK
BG_SKIP_GEN = 20  # BG_GEN at the last skipped background pass (-1: none)
HEAP_SIZE = 21  # lines in the victim heap (prm[HEAP])
N_SC = 22
CURSOR_PENDING = -1  # sc[CURSOR]: the next line to close (prm[CURSOR_RESUME], after the newest line was a victim)
HEAP_KEPT, HEAP_STALE = 1, 2  # prm[HEAP]: FEMU's heap moved on every lost page, or (before Oct 2021) not

# counters
(HOST, FIRST_WRITES, ERASES, GC_PASSES, VICTIMS, RETURNED, FALLBACKS, GLOBAL_FALLBACKS, FORCED_PASSES,
 BACKGROUND_PASSES, SKIPPED_BACKGROUND) = range(11)
COPY = 11  # 11 .. 19: copies from kind s to kind d at COPY + 3 * s + d
N_COUNTERS = COPY + N_KINDS * N_KINDS
COUNTER_NAMES = ("host_writes", "first_writes", "erases", "gc_passes", "victims", "returned_from_cold",
                 "fallbacks", "global_fallbacks", "forced_gc_passes", "background_gc_passes",
                 "skipped_background_gc") + tuple(f"copy_{s}_{d}" for s in range(N_KINDS) for d in range(N_KINDS))
assert len(COUNTER_NAMES) == N_COUNTERS


class FTLState(NamedTuple):
    """One simulated SSD (``P`` pages per line, ``L`` lines); every field is a 1-D C-contiguous array."""

    l2p: np.ndarray  # int32[logical pages]: physical page of each logical page (-1 = never written)
    p2l: np.ndarray  # int32[L * P]: logical page last written to each physical page
    valid: np.ndarray  # int32[L]: valid pages per line
    kind: np.ndarray  # int8[L]: frontier kind of a line in use (-1 = free)
    status: np.ndarray  # int8[L]: FREE, OPEN or CLOSED
    free_q: np.ndarray  # int32[L]: ring of free lines from sc[FREE_HEAD], sc[FREE_COUNT] long
    fifo: np.ndarray  # int32 jitkit list: closed lines in close order (sentinel L)
    buckets: np.ndarray  # int32 jitkit list: closed lines by valid count v (sentinel L + v)
    cands: np.ndarray  # int32[L]: candidates (closed lines with an invalid page) in cands[:sc[N_CANDS]]
    cand_pos: np.ndarray  # int32[L]: a line's slot in cands (-1 = not a candidate)
    close_seq: np.ndarray  # int64[L]: close number of a closed line (1, 2, ...)
    close_time: np.ndarray  # int64[L]: sc[CLOCK] (host writes so far) when the line closed
    entered: np.ndarray  # int64[L]: sc[TICK] when a closed line took its valid count (bucket order)
    erase_count: np.ndarray  # int64[L]
    sc: np.ndarray  # int64[N_SC]: scalar state
    rng: np.ndarray  # uint64[1]: splitmix64 state of the random victim rules
    counters: np.ndarray  # int64[N_COUNTERS]
    prm: np.ndarray  # int64[N_PRM]: parameters
    copy_dest: np.ndarray  # int64[N_KINDS]: destination kind of copies out of each kind
    pass_victims: np.ndarray  # int32[L]: the victims of the GC pass being selected (prm[SELECT_UPFRONT])
    heap: np.ndarray  # int32[L + 1]: FEMU's victim heap in heap[1:sc[HEAP_SIZE] + 1] (prm[HEAP])
    hpos: np.ndarray  # int32[L]: a line's slot in heap (0 = not in it)


def division_magic(d: int) -> tuple[int, int]:
    """``(m, k)`` with ``(n * m) >> k == n // d`` for every ``0 <= n < 2**31``, ``n * m < 2**63``.

    ``k = 31 + ceil(log2 d)`` and ``m = ceil(2**k / d)``: with ``m * d = 2**k + e``, ``0 <= e < d``, the
    error ``n * e / (d * 2**k)`` stays under ``1 / d`` because ``n * e < 2**31 * 2**ceil(log2 d)``. The
    host path divides a physical page by the pages per line once per write; a multiply and a shift
    are several times cheaper than a 64-bit division."""
    k = 31 + (d - 1).bit_length()
    return -(-(1 << k) // d), k


def new_state(pages_per_line: int, n_lines: int, logical_pages: int, prm: np.ndarray | None = None,
              copy_dest=(0, 0, 0), seed: int = 0) -> FTLState:
    """Fresh arrays for an empty device: every line free (in index order), nothing mapped."""
    P, L = pages_per_line, n_lines
    sc = np.zeros(N_SC, np.int64)
    sc[FREE_COUNT] = L
    sc[CURSOR] = L  # the FIFO sentinel: start at the head
    sc[BG_SKIP_GEN] = -1
    sc[FRONT_LINE:FRONT_LINE + N_KINDS] = -1
    if prm is None:
        prm = np.zeros(N_PRM, np.int64)
        prm[P_PAGES], prm[P_LINES] = P, L
    prm = np.array(prm, np.int64)
    prm[DIV_MAGIC], prm[DIV_SHIFT] = division_magic(P)
    return FTLState(
        l2p=np.full(logical_pages, -1, np.int32), p2l=np.full(L * P, -1, np.int32),
        valid=np.zeros(L, np.int32), kind=np.full(L, -1, np.int8), status=np.zeros(L, np.int8),
        free_q=np.arange(L, dtype=np.int32), fifo=jk.list_new(L, 1), buckets=jk.list_new(L, P + 1),
        cands=np.zeros(L, np.int32), cand_pos=np.full(L, -1, np.int32), close_seq=np.zeros(L, np.int64),
        close_time=np.zeros(L, np.int64), entered=np.zeros(L, np.int64), erase_count=np.zeros(L, np.int64),
        sc=sc, rng=np.array([seed], np.uint64), counters=np.zeros(N_COUNTERS, np.int64), prm=prm,
        copy_dest=np.asarray(copy_dest, np.int64), pass_victims=np.zeros(L, np.int32),
        heap=np.zeros(L + 1, np.int32), hpos=np.zeros(L, np.int32))


STATE_T = numba.typeof(new_state(2, 8, 4))
VICTIM_SIG = types.int64(STATE_T, types.boolean)
"""``pick(state, first) -> line or -1``: a victim rule. ``first`` says whether it chooses the first
victim of a GC pass or a follow-up. It must return a closed line (for a first victim, one with an
invalid page) and must not change the lists; it may update counters and its own scalar state."""


@njit(cache=True, inline="always")
def _cand_add(s, ln):
    n = s.sc[N_CANDS]
    s.cands[n] = ln
    s.cand_pos[ln] = n
    s.sc[N_CANDS] = n + 1


@njit(cache=True, inline="always")
def _cand_remove(s, ln):
    i = s.cand_pos[ln]
    if i >= 0:
        n = s.sc[N_CANDS] - 1
        last = s.cands[n]
        s.cands[i] = last
        s.cand_pos[last] = i
        s.cand_pos[ln] = -1
        s.sc[N_CANDS] = n


@njit(cache=True, inline="always")
def _heap_up(heap, hpos, valid, i):
    """pqueue.c's bubble_up: move ``heap[i]`` towards the root while its parent has more valid pages."""
    moving = heap[i]
    v = valid[moving]
    while i > 1:
        p = heap[i >> 1]
        if valid[p] <= v:
            break
        heap[i] = p
        hpos[p] = i
        i >>= 1
    heap[i] = moving
    hpos[moving] = i


@njit(cache=True)
def _heap_down(heap, hpos, valid, n, i):
    """pqueue.c's percolate_down over ``heap[1:n + 1]``: move ``heap[i]`` down while its smaller child (the
    left one on ties) has fewer valid pages."""
    moving = heap[i]
    v = valid[moving]
    while True:
        c = i << 1
        if c > n:
            break
        if c + 1 <= n and valid[heap[c]] > valid[heap[c + 1]]:
            c += 1
        if v <= valid[heap[c]]:
            break
        heap[i] = heap[c]
        hpos[heap[i]] = i
        i = c
    heap[i] = moving
    hpos[moving] = i


@njit(cache=True)
def _heap_insert(s, ln):
    n = s.sc[HEAP_SIZE] + 1
    s.sc[HEAP_SIZE] = n
    s.heap[n] = ln
    _heap_up(s.heap, s.hpos, s.valid, n)


@njit(cache=True)
def _heap_remove(s, ln):
    """pqueue.c's pqueue_pop for the root (the last line moves there and percolates down), its
    pqueue_remove elsewhere (the last line takes ``ln``'s slot and moves up or down from there)."""
    heap, hpos, valid = s.heap, s.hpos, s.valid
    i = hpos[ln]
    n = s.sc[HEAP_SIZE] - 1
    s.sc[HEAP_SIZE] = n
    hpos[ln] = 0
    if i <= n:
        heap[i] = heap[n + 1]
        if i > 1 and valid[ln] > valid[heap[i]]:
            _heap_up(heap, hpos, valid, i)
        else:
            _heap_down(heap, hpos, valid, n, i)


@njit(cache=True, inline="always")
def _heap_lost_page(s, ln, v):
    """A closed line went down to ``v`` valid pages (FEMU's mark_page_invalid): it moves up (not in
    ``HEAP_STALE``), or joins the heap when it was full."""
    if s.hpos[ln] > 0:
        if s.prm[HEAP] == HEAP_KEPT:
            _heap_up(s.heap, s.hpos, s.valid, s.hpos[ln])
    elif v == s.prm[P_PAGES] - 1:
        _heap_insert(s, ln)


@njit(cache=True)
def _open_line(s, k):
    sc = s.sc
    L = s.prm[P_LINES]
    if sc[FREE_COUNT] == 0:
        raise RuntimeError("FTL has no free line left: the logical space does not fit the geometry")
    ln = s.free_q[sc[FREE_HEAD]]
    sc[FREE_HEAD] = (sc[FREE_HEAD] + 1) % L
    sc[FREE_COUNT] -= 1
    s.status[ln] = OPEN
    s.kind[ln] = k
    sc[FRONT_LINE + k] = ln
    sc[FRONT_OFF + k] = 0
    return ln


@njit(cache=True)
def _close_line(s, ln):
    """A full line joins the FIFO, its valid-count bucket and, with an invalid page, the candidates."""
    sc = s.sc
    L = s.prm[P_LINES]
    s.status[ln] = CLOSED
    sc[SEQ] += 1
    s.close_seq[ln] = sc[SEQ]
    s.close_time[ln] = sc[CLOCK]
    sc[N_CLOSED] += 1
    jk.list_push_back(s.fifo, L, ln)
    v = s.valid[ln]
    s.entered[ln] = sc[TICK]
    sc[TICK] += 1
    if s.prm[EAGER_BUCKETS]:
        jk.list_push_back(s.buckets, L + v, ln)
        if v < sc[BMIN]:
            sc[BMIN] = v
    if v < s.prm[P_PAGES]:
        _cand_add(s, ln)
        if s.prm[HEAP]:
            _heap_insert(s, ln)
    if v <= _bg_valid_max(s):
        sc[N_BG_OK] += 1
    sc[BG_GEN] += 1
    if sc[CURSOR] == CURSOR_PENDING:
        sc[CURSOR] = ln


@njit(cache=True, inline="always")
def _bg_valid_max(s):
    """The most valid pages a line may hold and still be a background victim (-1 without background GC)."""
    if s.prm[BACKGROUND] < 0:
        return -1
    return s.prm[P_PAGES] - max(1, s.prm[BG_MIN_INVALID])


@njit(cache=True)
def rebuild_buckets(s):
    """Relink every closed line into bucket ``valid[line]`` in ``entered`` order, and set ``sc[BMIN]`` to
    the smallest non-empty bucket: the lists as eager maintenance would have left them."""
    L = s.prm[P_LINES]
    P = s.prm[P_PAGES]
    b = s.buckets
    b[:2 * L] = -1
    for v in range(P + 1):
        b[2 * (L + v)] = L + v
        b[2 * (L + v) + 1] = L + v
    closed = np.flatnonzero(s.status == CLOSED)
    order = closed[np.argsort(s.entered[closed])]
    bmin = P + 1
    for ln in order:
        v = s.valid[ln]
        jk.list_push_back(b, L + v, ln)
        bmin = min(bmin, v)
    s.sc[BMIN] = min(bmin, P)


@njit(cache=True)
def _detach(s, victim):
    """Take a chosen victim off every list (its pages stay until :func:`_copy_erase`); the cursor moves
    past it."""
    L = s.prm[P_LINES]
    sc = s.sc
    nxt = jk.list_next(s.fifo, victim)
    if nxt == L and s.prm[CURSOR_RESUME]:
        nxt = CURSOR_PENDING  # the newest closed line: resume at the next line to close
    sc[CURSOR] = nxt
    jk.list_unlink(s.fifo, victim)
    if jk.list_contains(s.buckets, victim):  # lazy buckets: it may not be linked yet
        jk.list_unlink(s.buckets, victim)
    _cand_remove(s, victim)
    if s.prm[HEAP] and s.hpos[victim] > 0:
        _heap_remove(s, victim)
    if s.valid[victim] <= _bg_valid_max(s):
        sc[N_BG_OK] -= 1
    sc[BG_GEN] += 1


@njit(cache=True)
def _copy_erase(s, victim):
    """Copy a detached victim's valid pages to their frontier, erase it, free it."""
    P = s.prm[P_PAGES]
    L = s.prm[P_LINES]
    sc = s.sc
    l2p, p2l, valid = s.l2p, s.p2l, s.valid
    eager = s.prm[HOST_EAGER] != 0
    src = s.kind[victim]
    dst = s.copy_dest[src]
    base = victim * P
    copies = 0
    dl = sc[FRONT_LINE + dst]  # the destination frontier, in registers for the copy loop
    do = sc[FRONT_OFF + dst]
    off = 0
    while True:
        # copy into dl until it is full; stop at the next valid page when there is no dl (the calls that
        # open and close lines stay out of this loop, so its variables stay in registers)
        while off < P:
            if off + PREFETCH < P:
                prefetch(l2p, p2l[base + off + PREFETCH])
            lpn = p2l[base + off]
            if lpn >= 0 and l2p[lpn] == base + off:
                if dl < 0:
                    break
                ppn = dl * P + do
                p2l[ppn] = lpn
                l2p[lpn] = ppn
                valid[dl] += 1
                do += 1
                copies += 1
                if do == P:
                    off += 1
                    break
            off += 1
        if dl >= 0 and do == P:
            _close_line(s, dl)
            dl = -1
            do = 0
            if dst == 0 and eager and sc[FREE_COUNT] > 0:  # FEMU's write pointer takes its next line now
                dl = _open_line(s, 0)
        elif off >= P:
            break
        else:
            dl = _open_line(s, dst)
            do = 0
    sc[FRONT_LINE + dst] = dl
    sc[FRONT_OFF + dst] = do
    s.counters[COPY + N_KINDS * src + dst] += copies
    # erase
    valid[victim] = 0
    s.status[victim] = FREE
    s.kind[victim] = -1
    sc[N_CLOSED] -= 1
    s.erase_count[victim] += 1
    s.counters[ERASES] += 1
    s.free_q[(sc[FREE_HEAD] + sc[FREE_COUNT]) % L] = victim
    sc[FREE_COUNT] += 1
    return copies


@njit(cache=True, inline="always")
def _log_victim(victim, sc, log_victims):
    n = sc[NLOG_V]
    if n < log_victims.shape[0]:
        log_victims[n] = victim
    sc[NLOG_V] = n + 1


@njit(cache=True)
def _gc_pass(s, pick, min_invalid, log_victims):
    """One garbage collection: the victim rule's first victim, if it has at least ``max(1, min_invalid)``
    invalid pages, then follow-up victims until the stop rule holds. Returns the pages copied, or -1
    when nothing was collected."""
    P = s.prm[P_PAGES]
    s.sc[PICK_NOTE] = 0
    victim = pick(s, True)
    if victim < 0 or P - s.valid[victim] < max(1, min_invalid):
        return -1
    s.counters[GC_PASSES] += 1
    if s.sc[PICK_NOTE] > 0:  # the rule's fallback chose this first victim
        s.counters[s.sc[PICK_NOTE]] += 1
    stop = s.prm[STOP]
    max_victims = s.prm[MAX_VICTIMS]
    upfront = s.prm[SELECT_UPFRONT] != 0 and stop != STOP_ONE
    sum_valid = 0
    sum_invalid = 0
    n = 0
    copies = 0
    while True:
        v = s.valid[victim]
        sum_valid += v
        sum_invalid += P - v
        _log_victim(victim, s.sc, log_victims)
        s.counters[VICTIMS] += 1
        _detach(s, victim)
        if upfront:
            s.pass_victims[n] = victim
        else:
            copies += _copy_erase(s, victim)
        n += 1
        if stop == STOP_ONE or (stop == STOP_VALID and sum_valid > P) or (
                stop == STOP_INVALID and sum_invalid >= P) or (max_victims > 0 and n >= max_victims):
            break
        victim = pick(s, False)
        if victim < 0:
            break
    if upfront:  # every victim chosen: now the copies
        for j in range(n):
            copies += _copy_erase(s, s.pass_victims[j])
    return copies


@njit(cache=True)
def _gc_until(s, pick, free_above, forced, log_victims):
    """GC passes while free lines <= ``free_above`` (counted as forced passes if ``forced``). Returns the
    pages copied."""
    L = s.prm[P_LINES]
    copies = 0
    passes = 0
    while s.sc[FREE_COUNT] <= free_above:
        passes += 1
        if passes > L * (s.prm[P_PAGES] + 1):  # each pass removes an invalid page: cannot happen
            raise RuntimeError("FTL garbage collection reclaims no space")
        c = _gc_pass(s, pick, 0, log_victims)
        if c < 0:
            raise RuntimeError("FTL garbage collection found no closed line with an invalid page")
        if forced:
            s.counters[FORCED_PASSES] += 1
        copies += c
    return copies


@njit(cache=True, inline="always")
def _background_skips(sc, stable):
    """Whether FEMU's background pass after this write is skipped without asking the victim rule: no
    closed line has enough invalid pages (whatever the rule chose would be refused; the random rules then
    draw nothing), or the rule is registered with ``stable_skip`` (``stable``, from ``prm[STABLE_SKIP]``:
    its refused choice stays refused until a line closes or is erased or a closed line reaches enough
    invalid pages, ``sc[BG_GEN]``) and none of those happened since it last refused (2R's scan is
    O(lines), and FEMU's background rule asks after every write).

    It takes ``sc``, not the state: most writes skip, and touching the state's fields in the host loop
    costs a reference-count update per array field, which made FEMU's trigger twice as slow."""
    return sc[N_BG_OK] == 0 or (stable and sc[BG_SKIP_GEN] == sc[BG_GEN])


@njit(cache=True)
def _background_pass(s, pick, bg_min, log_victims, log_copies, write, do_log):
    """FEMU's background GC after a host write: one pass, skipped if its victim is too full (the caller
    has checked :func:`_background_skips`)."""
    c = _gc_pass(s, pick, bg_min, log_victims)
    if c < 0:
        s.counters[SKIPPED_BACKGROUND] += 1
        s.sc[BG_SKIP_GEN] = s.sc[BG_GEN]
    else:
        s.counters[BACKGROUND_PASSES] += 1
        if do_log:
            log_copies[write] += c


@njit(cache=True)
def _host_needs_line(s, pick, k, log_victims):
    """Frontier ``k`` has no line: the reserve rule's GC, then a line (unless GC copies opened one).
    Returns the pages copied."""
    copies = 0
    if s.sc[FREE_COUNT] <= s.prm[RESERVE]:
        copies = _gc_until(s, pick, s.prm[RESERVE], False, log_victims)
    if s.sc[FRONT_LINE + k] < 0:
        _open_line(s, k)
    return copies


@njit(cache=True)
def _host_write_to(s, pick, k, lpn, clock, log_victims, eager):
    """One host write placed in frontier ``k`` by the state's fields instead of the host path's registers
    (the same steps): a placement oracle's tagged writes (:func:`write_chunk`'s ``kinds``), lazy, and with
    ``eager`` (FEMU's write pointer, ``k = 0``) a host write that finds no host line (GC copies filled it
    when no line was free), which invalidates the old copy first and takes the next line as soon as it
    fills. The caller has stored the host path's registers in ``sc``. Returns ``(pages GC copied, 1 if
    the page's old copy was in a cold line, 1 if this is the page's first write)``."""
    sc = s.sc
    P = s.prm[P_PAGES]
    L = s.prm[P_LINES]
    copies = 0
    if sc[FRONT_LINE + k] < 0 and not eager:
        sc[CLOCK] = clock
        copies = _host_needs_line(s, pick, k, log_victims)
    returned = 0
    first = 0
    old = s.l2p[lpn]
    if old >= 0:
        ln = old // P
        v = s.valid[ln] - 1
        s.valid[ln] = v
        returned = 1 if s.kind[ln] == COLD else 0
        s.entered[ln] = sc[TICK]
        sc[TICK] += 1
        if s.prm[EAGER_BUCKETS] and s.status[ln] == CLOSED:
            jk.list_unlink(s.buckets, ln)
            jk.list_push_back(s.buckets, L + v, ln)
            if v < sc[BMIN]:
                sc[BMIN] = v
        if v == P - 1:
            _cand_add(s, ln)
        if s.prm[HEAP] and s.status[ln] == CLOSED:
            _heap_lost_page(s, ln, v)
        if s.prm[BACKGROUND] >= 0 and v == _bg_valid_max(s) and s.status[ln] == CLOSED:
            sc[N_BG_OK] += 1
            sc[BG_GEN] += 1
        if eager:
            s.l2p[lpn] = -1  # the old copy is invalid before GC runs below
    else:
        first = 1
    if sc[FRONT_LINE + k] < 0:  # eager: after the invalidation, as FEMU's ssd_write
        sc[CLOCK] = clock
        copies += _host_needs_line(s, pick, k, log_victims)
    fl = sc[FRONT_LINE + k]
    fo = sc[FRONT_OFF + k]
    ppn = fl * P + fo
    s.p2l[ppn] = lpn
    s.l2p[lpn] = ppn
    s.valid[fl] += 1
    fo += 1
    sc[FRONT_OFF + k] = fo
    if fo == P:
        sc[CLOCK] = clock + 1
        _close_line(s, fl)
        sc[FRONT_LINE + k] = -1
        sc[FRONT_OFF + k] = 0
        if eager:
            copies += _host_needs_line(s, pick, k, log_victims)
    return copies, returned, first


@njit(types.void(types.int32[::1], STATE_T, types.FunctionType(VICTIM_SIG), types.int32[::1], types.int32[::1],
                 types.int8[::1]), cache=True, nogil=True)
def write_chunk(lpns, s, pick, log_copies, log_victims, kinds):
    """Apply host writes to the device ``s``.

    Parameters
    ----------
    lpns : int32 array
        Logical pages written, in order.
    s : FTLState
        The device; updated in place.
    pick : first-class function with signature :data:`VICTIM_SIG`
        The victim rule.
    log_copies : int32 array
        If it has one slot per write, it receives the pages GC copied for each write: forced and
        reserve passes before it and a background pass after it (that pass runs at the top of the next
        iteration, or after the loop for the last write, which is the same moment). Otherwise unused.
    log_victims : int32 array
        Receives the victims, in order, while it has room; ``sc[NLOG_V]`` counts them all.
    kinds : int8 array
        If it has one slot per write, write ``i`` goes to frontier ``kinds[i]`` (0 = the host frontier,
        as without it; 1 or 2 = that frontier, with the reserve rule applied when it needs a line): a
        placement oracle's tags (:mod:`flashrepro.ftl.oracle`). Otherwise unused.
    """
    n = lpns.shape[0]
    P = s.prm[P_PAGES]
    L = s.prm[P_LINES]
    reserve = s.prm[RESERVE]
    forced = s.prm[FORCED]
    background = s.prm[BACKGROUND]
    bg_min = s.prm[BG_MIN_INVALID]
    eager = s.prm[EAGER_BUCKETS] != 0
    magic = s.prm[DIV_MAGIC]
    shift = s.prm[DIV_SHIFT]
    l2p, p2l, valid, kind, status, buckets, entered, sc = (s.l2p, s.p2l, s.valid, s.kind, s.status, s.buckets,
                                                           s.entered, s.sc)
    heap_a, hpos = s.heap, s.hpos
    do_log = log_copies.shape[0] == n
    tagged = kinds.shape[0] == n
    if do_log:
        log_copies[:] = 0  # GC adds to a write's slot
    trigger = max(forced, background)  # -1 under the reserve rule alone: one test per write
    heap = s.prm[HEAP] != 0
    heap_kept = s.prm[HEAP] == HEAP_KEPT
    eager_host = s.prm[HOST_EAGER] != 0
    bg_max = _bg_valid_max(s) if background >= 0 else -1  # the valid count at which a line becomes a bg victim
    stable = s.prm[STABLE_SKIP] != 0
    skipped = 0  # background passes skipped without asking the rule
    clock0 = sc[CLOCK]
    returned = 0
    first = 0
    tick = sc[TICK]  # these three stay in registers; sc is brought up to date before each call
    fl = sc[FRONT_LINE]  # the host frontier
    fo = sc[FRONT_OFF]
    for i in range(n):
        if i + PREFETCH < n:
            prefetch(l2p, lpns[i + PREFETCH])
        if sc[FREE_COUNT] <= trigger:
            bg = i > 0 and sc[FREE_COUNT] <= background  # the background pass after write i - 1
            if bg and _background_skips(sc, stable):
                skipped += 1
                bg = False
            if bg or sc[FREE_COUNT] <= forced:  # most writes skip both: the registers stay put
                sc[CLOCK], sc[TICK], sc[FRONT_LINE], sc[FRONT_OFF] = clock0 + i, tick, fl, fo
                if bg:
                    _background_pass(s, pick, bg_min, log_victims, log_copies, i - 1, do_log)
                if sc[FREE_COUNT] <= forced:
                    c = _gc_until(s, pick, forced, True, log_victims)
                    if do_log:
                        log_copies[i] += c
                tick, fl, fo = sc[TICK], sc[FRONT_LINE], sc[FRONT_OFF]  # copies may have filled the frontier
        if (tagged and kinds[i] != 0) or (fl < 0 and eager_host):  # a tagged write to another frontier, or
            # FEMU's write pointer found no line (GC copies filled the host's when none was free)
            sc[TICK], sc[FRONT_LINE], sc[FRONT_OFF] = tick, fl, fo
            k = kinds[i] if tagged else 0
            c, r, f1 = _host_write_to(s, pick, k, lpns[i], clock0 + i, log_victims, eager_host and k == 0)
            if do_log:
                log_copies[i] += c
            returned += r
            first += f1
            tick, fl, fo = sc[TICK], sc[FRONT_LINE], sc[FRONT_OFF]
            continue
        if fl < 0:
            sc[TICK], sc[FRONT_LINE], sc[FRONT_OFF] = tick, fl, fo
            if sc[FREE_COUNT] <= reserve:
                sc[CLOCK] = clock0 + i
                c = _gc_until(s, pick, reserve, False, log_victims)
                if do_log:
                    log_copies[i] += c
            fl = sc[FRONT_LINE]  # greedy GC copies may have opened it
            if fl < 0:
                fl = _open_line(s, 0)
            tick, fo = sc[TICK], sc[FRONT_OFF]
        lpn = lpns[i]
        old = l2p[lpn]
        if old >= 0:
            ln = (old * magic) >> shift  # old // P
            v = valid[ln] - 1
            valid[ln] = v
            returned += kind[ln] == COLD
            entered[ln] = tick  # for an open line, closing stamps it again
            tick += 1
            if eager and status[ln] == CLOSED:
                jk.list_unlink(buckets, ln)
                jk.list_push_back(buckets, L + v, ln)
                if v < sc[BMIN]:
                    sc[BMIN] = v
            if v == P - 1:  # only a closed line holds P valid pages: its first invalid page
                _cand_add(s, ln)
            if heap and status[ln] == CLOSED:  # FEMU's mark_page_invalid
                if hpos[ln] > 0:
                    if heap_kept:
                        _heap_up(heap_a, hpos, valid, hpos[ln])
                elif v == P - 1:
                    _heap_insert(s, ln)
            if v == bg_max and status[ln] == CLOSED:
                sc[N_BG_OK] += 1
                sc[BG_GEN] += 1
        else:
            first += 1
        ppn = fl * P + fo
        p2l[ppn] = lpn
        l2p[lpn] = ppn
        valid[fl] += 1
        fo += 1
        if fo == P:
            sc[CLOCK], sc[TICK] = clock0 + i + 1, tick
            _close_line(s, fl)
            fl = -1
            fo = 0
            if eager_host:  # FEMU's write pointer: the next line now, after the reserve rule's GC
                sc[FRONT_LINE], sc[FRONT_OFF] = fl, fo
                c = _host_needs_line(s, pick, 0, log_victims)
                if do_log:
                    log_copies[i] += c
                fl, fo = sc[FRONT_LINE], sc[FRONT_OFF]
            tick = sc[TICK]
    sc[TICK], sc[FRONT_LINE], sc[FRONT_OFF] = tick, fl, fo
    if n > 0 and sc[FREE_COUNT] <= background:  # the background pass after the last write
        sc[CLOCK] = clock0 + n
        if _background_skips(sc, stable):
            skipped += 1
        else:
            _background_pass(s, pick, bg_min, log_victims, log_copies, n - 1, do_log)
    sc[CLOCK] = clock0 + n
    s.counters[HOST] += n
    s.counters[RETURNED] += returned
    s.counters[FIRST_WRITES] += first
    s.counters[SKIPPED_BACKGROUND] += skipped
    if not eager:
        rebuild_buckets(s)
