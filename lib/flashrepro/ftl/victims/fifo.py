"""``fifo``: the earliest-closed candidate (FEMU's ``select_victim_line_fifo``, ``gc_policy=fifo``).

FEMU keeps its victim queue in close order; fully valid lines sit in a separate list and join the
queue, at their close position, when they lose a page. The FIFO of closed lines from its front, skipping
the fully valid ones, gives the same line: the first slot of the mechanism's bitset of closed lines with
an invalid page (slots are in close order; ``reads_slots``), a search of its words instead of a walk past
the full lines.
"""


import numpy as np

from ... import jitkit as jk
from .. import _kernel as K
from ._registry import register


@jk.njit_no_refcount(K.VICTIM_SIG)
def pick(s, first):
    slot_of, slot_line, age_v, age_log, age_head, slot_seq, watch, slot_bits, age_bits, age_slots = K.order_views(s)
    q = K.slot_first_from(slot_bits, s.prm[0].lines, K.SLOT_HAS_INVALID, np.int64(0), 2 * s.prm[0].lines)
    return -1 if q < 0 else slot_line[q]


register("fifo", pick, "the earliest-closed line with an invalid page", stable_skip=True, reads_slots=True)
