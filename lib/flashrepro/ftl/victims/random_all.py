"""``random-all``: a closed line drawn uniformly at random, whether or not it has an invalid page.

This is the textbook random rule of the analytic models (a victim "selected uniformly at random" among all
blocks): under uniform random single-page writes its write amplification tends to 1 / (1 - rho), rho the
logical over the physical pages, as the device grows (:mod:`flashrepro.theory.ftl`). FEMU's ``random``
(:mod:`.random_choice`) draws only among lines with an invalid page, which is not the same rule: a line
with no invalid page, when drawn here, is copied whole and frees nothing.

**The draw.** A line number ``r % L`` (``r`` the next number of the splitmix64 stream seeded with the
policy's ``seed``, as ``random`` draws), drawn again until the line is on the FIFO of closed lines, which
holds exactly the closed lines not yet taken by the current GC pass. The kernel keeps no array of all closed
lines, and walking the FIFO would cost O(lines) per pick; rejection costs ``L / closed`` draws in
expectation, O(1): GC runs only when at most the trigger's kept lines (under half of them, which
:class:`flashrepro.ftl.FTL` enforces) are free, so at least ``L - kept - 3`` lines are closed (under the
reserve trigger with one reserve line, all but about two).

**A first victim with no invalid page.** Reserve and forced passes take it and copy it whole
(``_kernel.FULL_FIRST_VICTIMS``), so the rule is the textbook one throughout; a background pass refuses it
(its draw is spent, as ``random``'s). Under FEMU's trigger a background pass asks after every host write, so
the mechanism draws that first victim itself (:func:`~flashrepro.ftl._kernel.draw_closed`, the function ``pick``
calls) instead of calling the rule: a call passes the whole state, and cost about 200 ns a write.
"""


from ... import jitkit as jk
from .. import _kernel as K
from ._registry import draw_below, register

# Whether the kernel's reserve and forced passes take a first victim with no invalid page (and copy it
# whole); a compile-time constant of pick (the victims package recompiles every rule when _kernel.py changes).
TAKES_FULL_FIRST = bool(K.FULL_FIRST_VICTIMS)


@jk.njit_no_refcount(K.VICTIM_SIG)
def pick(s, first):
    L = s.prm[0].lines
    P = s.prm[0].pages
    if jk.list_front(s.fifo, L) == L:  # no closed line left to take
        return -1
    need_invalid = first and not TAKES_FULL_FIRST
    if need_invalid and s.sc[0].n_cands == 0:  # only lines with no invalid page: none the kernel would take
        return -1
    if not need_invalid:
        return K.draw_closed(s.fifo, L, s.rng)
    while True:
        ln = draw_below(s.rng, L)
        if jk.list_contains(s.fifo, ln) and not (need_invalid and s.valid[ln] == P):
            return ln


def configure(params, geometry, prm) -> None:
    """The mechanism's background probe draws the first victim itself (:func:`~.._kernel.draw_closed`, as
    ``pick`` does) instead of calling the rule after every host write under FEMU's trigger."""
    if TAKES_FULL_FIRST:  # a background pass's first victim is then the plain draw_closed
        prm.sample_draws = K.SAMPLE_CLOSED


register("random-all", pick, "any closed line, uniformly at random, with an invalid page or not (the textbook rule; "
         "seeded splitmix64)", draws=True, configure=configure)
