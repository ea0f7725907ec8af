"""The policy registry: a policy's name -> its parameter dataclass and its kernel class.

Adding a policy is one module with a frozen parameter dataclass and a :class:`Kernel` subclass decorated
with :func:`register`, plus its name and module in the table of ``flashrepro/cache/__init__.py`` (the module is
imported when the policy is first asked for). Tests, the command line and the notebooks iterate over
:data:`POLICIES`; nothing branches on policy names.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import math
import threading
import types
import typing
from collections.abc import Callable

import numpy as np

from . import contract as C


class Kernel:
    """What a policy provides to the driver (see :mod:`flashrepro.cache.contract`). Subclasses override
    ``new_state`` and ``resident`` (or ``finish``, for a kernel with tiers), and name their compiled step
    (``step_kernel``, with ``rules`` for what it reads of the parameters) or override ``step``; the class
    attributes say what else they do."""

    caps: C.Caps = C.Caps()
    counters: tuple[C.Counter, ...] = C.BASE
    step_kernel = None
    """The compiled step over one chunk, ``step_kernel(refs, start, state, counters, log, nlog, outcome, base,
    do_log, rules)``, that :meth:`step` calls (a ``staticmethod``: a compiled function would otherwise be bound to
    the kernel object), or None for a kernel that overrides :meth:`step`."""

    def rules(self, params):
        """The step kernel's last argument: the parameters as it reads them. None (the default) when it reads
        none; a value that is None or not selects a specialisation compiled without the other's branches."""
        return None

    def unit_pages(self, params, page_bytes: int) -> int:
        """Pages per segment of the unit space (1: the policy works on pages)."""
        return 1

    def unit_halo(self, params, page_bytes: int) -> int:
        """Segments after each touched one that get units too (for a policy that reads ahead past a request)."""
        return 0

    def observe(self, state) -> dict | None:
        """Scalars worth following through a run (e.g. an adaptive target), read after each chunk."""
        return None

    def log_rows_per_ref(self, tiers: dict[str, int], params) -> int:
        """The most I/O log rows one reference can produce (a read and a write-back). A kernel that handles a
        whole request at its first page checks what that request may need itself; when even an empty log
        is too small the driver keeps doubling it."""
        return C.ROWS_PER_REF

    def new_state(self, units, tiers: dict[str, int], params) -> tuple:
        raise NotImplementedError

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        """Entries ``start ..`` of one chunk: :attr:`step_kernel` with ``do_log or None`` (a run without the log
        gets a specialisation compiled without its branches) and :meth:`rules`. Returns ``(stop, nlog)``: ``stop``
        short of the chunk's end when the log had no room (the simulator grows it and calls again)."""
        if self.step_kernel is None:
            raise NotImplementedError(f"{type(self).__name__} names no step_kernel and does not override step")
        return self.step_kernel(refs, start, state, counters, log, nlog, outcome, base, do_log or None,
                                self.rules(params))

    def resident(self, state) -> tuple:
        """``(units, dirty)``: the resident units in the order the end-of-trace flush writes them (the policy's
        own: its eviction order, first the first, where it has one) and their dirty flags; what :meth:`finish`
        writes back or counts."""
        raise NotImplementedError(f"{type(self).__name__} defines neither resident nor finish")

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        """End of trace (:func:`~flashrepro.cache.contract.end_of_trace` over :meth:`resident`): the pages still
        dirty are written back, in eviction order, when ``flush_at_end``, else counted. Returns ``(log, nlog)``."""
        units, dirty = self.resident(state)
        return C.end_of_trace(units, dirty, flush_at_end, counters, log, nlog, do_log, last_ref, 0)


@dataclasses.dataclass(frozen=True)
class Policy:
    name: str
    params: type
    kernel: Kernel
    description: str

    @property
    def caps(self) -> C.Caps:
        return self.kernel.caps

    @property
    def counter_names(self) -> list[str]:
        return [c.name for c in self.kernel.counters]

    @property
    def tiers(self) -> list[str]:
        return [f.name for f in C.tier_fields(self.params)] or ["capacity_pages"]


class _Registry(dict):
    """:data:`POLICIES`: a dict of the registered policies whose built-in entries are imported when first asked
    for (:func:`builtin`): looking one up by name (``POLICIES[name]``, ``name in POLICIES``, ``get``,
    :func:`get_policy`) imports the module that registers it; listing, counting or copying the registry
    imports them all first, and then holds them in the order importing every module at once gave. A run of one
    policy imports one policy module: the others took 0.04 s of every command's start."""

    def __getitem__(self, name):
        _import_builtin(name)
        return super().__getitem__(name)

    def __contains__(self, name):
        _import_builtin(name)
        return super().__contains__(name)

    def get(self, name, default=None):
        _import_builtin(name)
        return super().get(name, default)

    def pop(self, name, *default):
        _import_builtin(name)
        return super().pop(name, *default)

    def __iter__(self):
        _import_builtins()
        return super().__iter__()

    def __len__(self):
        _import_builtins()
        return super().__len__()

    def __repr__(self):
        _import_builtins()
        return super().__repr__()

    def __eq__(self, other):
        _import_builtins()
        return super().__eq__(other)

    __hash__ = None

    def keys(self):
        _import_builtins()
        return super().keys()

    def values(self):
        _import_builtins()
        return super().values()

    def items(self):
        _import_builtins()
        return super().items()

    def copy(self):
        _import_builtins()
        return dict(super().items())


POLICIES: dict[str, Policy] = _Registry()
_BUILTIN: dict[str, str] = {}  # a built-in policy's name -> the module that registers it
_ALL_IMPORTED = [True]  # every module of _BUILTIN imported (and POLICIES in their order)
_IMPORTING = threading.RLock()


def builtin(modules: dict[str, str]) -> None:
    """Name the modules of the package's own policies (policy name -> module), imported when first asked for."""
    _BUILTIN.update(modules)
    _ALL_IMPORTED[0] = False


def _import_builtin(name) -> None:
    """Import the module that registers the built-in policy ``name`` (if it is one and not registered yet)."""
    module = _BUILTIN.get(name) if isinstance(name, str) else None
    if module is not None and not dict.__contains__(POLICIES, name):
        importlib.import_module(module)


def _import_builtins() -> None:
    """Import every built-in policy's module, then put the registry in the order importing them all in the
    order given to :func:`builtin` would have (policies registered elsewhere after them, in their order)."""
    if _ALL_IMPORTED[0]:
        return
    with _IMPORTING:  # another thread listing the registry meanwhile waits for the whole of it
        if _ALL_IMPORTED[0]:
            return
        modules = list(dict.fromkeys(_BUILTIN.values()))
        for module in modules:
            importlib.import_module(module)
        rank = {m: i for i, m in enumerate(modules)}
        entries = list(dict.items(POLICIES))
        order = sorted(range(len(entries)), key=lambda i: (rank.get(_BUILTIN.get(entries[i][0]), len(rank)), i))
        dict.clear(POLICIES)
        for i in order:
            dict.__setitem__(POLICIES, *entries[i])
        _ALL_IMPORTED[0] = True


def register(name: str, params: type) -> Callable:
    """Class decorator: register a :class:`Kernel` subclass as policy ``name`` with parameters ``params``."""
    if not (dataclasses.is_dataclass(params) and params.__dataclass_params__.frozen):
        raise TypeError(f"{name}: params must be a frozen dataclass")

    def deco(cls: type) -> type:
        if name in POLICIES:
            raise ValueError(f"policy {name!r} is already registered")
        names = [c.name for c in cls.counters]
        if names[:C.N_BASE] != [c.name for c in C.BASE] or len(set(names)) != len(names):
            raise ValueError(f"{name}: counters must start with contract.BASE and be unique")
        doc = (cls.__doc__ or "").strip().splitlines()
        POLICIES[name] = Policy(name, params, cls(), doc[0] if doc else "")
        return cls

    return deco


def unregister(name: str) -> None:
    """Remove a policy (tests register toy policies and take them away again)."""
    POLICIES.pop(name, None)


def policy_names() -> list[str]:
    return sorted(POLICIES)


def get_policy(name: str) -> Policy:
    try:
        return POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; registered policies: {', '.join(policy_names())}") from None


@functools.cache
def _hints(cls) -> dict:
    """A parameter class's resolved type hints (resolving them costs ~1 ms: once per class, not per call)."""
    return typing.get_type_hints(cls)


def make_params(policy: str, **params):
    """The policy's frozen parameter object; unknown keys and values of the wrong type are errors.

    String values (from the command line) are converted to the field's type; other values must already
    have it (an int for an int field, never a float that happens to be whole; a bool for a bool field).
    """
    cls = get_policy(policy).params
    hints = _hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(params) - fields)
    if unknown:
        valid = ", ".join(sorted(fields)) or "(none)"
        raise ValueError(f"policy {policy!r} has no parameter {', '.join(map(repr, unknown))}; valid: {valid}")
    conv = {k: _convert(v, hints[k], k, policy=policy) for k, v in params.items()}
    return check_params(policy, cls(**conv))


def check_params(policy: str, params):
    """``params`` itself if it is ``policy``'s parameter object and every field holds a value of its declared
    type (an int in 64 bits for ``int``, a finite number for ``float``, a real bool for ``bool``, a str for
    ``str``; None only where the type allows it) and no number is negative (a field whose negative values
    mean something says so with ``dataclasses.field(metadata={"signed": True})``); otherwise a ValueError
    naming the policy, the field, the value and the expected type.

    :func:`make_params` converts and then checks; :class:`~flashrepro.cache.Simulator` checks a parameter
    object built directly (``BSClockParams(max_bulk_pages=2.5)`` would otherwise reach a kernel)."""
    cls = get_policy(policy).params
    if type(params) is not cls:
        raise ValueError(f"policy {policy!r} takes {cls.__name__}, got {type(params).__name__}")
    hints = _hints(cls)
    for f in dataclasses.fields(cls):
        value = _convert(getattr(params, f.name), hints[f.name], f.name, strict=True, policy=policy)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0 \
                and not f.metadata.get("signed", False):
            raise ValueError(f"policy {policy!r}: parameter {f.name}: {_show(value)} is negative; expected a "
                             f"{type(value).__name__} >= 0")
    return params


def check_tiers(policy: str, tiers: dict) -> dict[str, int]:
    """``tiers`` (tier name -> pages) as plain ints if every size is a whole number of pages from 0 up that
    fits in 64 bits (the kernels size their state by min(tier, footprint), so a huge tier is fine, but not
    one beyond int64); otherwise a ValueError naming the policy and the tier."""
    out = {}
    for name, pages in tiers.items():
        if isinstance(pages, (bool, np.bool_)) or not isinstance(pages, (int, np.integer)):
            raise ValueError(f"policy {policy!r}: {name} must be a whole number of pages (int), "
                             f"got {_show(pages)} ({type(pages).__name__})")
        if not 0 <= int(pages) < 2**63:
            raise ValueError(f"policy {policy!r}: {name}={_show(pages)} is not a page count from 0 to 2**63 - 1")
        out[name] = int(pages)
    return out


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}...{text[-8:]} ({len(text)} characters)"


def _convert(value, typ, key: str, strict: bool = False, policy: str | None = None):
    try:
        return _convert_value(value, typ, key, strict)
    except ValueError as e:
        if policy is None:
            raise
        raise ValueError(f"policy {policy!r}: {e}") from None


def _convert_value(value, typ, key: str, strict: bool):
    given = value
    optional = False
    if isinstance(typ, types.UnionType) or typing.get_origin(typ) is typing.Union:
        args = [a for a in typing.get_args(typ) if a is not type(None)]
        optional = len(args) < len(typing.get_args(typ))
        typ = args[0] if len(args) == 1 else typ
    if value is None:
        if optional:
            return None
        raise ValueError(f"parameter {key}: None is not a valid {getattr(typ, '__name__', typ)}")
    if isinstance(value, str) and not (strict and typ is str):
        if strict:
            raise ValueError(f"parameter {key}: {_show(value)} (str) is not a valid {getattr(typ, '__name__', typ)}")
        text = value.strip()
        if optional and text.lower() in ("none", ""):
            return None
        if typ is bool:
            low = text.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"parameter {key}: {_show(value)} is not a boolean")
        try:
            value = typ(text) if typ is not int else int(text, 10)
        except (TypeError, ValueError, OverflowError):
            name = getattr(typ, "__name__", typ)
            raise ValueError(f"parameter {key}: {_show(value)} is not a valid {name}") from None
    if typ is bool:
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
    elif typ is int:
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            if not -2**63 <= int(value) < 2**63:
                raise ValueError(f"parameter {key}: {_show(given)} does not fit in 64 bits")
            return int(value)
    elif typ is float:
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
            try:
                out = float(value)
            except OverflowError:
                out = math.inf
            if not math.isfinite(out):
                raise ValueError(f"parameter {key}: {_show(given)} is not a finite number")
            return out
    elif isinstance(typ, type) and isinstance(value, typ):
        return value
    raise ValueError(f"parameter {key}: {_show(given)} ({type(given).__name__}) is not a valid "
                     f"{getattr(typ, '__name__', typ)}")
