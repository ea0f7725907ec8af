"""``cost-benefit``: the cost-benefit cleaner (FEMU's ``select_victim_line_cb``, ``gc_policy=cost-benefit``).

Rosenblum and Ousterhout's LFS cleaner [1]_ cleans the segment with the highest benefit / cost, the
space freed times its age over the cost of cleaning. On flash, where the victim's live pages are read
and written once each, the cost is 2u [2]_, and the rule is FEMU's [3]_:
maximise ``age * (1 - u) / (2u)``, u the fraction of valid pages. With u = v / P this is
``age * (P - v) / (2 v)``, compared exactly by cross-multiplying in int64 (exact while
``age * P * P < 2**63``). A line with no valid page has an infinite ratio and always wins.

Age is *logical*: host writes since the line closed (``sc.clock - close_time``), not FEMU's wall-clock
nanoseconds, so runs are deterministic and independent of the simulator's speed.

Ties, among empty lines too, go to the earliest-closed line (FEMU scans its whole victim heap per pick).

**Without a scan of every line.** Lines with the same valid count share the slope of their score in time,
so the oldest of them is ahead of the others at every moment (and first among ties): the mechanism keeps
the closed lines of each valid count in close order (``reads_ages``: a bitset over the lines' slots per
count, see :mod:`flashrepro.ftl._kernel`), and the best line is the best of at most ``P`` earliest-closed
lines, one per count. The counts are read from 1 up, and the reading stops at the first count where even the
oldest closed line's age would score strictly under the best so far: ``(P - v) / v`` falls as ``v`` grows, so
no later count can reach it (exact: integers). Between picks the answer is *watched* (``watches``): with ``b`` the
best line, a line ``x`` with fewer valid pages (a steeper score) overtakes ``b`` at a time computed
exactly from the two (integer arithmetic), and the earliest such time over the heads bounds how long
``b`` stays best unless a line changes; a line that loses a page or closes can overtake ``b`` before then
only if its close time is at most a threshold that depends on its valid count alone, ``watch[v]`` (computed
here in floating point, rounded up past its error: a threshold too high only costs a needless pick). The
mechanism ends the watch when such a line changes or ``b`` is taken, so until then ``b`` is the answer
without looking, and FEMU's background pass, which asks after every host write, is skipped while the
watched ``b`` has too few invalid pages (without background passes, every pick takes its answer, so it
sets no watch). A watch is trusted for at most :data:`HORIZON` lines of host
writes (a shorter horizon gives tighter thresholds, so fewer lines end it; it has no effect on results).

References
----------
.. [1] M. Rosenblum and J. K. Ousterhout, "The Design and Implementation of a Log-Structured File
   System", ACM Transactions on Computer Systems 10(1), 1992.
.. [2] A. Kawaguchi, S. Nishioka and H. Motoda, "A Flash-Memory Based File System", USENIX Winter
   Technical Conference, 1995.
.. [3] FEMU, ``select_victim_line_cb`` in ``hw/femu/bbssd/ftl-line-gc.c``, https://github.com/MoatLab/FEMU.
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ... import jitkit as jk
from .. import _kernel as K
from ._registry import register

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_NOT_ROW0 = np.uint64(0xFFFFFFFFFFFFFFFE)  # row 0 (empty lines) is handled before the scan
HORIZON = 1  # lines' worth of host writes (P each) a watched answer is trusted for before it is chosen again


@njit(cache=True, inline="always")
def _overtakes_at(P, v, c, seq, vb, cb, seqb):
    """The first clock at which a line with ``v < vb`` valid pages closed at ``c`` (close number ``seq``)
    scores at least ``b``'s (``vb``, ``cb``, ``seqb``), or above it if it closed later: its score
    ``(t - c) (P - v) / v`` grows faster than b's, so from then on it is ahead."""
    ax = (P - v) * vb  # x's and b's scores, both times v * vb
    ab = (P - vb) * v
    num = ax * c - ab * cb  # x ahead at t  <=>  (ax - ab) t > num  (or == with the earlier close)
    d = ax - ab
    if seq < seqb:
        return -((-num) // d)
    return num // d + 1


@jk.njit_no_refcount(error_model="numpy")
def _thresholds(watch, odds, P, vb, cb, lo, hi, tau):
    """``watch[v]`` for ``lo <= v < hi``: the close time at or under which a line with ``v`` valid pages leads
    ``b`` (``vb`` valid pages, closed at ``cb``) at clock ``tau``, rounded up past the floating-point error.

    Leading at ``tau`` means ``(tau - c) (P - v) / v >= (tau - cb) (P - vb) / vb``, that is
    ``c <= tau - q`` with ``q = (tau - cb) (P - vb) / vb * v / (P - v)``; ``v / (P - v)`` is ``odds[v]``
    (:func:`flashrepro.ftl._kernel.count_odds`). The computed ``q`` is within a few units in the last place
    of the exact one, so ``tau - q + 1 + (tau + q) 1e-12`` is above the exact threshold: a threshold too
    high costs a needless pick, never a wrong answer. A loop of multiplications with no branch, division or
    conversion to an integer, so it runs in vector registers (P of these per watch)."""
    ft = float(tau)
    k = float(P - vb) * float(tau - cb) / float(vb)
    for v in range(lo, hi):
        q = k * odds[v]
        watch[v] = ft - q + 1.0 + (ft + q) * 1e-12


@njit(cache=True, inline="always")
def _best(s, now, slot_line, age_head, age_bits):
    """``(line, its row)``: the line with the largest score at clock ``now`` (the earliest-closed among equals)
    from the earliest-closed line of each valid count, no line being empty (row 0 is handled before), and the
    count it is filed under; -1 when no line is closed. Reads the rows from 1 up and stops at the first where
    even the oldest closed line's age would score under the best. (``slot_line``, ``age_head``, ``age_bits``:
    views of the state, :func:`flashrepro.ftl._kernel.order_views`.)"""
    P = s.prm[0].pages
    close_time, close_seq = s.close_time, s.close_seq
    best = -1
    best_age = 0
    best_inv = 0
    best_val = 1
    # no line is older than the oldest closed line (the FIFO's front), and (P - v) / v falls as v grows: once
    # that age at count v scores strictly under the best so far, no row from v on can reach it
    oldest = jk.list_front(s.fifo, s.prm[0].lines)
    max_age = now - close_time[oldest] if oldest < s.prm[0].lines else 0
    # the non-empty rows from 1 up, by the bits of age_bits (K.age_next, written out)
    for wi in range(age_bits.shape[0]):
        m = age_bits[wi] & (_NOT_ROW0 if wi == 0 else _ALL)
        while m != 0:
            v = (wi << 6) + trailing_zeros(m)
            m &= m - np.uint64(1)
            inv = P - v
            if best >= 0 and max_age * inv * best_val < best_age * best_inv * v:
                return best, best_val
            h = slot_line[age_head[v]]
            age = now - close_time[h]
            ahead = age * inv * best_val
            behind = best_age * best_inv * v
            if best < 0 or ahead > behind or (ahead == behind and close_seq[h] < close_seq[best]):
                best, best_age, best_inv, best_val = h, age, inv, v
    return best, best_val


@njit(cache=True, inline="always")
def _watch(s, now, best, vb, slot_line, age_head, age_bits, watch):
    """Set the watch on ``best`` (filed under ``vb`` valid pages), the answer at clock ``now``: until when it
    stays the answer unless a line changes (the first time an earliest-closed line with fewer valid pages
    overtakes it, at most :data:`HORIZON` lines of host writes on), and each valid count's threshold
    ``watch[v]``, the latest close time at which a line with v valid pages that changes could overtake it
    before then."""
    P = s.prm[0].pages
    sc, close_time, close_seq = s.sc[0], s.close_time, s.close_seq
    cb, seqb = close_time[best], close_seq[best]
    until = now + HORIZON * P
    # the earliest-closed lines with steeper scores (rows 1 .. vb - 1): when the first of them overtakes b. x
    # overtakes b before `until` iff its time t <= until - 1, tested without dividing (t = ceil(num / d), or
    # floor(num / d) + 1 when x closed after b; d > 0): num <= (until - 1) d, or num < (until - 1) d
    done = False
    for wi in range(age_bits.shape[0]):
        m = age_bits[wi] & (_NOT_ROW0 if wi == 0 else _ALL)
        while m != 0:
            v = (wi << 6) + trailing_zeros(m)
            m &= m - np.uint64(1)
            if v >= vb:
                done = True
                break
            h = slot_line[age_head[v]]
            ax = (P - v) * vb
            ab = (P - vb) * v
            d = ax - ab
            num = ax * close_time[h] - ab * cb
            lim = (until - 1) * d
            if num < lim or (num == lim and close_seq[h] < seqb):
                until = _overtakes_at(P, v, close_time[h], close_seq[h], vb, cb, seqb)
        if done:
            break
    # watch[v]: a line with v valid pages and close time c overtakes b before `until` only if c <= watch[v]:
    # for v < vb its lead grows, so it must lead at until - 1; for v >= vb it shrinks, so it must lead now
    # (its lead before its change was smaller still). Leading at t means (t - c) ax >= (t - cb) ab.
    watch[0] = K.ALWAYS
    watch[P] = K.NO_WATCH
    odds = K.count_odds(s)
    # the literal 1 compiles _thresholds again for it (see flashrepro.ftl._kernel), and that copy made
    # cost-benefit's runs under FEMU's thresholds about a tenth faster than one compiled copy did
    _thresholds(watch, odds, P, vb, cb, 1, vb, until - 1)  # literal: a faster copy
    _thresholds(watch, odds, P, vb, cb, vb, P, now)
    sc.watch_line, sc.watch_until, sc.watch_ok = best, until, 1


@njit(cache=True, inline="always")
def _choose(s, now):
    """The best line (:func:`_best`, or the earliest-closed empty line), and its watch (:func:`_watch`) when a
    background rule asks between passes."""
    sc = s.sc[0]
    _, slot_line, _, _, age_head, _, watch, _, age_bits, _ = K.order_views(s)
    sc.watch_ok = 0
    K.sync_ages(s)
    q = age_head[0]
    if q >= 0:  # an empty line: an infinite ratio; the earliest-closed one wins until an earlier one empties
        b = slot_line[q]
        watch[:] = K.NO_WATCH
        watch[0] = s.close_time[b]
        sc.watch_line, sc.watch_until, sc.watch_ok = b, K.ALWAYS, 1
        return b
    best, vb = _best(s, now, slot_line, age_head, age_bits)
    if best >= 0 and s.prm[0].background >= 0:  # no background pass asks between two passes: no watch
        _watch(s, now, best, vb, slot_line, age_head, age_bits, watch)
    return best


@jk.njit_no_refcount(K.VICTIM_SIG)
def pick(s, first):
    sc = s.sc[0]
    if K.watch_holds(sc, sc.clock):
        return sc.watch_line
    return _choose(s, sc.clock)


register("cost-benefit", pick, "largest age * (1 - u) / (2u) (LFS); age = host writes since the line closed",
         reads_ages=True, watches=True)
