"""``cost-benefit``: the cost-benefit cleaner (FEMU's ``select_victim_line_cb``, ``gc_policy=cost-benefit``).

Rosenblum and Ousterhout's LFS cleaner [1]_ cleans the segment with the highest benefit / cost, the
space freed times its age over the cost of cleaning. On flash, where the victim's live pages are read
and written once each, the cost is 2u [2]_, and the rule is FEMU's [3]_:
maximise ``age * (1 - u) / (2u)``, u the fraction of valid pages. With u = v / P this is
``age * (P - v) / (2 v)``, compared exactly by cross-multiplying in int64 (exact while
``age * P * P < 2**63``). A line with no valid page has an infinite ratio and always wins.

Age is *logical*: host writes since the line closed (``sc[CLOCK] - close_time``), not FEMU's wall-clock
nanoseconds, so runs are deterministic and independent of the simulator's speed.

Candidates (closed lines with an invalid page) are visited in close order and a line replaces the best
so far only if its ratio is strictly larger, so ties, among empty lines too, go to the earliest-closed
line. O(closed lines) per pick, as FEMU's scan of its whole victim heap.

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

from ... import jitkit as jk
from .. import _kernel as K
from ._registry import register


@njit(K.VICTIM_SIG, cache=True)
def pick(s, first):
    L = s.prm[K.P_LINES]
    P = s.prm[K.P_PAGES]
    now = s.sc[K.CLOCK]
    best = -1
    best_age = 0
    best_inv = 0
    best_val = 1
    ln = jk.list_front(s.fifo, L)
    while ln != L:
        v = np.int64(s.valid[ln])
        if v == 0:
            return ln  # empty: the earliest-closed one wins
        if v < P:
            age = now - s.close_time[ln]
            inv = P - v
            if best < 0 or age * inv * best_val > best_age * best_inv * v:
                best, best_age, best_inv, best_val = ln, age, inv, v
        ln = jk.list_next(s.fifo, ln)
    return best


register("cost-benefit", pick, "largest age * (1 - u) / (2u) (LFS); age = host writes since the line closed")
