"""Prototype a cache policy in plain Python, then port it to a kernel.

A :class:`PythonPolicy` subclass decides *which* pages stay; the base class does the bookkeeping every
policy shares (hit or miss, a device read on a read miss, a victim when full, a write-back when the victim
is dirty, dirtying, the end-of-trace flush), through the same :func:`~flashrepro.cache.simulate`, counters,
device I/O log, device models, sweep runner and notebooks as a Numba kernel -- about a hundred times slower.

    import dataclasses
    from collections import OrderedDict
    from flashrepro.cache import prototype, simulate

    @dataclasses.dataclass(frozen=True)
    class NoParams:
        pass

    class PyLRU(prototype.PythonPolicy):
        \"\"\"LRU in Python.\"\"\"
        name, Params = "my_lru", NoParams

        def __init__(self, capacity, params, units):
            super().__init__(capacity, params, units)
            self.order = OrderedDict()          # least recently used first

        def on_hit(self, page, is_write):
            self.order.move_to_end(page)

        def on_miss(self, page, is_write):     # the page has just been admitted
            self.order[page] = None

        def choose_victim(self):
            return next(iter(self.order))

        def on_evict(self, page):
            del self.order[page]

    prototype.register(PyLRU)                  # now "my_lru" is a policy like any other
    res = simulate(trace, "my_lru", 1024, log_io=True)

Hooks (override what you need)
------------------------------
``on_hit(page, is_write)``, ``on_miss(page, is_write)`` (after the base class admitted the page),
``choose_victim() -> page`` (a resident page, called when the cache is full and a page must come in),
``on_evict(page)`` (after the victim left), ``on_flush(time_s, file) -> pages`` (a sync or flush event in
the trace, only with ``caps = Caps(flushes=True)``: the pages to write back now; the default writes back
every dirty page of ``file``, or every dirty page for a flush of everything), ``resident_order()`` (the
resident pages in the order a flush at the end of the trace writes them; default admission order).

``page`` is the page's dense unit number (ranks that keep the address order, see
:class:`~flashrepro.traces.trace.Units`); ``self.units.pages([u])`` gives the original page number.
The base class holds ``self.dirty`` (page -> bool, the resident pages), ``self.capacity``,
``self.params`` and ``self.time_s`` (the time of the current reference, for policies with
``Caps(flushes=True)``; 0 otherwise). Extra counters: declare them in ``extra_counters`` and add to them
with ``self.count(name, k)``.

Porting to a kernel: keep the hooks' logic, move ``self.dirty`` and your structures into arrays indexed by
unit (see ``lru.py``, the kernel of the example above), and compare the two reference by reference with
``tests/test_prototype.py``'s helper; the prototypes of ``lru`` and ``clock`` here are checked that way.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections import OrderedDict

import numpy as np

from ..traces.trace import Event
from . import contract as C
from .registry import POLICIES, Kernel, unregister
from .registry import register as _register


@dataclasses.dataclass(frozen=True)
class NoParams:
    """A policy without parameters."""


class PythonPolicy:
    """Base class of a policy written in Python (see the module docstring for the hooks)."""

    name: str = ""
    Params: type = NoParams
    caps: C.Caps = C.Caps()
    extra_counters: tuple[C.Counter, ...] = ()

    def __init__(self, capacity: int, params, units):
        self.capacity = int(capacity)
        self.params = params
        self.units = units
        self.dirty: dict[int, bool] = {}  # resident page -> dirty, in admission order
        self.time_s = 0.0
        self._extra = dict.fromkeys((c.name for c in self.extra_counters), 0)

    # --- hooks -------------------------------------------------------------------------------------------
    def on_hit(self, page: int, is_write: bool) -> None:
        """A reference found ``page`` in the cache."""

    def on_miss(self, page: int, is_write: bool) -> None:
        """``page`` was missing and has just been admitted (a victim, if one was needed, has left)."""

    def choose_victim(self) -> int:
        """The resident page to evict (the cache is full and a page must come in)."""
        raise NotImplementedError(f"{type(self).__name__} must define choose_victim()")

    def on_evict(self, page: int) -> None:
        """``page`` has left the cache (written back first if it was dirty)."""

    def on_flush(self, time_s: float, file: int) -> list[int]:
        """A sync of ``file`` (or of everything, ``file=-1``): the pages to write back now."""
        if file < 0 or self.units.file is None:
            return [p for p, d in self.dirty.items() if d]
        return [p for p, d in self.dirty.items() if d and self.units.file[p] == file]

    def resident_order(self) -> list[int]:
        """The resident pages in the order the end-of-trace flush writes them."""
        return list(self.dirty)

    def count(self, name: str, k: int = 1) -> None:
        self._extra[name] += k


def _counters(cls) -> tuple[C.Counter, ...]:
    return C.BASE + (C.FLUSH_COUNTERS if cls.caps.flushes else ()) + tuple(cls.extra_counters)


class PythonKernel(Kernel):
    """Runs a :class:`PythonPolicy` under the kernel contract (one Python call per reference)."""

    prototype: type = PythonPolicy

    def new_state(self, units, tiers, params):
        return (self.prototype(tiers["capacity_pages"], params, units),)

    def log_rows_per_ref(self, tiers, params):
        # a sync may write back the whole cache
        return 2 + (tiers["capacity_pages"] if self.caps.flushes else 0)

    def step(self, refs, start, state, counters, log, nlog, outcome, base, do_log, params):
        pol = state[0]
        names = [c.name for c in self.counters]
        sync_at = names.index("device_writes_sync_flush") if self.caps.flushes else -1
        syncs_at = names.index("syncs") if self.caps.flushes else -1
        headroom = self.log_rows_per_ref({"capacity_pages": pol.capacity}, params)
        unit, event, time_s, file = refs.unit, refs.event, refs.time_s, refs.file
        dirty, cap = pol.dirty, pol.capacity
        n = len(unit)
        for i in range(start, n):
            if do_log and nlog + headroom > log.shape[0]:
                return i, nlog
            e = int(event[i])
            pol.time_s = float(time_s[i])
            if e > Event.WRITE:  # an event: only policies with Caps(flushes=True) see these
                if e in (Event.SYNC_FILE, Event.SYNC_ALL):
                    counters[syncs_at] += 1
                    for p in pol.on_flush(pol.time_s, int(file[i]) if e == Event.SYNC_FILE else -1):
                        if not dirty.get(p, False):
                            raise ValueError(f"{pol.name}: on_flush returned page {p}, which is not dirty")
                        dirty[p] = False
                        counters[sync_at] += 1
                        counters[C.DEV_WRITE_REQS] += 1
                        if do_log:
                            nlog = C.row(log, nlog, base + i, C.IO_WRITE, C.SYNC_FLUSH, p, 1, 0)
                continue
            p, w = int(unit[i]), e == Event.WRITE
            hit = p in dirty
            if do_log:
                outcome[i] = hit
            counters[C.REFS] += 1
            counters[C.HITS] += hit
            counters[C.WRITE_REFS] += w
            counters[C.WRITE_HITS] += hit and w
            if hit:
                pol.on_hit(p, w)
            else:
                if not w:  # a write miss covers the whole page: no read
                    counters[C.DEV_READS] += 1
                    counters[C.DEV_READ_REQS] += 1
                    if do_log:
                        nlog = C.row(log, nlog, base + i, C.IO_READ, C.DEMAND, p, 1, 0)
                if len(dirty) >= cap:
                    v = pol.choose_victim()
                    if v not in dirty:
                        raise ValueError(f"{pol.name}: choose_victim() returned {v!r}, which is not resident")
                    was_dirty = dirty.pop(v)
                    counters[C.EVICTIONS] += 1
                    if was_dirty:
                        counters[C.DEV_WRITES_EVICT] += 1
                        counters[C.DEV_WRITE_REQS] += 1
                        if do_log:
                            nlog = C.row(log, nlog, base + i, C.IO_WRITE, C.EVICTION, v, 1, 0)
                    pol.on_evict(v)
                dirty[p] = False
                pol.on_miss(p, w)
            if w and not dirty[p]:
                dirty[p] = True
                counters[C.DIRTYINGS] += 1
        return n, nlog

    def finish(self, state, counters, log, nlog, do_log, flush_at_end, last_ref, params):
        pol = state[0]
        names = [c.name for c in self.counters]
        for name, k in pol._extra.items():
            counters[names.index(name)] += k
        pol._extra = dict.fromkeys(pol._extra, 0)
        order = list(pol.resident_order())
        if sorted(order) != sorted(pol.dirty):
            raise ValueError(f"{pol.name}: resident_order() is not the resident pages")
        flags = np.array([pol.dirty[p] for p in order], bool)
        return C.end_of_trace(np.array(order, np.int64), flags, flush_at_end, counters, log, nlog, do_log,
                              last_ref, 0)


def _check_extra_counters(cls) -> None:
    """``extra_counters`` as :class:`~flashrepro.cache.contract.Counter` objects: a name given as a plain
    string becomes a counter of no device cause; anything else is an error naming the class."""
    out = []
    extra = cls.extra_counters
    if isinstance(extra, str) or not isinstance(extra, (tuple, list)):
        raise TypeError(f"{cls.__name__}.extra_counters must be a tuple of counter names or contract.Counter "
                        f"objects, got {extra!r}")
    for c in extra:
        if isinstance(c, str) and c.isidentifier():
            c = C.Counter(c, None, f"{cls.name}: {c}")
        if not isinstance(c, C.Counter):
            raise TypeError(f"{cls.__name__}.extra_counters: {c!r} is neither a counter name (an identifier) nor "
                            "a contract.Counter")
        out.append(c)
    taken = {c.name for c in C.BASE + C.FLUSH_COUNTERS}
    names = [c.name for c in out]
    clash = sorted({n for n in names if n in taken or names.count(n) > 1})
    if clash:
        raise ValueError(f"{cls.__name__}.extra_counters: {', '.join(clash)} is a base counter's name or listed twice")
    cls.extra_counters = tuple(out)


def register(cls: type) -> type:
    """Register ``cls`` (a :class:`PythonPolicy` subclass with ``name`` and ``Params``) as a policy; returns
    it (usable as a class decorator)."""
    if not (isinstance(cls, type) and issubclass(cls, PythonPolicy)) or not cls.name:
        raise TypeError("register() takes a PythonPolicy subclass with a name")
    _check_extra_counters(cls)
    doc = (cls.__doc__ or f"{cls.name} (Python prototype)").strip()
    kernel = type(f"{cls.__name__}Kernel", (PythonKernel,),
                  {"prototype": cls, "caps": cls.caps, "counters": _counters(cls), "__doc__": doc,
                   "__module__": cls.__module__})
    _register(cls.name, cls.Params)(kernel)
    return cls


def ensure_registered(cls: type) -> None:
    """Register ``cls`` unless it already is (what a sweep worker does before running a prototype)."""
    have = POLICIES.get(cls.name)
    if have is None:
        register(cls)
    elif getattr(have.kernel, "prototype", None) is not cls:
        raise ValueError(f"policy {cls.name!r} is already registered as something else")


_FILES: dict[str, list[str]] = {}  # resolved path -> the policies load_file registered from it (per process)


def load_file(path) -> list[str]:
    """Run the Python file at ``path`` as a module and register every :class:`PythonPolicy` subclass with a
    ``name`` that it defines (``flashrepro simulate --policy-file``, and each sweep worker before its task);
    returns their names. A file is loaded once per process; a file with no such class is an error."""
    import hashlib
    import importlib.util
    import sys
    from pathlib import Path

    p = Path(path).resolve()
    key = str(p)
    if key in _FILES:
        return _FILES[key]
    if not p.is_file():
        raise FileNotFoundError(f"policy file {path}: no such file")
    module = f"flashrepro_policies_{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    spec = importlib.util.spec_from_file_location(module, p)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module] = mod  # so its classes pickle by reference within this process
    try:
        spec.loader.exec_module(mod)
    except SyntaxError as e:
        del sys.modules[module]
        raise ValueError(f"policy file {path}, line {e.lineno}: {e.msg}") from None
    except Exception as e:
        del sys.modules[module]
        raise ValueError(f"policy file {path}: running it raised {type(e).__name__}: {e}") from e
    classes = [c for c in vars(mod).values() if isinstance(c, type) and issubclass(c, PythonPolicy)
               and c.__module__ == module and c.name]
    if not classes:
        raise ValueError(f"policy file {path} defines no PythonPolicy subclass with a name")
    for c in classes:
        ensure_registered(c)
    _FILES[key] = [c.name for c in classes]
    return _FILES[key]


@contextlib.contextmanager
def registered(*classes):
    """Register prototypes for the duration of a ``with`` block (tests)."""
    added = []
    try:
        for cls in classes:
            if cls.name not in POLICIES:
                register(cls)
                added.append(cls.name)
        yield
    finally:
        for name in added:
            unregister(name)


# --- examples: the prototypes of two kernels (checked against them reference by reference) ------------------
class PyLRU(PythonPolicy):
    """LRU written with the Python base class (the prototype of the ``lru`` kernel)."""

    name = "py_lru"

    def __init__(self, capacity, params, units):
        super().__init__(capacity, params, units)
        self.order: OrderedDict[int, None] = OrderedDict()  # least recently used first

    def on_hit(self, page, is_write):
        self.order.move_to_end(page)

    def on_miss(self, page, is_write):
        self.order[page] = None

    def choose_victim(self):
        return next(iter(self.order))

    def on_evict(self, page):
        del self.order[page]

    def resident_order(self):
        return list(self.order)


@dataclasses.dataclass(frozen=True)
class PyClockParams:
    insert_referenced: bool = False


class PyClock(PythonPolicy):
    """CLOCK written with the Python base class (the prototype of the ``clock`` kernel): a circular list of
    frames with a reference bit, the hand clearing bits until it finds a clear one."""

    name = "py_clock"
    Params = PyClockParams

    def __init__(self, capacity, params, units):
        super().__init__(capacity, params, units)
        self.frames: list[int] = []  # page per frame, in the order pages filled them
        self.where: dict[int, int] = {}  # page -> frame
        self.ref: list[bool] = []
        self.hand = 0
        self.free: int | None = None  # the frame the last victim left

    def on_hit(self, page, is_write):
        self.ref[self.where[page]] = True

    def choose_victim(self):
        while self.ref[self.hand]:
            self.ref[self.hand] = False
            self.hand = (self.hand + 1) % len(self.frames)
        return self.frames[self.hand]

    def on_evict(self, page):
        self.free = self.where.pop(page)
        self.hand = (self.hand + 1) % len(self.frames)

    def on_miss(self, page, is_write):
        if self.free is None:
            self.frames.append(page)
            self.ref.append(self.params.insert_referenced)
            self.where[page] = len(self.frames) - 1
        else:
            f, self.free = self.free, None
            self.frames[f], self.ref[f], self.where[page] = page, self.params.insert_referenced, f

    def resident_order(self):
        n = len(self.frames)
        start = self.hand if n == self.capacity else 0
        return [self.frames[(start + k) % n] for k in range(n)]


class PySieve(PythonPolicy):
    """SIEVE (Zhang et al., NSDI 2024) in Python, no kernel yet: a FIFO queue with a visited bit; the hand
    moves from the oldest page towards the newest, clearing bits, and evicts the first unvisited page in
    place (new pages enter at the head; survivors are not moved)."""

    name = "py_sieve"

    def __init__(self, capacity, params, units):
        super().__init__(capacity, params, units)
        self.queue: list[int] = []  # oldest first
        self.visited: dict[int, bool] = {}
        self.hand: int | None = None  # index into queue

    def on_hit(self, page, is_write):
        self.visited[page] = True

    def on_miss(self, page, is_write):
        self.queue.append(page)
        self.visited[page] = False

    def choose_victim(self):
        i = 0 if self.hand is None else self.hand
        while self.visited[self.queue[i]]:
            self.visited[self.queue[i]] = False
            i = (i + 1) % len(self.queue)
        self.hand = i
        return self.queue[i]

    def on_evict(self, page):
        i = self.hand
        del self.queue[i]
        del self.visited[page]
        self.hand = i if i < len(self.queue) else None
