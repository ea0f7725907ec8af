"""Victim rules for the FTL's garbage collection: one file each, registered by name.

A victim rule is a Numba function compiled eagerly with the signature :data:`~.._kernel.VICTIM_SIG`,
``pick(state, first) -> line or -1``: it reads the :class:`~.._kernel.FTLState` (valid counts, the
FIFO of closed lines, the valid-count buckets, the candidate set, close times, its own parameters in
``prm``) and returns the next victim of a GC pass (``first``) or a follow-up victim. The kernel receives
it as a first-class function, so adding a rule needs no change to the kernel:

1. write ``victims/<name>.py`` with ``@njit(VICTIM_SIG, cache=True) def pick(s, first)`` and a
   ``register("<name>", pick, "<one line>")`` at its end;
2. import the module below.

Rules here: ``greedy`` and ``fifo_threshold`` (paper 4: greedy, 2R, 2R++) and FEMU's ``random``,
``cost-benefit``, ``fifo`` and ``d-choice`` (``hw/femu/bbssd/ftl-line-gc.c`` of MoatLab/FEMU).
"""

from . import cost_benefit, d_choice, fifo, fifo_threshold, greedy, random_choice  # noqa: F401  (each registers)
from ._registry import VICTIM_RULES, VictimRule, get_victim_rule, register, splitmix64

__all__ = ["VICTIM_RULES", "VictimRule", "get_victim_rule", "register", "splitmix64"]
