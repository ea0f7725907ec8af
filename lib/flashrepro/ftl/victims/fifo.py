"""``fifo``: the earliest-closed candidate (FEMU's ``select_victim_line_fifo``, ``gc_policy=fifo``).

FEMU keeps its victim queue in close order; fully valid lines sit in a separate list and join the
queue, at their close position, when they lose a page. Walking the FIFO of closed lines from its front
and skipping the fully valid ones gives the same line.
"""

from numba import njit

from ... import jitkit as jk
from .. import _kernel as K
from ._registry import register


@njit(K.VICTIM_SIG, cache=True)
def pick(s, first):
    L = s.prm[K.P_LINES]
    P = s.prm[K.P_PAGES]
    ln = jk.list_front(s.fifo, L)
    while ln != L:
        if s.valid[ln] < P:
            return ln
        ln = jk.list_next(s.fifo, ln)
    return -1


register("fifo", pick, "the earliest-closed line with an invalid page", stable_skip=True)
