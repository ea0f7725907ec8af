"""``greedy-heap``: the candidate with the fewest valid pages, ties as FEMU's victim queue breaks them
(FEMU's ``select_victim_line``, its blackbox FTL's only rule until FEMU added others).

FEMU keeps the candidates (closed lines with an invalid page) in ``victim_line_pq``, a binary min-heap on
valid counts (``hw/femu/lib/pqueue.c``), and takes its root. Among equally valid lines the root is
whichever the heap's moves left there: a line enters at the bottom when it closes with an invalid page (or
when a full closed line loses its first page) and bubbles up past parents with *more* valid pages on every
page it loses; a victim leaves by pqueue's pop (the last line moves to the root and percolates down,
taking the left child on ties). The mechanism keeps that heap with pqueue's exact moves when a rule
registers ``reads_heap=True`` (``state.heap``, see :mod:`flashrepro.ftl._kernel`), so this rule is its
root, O(1); ``greedy`` breaks the same ties by the least recently changed line instead.

``greedy-heap-stale`` is FEMU's greedy as it was from October 2019 (the heap replaced a list scan) until
commit fe007e336 of 2021-10-04 ("Fix selecting gc line wrong in BlackBox mode"): mark_page_invalid
lowered a line's count without moving it in the heap, so the root is the least valid line only as far as
the heap's later inserts and pops happen to restore the order. Paper 4 does not say which FEMU it
modified, so both are rules here.

A background pass refuses the root only when the root has too few invalid pages; the root changes only
when a line is inserted (closed, or a full line's first lost page, which cannot pass a root with fewer
valid pages) or removed, and the root's own count crosses the background threshold as an event the
mechanism counts, so ``stable_skip`` holds for both.
"""


from ... import jitkit as jk
from .. import _kernel as K
from ._registry import register


@jk.njit_no_refcount(K.VICTIM_SIG)
def pick(s, first):
    if s.sc[0].heap_size == 0:
        return -1
    return s.heap[1]


register("greedy-heap", pick, "fewest valid pages; ties as FEMU's victim heap (pqueue) leaves them",
         reads_heap=K.HEAP_KEPT, stable_skip=True)
register("greedy-heap-stale", pick, "the root of FEMU's victim heap as FEMU kept it until October 2021 (not moved "
         "when a line loses a page)", reads_heap=K.HEAP_STALE, stable_skip=True)
