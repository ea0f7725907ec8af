"""``random``: a candidate drawn uniformly (FEMU's ``select_victim_line_random``, ``gc_policy=random``).

The draw is ``cands[r % n]`` over the ``n`` candidates (closed lines with an invalid page, an array set
in the order the mechanism keeps), ``r`` the next number of the splitmix64 stream seeded with the
policy's ``seed`` (FEMU: ``gc_seed``). A background pass that then skips the line has still used the draw,
as in FEMU. A follow-up victim (under a stop rule other than "one") is another draw.
"""

from numba import njit

from .. import _kernel as K
from ._registry import draw_below, register


@njit(K.VICTIM_SIG, cache=True)
def pick(s, first):
    n = s.sc[K.N_CANDS]
    if n == 0:
        return -1
    return s.cands[draw_below(s.rng, n)]


register("random", pick, "a line with an invalid page, uniformly at random (seeded splitmix64)", params=("seed",))
