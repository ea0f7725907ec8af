"""Running a policy: :class:`Simulator` (chunk by chunk, state kept between chunks) and :func:`simulate`.

The results are counters by name (each tagged with a cause, see :mod:`flashrepro.cache.contract`), the
device I/O log (:class:`IOLog`, the after-cache trace) and the outcome of every page reference.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from ..traces.trace import BatchedStream, Op, PageRefs, StreamSpec, Trace, Units
from . import contract as C
from .registry import check_params, check_tiers, get_policy, make_params

if TYPE_CHECKING:
    import polars as pl

DEFAULT_CHUNK = 1 << 22  # references per kernel call

# --- the I/O log's buffer, kept from one run to the next ------------------------
# A log of a million rows is 48 MB. Writing into freshly allocated memory costs a page fault per 4 KiB, and
# a log grown by doubling is allocated about twice over: on a 2M-reference Zipf trace LRU took 0.06 s
# without the log and 0.37 s with it, most of the difference page faults (measured; filling a 58 MB buffer
# that is already mapped takes 2 ms, a fresh one 30-40 ms). So simulate() hands its log buffer back here
# once the IOLog's columns are copied out of it, and the next run's Simulator starts in it: a sweep of many
# runs in one process writes its logs into memory that is already mapped. Only one buffer is kept, and none
# larger than _SPARE_LOG_BYTES. list.pop and list.append are atomic, so two threads never share a buffer.
_SPARE_LOG_BYTES = 256 << 20
_spare_logs: list[np.ndarray] = []


def _take_log(rows: int) -> np.ndarray:
    """A log buffer of at least ``rows`` rows: the spare one when it is large enough, else a new one."""
    try:
        spare = _spare_logs.pop()
    except IndexError:
        spare = None
    if spare is not None and spare.shape[0] >= rows:
        return spare
    return C.new_log(rows, True)


def _give_back_log(log: np.ndarray) -> None:
    """Keep ``log`` (no longer referenced by anything) for the next run, if it is not too large."""
    if log.ndim == 2 and log.shape[0] >= 1024 and log.nbytes <= _SPARE_LOG_BYTES and log.flags.owndata \
            and not _spare_logs:
        _spare_logs.append(log)


class Simulator:
    """One policy over one unit space, fed :class:`~flashrepro.traces.trace.RefStream` chunks in order.

    Feeding a stream whole or in any chunking gives identical results (``tests/test_contract.py``)."""

    def __init__(self, policy: str, units: Units, tiers: dict[str, int], params, *, flush_at_end: bool = False,
                 log_io: bool = False):
        self.policy = get_policy(policy)
        self.params = check_params(policy, params)
        self.units = units
        self.tiers = tiers = check_tiers(policy, tiers)
        self.flush_at_end = bool(flush_at_end)
        self.do_log = bool(log_io)
        k = self.policy.kernel
        self.state = k.new_state(units, tiers, params)
        self.counters = np.zeros(len(k.counters), np.int64)
        self.headroom = int(k.log_rows_per_ref(tiers, params))
        rows = max(1024, 2 * self.headroom)
        self.log = _take_log(rows) if self.do_log else C.new_log(rows, False)
        self.nlog = 0
        self.position = 0  # stream entries consumed
        self._outcomes: list[np.ndarray] = []
        self.trajectory: list[dict] = []  # Kernel.observe after each chunk
        self.finished = False

    def feed(self, part) -> None:
        """Advance over one chunk (a RefStream)."""
        if self.finished:
            raise RuntimeError("this simulation has finished")
        n = len(part.unit)
        outcome = np.zeros(n if self.do_log else 0, np.int8)
        step = self.policy.kernel.step
        i = 0
        while True:
            i, self.nlog = step(part, i, self.state, self.counters, self.log, self.nlog, outcome, self.position,
                                self.do_log, self.params)
            if i >= n:
                break
            # it stopped to make room (doubling: a request that needs more than the headroom gets it too)
            self.log = C.grow_log(self.log, max(self.nlog + self.headroom, 2 * self.log.shape[0]))
        if self.do_log:
            self._outcomes.append(outcome)
        self.position += n
        seen = self.policy.kernel.observe(self.state)
        if seen is not None:
            self.trajectory.append({"position": self.position, **seen})

    def finish(self) -> None:
        """End of trace: flush or count what is still dirty."""
        if not self.finished:
            self.log, self.nlog = self.policy.kernel.finish(self.state, self.counters, self.log, self.nlog,
                                                            self.do_log, self.flush_at_end, self.position - 1,
                                                            self.params)
            self.finished = True

    def run(self, parts, each=None) -> Simulator:
        """Feed every chunk of ``parts`` in order (``(RefStream, index)`` pairs, as a
        :class:`~flashrepro.traces.trace.ReferenceStream` yields them), calling ``each(part, index)`` after
        each (progress), then :meth:`finish`; returns this simulator."""
        for part, idx in parts:
            self.feed(part)
            if each is not None:
                each(part, idx)
        self.finish()
        return self

    def result(self, trace: str, io_log: IOLog | None = None, outcome: np.ndarray | None = None) -> SimResult:
        """The finished run as a :class:`SimResult` of the trace called ``trace``: its counters, tiers and
        trajectory, with the I/O log and outcomes when the caller built them."""
        trajectory = None
        if self.trajectory:
            import polars as pl

            trajectory = pl.DataFrame(self.trajectory)
        return SimResult(self.policy.name, self.params, sum(self.tiers.values()), trace, self.counter_dict(), io_log,
                         outcome, self.tiers, trajectory)

    def counter_dict(self) -> dict[str, int]:
        stored = dict(zip(self.policy.counter_names, self.counters.tolist(), strict=True))
        return {**stored, **C.derived(stored)}

    def log_rows(self) -> np.ndarray:
        return self.log[:self.nlog]

    def outcomes(self) -> np.ndarray:
        return np.concatenate(self._outcomes) if self._outcomes else np.zeros(0, np.int8)


@dataclasses.dataclass(frozen=True)
class IOLog:
    """The after-cache trace: one row per device I/O (and per move between tiers), in issue order.

    ``ref`` is the page reference that triggered it (-1 when an event did; the end-of-trace flush is logged
    at the trace's last entry: its last page reference, or -1 when the trace ends with an event),
    ``req`` the request of the input trace, ``op`` 0 = read / 1 = write, ``cause`` an index into
    :data:`~flashrepro.cache.contract.CAUSES`, ``first_page`` the first original page number,
    ``n_pages`` the length, ``tier`` the memory tier the page left or entered (0 for one-tier caches).
    """

    ref: np.ndarray
    req: np.ndarray
    op: np.ndarray
    cause: np.ndarray
    first_page: np.ndarray
    n_pages: np.ndarray
    tier: np.ndarray
    page_bytes: int

    def __len__(self) -> int:
        return len(self.op)

    @functools.cached_property
    def device(self) -> np.ndarray:
        """Rows that are device I/O (not moves between tiers); computed once per log (read-only)."""
        d = self.cause != C.MIGRATION
        d.flags.writeable = False
        return d

    def device_pages(self, op: int) -> np.ndarray:
        """``n_pages`` of the device reads (``op`` 0) or writes (1), in log order: computed once per log and op
        (read-only), as every device-time model of a run sums over them (the matrix's three
        models each recomputed the masks)."""
        cache = self.__dict__.setdefault("_device_pages", {})
        if op not in cache:
            if op in (C.IO_READ, C.IO_WRITE) and self.n_pages.dtype == np.int64:  # both in one pass
                cache[C.IO_READ], cache[C.IO_WRITE] = _device_pages(self.cause, self.op, self.n_pages)
            else:
                cache[op] = self.n_pages[self.device & (self.op == op)]
            for pages in cache.values():
                pages.flags.writeable = False
        return cache[op]

    def to_trace(self, time_s: np.ndarray | None = None, name: str = "after-cache") -> Trace:
        """The device I/O as a :class:`Trace` (time from the input requests when given)."""
        d = self.device
        t = time_s[self.req[d]] if time_s is not None else np.zeros(int(d.sum()))
        op = np.where(self.op[d] == C.IO_WRITE, Op.WRITE, Op.READ).astype(np.int8)
        return Trace(t, op, self.first_page[d] * self.page_bytes, self.n_pages[d] * self.page_bytes,
                     name=name, source="simulate")

    def to_write_stream(self, logical_pages: int | None = None, fold: str = "dense", name: str = "write-back"):
        """The pages the cache wrote to the device, one per page in write order, as the host-write stream an
        :class:`~flashrepro.ftl.FTL` takes (:class:`~flashrepro.ftl.ArrayStream`).

        ``fold="dense"``: the distinct pages written are renumbered 0..n-1 in address order (an error if
        n > ``logical_pages``); ``fold="modulo"``: page % ``logical_pages`` (folds a large address space into
        a small device; distinct pages may collide)."""
        from ..ftl import ArrayStream

        w = self.device & (self.op == C.IO_WRITE)
        first, count = self.first_page[w], self.n_pages[w]
        within = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)  # 0, 1, .. inside each row
        pages = np.repeat(first, count) + within
        if fold == "dense":
            uniq, lpn = np.unique(pages, return_inverse=True)
            size = len(uniq) if logical_pages is None else int(logical_pages)
            if len(uniq) > size:
                raise ValueError(f"{len(uniq)} distinct pages written do not fit {size} logical pages; "
                                 "use fold='modulo' or a larger device")
        elif fold == "modulo":
            if logical_pages is None:
                raise ValueError("fold='modulo' needs logical_pages")
            size = int(logical_pages)
            lpn = pages % size
        else:
            raise ValueError(f"fold must be 'dense' or 'modulo', got {fold!r}")
        return ArrayStream(name, np.ascontiguousarray(lpn, dtype=np.int32), max(size, 1))


IOLOG_COLUMNS = ("ref", "req", "op", "cause", "first_page", "n_pages", "tier")  # what a DeviceLog does not keep


@dataclasses.dataclass(frozen=True)
class DeviceLog:
    """What ``simulate(..., log_io="device")`` keeps of the I/O log: the pages of each device read and of each
    device write, in log order (``device_pages``), which is all a device-time model reads
    (:func:`flashrepro.devices.io_time`, :func:`~flashrepro.devices.bandwidth`). Taken from the kernel's log
    rows in one pass, without building :class:`IOLog`'s seven columns, which cost more than the simulation of
    many matrix runs; the arrays are those of the full log's ``device_pages``."""

    read: np.ndarray
    write: np.ndarray
    page_bytes: int

    def device_pages(self, op: int) -> np.ndarray:
        """As :meth:`IOLog.device_pages` (``op`` 0: reads, 1: writes)."""
        if op == C.IO_READ:
            return self.read
        if op == C.IO_WRITE:
            return self.write
        raise ValueError(f"op must be {C.IO_READ} (read) or {C.IO_WRITE} (write), got {op!r}")

    def __getattr__(self, name: str):
        if name in IOLOG_COLUMNS:
            raise AttributeError(f"the run kept only its device pages (log_io='device'); {name!r} is a column "
                                 "of the full I/O log: run with log_io=True")
        raise AttributeError(name)


@dataclasses.dataclass(frozen=True)
class SimResult:
    policy: str
    params: object
    capacity_pages: int
    trace: str
    counters: dict
    io_log: IOLog | DeviceLog | None = None
    outcome: np.ndarray | None = None  # per page reference, with log_io=True: 0 miss, 1 hit, 2 prefetch hit
    tiers: dict = dataclasses.field(default_factory=dict)
    trajectory: pl.DataFrame | None = None  # what the policy observes after each chunk (``observe_every``)

    @property
    def hit(self) -> np.ndarray | None:
        """Per page reference (with ``log_io=True``): found in the cache (a prefetched page counts)."""
        return None if self.outcome is None else self.outcome > 0

    def to_dict(self) -> dict:
        """Counters plus the derived ratios, JSON-ready (what ``flashrepro simulate`` prints)."""
        c = self.counters
        refs = max(c["references"], 1)
        return {"policy": self.policy, "params": dataclasses.asdict(self.params),
                "capacity_pages": self.capacity_pages, "tiers": dict(self.tiers), "trace": self.trace, **c,
                "hit_ratio": c["hits"] / refs, "miss_ratio": c["misses"] / refs}

    def tier_table(self) -> pl.DataFrame:
        """Pages, occupancy at the end, hits and page writes per tier."""
        import polars as pl  # not at the top: a command-line run should not pay for importing polars

        c = self.counters
        if len(self.tiers) == 1:
            (name, pages), = self.tiers.items()
            return pl.DataFrame([{"tier": name, "pages": pages, "resident": c["resident_at_end"],
                                  "hits": c["hits"], "writes": c["write_references"]}])
        rows = []
        for name, pages in self.tiers.items():
            t = name.removesuffix("_pages")
            rows.append({"tier": name, "pages": pages, "resident": c[f"resident_{t}"], "hits": c[f"hits_{t}"],
                         "writes": c[f"writes_{t}"]})
        return pl.DataFrame(rows)


def simulate(trace: Trace | PageRefs, policy: str, capacity_pages: int | None = None, *, page_bytes: int = 4096,
             flush_at_end: bool = False, log_io: bool = False, chunk_refs: int | None = None,
             observe_every: int | None = None, **params) -> SimResult:
    """Run one buffer-cache policy over a trace.

    Parameters
    ----------
    trace : Trace or PageRefs
        Requests are expanded into ``page_bytes`` pages (cached on the trace).
    policy : str
        A name from :func:`~flashrepro.cache.policy_names`.
    capacity_pages : int
        Cache size in pages (>= 1). A tiered policy splits it by its tiers' shares unless every tier is
        given as a parameter (then ``capacity_pages`` may be left out).
    flush_at_end : bool
        Write back the pages still dirty after the last reference (``device_writes_end_flush``).
        Otherwise they are counted as ``dirty_at_end``.
    log_io : bool or "device"
        Keep the device I/O log (:class:`IOLog`), the after-cache trace that device models time, and
        the per-reference outcome (``SimResult.outcome``, ``SimResult.hit``). ``"device"``: keep only the
        pages of each device read and write (:class:`DeviceLog`, what a device-time model reads), no
        outcome; the counters are the same either way.
    chunk_refs : int, optional
        References per kernel call (results do not depend on it).
    observe_every : int, optional
        Record what the policy observes (``Kernel.observe``, e.g. an adaptive target) about every this many
        references, as ``SimResult.trajectory``.
    **params
        The policy's parameters (see its dataclass); unknown names and wrong types are errors.

    Notes
    -----
    A read miss costs one device page read; a write miss allocates the page without reading it (writes
    are whole pages at this granularity). A write makes the page dirty; a dirty page costs a device
    write when it is evicted or flushed.
    """
    if isinstance(log_io, str) and log_io != "device":
        raise ValueError(f"log_io must be False, True or 'device', got {log_io!r}")
    pol = get_policy(policy)
    p = make_params(policy, **params)
    tiers = C.resolve_tiers(p, capacity_pages)
    chunk = min(chunk_refs or DEFAULT_CHUNK, observe_every or DEFAULT_CHUNK)
    full = not isinstance(log_io, str) and bool(log_io)
    stream = trace.reference_stream(stream_spec(pol, p, page_bytes, chunk=chunk, keep_index=full))  # the one ask
    if len(stream) == 0:
        raise ValueError(f"trace {stream.name!r} has no read or write page references")
    sim = Simulator(policy, stream.units, tiers, p, flush_at_end=flush_at_end, log_io=bool(log_io)).run(stream)
    io_log = outcome = None
    if log_io == "device":
        read, write = _device_pages_of_rows(sim.log_rows())
        read.flags.writeable = write.flags.writeable = False
        io_log = DeviceLog(read, write, stream.page_bytes)
        _give_back_log(sim.log)
        sim.log = C.new_log(0, False)
    elif full:
        rows = sim.log_rows()
        pos, req, op, cause, first_page, n_pages, tier = _log_columns(rows, stream.units,
                                                                      None if stream.events else stream.req)
        outcome = sim.outcomes()
        if stream.events:
            idx = stream.index
            ref = np.where(pos >= 0, idx[np.maximum(pos, 0)], -1)
            ev_req = stream.event_req
            ev_num = np.cumsum(idx < 0) - 1  # which event a stream position is, where it is one
            req = np.where(ref >= 0, stream.req[np.maximum(ref, 0)], ev_req[np.maximum(ev_num[np.maximum(pos, 0)], 0)])
            outcome = outcome[idx >= 0]
        else:
            ref = pos  # (and req, stream.req[pos], came with the columns)
        io_log = IOLog(ref=ref, req=req, op=op, cause=cause, first_page=first_page, n_pages=n_pages, tier=tier,
                       page_bytes=stream.page_bytes)
        del rows  # every column above is a copy: the buffer can serve the next run
        _give_back_log(sim.log)
        sim.log = C.new_log(0, False)
    return sim.result(stream.name, io_log, outcome)


def _unit_shape(kernel, params, page_bytes: int) -> tuple[int, int]:
    halo = kernel.unit_halo(params, page_bytes)
    return kernel.unit_pages(params, page_bytes), halo


def stream_spec(pol, params, page_bytes: int, *, chunk: int | None = DEFAULT_CHUNK,
                keep_index: bool = False) -> StreamSpec:
    """What a run of the registered policy ``pol`` asks of a trace, in one request: pages of ``page_bytes``,
    the unit space its kernel indexes at the trace's page size (``Kernel.unit_pages``, ``unit_halo``), the
    trace's events when it handles them (``Caps.flushes``), chunks of ``chunk`` entries and, with
    ``keep_index``, each entry's reference (to map the I/O log back)."""
    return StreamSpec(page_bytes, functools.partial(_unit_shape, pol.kernel, params), events=pol.caps.flushes,
                      chunk=chunk, keep_index=keep_index)


def _log_columns(rows: np.ndarray, units: Units, req_of: np.ndarray | None) -> tuple:
    """The log's rows as the IOLog's columns, each a new array: ``(ref, req, op, cause, first_page, n_pages,
    tier)``, with units mapped back to page numbers (``units.pages``) and, given ``req_of`` (the request of
    each page reference), ``req = req_of[ref]`` (else None). One pass instead of six strided copies, a
    gather and the temporaries of ``units.pages``; the values are those of ``rows[:, j].astype(...)``,
    ``units.pages(rows[:, 3])`` and ``req_of[rows[:, 0]]``."""
    if units.segments.dtype != np.int64 or (req_of is not None and req_of.dtype != np.int64):
        # not met by any Units or PageRefs the package builds; kept exact anyway
        return (rows[:, 0].copy(), None if req_of is None else req_of[rows[:, 0]], rows[:, 1].astype(np.int8),
                rows[:, 2].astype(np.int8), units.pages(rows[:, 3]), rows[:, 4].copy(), rows[:, 5].astype(np.int8))
    ref, req, op, cause, first_page, n_pages, tier = _split_log(
        rows, units.segments, units.unit_pages, np.zeros(0, np.int64) if req_of is None else req_of, req_of is not None)
    return ref, (req if req_of is not None else None), op, cause, first_page, n_pages, tier


@njit(cache=True)
def _split_log(rows, segments, k, req_of, with_req):
    """:func:`_log_columns`' one pass: the kernel's log rows ``(ref, op, cause, first unit, units, tier)`` as new
    columns, each first unit ``u`` turned into its page ``segments[u // k] * k + u % k`` (as ``Units.pages``)
    and, with ``with_req``, each reference's request ``req_of[ref]``."""
    n = rows.shape[0]
    ref = np.empty(n, np.int64)
    req = np.empty(n if with_req else 0, np.int64)
    op = np.empty(n, np.int8)
    cause = np.empty(n, np.int8)
    first_page = np.empty(n, np.int64)
    n_pages = np.empty(n, np.int64)
    tier = np.empty(n, np.int8)
    for i in range(n):
        ref[i] = rows[i, 0]
        if with_req:
            req[i] = req_of[rows[i, 0]]
        op[i] = rows[i, 1]
        cause[i] = rows[i, 2]
        u = rows[i, 3]
        first_page[i] = segments[u // k] * k + u % k
        n_pages[i] = rows[i, 4]
        tier[i] = rows[i, 5]
    return ref, req, op, cause, first_page, n_pages, tier


@njit(cache=True)
def _device_pages(cause, op, n_pages):
    """``n_pages`` of the device reads and of the device writes (rows not moves between tiers), in log
    order: ``n_pages[(cause != MIGRATION) & (op == IO_READ)]`` and the same for IO_WRITE, in one pass."""
    n_read = 0
    n_write = 0
    for i in range(op.shape[0]):
        if cause[i] != C.MIGRATION:
            if op[i] == C.IO_READ:
                n_read += 1
            elif op[i] == C.IO_WRITE:
                n_write += 1
    read = np.empty(n_read, np.int64)
    write = np.empty(n_write, np.int64)
    r = 0
    w = 0
    for i in range(op.shape[0]):
        if cause[i] != C.MIGRATION:
            if op[i] == C.IO_READ:
                read[r] = n_pages[i]
                r += 1
            elif op[i] == C.IO_WRITE:
                write[w] = n_pages[i]
                w += 1
    return read, write


@njit(cache=True)
def _device_pages_of_rows(rows):
    """:func:`_device_pages` on the kernel's log rows ``(ref, op, cause, first unit, units, tier)`` themselves:
    the same two arrays as ``_device_pages(cause, op, n_pages)`` of :func:`_log_columns`' columns (``op`` and
    ``cause`` are small codes, so their int8 copies compare the same). One pass, into arrays of the log's length
    of which only the pages written are touched (the rest is never mapped); returns views of their starts."""
    n = rows.shape[0]
    read = np.empty(n, np.int64)
    write = np.empty(n, np.int64)
    r = 0
    w = 0
    for i in range(n):
        if rows[i, 2] != C.MIGRATION:
            if rows[i, 1] == C.IO_READ:
                read[r] = rows[i, 4]
                r += 1
            elif rows[i, 1] == C.IO_WRITE:
                write[w] = rows[i, 4]
                w += 1
    return read[:r], write[:w]


UNIT_BYTES = 96  # kernel state per unit, a generous bound over the registered kernels (checked before a run)


def stream_units(source, unit_pages: int, halo: int = 0, page_bytes: int = 4096,
                 batch_requests: int = 1 << 22) -> Units:
    """The unit space of a trace read in batches (``source.batches``): the same as ``PageRefs.units`` on the
    whole trace, without holding it (:attr:`~flashrepro.traces.trace.BatchedStream.units`)."""
    return BatchedStream(source, StreamSpec(page_bytes, (int(unit_pages), halo)), batch_requests).units


def simulate_stream(source, policy: str, capacity_pages: int | None = None, *, page_bytes: int = 4096,
                    flush_at_end: bool = False, batch_requests: int = 1 << 22, progress=None,
                    **params) -> SimResult:
    """:func:`simulate` over a trace too large to hold: ``source`` yields it in batches of whole requests
    (:class:`~flashrepro.traces.store.StoredTrace`, from ``open_trace``). Two passes: the unit space, then the
    policy, batch by batch. The counters are those :func:`simulate` gives on the whole trace (there is no
    I/O log or per-reference outcome). ``progress(requests_done)`` is called after each batch."""
    from .._io import check_memory

    pol = get_policy(policy)
    p = make_params(policy, **params)
    tiers = C.resolve_tiers(p, capacity_pages)
    stream = BatchedStream(source, stream_spec(pol, p, page_bytes), batch_requests, progress)  # the one ask
    units = stream.units
    if units.n == 0:
        raise ValueError(f"trace {source.name!r} has no read or write page references")
    check_memory(units.n * UNIT_BYTES, f"{policy} over {units.n:,} units of {units.unit_pages} page(s) ({source.name})")
    return Simulator(policy, units, tiers, p, flush_at_end=flush_at_end).run(stream).result(source.name)
