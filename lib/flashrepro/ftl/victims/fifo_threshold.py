"""``fifo_threshold``: 2R's and 2R++'s FIFO scan with a utilization threshold (paper 4).

Its settings (:data:`PARAMS`, Policy keywords) are ``threshold``, ``strict_threshold``, ``recent_fraction``,
``fallback`` and ``cursor``; :func:`configure` turns them into the kernel's parameters.

Closed lines are visited in close order. The ``prm.rule[RECENT]`` most recently closed are never victims;
the others form the *eligible prefix* of the FIFO. A scan starts at the cursor (the line after the
previous victim; the head when that victim was the newest closed line, or with ``cursor="resume"``
the first line closed after it), visits the eligible prefix cyclically once, and takes the first line with
at most ``prm.limit`` valid pages (``threshold`` x pages per line, rounded down; strictly under it
with ``strict_threshold``, 2R++'s "lower than").

* First victim of a pass: the first eligible line under the limit. The paper gives no rule for when
  there is none (section 3); ``prm.rule[FALLBACK]`` (``fallback``) names the assumption:

  - ``"least-valid"`` (``LEAST_VALID``): the least-valid eligible line (first in scan order among ties), a *fallback*;
  - ``"fifo"`` (``FIFO``): the first eligible line from the cursor with an invalid page (pure FIFO), a *fallback*;
  - ``"global"`` (``GLOBAL``): the least-valid closed line of all, recent window included (first in close order
    among ties), a *global fallback*.

  If the rule finds nothing with an invalid page (every eligible line full, or none eligible), the
  least-valid closed line of all is taken, a *global fallback*. The kernel counts a fallback only when
  the pass takes the victim (``sc.pick_note``). The victim's region (``NORMAL_REGION``: kinds 0 and 1;
  ``COLD_REGION``: kind 2) is kept in the rule's scalar ``sc.rule[REGION]``.
* Follow-up victims: the same scan from the cursor, restricted to the first victim's region, with no
  fallback (-1 ends the pass).

Every scan above is a query, not a walk (``reads_slots``): the mechanism gives each closed line a *slot*,
increasing in close order, and keeps bitsets of the slots of lines at most ``prm.limit`` valid (one per
region) and of lines with an invalid page; the eligible prefix is the slots up to the last line closed at
least ``prm.rule[RECENT]`` closes ago (a binary search), and the first line of a bitset in cyclic order from the
cursor's slot is a search of its words. The least-valid lines (the fallbacks) are two vectorized passes over
the lines' valid counts and slots (:func:`_least_valid_slot`): the fewest valid pages among the eligible
lines, then of those the first slot from the cursor. (The mechanism's age rows, ``reads_ages``, answer the
same question, but keeping them cost 2R's host loop a log entry per page a closed line lost, and each GC pass
a sync of that log: about a third of 2R's time on fio zipf 0.9, measured.)
"""

import numpy as np
from numba import njit

from ... import jitkit as jk
from .. import _kernel as K
from ._registry import Param, between, one_of, register

RECENT, FALLBACK = 0, 1  # this rule's slots of prm.rule: the recent window, the fallback's code
LEAST_VALID, FIFO, GLOBAL = 0, 1, 2  # the fallback's codes in prm.rule[FALLBACK]
FALLBACKS = {"least-valid": LEAST_VALID, "fifo": FIFO, "global": GLOBAL}  # the fallback's code by name
REGION = 0  # this rule's slot of sc.rule: the first victim's region
NORMAL_REGION, COLD_REGION = 0, 1  # its values (normal kinds 0 and 1, or cold)
CURSORS = ("wrap", "resume")

PARAMS = (
    Param("threshold", 0.4, between(0, 1), "the largest utilization a victim may have (2R's 40%)"),
    Param("strict_threshold", False, one_of(False, True),
          "victims strictly under the threshold: 2R++'s \"임계값보다 낮을 경우\" (lower than the threshold); 2R's "
          "\"임계값보다 높을 경우 ... 지나간다\" passes over only lines above it. It matters only when threshold x "
          "pages per line is whole"),
    Param("recent_fraction", 0.2, between(0, 1, high_open=True),
          "the share of all lines, the most recently closed, that are never victims"),
    Param("fallback", "least-valid", one_of(*FALLBACKS),
          "the first victim when no eligible line is under the threshold, which paper 4 leaves open: the "
          "\"least-valid\" eligible line, the first eligible line in \"fifo\" order from the cursor, or the "
          "\"global\" least-valid closed line"),
    Param("cursor", "wrap", one_of(*CURSORS),
          "after a victim that was the newest closed line (only with recent_fraction 0 or the global fallback) "
          "the scan restarts at the oldest line (\"wrap\") or at the first line closed after it (\"resume\"); "
          "the paper says only that selection resumes where the last GC ended"),
)


def threshold_pages(params, pages_per_line: int) -> int:
    """The most valid pages a victim may hold under ``params``' (a Policy, or anything with ``threshold`` and
    ``strict_threshold``) threshold: threshold x pages per line rounded down, or with ``strict_threshold``
    the largest count strictly under it."""
    x = params.threshold * pages_per_line
    if params.strict_threshold:
        return int(np.ceil(x - 1e-9)) - 1
    return int(np.floor(x + 1e-9))


def configure(params, geometry, prm) -> None:
    """The settings in the kernel's parameters: the slot bitsets' limit, the recent window in lines, the
    fallback's code and the cursor's rule. The pure-FIFO fallback is not ``stable_skip``: a line the scan
    passed over can drop under the threshold without reaching the background threshold first, and become
    the choice."""
    prm.limit = threshold_pages(params, geometry.pages_per_line)
    prm.rule[RECENT] = int(np.floor(params.recent_fraction * geometry.n_lines + 1e-9))
    prm.rule[FALLBACK] = FALLBACKS[params.fallback]
    prm.cursor_resume = params.cursor == "resume"
    prm.stable_skip = params.fallback != "fifo"


@njit(cache=True, inline="always")
def _first_of(a, b, start, n_slots):
    """Whichever of slots ``a`` and ``b`` (-1: none) comes first in cyclic order from ``start``."""
    if a < 0:
        return b
    if b < 0:
        return a
    ka = a - start if a >= start else a + n_slots
    kb = b - start if b >= start else b + n_slots
    return a if ka < kb else b


@jk.njit_no_refcount
def _scan(s, region, first, fallback):
    """The first eligible line under the limit in scan order (in ``region`` unless ``first``); else, for a
    first victim, the fallback's line as ``-2 - line`` (``fallback``: 0 = the least-valid eligible line, the
    first in scan order among ties; 1 = the first eligible line with an invalid page; 2 = none); else -1."""
    L = s.prm[0].lines
    slot_of, slot_line, age_v, age_log, age_head, slot_seq, watch, slot_bits, age_bits, age_slots = K.order_views(s)
    cutoff = s.sc[0].seq - s.prm[0].rule[RECENT]
    last = K.slot_last_closed_by(slot_seq, s.sc[0].n_slots, cutoff)
    if last < 0:
        return -1  # nothing eligible
    cursor = s.sc[0].cursor
    if cursor < 0 or cursor == L or s.close_seq[cursor] > cutoff:  # none, pending, or recent: from the head
        start = 0
    else:
        start = slot_of[cursor]
    if first:
        q = _first_of(K.slot_first_from(slot_bits, L, K.SLOT_UNDER, start, last),
                      K.slot_first_from(slot_bits, L, K.SLOT_UNDER_COLD, start, last), start, 2 * L)
    else:
        q = K.slot_first_from(slot_bits, L, K.SLOT_UNDER_COLD if region == COLD_REGION else K.SLOT_UNDER, start, last)
    if q >= 0:
        return slot_line[q]
    if not first:
        return -1
    if fallback == FIFO:
        q = K.slot_first_from(slot_bits, L, K.SLOT_HAS_INVALID, start, last)
        return -2 - slot_line[q] if q >= 0 else -1
    if fallback == GLOBAL:
        return -1
    # the least-valid eligible line with an invalid page, the first from the cursor among ties (if only full
    # lines are eligible the global fallback decides, as it would after taking one)
    q = _least_valid_slot(s.valid, slot_of, s.prm[0].pages, L, start, last)
    return -1 if q < 0 else -2 - slot_line[q]


@jk.njit_no_refcount
def _least_valid_slot(valid, slot_of, P, L, start, last):
    """The slot of the closed line in slots ``0 .. last`` with the fewest valid pages, below ``P``, the first
    in cyclic order ``start .. last, 0 .. start - 1`` among ties; -1 if there is none. One pass over the
    lines, a branch-free min of the key ``valid * 2L + distance from start`` that the compiler vectorizes:
    cheaper than keeping the lines sorted by valid count and close order, which cost the host loop a log entry
    per page a closed line lost and each pass a sync of that log. The keys are 32-bit where they fit (AVX2
    has a 32-bit min, 8 lanes; a 64-bit one it builds from a compare and a blend, 4 lanes)."""
    n = 2 * L
    if (P + 1) * n < 2 ** 31:
        best = _least_key32(valid, slot_of, np.int32(P), np.int32(L), np.int32(start), np.int32(last))
    else:
        best = _least_key64(valid, slot_of, P, L, start, last)
    if best >= P * n:
        return -1
    q = best % n + start
    return q - n if q >= n else q


@njit(cache=True, inline="always")
def _least_key32(valid, slot_of, P, L, start, last):
    """:func:`_least_valid_slot`'s smallest key in int32 arithmetic (the caller checked that ``(P + 1) * 2L``
    fits); ``P * 2L`` if no line qualifies."""
    n = np.int32(2 * L)
    none = np.int32(P * n)
    best = none
    for ln in range(L):  # (Numba widens int32 arithmetic to int64: each result is cast back, so it stays 32-bit)
        sl = slot_of[ln]
        d = np.int32(sl - start)
        d = np.int32(d + ((d >> np.int32(31)) & n))  # (sl - start) mod 2L for a slot in 0 .. 2L - 1
        key = np.int32(np.int32(valid[ln] * n) + d)
        ok = (sl >= np.int32(0)) & (sl <= last)
        best = min(best, key if ok else none)
    return np.int64(best)


@njit(cache=True, inline="always")
def _least_key64(valid, slot_of, P, L, start, last):
    """:func:`_least_key32` in int64 arithmetic, for geometries whose keys do not fit in 32 bits."""
    n = np.int64(2 * L)
    none = np.int64(P) * n
    best = none
    for ln in range(L):
        sl = np.int64(slot_of[ln])
        d = sl - start
        d += (d >> np.int64(63)) & n
        key = np.int64(valid[ln]) * n + d
        ok = (sl >= 0) & (sl <= last)
        best = min(best, key if ok else none)
    return best


@jk.njit_no_refcount
def _least_valid_closed(s):
    """The least-valid closed line with an invalid page, the earliest-closed among ties (-1 if every closed
    line is full: a full line would be refused)."""
    slot_of, slot_line, age_v, age_log, age_head, slot_seq, watch, slot_bits, age_bits, age_slots = K.order_views(s)
    L = s.prm[0].lines
    q = _least_valid_slot(s.valid, slot_of, s.prm[0].pages, L, np.int64(0), 2 * L - 1)
    return -1 if q < 0 else slot_line[q]


@jk.njit_no_refcount(K.VICTIM_SIG)
def pick(s, first):
    if not first:
        # (a follow-up takes no fallback: GLOBAL is unused)
        return _scan(s, s.sc[0].rule[REGION], np.bool_(False), np.int64(GLOBAL))
    P = s.prm[0].pages
    mode = s.prm[0].rule[FALLBACK]
    found = _scan(s, np.int64(0), np.bool_(True), mode)
    if found < -1:
        victim = -2 - found
        s.sc[0].pick_note = K.FALLBACKS
    else:
        victim = found
    if victim < 0 or s.valid[victim] == P:
        victim = _least_valid_closed(s)
        s.sc[0].pick_note = K.GLOBAL_FALLBACKS
        if victim < 0 or s.valid[victim] == P:
            return -1
    s.sc[0].rule[REGION] = COLD_REGION if s.kind[victim] == K.COLD else NORMAL_REGION
    return victim


register("fifo_threshold", pick, "2R's FIFO scan from the last victim: the first line outside the recent window "
         "at or under the threshold, follow-ups from its region; when none is, a fallback (least-valid, pure "
         "FIFO or global least-valid)",
         params=PARAMS, configure=configure, stable_skip=True, reads_slots=True)
