"""``random``: a candidate drawn uniformly (FEMU's ``select_victim_line_random``, ``gc_policy=random``).

The draw is ``cands[r % n]`` over the ``n`` candidates (closed lines with an invalid page, an array set
in the order the mechanism keeps), ``r`` the next number of the splitmix64 stream seeded with the
policy's ``seed`` (FEMU: ``gc_seed``). A background pass that then skips the line has still used the draw,
as in FEMU. A follow-up victim (under a stop rule other than "one") is another draw. The draw is the
kernel's :func:`~flashrepro.ftl._kernel.sample_least_valid` with one draw, which the mechanism's background
probe calls itself (``samples=True``).
"""


from ... import jitkit as jk
from .. import _kernel as K
from ._registry import register


@jk.njit_no_refcount(K.VICTIM_SIG)
def pick(s, first):
    return K.sample_least_valid(s.cands, s.sc[0].n_cands, s.valid, s.rng, 1)


register("random", pick, "a line with an invalid page, uniformly at random (seeded splitmix64)", draws=True,
         samples=True)
