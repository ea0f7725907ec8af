"""The registry of victim rules, and the seeded random stream the sampling rules draw from."""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def splitmix64(rng):
    """The next number of the splitmix64 stream whose state is ``rng[0]`` (FEMU's ``ftl_gc_rand``: the
    state starts at the seed and advances by the golden-ratio constant before each draw)."""
    z = rng[0] + _GOLDEN
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def draw_below(rng, n):
    """A draw from splitmix64 reduced modulo ``n`` (n > 0), as FEMU indexes its victim heap."""
    return np.int64(splitmix64(rng) % np.uint64(n))


@dataclasses.dataclass(frozen=True)
class VictimRule:
    """A registered rule: ``pick`` is the compiled function; ``params`` names the :class:`Policy` fields
    it reads (through ``prm`` or the seed); ``reads_buckets`` asks the mechanism to move lines between
    the valid-count buckets on every change instead of rebuilding them after each chunk; ``stable_skip``
    says that a first victim refused by a background pass (too few invalid pages) stays refused until a
    line closes or is erased or a closed line reaches the background threshold, so the mechanism need
    not ask again before then (deterministic rules whose choice moves only with those events);
    ``reads_heap`` asks it to keep FEMU's victim heap (``state.heap``, see :mod:`.._kernel`): 0 = no,
    ``HEAP_KEPT`` or ``HEAP_STALE`` (the kernel's constants)."""

    name: str
    pick: object
    description: str
    params: tuple[str, ...] = ()
    reads_buckets: bool = False
    stable_skip: bool = False
    reads_heap: int = 0


VICTIM_RULES: dict[str, VictimRule] = {}


def register(name: str, pick, description: str, params: tuple[str, ...] = (), reads_buckets: bool = False,
             stable_skip: bool = False, reads_heap: int = 0) -> None:
    if name in VICTIM_RULES:
        raise ValueError(f"victim rule {name!r} registered twice")
    VICTIM_RULES[name] = VictimRule(name, pick, description, tuple(params), reads_buckets, stable_skip, reads_heap)


def get_victim_rule(name: str) -> VictimRule:
    try:
        return VICTIM_RULES[name]
    except KeyError:
        raise ValueError(f"unknown victim rule {name!r}; valid: {', '.join(sorted(VICTIM_RULES))}") from None
