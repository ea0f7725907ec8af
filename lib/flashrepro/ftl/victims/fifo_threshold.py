"""``fifo_threshold``: 2R's and 2R++'s FIFO scan with a utilization threshold (paper 4).

Closed lines are visited in close order. The ``prm[RECENT]`` most recently closed are never victims;
the others form the *eligible prefix* of the FIFO. A scan starts at the cursor (the line after the
previous victim; the head when that victim was the newest closed line, or with ``Policy.cursor="resume"``
the first line closed after it), visits the eligible prefix cyclically once, and takes the first line with
at most ``prm[LIMIT]`` valid pages (``Policy.threshold`` x pages per line, rounded down; strictly under it
with ``Policy.strict_threshold``, 2R++'s "lower than").

* First victim of a pass: the first eligible line under the limit. The paper gives no rule for when
  there is none (section 3); ``prm[FALLBACK]`` (``Policy.fallback``) names the assumption:

  - ``"least-valid"`` (0): the least-valid eligible line (first in scan order among ties), a *fallback*;
  - ``"fifo"`` (1): the first eligible line from the cursor with an invalid page (pure FIFO), a *fallback*;
  - ``"global"`` (2): the least-valid closed line of all, recent window included (first in close order
    among ties), a *global fallback*.

  If the rule finds nothing with an invalid page (every eligible line full, or none eligible), the
  least-valid closed line of all is taken, a *global fallback*. The kernel counts a fallback only when
  the pass takes the victim (``sc[PICK_NOTE]``). The victim's region (normal = kinds 0 and 1, cold = 2)
  is kept in ``sc[REGION]``.
* Follow-up victims: the same scan from the cursor, restricted to the first victim's region, with no
  fallback (-1 ends the pass).
"""

from numba import njit

from ... import jitkit as jk
from .. import _kernel as K
from ._registry import register


@njit(cache=True, inline="always")
def _scan(s, region, first, fifo_fallback):
    """One cyclic pass over the eligible FIFO prefix from the cursor: the first line under the limit
    (in ``region`` unless ``first``), else for the first victim the least-valid eligible line (or with
    ``fifo_fallback`` the first one with an invalid page) as ``-2 - line`` (a fallback), else -1."""
    L = s.prm[K.P_LINES]
    fifo, close_seq, valid, kind = s.fifo, s.close_seq, s.valid, s.kind
    cutoff = s.sc[K.SEQ] - s.prm[K.RECENT]
    limit = s.prm[K.LIMIT]
    head = jk.list_front(fifo, L)
    if head == L or close_seq[head] > cutoff:
        return -1  # nothing eligible
    ln = s.sc[K.CURSOR]
    if ln < 0 or ln == L or close_seq[ln] > cutoff:  # none, pending, or in the recent window: the head
        ln = head
    begin = ln
    best = -1
    best_v = s.prm[K.P_PAGES] + 1
    while True:
        v = valid[ln]
        if first or (kind[ln] == K.COLD) == (region == 1):
            if v <= limit:
                return ln
            if fifo_fallback:
                if best < 0 and v < s.prm[K.P_PAGES]:
                    best_v = v
                    best = ln
            elif v < best_v:
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


@njit(cache=True, inline="always")
def _least_valid_closed(s):
    L = s.prm[K.P_LINES]
    best = -1
    best_v = 1 << 40
    ln = jk.list_front(s.fifo, L)
    while ln != L:
        if s.valid[ln] < best_v:
            best_v = s.valid[ln]
            best = ln
        ln = jk.list_next(s.fifo, ln)
    return best


@njit(K.VICTIM_SIG, cache=True)
def pick(s, first):
    if not first:
        return _scan(s, s.sc[K.REGION], False, False)
    P = s.prm[K.P_PAGES]
    mode = s.prm[K.FALLBACK]
    found = _scan(s, 0, True, mode == 1)
    if found < -1:
        if mode == 2:
            victim = -1  # the global rule below
        else:
            victim = -2 - found
            s.sc[K.PICK_NOTE] = K.FALLBACKS
    else:
        victim = found
    if victim < 0 or s.valid[victim] == P:
        victim = _least_valid_closed(s)
        s.sc[K.PICK_NOTE] = K.GLOBAL_FALLBACKS
        if victim < 0 or s.valid[victim] == P:
            return -1
    s.sc[K.REGION] = 1 if s.kind[victim] == K.COLD else 0
    return victim


register("fifo_threshold", pick, "2R's FIFO scan from the last victim: the first line outside the recent window "
         "at or under the threshold, follow-ups from its region; when none is, a fallback (least-valid, pure "
         "FIFO or global least-valid)",
         params=("threshold", "strict_threshold", "recent_fraction", "fallback", "cursor"), stable_skip=True)
