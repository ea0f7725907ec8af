"""The registry of victim rules: each rule's compiled function, its settings and what it asks of the mechanism;
and the seeded random stream the sampling rules draw from."""

from __future__ import annotations

import dataclasses
import numbers
import types
from collections.abc import Callable

import numpy as np

from .. import _kernel as K
from .._kernel import draw_below, splitmix64  # noqa: F401  (the rules' random stream, re-exported)

# Policy's own keywords (flashrepro.ftl.Policy): no rule setting may take one of these names
POLICY_KEYWORDS = frozenset({"name", "victim", "copy_dest", "stop", "max_victims", "seed", "select", "description",
                             "params"})


@dataclasses.dataclass(frozen=True)
class Param:
    """A setting of a victim rule: a :class:`~flashrepro.ftl.Policy` keyword ``name`` (``Policy(...,
    name=value)``, ``policy.with_(name=value)``, ``policy.name``) with its ``default`` and ``check``, a
    function of the value that returns what is wrong with it ("" if nothing), e.g. :func:`one_of`. A name
    means one setting: two rules that read the same setting share its ``Param`` object. Values must be
    hashable (a Policy is)."""

    name: str
    default: object
    check: Callable[[object], str] = lambda value: ""
    doc: str = ""

    def validate(self, value) -> None:
        """Raise ValueError naming the setting if ``check`` finds something wrong with ``value``."""
        problem = self.check(value)
        if problem:
            raise ValueError(f"{self.name} must be {problem}, got {value!r}")


def one_of(*choices) -> Callable[[object], str]:
    """A check: the value is one of ``choices``."""
    return lambda value: "" if value in choices else f"one of {list(choices)}"


def between(low: float, high: float, high_open: bool = False) -> Callable[[object], str]:
    """A check: a number in ``[low, high]`` (``[low, high)`` with ``high_open``)."""
    span = f"in [{low}, {high})" if high_open else f"in [{low}, {high}]"

    def check(value) -> str:
        ok = isinstance(value, numbers.Real) and low <= value and (value < high if high_open else value <= high)
        return "" if ok else span
    return check


def at_least(low: int) -> Callable[[object], str]:
    """A check: an integer at least ``low``."""
    return lambda value: "" if isinstance(value, numbers.Integral) and value >= low else f"an integer >= {low}"


@dataclasses.dataclass(frozen=True)
class VictimRule:
    """A registered rule.

    ``pick`` is the compiled function. ``params`` are its settings (:class:`Param`), and ``configure(params,
    geometry, prm)`` writes them into the kernel's parameters: ``params`` a namespace of the rule's
    settings by name (defaults filled in), ``geometry`` the device's
    :class:`~flashrepro.ftl.Geometry`, ``prm`` the parameter record (``K.PRM_DTYPE``), where it may write its
    own block ``prm.rule`` (slots numbered from 0 in the rule's file) and the fields of ``K.RULE_SETTABLE``.
    ``draws`` says it draws from the seeded stream ``state.rng`` (so ``Policy.seed`` is one of its settings).

    What it asks of the mechanism: ``reads_buckets`` asks it to move lines between the valid-count buckets on
    every change instead of rebuilding them after each chunk; ``stable_skip`` says that a first victim
    refused by a background pass (too few invalid pages) stays refused until a line closes or is erased or a
    closed line reaches the background threshold, so the mechanism need not ask again before then
    (deterministic rules whose choice moves only with those events; ``configure`` may clear it for some
    settings); ``reads_heap`` asks it to keep FEMU's victim heap (``state.heap``, see :mod:`.._kernel`): 0 =
    no, ``HEAP_KEPT`` or ``HEAP_STALE`` (the kernel's constants). ``samples`` says the rule's first victim
    is :func:`~.._kernel.sample_least_valid` of one draw (``configure`` may set more in
    ``prm.sample_draws``, or ``K.SAMPLE_CLOSED``: :func:`~.._kernel.draw_closed`, random-all's draw), so the
    mechanism's background probe draws it without calling the rule.
    ``reads_ages`` and ``reads_slots`` ask the mechanism to keep the close-ordered structures
    (``state.ages``, ``state.slot_*``, see :mod:`.._kernel`); ``watches`` says the rule publishes a watched
    answer (``sc.watch_*``, ``state.watch``) that the mechanism ends when a line could overtake it: while
    the watch holds (``sc.watch_ok`` set and the clock under ``sc.watch_until``) the rule's ``pick``
    returns ``sc.watch_line``, so the mechanism's background probe reads that line instead of calling the
    rule, and skips the probe while nothing has changed since it was refused."""

    name: str
    pick: object
    description: str
    params: tuple[Param, ...] = ()
    configure: Callable | None = None
    draws: bool = False
    reads_buckets: bool = False
    stable_skip: bool = False
    reads_heap: int = 0
    samples: bool = False
    reads_ages: bool = False
    reads_slots: bool = False
    watches: bool = False

    @property
    def setting_names(self) -> tuple[str, ...]:
        """The Policy settings the rule reads: its own, then ``seed`` if it draws."""
        return tuple(p.name for p in self.params) + (("seed",) if self.draws else ())

    def fill_prm(self, prm: np.record, values: dict, geometry) -> None:
        """Write into ``prm`` what the mechanism keeps for this rule, then let ``configure`` write the rule's
        settings ``values`` (every one of its settings by name); raises if it wrote a slot it may not."""
        prm.eager_buckets = self.reads_buckets
        prm.heap = self.reads_heap
        # the age rows are bitsets over the slots: a rule that reads them has the slots kept too
        prm.age_lists, prm.slots, prm.watch = self.reads_ages, self.reads_slots or self.reads_ages, \
            self.watches
        prm.stable_skip = self.stable_skip
        prm.sample_draws = self.samples
        prm.limit = -1
        prm.cursor_resume = 0
        if self.configure is None:
            return
        before = {f: np.copy(prm[f]) for f in K.PRM_DTYPE.names}
        self.configure(types.SimpleNamespace(**values), geometry, prm)
        wrong = [f for f in K.PRM_DTYPE.names
                 if f not in K.RULE_SETTABLE and f != "rule" and np.any(before[f] != prm[f])]
        if wrong:
            raise RuntimeError(f"victim rule {self.name!r}: configure wrote prm.{', prm.'.join(wrong)}, outside its "
                               f"block prm.rule and the fields it may set {list(K.RULE_SETTABLE)}")


VICTIM_RULES: dict[str, VictimRule] = {}
SETTINGS: dict[str, Param] = {}  # every registered rule's settings by name


def register(name: str, pick, description: str, params: tuple[Param, ...] = (), configure: Callable | None = None,
             draws: bool = False, reads_buckets: bool = False, stable_skip: bool = False, reads_heap: int = 0,
             samples: bool = False, reads_ages: bool = False, reads_slots: bool = False,
             watches: bool = False) -> VictimRule:
    """Register a victim rule under ``name`` (the fields are :class:`VictimRule`'s) and return it."""
    if name in VICTIM_RULES:
        raise ValueError(f"victim rule {name!r} registered twice")
    params = tuple(params)
    for p in params:
        if not isinstance(p, Param):
            raise TypeError(f"victim rule {name!r}: settings are Param objects, got {p!r}")
        if p.name in POLICY_KEYWORDS:
            raise ValueError(f"victim rule {name!r}: setting {p.name!r} is one of Policy's own keywords")
        if SETTINGS.get(p.name, p) is not p:
            raise ValueError(f"victim rule {name!r}: setting {p.name!r} is another rule's; share its Param object")
        p.validate(p.default)
    if params and configure is None:
        raise ValueError(f"victim rule {name!r} has settings but no configure hook to pass them to the kernel")
    rule = VictimRule(name, pick, description, params, configure, draws, reads_buckets, stable_skip, reads_heap,
                      samples, reads_ages, reads_slots, watches)
    VICTIM_RULES[name] = rule
    SETTINGS.update((p.name, p) for p in params)
    return rule


def unregister(name: str) -> None:
    """Remove a rule, and the settings no other rule reads (tests that register a rule of their own)."""
    rule = VICTIM_RULES.pop(name)
    shared = {p.name for r in VICTIM_RULES.values() for p in r.params}
    for p in rule.params:
        if p.name not in shared:
            del SETTINGS[p.name]


def get_victim_rule(name: str) -> VictimRule:
    try:
        return VICTIM_RULES[name]
    except KeyError:
        raise ValueError(f"unknown victim rule {name!r}; valid: {', '.join(sorted(VICTIM_RULES))}") from None


def get_setting(name: str) -> Param | None:
    """The registered rule setting called ``name``, or None."""
    return SETTINGS.get(name)
