"""The victim rules written as walks: each pick walks every closed line (the package's rules keep their
candidates incrementally instead).

Slow and obviously correct, and fast enough (compiled) to run the incremental rules of
``lib/flashrepro/ftl/victims`` against over streams far longer than the plain-Python reference of
``reference_ftl.py`` can: the same device, the same writes, the same victims expected. They read only the
FIFO of closed lines and the valid counts, never the age lists, slots or watch that the incremental rules
read, so a fault in those structures shows as a different victim. Each is ``pick(state, first)``, compiled
with the kernel's signature by :func:`scan_rule` on first use (not at import: every test worker imports this
module to collect the tests, and compiling the three took each about 5 s); a test swaps it into an ``FTL``
(``ftl._pick = scan_rule(policy.victim)``).
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from flashrepro import jitkit as jk
from flashrepro.ftl import _kernel as K
from flashrepro.ftl.victims import fifo_threshold as FT


def cost_benefit(s, first):
    """The largest ``age * (P - v) / (2 v)`` over the closed lines with an invalid page, in close order, a
    line replacing the best only if strictly larger; an empty line at once."""
    L = s.prm[0].lines
    P = s.prm[0].pages
    now = s.sc[0].clock
    best = -1
    best_age = 0
    best_inv = 0
    best_val = 1
    ln = jk.list_front(s.fifo, L)
    while ln != L:
        v = np.int64(s.valid[ln])
        if v == 0:
            return ln
        if v < P:
            age = now - s.close_time[ln]
            inv = P - v
            if best < 0 or age * inv * best_val > best_age * best_inv * v:
                best, best_age, best_inv, best_val = ln, age, inv, v
        ln = jk.list_next(s.fifo, ln)
    return best


def fifo(s, first):
    """The earliest-closed line with an invalid page."""
    L = s.prm[0].lines
    P = s.prm[0].pages
    ln = jk.list_front(s.fifo, L)
    while ln != L:
        if s.valid[ln] < P:
            return ln
        ln = jk.list_next(s.fifo, ln)
    return -1


@njit
def _scan(s, region, first, fifo_fallback):
    L = s.prm[0].lines
    fifo_, close_seq, valid, kind = s.fifo, s.close_seq, s.valid, s.kind
    cutoff = s.sc[0].seq - s.prm[0].rule[FT.RECENT]
    limit = s.prm[0].limit
    head = jk.list_front(fifo_, L)
    if head == L or close_seq[head] > cutoff:
        return -1
    ln = s.sc[0].cursor
    if ln < 0 or ln == L or close_seq[ln] > cutoff:
        ln = head
    begin = ln
    best = -1
    best_v = s.prm[0].pages + 1
    while True:
        v = valid[ln]
        if first or (kind[ln] == K.COLD) == (region == FT.COLD_REGION):
            if v <= limit:
                return ln
            if fifo_fallback:
                if best < 0 and v < s.prm[0].pages:
                    best_v = v
                    best = ln
            elif v < best_v:
                best_v = v
                best = ln
        ln = jk.list_next(fifo_, ln)
        if ln == L or close_seq[ln] > cutoff:
            ln = head
        if ln == begin:
            break
    if first and best >= 0:
        return -2 - best
    return -1


@njit
def _least_valid_closed(s):
    L = s.prm[0].lines
    best = -1
    best_v = 1 << 40
    ln = jk.list_front(s.fifo, L)
    while ln != L:
        if s.valid[ln] < best_v:
            best_v = s.valid[ln]
            best = ln
        ln = jk.list_next(s.fifo, ln)
    return best


def fifo_threshold(s, first):
    """2R's scan: from the cursor over the eligible prefix, cyclically, the first line under the limit;
    the fallbacks and the global fallback as ``victims/fifo_threshold.py`` states them."""
    if not first:
        return _scan(s, s.sc[0].rule[FT.REGION], False, False)
    P = s.prm[0].pages
    mode = s.prm[0].rule[FT.FALLBACK]
    found = _scan(s, 0, True, mode == FT.FIFO)
    if found < -1:
        if mode == FT.GLOBAL:
            victim = -1
        else:
            victim = -2 - found
            s.sc[0].pick_note = K.FALLBACKS
    else:
        victim = found
    if victim < 0 or s.valid[victim] == P:
        victim = _least_valid_closed(s)
        s.sc[0].pick_note = K.GLOBAL_FALLBACKS
        if victim < 0 or s.valid[victim] == P:
            return -1
    s.sc[0].rule[FT.REGION] = FT.COLD_REGION if s.kind[victim] == K.COLD else FT.NORMAL_REGION
    return victim


SCAN_RULES = {"cost-benefit": cost_benefit, "fifo": fifo, "fifo_threshold": fifo_threshold}  # not compiled


@functools.cache
def scan_rule(victim: str):
    """The scan rule standing in for the incremental rule ``victim``, compiled with :data:`K.VICTIM_SIG` (the
    first call for each rule compiles it)."""
    return njit(K.VICTIM_SIG)(SCAN_RULES[victim])
