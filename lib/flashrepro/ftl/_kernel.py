"""The page-mapped FTL kernel: host writes, line-based garbage collection, greedy and FIFO (2R/2R++) victims.

Everything here takes arrays and scalars only. The state of one simulated SSD lives in the arrays that
:class:`flashrepro.ftl.FTL` owns; :func:`write_chunk` advances it by a chunk of host writes, so a stream
of any length is processed in pieces.

Layout: a physical page is ``line * P + offset``. ``p2l[ppn]`` is the logical page last written there;
it is valid iff ``l2p[p2l[ppn]] == ppn`` (nothing is cleared on overwrite, so a host write touches one
random cache line, ``l2p[lpn]``). Each line has a *kind*, the frontier it was opened for: 0 = normal
(2R++ bits 00, host writes), 1 = normal second chance (01), 2 = cold (10). GC copies a victim's valid
pages to the frontier ``copy_dest[kind]``.

Victim selection (``prm[VICTIM]``):

* greedy: the closed line with the fewest valid pages, ties to the line that reached that count first,
  from buckets indexed by valid count (O(1) amortised per pick and per invalidation). One victim.
* fifo (2R, 2R++): closed lines in order of write completion. The ``recent`` most recently closed are
  never victims; the others form the *eligible prefix* of the FIFO. A scan starts at the cursor (where
  the previous GC stopped), visits the eligible prefix cyclically once, and takes the first line whose
  valid count is at most ``limit``. Further victims come from the first one's region (normal = kinds 0
  and 1, cold = 2) by the same scan from the line after the previous victim, until the stop rule holds.
  If no eligible line is under the limit, the least-valid eligible line is taken (a *fallback*); if
  every eligible line is full, the least-valid closed line of all (a *global fallback*).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import jitkit as jk
from ..jitkit import prefetch

PREFETCH = 16

# line status
FREE, OPEN, CLOSED = 0, 1, 2
N_KINDS = 3  # normal (2R++ bits 00), normal second chance (01), cold (10)
COLD = 2

# prm (int64 parameters)
P_PAGES, P_LINES, VICTIM, LIMIT, RECENT, STOP, RESERVE, MAX_VICTIMS = range(8)
N_PRM = 8
GREEDY, FIFO = 0, 1
STOP_VALID, STOP_INVALID, STOP_ONE = 0, 1, 2  # more than a line of valid / a line of invalid / one victim

# sc (int64 scalar state kept between chunks)
FREE_HEAD, FREE_COUNT, SEQ, CURSOR, BMIN, N_CLOSED, NLOG_V = range(7)
FRONT_LINE = 7  # 7, 8, 9: open line per kind (-1 = none)
FRONT_OFF = 10  # 10, 11, 12
N_SC = 13

# counters
HOST, FIRST_WRITES, ERASES, GC_PASSES, VICTIMS, RETURNED, FALLBACKS, GLOBAL_FALLBACKS = range(8)
COPY = 8  # 8 .. 16: copies from kind s to kind d at COPY + 3 * s + d
N_COUNTERS = COPY + N_KINDS * N_KINDS
COUNTER_NAMES = ("host_writes", "first_writes", "erases", "gc_passes", "victims", "returned_from_cold",
                 "fallbacks", "global_fallbacks") + tuple(
    f"copy_{s}_{d}" for s in range(N_KINDS) for d in range(N_KINDS))
assert len(COUNTER_NAMES) == N_COUNTERS


def new_state(pages_per_line: int, n_lines: int, logical_pages: int) -> dict[str, np.ndarray]:
    """Fresh arrays for an empty device: every line free (in index order), nothing mapped."""
    P, L = pages_per_line, n_lines
    sc = np.zeros(N_SC, np.int64)
    sc[FREE_COUNT] = L
    sc[CURSOR] = L  # the FIFO sentinel: start at the head
    sc[FRONT_LINE:FRONT_LINE + N_KINDS] = -1
    fifo = jk.list_new(L, 1)  # closed lines in close order (sentinel L)
    buckets = jk.list_new(L, P + 1)  # closed lines by valid count v (sentinel L + v)
    return dict(l2p=np.full(logical_pages, -1, np.int32), p2l=np.full(L * P, -1, np.int32),
                valid=np.zeros(L, np.int32), kind=np.full(L, -1, np.int8), status=np.zeros(L, np.int8),
                free_q=np.arange(L, dtype=np.int32), fifo=fifo,
                close_seq=np.zeros(L, np.int64), buckets=buckets,
                erase_count=np.zeros(L, np.int64), sc=sc, counters=np.zeros(N_COUNTERS, np.int64))


@njit(cache=True)
def _open_line(k, kind, status, free_q, sc, L):
    if sc[FREE_COUNT] == 0:
        raise RuntimeError("FTL has no free line left: the logical space does not fit the geometry")
    ln = free_q[sc[FREE_HEAD]]
    sc[FREE_HEAD] = (sc[FREE_HEAD] + 1) % L
    sc[FREE_COUNT] -= 1
    status[ln] = OPEN
    kind[ln] = k
    sc[FRONT_LINE + k] = ln
    sc[FRONT_OFF + k] = 0
    return ln


@njit(cache=True)
def _close_line(ln, valid, status, fifo, close_seq, buckets, sc, prm):
    """A full line joins the FIFO (write-completion order) or its valid-count bucket."""
    L = prm[P_LINES]
    status[ln] = CLOSED
    sc[SEQ] += 1
    close_seq[ln] = sc[SEQ]
    sc[N_CLOSED] += 1
    if prm[VICTIM] == FIFO:
        jk.list_push_back(fifo, L, ln)
    else:
        v = valid[ln]
        jk.list_push_back(buckets, L + v, ln)
        if v < sc[BMIN]:
            sc[BMIN] = v


@njit(cache=True)
def _scan(start, region, first, valid, kind, fifo, close_seq, sc, prm):
    """One cyclic pass over the eligible FIFO prefix from ``start``: the first line under the limit
    (in ``region`` unless ``first``), else for the first victim the least-valid eligible line as
    ``-2 - line`` (a fallback), else -1."""
    L = prm[P_LINES]
    cutoff = sc[SEQ] - prm[RECENT]
    limit = prm[LIMIT]
    head = jk.list_front(fifo, L)
    if head == L or close_seq[head] > cutoff:
        return -1  # nothing eligible
    ln = start
    if ln == L or close_seq[ln] > cutoff:
        ln = head
    begin = ln
    best = -1
    best_v = prm[P_PAGES] + 1
    while True:
        v = valid[ln]
        if first or (kind[ln] == COLD) == (region == 1):
            if v <= limit:
                return ln
            if v < best_v:
                best_v = v
                best = ln
        ln = jk.list_next(fifo, ln)
        if ln == L or close_seq[ln] > cutoff:
            ln = head
        if ln == begin:
            break
    if first and best >= 0:
        return -2 - best
    return -1


@njit(cache=True)
def _least_valid_closed(valid, fifo, L):
    best = -1
    best_v = 1 << 40
    ln = jk.list_front(fifo, L)
    while ln != L:
        if valid[ln] < best_v:
            best_v = valid[ln]
            best = ln
        ln = jk.list_next(fifo, ln)
    return best


@njit(cache=True)
def _collect(victim, l2p, p2l, valid, kind, status, free_q, fifo, close_seq,
             buckets, erase_count, sc, counters, prm, copy_dest):
    """Copy the victim's valid pages to their frontier, erase it and return it to the free pool."""
    P = prm[P_PAGES]
    L = prm[P_LINES]
    src = kind[victim]
    dst = copy_dest[src]
    base = victim * P
    copies = 0
    dl = sc[FRONT_LINE + dst]  # the destination frontier, in registers for the copy loop
    do = sc[FRONT_OFF + dst]
    for off in range(P):
        if off + PREFETCH < P:
            prefetch(l2p, p2l[base + off + PREFETCH])
        lpn = p2l[base + off]
        if lpn >= 0 and l2p[lpn] == base + off:
            if dl < 0:
                dl = _open_line(dst, kind, status, free_q, sc, L)
                do = 0
            ppn = dl * P + do
            p2l[ppn] = lpn
            l2p[lpn] = ppn
            valid[dl] += 1
            do += 1
            if do == P:
                _close_line(dl, valid, status, fifo, close_seq, buckets, sc, prm)
                dl = -1
                do = 0
            copies += 1
    sc[FRONT_LINE + dst] = dl
    sc[FRONT_OFF + dst] = do
    counters[COPY + N_KINDS * src + dst] += copies
    # erase
    if prm[VICTIM] == FIFO:
        if sc[CURSOR] == victim:
            sc[CURSOR] = jk.list_next(fifo, victim)
        jk.list_unlink(fifo, victim)
    valid[victim] = 0
    status[victim] = FREE
    kind[victim] = -1
    sc[N_CLOSED] -= 1
    erase_count[victim] += 1
    counters[ERASES] += 1
    free_q[(sc[FREE_HEAD] + sc[FREE_COUNT]) % L] = victim
    sc[FREE_COUNT] += 1
    return copies


@njit(cache=True)
def _gc_pass(l2p, p2l, valid, kind, status, free_q, fifo, close_seq, buckets,
             erase_count, sc, counters, prm, copy_dest, log_victims):
    """One garbage collection: choose the victim(s), copy, erase. Returns the pages copied."""
    P = prm[P_PAGES]
    L = prm[P_LINES]
    counters[GC_PASSES] += 1
    if prm[VICTIM] == GREEDY:
        b = sc[BMIN]
        while b <= P and jk.list_front(buckets, L + b) == L + b:
            b += 1
        if b > P:
            raise RuntimeError("FTL garbage collection found no closed line")
        sc[BMIN] = b
        victim = jk.list_front(buckets, L + b)
        jk.list_unlink(buckets, victim)
        _log_victim(victim, sc, log_victims)
        counters[VICTIMS] += 1
        return _collect(victim, l2p, p2l, valid, kind, status, free_q, fifo, close_seq,
                        buckets, erase_count, sc, counters, prm, copy_dest)
    found = _scan(sc[CURSOR], 0, True, valid, kind, fifo, close_seq, sc, prm)
    if found < -1:
        victim = -2 - found
        counters[FALLBACKS] += 1
    else:
        victim = found
    if victim < 0 or valid[victim] == P:
        victim = _least_valid_closed(valid, fifo, L)
        counters[GLOBAL_FALLBACKS] += 1
        if victim < 0 or valid[victim] == P:
            raise RuntimeError("FTL garbage collection found no line with an invalid page")
    region = 1 if kind[victim] == COLD else 0
    sum_valid = 0
    sum_invalid = 0
    n = 0
    copies = 0
    while True:
        v = valid[victim]
        sum_valid += v
        sum_invalid += P - v
        n += 1
        sc[CURSOR] = jk.list_next(fifo, victim)
        _log_victim(victim, sc, log_victims)
        counters[VICTIMS] += 1
        copies += _collect(victim, l2p, p2l, valid, kind, status, free_q, fifo, close_seq,
                           buckets, erase_count, sc, counters, prm, copy_dest)
        stop = prm[STOP]
        if stop == STOP_ONE or (stop == STOP_VALID and sum_valid > P) or (
                stop == STOP_INVALID and sum_invalid >= P) or (prm[MAX_VICTIMS] > 0 and n >= prm[MAX_VICTIMS]):
            break
        victim = _scan(sc[CURSOR], region, False, valid, kind, fifo, close_seq, sc, prm)
        if victim < 0:
            break
    return copies


@njit(cache=True, inline="always")
def _log_victim(victim, sc, log_victims):
    n = sc[NLOG_V]
    if n < log_victims.shape[0]:
        log_victims[n] = victim
    sc[NLOG_V] = n + 1


@njit(cache=True, nogil=True)
def write_chunk(lpns, l2p, p2l, valid, kind, status, free_q, fifo, close_seq, buckets,
                erase_count, sc, counters, prm, copy_dest, log_copies, log_victims):
    """Apply host writes ``lpns`` (int32 logical pages). When ``log_copies`` has one slot per write it
    receives the pages GC copied before each write; ``log_victims`` receives victims while it has room
    (``sc[NLOG_V]`` counts them all)."""
    n = lpns.shape[0]
    P = prm[P_PAGES]
    L = prm[P_LINES]
    greedy = prm[VICTIM] == GREEDY
    do_log = log_copies.shape[0] == n
    returned = 0
    first = 0
    fl = sc[FRONT_LINE]  # the host frontier, kept in registers between GCs
    fo = sc[FRONT_OFF]
    for i in range(n):
        if i + PREFETCH < n:
            prefetch(l2p, lpns[i + PREFETCH])
        if fl < 0:
            copies = 0
            passes = 0
            while sc[FREE_COUNT] <= prm[RESERVE]:
                passes += 1
                if passes > 4 * L:
                    raise RuntimeError("FTL garbage collection reclaims no space")
                copies += _gc_pass(l2p, p2l, valid, kind, status, free_q, fifo, close_seq,
                                   buckets, erase_count, sc, counters, prm, copy_dest, log_victims)
            fl = sc[FRONT_LINE]  # greedy GC copies may have opened it
            if fl < 0:
                fl = _open_line(0, kind, status, free_q, sc, L)
            fo = sc[FRONT_OFF]
            if do_log:
                log_copies[i] = copies
        elif do_log:
            log_copies[i] = 0
        lpn = lpns[i]
        old = l2p[lpn]
        if old >= 0:
            ln = old // P
            v = valid[ln] - 1
            valid[ln] = v
            if kind[ln] == COLD:
                returned += 1
            if greedy and status[ln] == CLOSED:
                jk.list_unlink(buckets, ln)
                jk.list_push_back(buckets, L + v, ln)
                if v < sc[BMIN]:
                    sc[BMIN] = v
        else:
            first += 1
        ppn = fl * P + fo
        p2l[ppn] = lpn
        l2p[lpn] = ppn
        valid[fl] += 1
        fo += 1
        if fo == P:
            _close_line(fl, valid, status, fifo, close_seq, buckets, sc, prm)
            fl = -1
            fo = 0
        sc[FRONT_LINE] = fl
        sc[FRONT_OFF] = fo
    counters[HOST] += n
    counters[RETURNED] += returned
    counters[FIRST_WRITES] += first
