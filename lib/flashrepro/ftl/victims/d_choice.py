"""``d-choice``: the least-valid of ``d`` candidates drawn at random (FEMU's
``select_victim_line_dchoice``, ``gc_policy=d-choice``, d = 4).

Each of the ``d = prm[D_CHOICES]`` draws is uniform over the candidates, with replacement, as
``random`` draws (``cands[r % n]``, splitmix64 seeded with ``seed``). Ties go to the earliest draw.
"""

from numba import njit

from .. import _kernel as K
from ._registry import draw_below, register


@njit(K.VICTIM_SIG, cache=True)
def pick(s, first):
    n = s.sc[K.N_CANDS]
    if n == 0:
        return -1
    best = -1
    for _ in range(s.prm[K.D_CHOICES]):
        ln = s.cands[draw_below(s.rng, n)]
        if best < 0 or s.valid[ln] < s.valid[best]:
            best = ln
    return best


register("d-choice", pick, "the least-valid of d lines with an invalid page drawn at random", params=("d", "seed"))
