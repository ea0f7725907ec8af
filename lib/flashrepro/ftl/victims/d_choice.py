"""``d-choice``: the least-valid of ``d`` candidates drawn at random (FEMU's
``select_victim_line_dchoice``, ``gc_policy=d-choice``, d = 4).

Each of the ``d = prm[D_CHOICES]`` draws is uniform over the candidates, with replacement, as
``random`` draws (``cands[r % n]``, splitmix64 seeded with ``seed``). Ties go to the earliest draw. The
draws are the kernel's :func:`~flashrepro.ftl._kernel.sample_least_valid`, which the mechanism's background
probe calls itself (``samples=True``).
"""

from numba import njit

from .. import _kernel as K
from ._registry import register


@njit(K.VICTIM_SIG, cache=True)
def pick(s, first):
    return K.sample_least_valid(s.cands, s.sc[K.N_CANDS], s.valid, s.rng, s.prm[K.D_CHOICES])


register("d-choice", pick, "the least-valid of d lines with an invalid page drawn at random", params=("d", "seed"),
         samples=True)
