"""The policy registry and the one public entry point, :func:`simulate`.

Adding a policy is one module with a frozen parameter dataclass, a Numba kernel and a ``run`` function
decorated with :func:`register`, plus one import line in ``flashrepro/cache/__init__.py``. Tests, the
command line and the notebooks iterate over :data:`POLICIES`.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable

import numpy as np

from ..traces.trace import Op, PageRefs, Trace
from . import _state as S


@dataclasses.dataclass(frozen=True)
class Policy:
    name: str
    params: type
    run: Callable
    description: str


POLICIES: dict[str, Policy] = {}


def register(name: str, params: type) -> Callable:
    """Register ``run(pages, is_write, unique_pages, capacity, flush_at_end, counters, log, hit_out, do_log, params)``.

    ``pages`` are dense ranks, ``unique_pages[rank]`` the original page number (sorted), the layouts of
    ``counters`` and ``log`` are in ``_state.py``, and ``hit_out[i]`` is set when logging.
    """
    if not dataclasses.is_dataclass(params):
        raise TypeError(f"{name}: params must be a frozen dataclass")

    def deco(run: Callable) -> Callable:
        if name in POLICIES:
            raise ValueError(f"policy {name!r} is already registered")
        doc = (run.__doc__ or "").strip().splitlines()
        POLICIES[name] = Policy(name, params, run, doc[0] if doc else "")
        return run

    return deco


def policy_names() -> list[str]:
    return sorted(POLICIES)


def get_policy(name: str) -> Policy:
    try:
        return POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; registered policies: {', '.join(policy_names())}") from None


def make_params(policy: str, **params):
    """The policy's frozen parameter object; unknown keys are an error that lists the valid ones.

    String values (from the command line) are converted to the field's type.
    """
    cls = get_policy(policy).params
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(params) - fields)
    if unknown:
        valid = ", ".join(sorted(fields)) or "(none)"
        raise ValueError(f"policy {policy!r} has no parameter {', '.join(map(repr, unknown))}; valid: {valid}")
    conv = {k: _coerce(v, hints[k], k) if isinstance(v, str) else v for k, v in params.items()}
    return cls(**conv)


def _coerce(value: str, typ, key: str):
    if typ is bool:
        low = value.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"parameter {key}: {value!r} is not a boolean")
    try:
        return typ(value)
    except (TypeError, ValueError):
        raise ValueError(f"parameter {key}: {value!r} is not a valid {getattr(typ, '__name__', typ)}") from None


@dataclasses.dataclass(frozen=True)
class IOLog:
    """The after-cache trace: one row per device I/O, in issue order.

    ``ref`` is the page reference that triggered it, ``req`` the request of the input trace,
    ``op`` 0 = read / 1 = write, ``cause`` 0 = demand / 1 = eviction / 2 = flush, ``first_page`` the first
    original page number, ``n_pages`` the length.
    """

    ref: np.ndarray
    req: np.ndarray
    op: np.ndarray
    cause: np.ndarray
    first_page: np.ndarray
    n_pages: np.ndarray
    page_bytes: int

    def __len__(self) -> int:
        return len(self.op)

    def to_trace(self, time_s: np.ndarray | None = None, name: str = "after-cache") -> Trace:
        """The log as a :class:`Trace` of device requests (time from the input requests when given)."""
        t = time_s[self.req] if time_s is not None else np.zeros(len(self))
        op = np.where(self.op == S.IO_WRITE, Op.WRITE, Op.READ).astype(np.int8)
        return Trace(t, op, self.first_page * self.page_bytes, self.n_pages * self.page_bytes,
                     name=name, source="simulate")


@dataclasses.dataclass(frozen=True)
class SimResult:
    policy: str
    params: object
    capacity_pages: int
    trace: str
    counters: dict
    io_log: IOLog | None = None
    hit: np.ndarray | None = None  # per page reference, with log_io=True

    def to_dict(self) -> dict:
        """Counters plus the derived ratios, JSON-ready (what ``flashrepro simulate`` prints)."""
        c = self.counters
        refs = max(c["references"], 1)
        return {"policy": self.policy, "params": dataclasses.asdict(self.params),
                "capacity_pages": self.capacity_pages, "trace": self.trace, **c,
                "hit_ratio": c["hits"] / refs, "miss_ratio": c["misses"] / refs,
                "device_writes": c["device_writes_eviction"] + c["device_writes_flush"]}


def simulate(trace: Trace | PageRefs, policy: str, capacity_pages: int, *, page_bytes: int = 4096,
             flush_at_end: bool = False, log_io: bool = False, **params) -> SimResult:
    """Run one buffer-cache policy over a trace.

    Parameters
    ----------
    trace : Trace or PageRefs
        Requests are expanded into ``page_bytes`` pages (cached on the trace).
    policy : str
        A name from :func:`policy_names`.
    capacity_pages : int
        Cache size in pages (>= 1).
    flush_at_end : bool
        Write back the pages still dirty after the last reference (counted as ``device_writes_flush``).
        Otherwise they are counted as ``dirty_at_end``.
    log_io : bool
        Keep the device I/O log (:class:`IOLog`), the after-cache trace that device models time, and
        the per-reference outcome ``SimResult.hit``.
    **params
        The policy's parameters (see its dataclass); unknown names are an error.

    Notes
    -----
    A read miss costs one device page read; a write miss allocates the page without reading it (writes
    are whole pages at this granularity). A write makes the page dirty; a dirty page costs a device
    write when it is evicted or flushed.
    """
    pol = get_policy(policy)
    p = make_params(policy, **params)
    capacity_pages = int(capacity_pages)
    if capacity_pages < 1:
        raise ValueError(f"capacity_pages must be at least 1, got {capacity_pages}")
    refs = trace.to_pages(page_bytes) if isinstance(trace, Trace) else trace
    if len(refs) == 0:
        raise ValueError(f"trace {refs.name!r} has no read or write page references")
    pages = refs.dense
    is_write = np.ascontiguousarray(refs.is_write, dtype=np.bool_)
    counters = S.new_counters()
    log = S.new_log(len(pages), capacity_pages, log_io)
    hit_out = np.zeros(len(pages) if log_io else 0, dtype=np.bool_)
    n = pol.run(pages, is_write, refs.unique_pages, capacity_pages, bool(flush_at_end), counters, log, hit_out,
                bool(log_io), p)
    io_log = None
    if log_io:
        rows = log[:n]
        io_log = IOLog(ref=rows[:, 0].copy(), req=refs.req[rows[:, 0]], op=rows[:, 1].astype(np.int8),
                       cause=rows[:, 2].astype(np.int8), first_page=refs.unique_pages[rows[:, 3]],
                       n_pages=rows[:, 4].copy(), page_bytes=refs.page_bytes)
    return SimResult(policy, p, capacity_pages, refs.name, dict(zip(S.COUNTER_NAMES, counters.tolist(), strict=True)),
                     io_log, hit_out if log_io else None)
