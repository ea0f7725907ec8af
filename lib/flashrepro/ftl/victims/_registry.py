"""The registry of victim rules, and the seeded random stream the sampling rules draw from."""

from __future__ import annotations

import dataclasses

from .._kernel import draw_below, splitmix64  # noqa: F401  (the rules' random stream, re-exported)


@dataclasses.dataclass(frozen=True)
class VictimRule:
    """A registered rule: ``pick`` is the compiled function; ``params`` names the :class:`Policy` fields
    it reads (through ``prm`` or the seed); ``reads_buckets`` asks the mechanism to move lines between
    the valid-count buckets on every change instead of rebuilding them after each chunk; ``stable_skip``
    says that a first victim refused by a background pass (too few invalid pages) stays refused until a
    line closes or is erased or a closed line reaches the background threshold, so the mechanism need
    not ask again before then (deterministic rules whose choice moves only with those events);
    ``reads_heap`` asks it to keep FEMU's victim heap (``state.heap``, see :mod:`.._kernel`): 0 = no,
    ``HEAP_KEPT`` or ``HEAP_STALE`` (the kernel's constants). ``samples`` says the rule's first victim is
    :func:`~.._kernel.sample_least_valid` of ``d`` draws (``d`` its parameter if it has one, else 1), so
    the mechanism's background probe draws it without calling the rule. ``reads_ages`` and ``reads_slots``
    ask the mechanism to keep the close-ordered structures (``state.ages``, ``state.slot_*``, see
    :mod:`.._kernel`); ``watches`` says the rule publishes a watched answer (``sc[WATCH_*]``, ``state.watch``)
    that the mechanism ends when a line could overtake it, and that lets it skip background passes."""

    name: str
    pick: object
    description: str
    params: tuple[str, ...] = ()
    reads_buckets: bool = False
    stable_skip: bool = False
    reads_heap: int = 0
    samples: bool = False
    reads_ages: bool = False
    reads_slots: bool = False
    watches: bool = False


VICTIM_RULES: dict[str, VictimRule] = {}


def register(name: str, pick, description: str, params: tuple[str, ...] = (), reads_buckets: bool = False,
             stable_skip: bool = False, reads_heap: int = 0, samples: bool = False, reads_ages: bool = False,
             reads_slots: bool = False, watches: bool = False) -> None:
    if name in VICTIM_RULES:
        raise ValueError(f"victim rule {name!r} registered twice")
    VICTIM_RULES[name] = VictimRule(name, pick, description, tuple(params), reads_buckets, stable_skip, reads_heap,
                                    samples, reads_ages, reads_slots, watches)


def get_victim_rule(name: str) -> VictimRule:
    try:
        return VICTIM_RULES[name]
    except KeyError:
        raise ValueError(f"unknown victim rule {name!r}; valid: {', '.join(sorted(VICTIM_RULES))}") from None
