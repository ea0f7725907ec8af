"""Victim rules for the FTL's garbage collection: one file each, registered by name.

A victim rule is a Numba function compiled eagerly with the signature :data:`~.._kernel.VICTIM_SIG`,
``pick(state, first) -> line or -1``: it reads the :class:`~.._kernel.FTLState` (valid counts, the
FIFO of closed lines, the valid-count buckets, the candidate set, close times, its own parameters in
``prm``) and returns the first victim of a GC pass (``first``) or a follow-up victim. The kernel receives
it as a first-class function, so adding a rule needs no change to the kernel, and its settings need no
change to :mod:`flashrepro.ftl.device`: the rule declares them (:class:`Param`: name, default, check) and a
``configure(params, geometry, prm)`` hook that writes them into its own block of the kernel's parameters
(``prm.rule``, slots numbered from 0 in the rule's file); they become ``Policy`` keywords. A rule that keeps
state between picks keeps it in its own scalars, ``sc.rule`` (numbered in its file the same way; 2R's scan keeps
its first victim's region there), which the mechanism never reads. The recipe, as a diff, is
``docs/ftl_victim_rules.md``:

1. write ``victims/<name>.py`` with ``@jk.njit_no_refcount(VICTIM_SIG) def pick(s, first)`` (it borrows the
   state's arrays and allocates none; helpers it calls ``inline="always"``), its ``Param`` settings and
   ``configure`` if it has any, and a
   ``register("<name>", pick, "<one line>", ...)`` at its end;
2. import the module below.

Rules here: ``greedy-heap``, ``greedy`` and ``fifo_threshold`` (paper 4: greedy with FEMU's ties or the least
recently changed line first, 2R, 2R++), FEMU's ``random``,
``cost-benefit``, ``fifo`` and ``d-choice`` (``hw/femu/bbssd/ftl-line-gc.c`` of MoatLab/FEMU), and the textbook
``random-all`` (any closed line, for the theory checks of :mod:`flashrepro.theory.ftl`).

Numba's disk cache knows only a function's own source file, while a rule compiles in the kernel's
constants and the helpers of ``_kernel.py``, ``_registry.py`` and ``jitkit.py``. When those files change,
importing this package recompiles every rule once (it keeps a fingerprint of them beside the cache)
instead of running machine code built against the old layout.
"""

import hashlib
from pathlib import Path

from . import (  # noqa: F401  (each registers its rule: one line per rule)
    cost_benefit,
    d_choice,
    fifo,
    fifo_threshold,
    greedy,
    greedy_heap,
    random_all,
    random_choice,
)
from ._registry import VICTIM_RULES, Param, VictimRule, get_victim_rule, register, splitmix64, unregister

__all__ = ["VICTIM_RULES", "Param", "VictimRule", "get_victim_rule", "register", "splitmix64", "unregister"]


def _recompile_if_dependencies_changed() -> None:
    here = Path(__file__).parent
    deps = (here.parent / "_kernel.py", here / "_registry.py", here.parent.parent / "jitkit.py")
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in deps)).hexdigest()
    stamp = here / "__pycache__" / "victim-rules-dependencies.sha256"
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    for rule in VICTIM_RULES.values():
        rule.pick.recompile()
    try:
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only install: recompiled in memory this time
        pass


_recompile_if_dependencies_changed()
