"""``d-choice``: the least-valid of ``d`` candidates drawn at random (FEMU's
``select_victim_line_dchoice``, ``gc_policy=d-choice``, d = 4).

Each of the ``d`` draws (its setting, in ``prm.rule[D]``) is uniform over the candidates, with replacement, as
``random`` draws (``cands[r % n]``, splitmix64 seeded with ``seed``). Ties go to the earliest draw. The
draws are the kernel's :func:`~flashrepro.ftl._kernel.sample_least_valid`, which the mechanism's background
probe calls itself (``samples=True``, with ``prm.sample_draws = d``).
"""


from ... import jitkit as jk
from .. import _kernel as K
from ._registry import Param, at_least, register

D = 0  # this rule's slot of prm.rule: the draws per pick

PARAMS = (Param("d", 4, at_least(1), "the draws per pick (FEMU's 4)"),)


def configure(params, geometry, prm) -> None:
    """``d`` in the rule's slot and as the background probe's draws."""
    prm.rule[D] = params.d
    prm.sample_draws = params.d


@jk.njit_no_refcount(K.VICTIM_SIG)
def pick(s, first):
    return K.sample_least_valid(s.cands, s.sc[0].n_cands, s.valid, s.rng, s.prm[0].rule[D])


register("d-choice", pick, "the least-valid of d lines with an invalid page drawn at random", params=PARAMS,
         configure=configure, draws=True, samples=True)
