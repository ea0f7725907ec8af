"""The request-level :class:`Trace` (a struct of arrays), its page-level expansion :class:`PageRefs`, and
the :class:`RefStream` every cache kernel reads.

    Trace (requests: time, op, offset, size[, file][, device])
      -> addresses (device and offset as one number: :class:`AddressSpace`)
      -> PageRefs (one row per page a read or write touches, plus the sync / trim / delete events
         between them, with time and file)
      -> RefStream chunks (dense unit numbers at the granularity a policy asks for, events interleaved
         where the policy handles them)

A consumer asks for all of it in one call, ``Trace.reference_stream(StreamSpec(...))``: a
:class:`ReferenceStream` holds the units, the chunks and what maps a stream position back to its reference
and request. :class:`BatchedStream` is the same for a trace read in batches.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from enum import IntEnum
from functools import cached_property

import numpy as np
from numba import njit

MIN_PAGE_BYTES, MAX_PAGE_BYTES = 512, 1 << 20
MAX_EXTENT_BYTES = 1 << 62  # no request reaches this far (readers refuse it too): addresses stay far from overflow
DEVICE_GRAIN = 1 << 30  # devices start on multiples of this in the address space, and at least this far apart


def check_page_bytes(page_bytes, what: str = "page_bytes") -> int:
    """``page_bytes`` as an int if it is a power of two from 512 B (a sector) to 1 MiB, else ValueError
    naming ``what`` (a CLI passes its flag, ``--page-bytes``). Other sizes are refused rather than read:
    a page that is not a power of two puts page boundaries where no device has them, and offsets of
    devices other than the first would shift against them."""
    if isinstance(page_bytes, bool) or not isinstance(page_bytes, (int, np.integer)):
        raise ValueError(f"{what} must be a whole number of bytes, got {page_bytes!r}")
    n = int(page_bytes)
    if not (MIN_PAGE_BYTES <= n <= MAX_PAGE_BYTES and n & (n - 1) == 0):
        raise ValueError(f"{what} must be a power of two from {MIN_PAGE_BYTES} to {MAX_PAGE_BYTES} "
                         f"(512 B to 1 MiB), got {n}")
    return n


class Op(IntEnum):
    """Request operation codes stored in ``Trace.op`` (int8)."""

    READ = 0
    WRITE = 1
    FLUSH = 2  # a barrier / cache flush of the whole device (blkparse F, a zero-length MOST completion)
    TRIM = 3  # discard of [offset, offset + size); with a file id, the delete of that file's blocks
    SYNC = 4  # fsync of one file (``Trace.file``); no data


def references_pages(op: np.ndarray) -> np.ndarray:
    """Whether each request reads or writes data (``Op.READ``, ``Op.WRITE``): the requests a page-granular cache
    sees as page references; flushes, trims and syncs are events."""
    return (op == Op.READ) | (op == Op.WRITE)


@njit(cache=True, inline="always")
def _references_pages(op):
    """:func:`references_pages` of one operation code, in compiled code."""
    return op == Op.READ or op == Op.WRITE


class Event(IntEnum):
    """What one entry of the reference stream is (``RefStream.event``, int8).

    READ and WRITE are page references; the others are events a policy may act on (a write-back cache
    honouring ``fsync`` flushes on SYNC_FILE / SYNC_ALL; a cache may drop deleted pages). Policies that
    do not handle events never see them (``Caps.flushes``). READ is 0 and WRITE is 1, so a page reference's
    event is its write bit: the cache kernels take ``w = np.uint8(event[i])`` as 1 for a write."""

    READ = 0
    WRITE = 1
    SYNC_FILE = 2  # fsync of ``file``
    SYNC_ALL = 3  # flush of everything
    DELETE = 4  # trim / delete of the unit range [unit, unit + count)


_EVENT_TABLE = np.array([Event.READ, Event.WRITE, Event.SYNC_ALL, Event.DELETE, Event.SYNC_FILE], np.int8)  # by Op


@dataclasses.dataclass(frozen=True, eq=False)
class AddressSpace:
    """Where each device's bytes lie on the one line of addresses a trace's pages are numbered on.

    Devices are laid out in number order: device ``devices[i]`` starts at ``base_bytes[i]``, a multiple of
    :data:`DEVICE_GRAIN` (1 GiB), its reads and writes end by ``base_bytes[i] + data_bytes[i]``, and the next
    device starts at least one grain after that. So pages of different devices never coincide, the order of
    pages within a device is kept, an aligned segment of up to 1 GiB holds pages of one device only, and a
    read-ahead past a device's last page finds no other device's pages. A device takes the room its requests
    reach, not a fixed share of an address's bits: a 20 TB disk and a million small volumes fit alike (2^62
    bytes in all)."""

    devices: np.ndarray  # sorted distinct device numbers (int64)
    data_bytes: np.ndarray  # per device, one past the furthest byte a read or write of it touches (0: none)
    base_bytes: np.ndarray = dataclasses.field(init=False)  # per device, the address of its byte 0

    def __post_init__(self):
        devices = np.ascontiguousarray(self.devices, np.int64)
        data = np.ascontiguousarray(self.data_bytes, np.int64)
        if devices.ndim != 1 or devices.shape != data.shape or np.any(devices[1:] <= devices[:-1]):
            raise ValueError("AddressSpace: devices must be sorted distinct numbers, one data_bytes each")
        room = (data + (DEVICE_GRAIN - 1)) // DEVICE_GRAIN * DEVICE_GRAIN + DEVICE_GRAIN
        if float(room.sum(dtype=np.float64)) >= MAX_EXTENT_BYTES:
            raise ValueError(f"{len(devices):,} devices with {int(data.max()):,} bytes on the largest do not fit "
                             f"in 2^62 bytes of addresses together")
        object.__setattr__(self, "devices", devices)
        object.__setattr__(self, "data_bytes", data)
        object.__setattr__(self, "base_bytes", np.cumsum(room) - room)

    @classmethod
    def of(cls, device: np.ndarray, op: np.ndarray, offset: np.ndarray, size: np.ndarray) -> AddressSpace:
        """The space of these requests' devices, each as far as its reads and writes reach."""
        data = (op <= Op.WRITE) & (size > 0)
        ends = offset[data] + size[data]
        if len(device) and int(device.min()) == int(device.max()):  # one device: no grouping
            return cls(device[:1], np.array([ends.max() if ends.size else 0], np.int64))
        index, devices = dense_remap(device)
        reach = np.zeros(len(devices), np.int64)
        np.maximum.at(reach, index[data], ends)
        return cls(devices, reach)

    def union(self, other: AddressSpace) -> AddressSpace:
        """The space holding both: every device of either, each as far as the further of the two reaches."""
        devices = sorted_unique(np.concatenate([self.devices, other.devices]))
        reach = np.zeros(len(devices), np.int64)
        for part in (self, other):
            np.maximum.at(reach, np.searchsorted(devices, part.devices), part.data_bytes)
        return AddressSpace(devices, reach)

    def _index(self, device: np.ndarray, name: str) -> np.ndarray:
        at = np.minimum(np.searchsorted(self.devices, device), len(self.devices) - 1)
        bad = np.flatnonzero(self.devices[at] != device)
        if bad.size:
            raise ValueError(f"trace {name!r}: device {int(device[bad[0]])} of request {bad[0]} is not in the "
                             f"address space it is keyed in")
        return at

    def addresses(self, device: np.ndarray, offset: np.ndarray, name: str = "trace") -> np.ndarray:
        """The address of byte ``offset`` of ``device``, elementwise."""
        return self.base_bytes[self._index(device, name)] + offset

    def data_end(self, device: np.ndarray, name: str = "trace") -> np.ndarray:
        """One past the last address a read or write of ``device`` touches, elementwise."""
        at = self._index(device, name)
        return self.base_bytes[at] + self.data_bytes[at]

    def to_json(self) -> dict:
        return {"devices": self.devices.tolist(), "data_bytes": self.data_bytes.tolist()}

    @classmethod
    def from_json(cls, d: dict) -> AddressSpace:
        return cls(np.array(d["devices"], np.int64), np.array(d["data_bytes"], np.int64))


_NO_DEVICE = np.zeros(0, np.int64)


@njit(cache=True)
def _columns_valid(time_s, op, offset, size, device, max_op, max_extent):
    """Whether every request passes :class:`Trace`'s checks: op codes in [0, ``max_op``], offsets, sizes and
    devices not negative, extents ending before ``max_extent``, times finite. One pass and no temporary
    arrays (the checks one by one took 0.05-0.1 s of a 5M-line first run, twice: parsed, then loaded)."""
    for i in range(op.shape[0]):
        o, s = offset[i], size[i]
        if op[i] < 0 or op[i] > max_op or o < 0 or s < 0 or o > max_extent - s or not np.isfinite(time_s[i]):
            return False
    for i in range(device.shape[0]):
        if device[i] < 0:
            return False
    return True


@dataclasses.dataclass(frozen=True, eq=False)
class Trace:
    """A block I/O trace: one row per request.

    Parameters
    ----------
    time_s : float64 array, seconds from the first request (all zeros for formats without time)
    op : int8 array of :class:`Op` codes
    offset_bytes, size_bytes : int64 arrays
    name : short label used in tables and figures
    source : where the requests came from (a file path or a generator call)
    meta : free-form facts about the reading, e.g. how many records were dropped and why
    file : optional int32 array, the file each request belongs to (-1: none); file-level traces (SQLite
        replays, syscall logs) use it for per-file sync (``Op.SYNC``) and delete (``Op.TRIM``)
    device : optional int64 array, the device each request goes to (any number >= 0; None: all on device 0,
        and an all-zero column is kept as None). ``offset_bytes`` is the offset on that device; pages are keyed
        by (device, page) through the trace's :class:`AddressSpace` (:attr:`address_bytes`), so devices of any
        size and number never share a page.
    space : the :class:`AddressSpace` to key pages in when this trace is a part (a batch) of a larger one, so
        that every part numbers pages alike; None: the space of this trace's own requests.
    """

    time_s: np.ndarray
    op: np.ndarray
    offset_bytes: np.ndarray
    size_bytes: np.ndarray
    name: str = "trace"
    source: str = ""
    meta: dict = dataclasses.field(default_factory=dict)
    file: np.ndarray | None = None
    device: np.ndarray | None = None
    space: AddressSpace | None = None

    def __post_init__(self):
        cols = {}
        for field, dtype in (("time_s", np.float64), ("op", np.int8),
                             ("offset_bytes", np.int64), ("size_bytes", np.int64)):
            a = np.ascontiguousarray(getattr(self, field), dtype=dtype)
            if a.ndim != 1:
                raise ValueError(f"Trace {self.name!r}: {field} must be one-dimensional")
            cols[field] = a
            object.__setattr__(self, field, a)
        for field, dtype in (("file", np.int32), ("device", np.int64)):
            if getattr(self, field) is not None:
                cols[field] = np.ascontiguousarray(getattr(self, field), dtype=dtype)
                if cols[field].ndim != 1:
                    raise ValueError(f"Trace {self.name!r}: {field} must be one-dimensional")
                object.__setattr__(self, field, cols[field])
        if self.device is not None and not self.device.any():
            object.__setattr__(self, "device", None)  # all on device 0: no column to hold or store
        n = {len(a) for a in cols.values()}
        if len(n) != 1:
            raise ValueError(f"Trace {self.name!r}: columns have different lengths {sorted(n)}")
        if len(self.op) == 0:
            raise ValueError(f"Trace {self.name!r} from {self.source or 'memory'} is empty")
        device = cols.get("device", _NO_DEVICE)
        if not _columns_valid(self.time_s, self.op, self.offset_bytes, self.size_bytes, device, int(max(Op)),
                              MAX_EXTENT_BYTES):
            self._name_the_invalid_request(cols)
        self._check_devices_kept()

    def _name_the_invalid_request(self, cols: dict) -> None:
        """The error for the first request of the first check that fails, in the order of the checks (one
        numpy pass per check: only once :func:`_columns_valid` has found that one does)."""
        bad = np.flatnonzero((self.op < 0) | (self.op > max(Op)))
        if bad.size:
            raise ValueError(f"Trace {self.name!r}: unknown op code {int(self.op[bad[0]])} at request {bad[0]}")
        for field in ("offset_bytes", "size_bytes", "device"):
            bad = np.flatnonzero(cols[field] < 0) if field in cols else []
            if len(bad):
                raise ValueError(f"Trace {self.name!r}: negative {field} {int(cols[field][bad[0]])} "
                                 f"at request {bad[0]}")
        bad = np.flatnonzero(self.offset_bytes > MAX_EXTENT_BYTES - self.size_bytes)
        if bad.size:
            raise ValueError(f"Trace {self.name!r}: request {bad[0]} ends past 2^62 bytes "
                             f"({int(self.offset_bytes[bad[0]])} + {int(self.size_bytes[bad[0]])})")
        if not np.all(np.isfinite(self.time_s)):
            raise ValueError(f"Trace {self.name!r}: time_s has NaN or infinite values")
        raise AssertionError(f"Trace {self.name!r}: _columns_valid refused columns every check accepts")

    def _check_devices_kept(self) -> None:
        """A trace whose requests are on several devices says so in its meta (``several_devices``), so that a
        trace made from its columns without its ``device`` column (which would put every device's pages
        together) is an error, not a silently wrong footprint."""
        if self.on_several_devices and not self.meta.get("several_devices"):
            object.__setattr__(self, "meta", {**self.meta, "several_devices": True})
        if self.device is None and self.space is None and self.meta.get("several_devices"):
            raise ValueError(f"Trace {self.name!r}: its meta says its requests are on several devices, but it has "
                             f"no device column (pass device=...)")

    def __len__(self) -> int:
        return len(self.op)

    def __repr__(self) -> str:
        return (f"Trace({self.name!r}, {len(self)} requests, {self.n_reads} reads, {self.n_writes} writes, "
                f"source={self.source!r})")

    @property
    def n_reads(self) -> int:
        return int(np.count_nonzero(self.op == Op.READ))

    @property
    def n_writes(self) -> int:
        return int(np.count_nonzero(self.op == Op.WRITE))

    def head(self, n: int) -> Trace:
        """The first ``n`` requests (the whole trace if it is shorter), pages keyed as in the whole."""
        if n >= len(self):
            return self
        return Trace(self.time_s[:n], self.op[:n], self.offset_bytes[:n], self.size_bytes[:n],
                     name=self.name, source=self.source, meta={**self.meta, "head": n},
                     file=None if self.file is None else self.file[:n],
                     device=None if self.device is None else self.device[:n], space=self.address_space)

    def renamed(self, name: str) -> Trace:
        """The same requests under another name."""
        return dataclasses.replace(self, name=name)

    @cached_property
    def on_several_devices(self) -> bool:
        """Whether the ``device`` column holds more than one number."""
        return self.device is not None and int(self.device.min()) != int(self.device.max())

    @cached_property
    def address_space(self) -> AddressSpace | None:
        """The space pages are keyed in: ``space`` if given, else that of this trace's own requests; None when
        every request is on one device (an address is then simply the offset)."""
        if self.space is not None:
            return self.space
        if not self.on_several_devices:
            return None
        return AddressSpace.of(self.device, self.op, self.offset_bytes, self.size_bytes)

    @cached_property
    def address_bytes(self) -> np.ndarray:
        """Each request's address: its device's base in :attr:`address_space` plus its offset (the offset
        itself on a one-device trace). Page ``q`` of the trace is addresses ``[q * page_bytes, (q + 1) *
        page_bytes)``: every consumer that turns requests into pages reads this, not ``offset_bytes``."""
        space = self.address_space
        if space is None:
            return self.offset_bytes
        return space.addresses(self.device_numbers, self.offset_bytes, self.name)

    @property
    def device_numbers(self) -> np.ndarray:
        """The ``device`` column, zeros when the trace has none."""
        return np.zeros(len(self), np.int64) if self.device is None else self.device

    def to_pages(self, page_bytes: int = 4096) -> PageRefs:
        """Expand requests into page references; a request straddling page boundaries touches every page
        it overlaps. FLUSH, SYNC and TRIM requests become events between the references; zero-size reads
        and writes produce nothing. Cached per page size."""
        cache = self.__dict__.setdefault("_pages", {})
        if page_bytes not in cache:
            cache[page_bytes] = _expand(self, page_bytes)
        return cache[page_bytes]

    def reference_stream(self, spec: StreamSpec) -> ReferenceStream:
        """The one stream a kernel consumes from this trace, as ``spec`` asks for it: the requests expanded into
        ``spec.page_bytes`` pages (:meth:`to_pages`, cached), in the unit space ``spec`` gives for that page
        size, read chunk by chunk (:class:`ReferenceStream`)."""
        return ReferenceStream(self.to_pages(spec.page_bytes), spec)

    def stats(self, page_bytes: int = 4096) -> dict:
        """Summary statistics (counts, bytes, footprint, duration) as a JSON-ready dict, and under ``reading``
        what the reader said about the file (:attr:`meta`: its format, lines skipped, records merged or
        dropped, bytes trimmed, ...)."""
        rw = references_pages(self.op)
        sizes = self.size_bytes[rw]
        pages = self.to_pages(page_bytes)
        return {
            "name": self.name,
            "source": self.source,
            "requests": len(self),
            "reads": self.n_reads,
            "writes": self.n_writes,
            "other_ops": int(len(self) - rw.sum()),
            "read_bytes": int(self.size_bytes[self.op == Op.READ].sum()),
            "write_bytes": int(self.size_bytes[self.op == Op.WRITE].sum()),
            "mean_request_bytes": float(sizes.mean()) if sizes.size else 0.0,
            "page_bytes": page_bytes,
            "page_references": len(pages),
            "write_page_references": int(pages.is_write.sum()),
            "footprint_pages": pages.n_unique,
            "footprint_bytes": pages.n_unique * page_bytes,
            "duration_s": float(self.time_s[-1] - self.time_s[0]),
            "flushes": int(np.count_nonzero(self.op == Op.FLUSH)),
            "syncs": int(np.count_nonzero(self.op == Op.SYNC)),
            "trims": int(np.count_nonzero(self.op == Op.TRIM)),
            "files": 0 if self.file is None else int(np.unique(self.file[self.file >= 0]).size),
            "reading": _json_ready(self.meta),
        }


def _json_ready(value):
    """``value`` with numpy scalars as Python numbers, tuples as lists, and arrays described (not listed)."""
    if isinstance(value, dict):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return f"array of {value.size} {value.dtype}"
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


_REF_BYTES = 8 + 1 + 8 + 8 + 8 + 4  # a page reference: page, is_write, req, rest, time, file


def _expand(trace: Trace, page_bytes: int) -> PageRefs:
    page_bytes = check_page_bytes(page_bytes)
    address = trace.address_bytes
    total, biggest = _count_pages(trace.op, address, trace.size_bytes, page_bytes)
    if total * _REF_BYTES > (1 << 30):  # only then is it worth asking
        from .._io import check_memory

        check_memory(total * _REF_BYTES, f"trace {trace.name!r}: {total:,} page references (its largest request, "
                                         f"number {biggest}, is {int(trace.size_bytes[biggest]):,} bytes)")
    page, is_write, req, rest = _expand_kernel(trace.op, address, trace.size_bytes, page_bytes)
    ev = np.flatnonzero(trace.op >= Op.FLUSH)
    events = None
    if ev.size:
        kind = _EVENT_TABLE[trace.op[ev]]
        first, last = _event_pages(trace, ev, page_bytes)
        events = Events(at=np.searchsorted(req, ev, side="left"), kind=kind, req=ev.astype(np.int64),
                        first_page=np.where(kind == Event.DELETE, first, -1),
                        n_pages=np.where(kind == Event.DELETE, np.maximum(last - first + 1, 0), 0),
                        time_s=trace.time_s[ev],
                        file=np.full(ev.size, -1, np.int32) if trace.file is None else trace.file[ev])
    return PageRefs(page=page, is_write=is_write, req=req, page_bytes=page_bytes, name=trace.name,
                    time_s=trace.time_s[req], file=None if trace.file is None else trace.file[req], events=events,
                    rest=rest)


def _event_pages(trace: Trace, ev: np.ndarray, page_bytes: int) -> tuple[np.ndarray, np.ndarray]:
    """The first and last page of the requests ``ev`` (for a trim, every page it touches: a range, never
    expanded; a kernel acts only on the units of pages some read or write touches inside it). On a trace with
    several devices a trim ends where its device's reads and writes end, so that it never reaches the next
    device's pages."""
    address, size = trace.address_bytes[ev], trace.size_bytes[ev]
    end = address + size
    space = trace.address_space
    if space is not None:
        end = np.minimum(end, space.data_end(trace.device_numbers[ev], trace.name))
    first = address // page_bytes
    last = np.where(end > address, (end - 1) // page_bytes, first - 1)
    return first, last


@njit(cache=True)
def _count_pages(op, offset, size, page_bytes):
    """Page references the reads and writes expand to, and the request with the most pages."""
    total = 0
    most = -1
    biggest = 0
    for i in range(op.shape[0]):
        if _references_pages(op[i]) and size[i] > 0:
            k = (offset[i] + size[i] - 1) // page_bytes - offset[i] // page_bytes + 1
            total += k
            if k > most:
                most, biggest = k, i
    return total, biggest


@njit(cache=True)
def _expand_kernel(op, offset, size, page_bytes):
    n = op.shape[0]
    total = 0
    for i in range(n):
        if _references_pages(op[i]) and size[i] > 0:
            total += (offset[i] + size[i] - 1) // page_bytes - offset[i] // page_bytes + 1
    page = np.empty(total, np.int64)
    is_write = np.empty(total, np.bool_)
    req = np.empty(total, np.int64)
    rest = np.empty(total, np.int64)  # pages of the request from this one on (this one included)
    k = 0
    for i in range(n):
        if _references_pages(op[i]) and size[i] > 0:
            first = offset[i] // page_bytes
            last = (offset[i] + size[i] - 1) // page_bytes
            for q in range(first, last + 1):
                page[k] = q
                is_write[k] = op[i] == Op.WRITE
                req[k] = i
                rest[k] = last - q + 1
                k += 1
    return page, is_write, req, rest


@njit(cache=True)
def _ranks_by_table(p, k, lo, rank, present, n_segments, right):
    """Units.of_pages through its rank table (see there)."""
    out = np.empty(p.shape[0], np.int64)
    span = present.shape[0]
    for i in range(p.shape[0]):
        seg = p[i] // k
        j = seg - lo
        if j < 0:
            out[i] = 0
        elif j >= span:
            out[i] = n_segments * k
        elif present[j]:
            out[i] = rank[j] * k + p[i] % k + right
        else:
            out[i] = rank[j] * k
    return out


@njit(cache=True)
def _request_segments(op, offset, size, page_bytes, k, halo):
    """Each read or write's first segment (of k pages) and one past its last, ``halo`` segments further."""
    n = op.shape[0]
    lo = np.empty(n, np.int64)
    hi = np.empty(n, np.int64)
    m = 0
    for i in range(n):
        if _references_pages(op[i]) and size[i] > 0:
            lo[m] = offset[i] // page_bytes // k
            hi[m] = (offset[i] + size[i] - 1) // page_bytes // k + halo + 1
            m += 1
    return lo[:m], hi[:m]


@njit(cache=True)
def _merge_intervals(lo, hi, order):
    """The union of the intervals [lo, hi) taken in ``order`` (by start) as disjoint, non-adjacent ones."""
    m = order.shape[0]
    start = np.empty(m, np.int64)
    stop = np.empty(m, np.int64)
    c = -1
    for j in range(m):
        a, b = lo[order[j]], hi[order[j]]
        if c >= 0 and a <= stop[c]:
            if b > stop[c]:
                stop[c] = b
        else:
            c += 1
            start[c], stop[c] = a, b
    return start[:c + 1], stop[:c + 1]


def touched_segments(trace, page_bytes: int, k: int = 1, halo: int = 0) -> np.ndarray:
    """Sorted distinct segments the trace's reads and writes touch (with ``halo`` more after each): the same
    as ``sorted_unique(trace.to_pages(page_bytes).page // k)`` (with the halo), from the requests alone."""
    lo, hi = _request_segments(trace.op, trace.address_bytes, trace.size_bytes, page_bytes, k, halo)
    start, stop = _merge_intervals(lo, hi, np.argsort(lo, kind="stable"))  # numpy's sort: 20x Numba's
    if len(start) == 0:
        return np.zeros(0, np.int64)
    lens = stop - start
    total = int(lens.sum())
    if total * 8 > (1 << 30):
        from .._io import check_memory

        i = int(np.argmax(np.where(references_pages(trace.op) & (trace.size_bytes > 0), trace.size_bytes, 0)))
        check_memory(total * 8, f"trace {trace.name!r}: {total:,} segments touched (its largest request, number {i}, "
                                f"is {int(trace.size_bytes[i]):,} bytes)")
    base = np.repeat(start - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
    return base + np.arange(total, dtype=np.int64)


@dataclasses.dataclass(frozen=True, eq=False)
class Events:
    """The non-data requests of a trace, in order: ``at[j]`` data references come before event ``j``.

    ``kind`` is an :class:`Event` code, ``req`` the request index, ``first_page``/``n_pages`` the page range
    of a DELETE (-1 / 0 otherwise), ``file`` the file (-1: none)."""

    at: np.ndarray
    kind: np.ndarray
    req: np.ndarray
    first_page: np.ndarray
    n_pages: np.ndarray
    time_s: np.ndarray
    file: np.ndarray

    def __len__(self) -> int:
        return len(self.kind)


class RefStream(typing.NamedTuple):
    """What a cache kernel reads: one entry per page reference or event, all arrays of one length.

    ``unit`` is the dense unit number (see :class:`Units`; for a DELETE the first unit of its range, -1 for
    a sync), ``event`` an :class:`Event` code (for page references simply 0 = read, 1 = write), ``time_s``
    seconds, ``file`` the file (-1: none), and ``count`` the units the entry's request covers from it on:
    for a page reference, the pages of its request from this one to the last (so a request's first entry
    says the whole request is units ``[unit, unit + count)``, all in the same chunk); for a DELETE the units
    of its range; 0 for a sync."""

    unit: np.ndarray  # int64
    event: np.ndarray  # int8
    time_s: np.ndarray  # float64
    file: np.ndarray  # int32
    count: np.ndarray  # int64


@dataclasses.dataclass(frozen=True, eq=False)
class Units:
    """The dense unit space a policy's kernel indexes: pages, or the blocks of aligned segments.

    With ``unit_pages = k``, page ``q`` lies in segment ``q // k``; the segments the trace touches get dense
    ranks in address order (``segments[rank]``), and unit ``rank * k + q % k`` is page ``q``. Every block of
    a touched segment has a unit, so a prefetcher can hold blocks the trace never asks for. With k = 1 a
    unit is simply the page's dense rank."""

    unit_pages: int
    segments: np.ndarray  # sorted distinct segment numbers
    file: np.ndarray | None = None  # per unit, the file of the references that touched it (-1: none)

    @classmethod
    def contiguous(cls, n_pages: int, unit_pages: int = 1) -> Units:
        """Every page 0..n_pages-1 (rounded up to whole segments): for a stream generated or read chunk by
        chunk, whose touched pages are not known in advance, so a unit is simply its page."""
        return cls(int(unit_pages), np.arange(-(-int(n_pages) // int(unit_pages)), dtype=np.int64))

    @property
    def n(self) -> int:
        return len(self.segments) * self.unit_pages

    @functools.cached_property
    def _rank_table(self):
        """(first segment, rank of every segment number in the span, whether it is touched), when the span is
        not much wider than the number of segments; else None (binary search)."""
        if len(self.segments) == 0:
            return None
        lo, span = int(self.segments[0]), int(self.segments[-1] - self.segments[0]) + 1
        if span > 4 * len(self.segments) + (1 << 16):
            return None
        present = np.zeros(span, np.bool_)
        present[self.segments - lo] = True
        rank = np.cumsum(present, dtype=np.int64) - present  # segments below each segment number
        return lo, rank, present

    def pages(self, units: np.ndarray) -> np.ndarray:
        """Original page numbers of ``units``."""
        u = np.asarray(units, dtype=np.int64)
        k = self.unit_pages
        return self.segments[u // k] * k + u % k

    def of_pages(self, pages: np.ndarray, side: str = "left") -> np.ndarray:
        """For each page, the first unit whose page is >= it (``side="left"``) or > it (``"right"``): the unit
        range of the page range [a, b) is ``[of_pages(a), of_pages(b))``."""
        p = np.asarray(pages, dtype=np.int64)
        k = self.unit_pages
        seg = p // k
        if self._rank_table is not None:  # a gather instead of a binary search (10x faster on 4M pages)
            lo, rank, present = self._rank_table
            return _ranks_by_table(p, k, lo, rank, present, len(self.segments), side == "right")
        else:
            r = np.searchsorted(self.segments, seg, side="left")
            inside = (r < len(self.segments)) & (self.segments[np.minimum(r, len(self.segments) - 1)] == seg)
        off = p % k
        if side == "right":
            off = off + 1
        return np.where(inside, r * k + off, r * k)


@dataclasses.dataclass(frozen=True, eq=False)
class PageRefs:
    """Page references: ``page[i]`` (page number = byte offset // page_bytes), ``is_write[i]``, ``req[i]``
    (the request it came from), ``rest[i]`` (the pages of that request from this one on), ``time_s[i]`` and
    ``file[i]`` (None when the trace has no files), plus the trace's sync / trim / delete :class:`Events`
    between them (None when there are none)."""

    page: np.ndarray
    is_write: np.ndarray
    req: np.ndarray
    page_bytes: int = 4096
    name: str = "trace"
    time_s: np.ndarray | None = None
    file: np.ndarray | None = None
    events: Events | None = None
    rest: np.ndarray | None = None  # pages of the request from each page on (None: one page per request)

    def __post_init__(self):
        if self.time_s is None:
            object.__setattr__(self, "time_s", np.zeros(len(self.page)))
        if self.rest is None:
            object.__setattr__(self, "rest", np.ones(len(self.page), np.int64))

    def __len__(self) -> int:
        return len(self.page)

    @cached_property
    def _remap(self) -> tuple[np.ndarray, np.ndarray]:
        return dense_remap(self.page)

    @property
    def dense(self) -> np.ndarray:
        """Page ranks 0..U-1 that preserve order: ``dense[i] < dense[j]`` iff ``page[i] < page[j]``.

        Computed once per PageRefs. Kernels index arrays of size U with these instead of hashing, and
        ordered policies can walk LSN neighbours as rank +- 1 among resident pages.
        """
        return self._remap[0]

    @property
    def unique_pages(self) -> np.ndarray:
        """Sorted distinct page numbers; ``unique_pages[dense[i]] == page[i]``."""
        return self._remap[1]

    @property
    def n_unique(self) -> int:
        return len(self.unique_pages)

    def units(self, unit_pages: int = 1, halo: int = 0) -> tuple[Units, np.ndarray]:
        """The unit space at ``unit_pages`` pages per segment and every reference's unit (cached). With
        ``halo`` = h, the h segments after each touched one have units too (a read-ahead past the end of a
        request lands in them)."""
        cache = self.__dict__.setdefault("_units", {})
        k, h = int(unit_pages), int(halo)
        if k < 1 or h < 0:
            raise ValueError(f"unit_pages must be at least 1 and halo at least 0, got {k}, {h}")
        if (k, h) not in cache:
            if k == 1 and h == 0:
                rank, segs = self.dense, self.unique_pages
            elif h == 0:
                rank, segs = dense_remap(self.page // k)
                rank = rank * k + self.page % k
            else:
                touched = sorted_unique(self.page // k)
                segs = sorted_unique(np.concatenate([touched + j for j in range(h + 1)]))
                rank = np.searchsorted(segs, self.page // k) * k + self.page % k
            ufile = None
            if self.file is not None:
                ufile = np.full(len(segs) * k, -1, np.int32)
                np.maximum.at(ufile, rank, self.file)
            cache[(k, h)] = (Units(k, segs, ufile), rank)
        return cache[(k, h)]

    def reference_stream(self, spec: StreamSpec, units: Units | None = None) -> ReferenceStream:
        """These references as the one stream a kernel consumes (:class:`ReferenceStream`), at their own page
        size (``spec.page_bytes`` is for a :class:`Trace`). ``units``: a unit space made elsewhere (e.g. over
        a whole file read in batches) instead of this one's own; every page here must have a unit there."""
        return ReferenceStream(self, spec, units)

    def use_units(self, units: Units, halo: int = 0) -> None:
        """Index these references in a unit space made elsewhere (e.g. over a whole file read in batches);
        every page here must have a unit there."""
        cache = self.__dict__.setdefault("_units", {})
        cache[(units.unit_pages, int(halo))] = (units, units.of_pages(self.page))

    def stream(self, unit_pages: int = 1, events: bool = False, chunk: int | None = None, halo: int = 0):
        """The kernel input in chunks of about ``chunk`` entries: ``(RefStream, ref_index)`` pairs.

        Without ``events`` the stream holds the page references only, its chunks are views of cached
        arrays, and ``ref_index`` is None (entry j of the chunk starting at reference s is reference s + j).
        With ``events``, the trace's syncs, flushes and deletes sit between the references as they came, a
        DELETE's page range translated to units, and ``ref_index[j]`` is the page reference of entry ``j``
        or -1 for an event. A chunk never ends inside a request."""
        units, unit = self.units(unit_pages, halo)
        yield from self._chunks(units, unit, events, chunk)

    def _chunks(self, units: Units, unit: np.ndarray, events: bool, chunk: int | None):
        """:meth:`stream`'s chunks, the references numbered ``unit`` in ``units``."""
        n = len(self)
        chunk = max(n, 1) if chunk is None else max(1, int(chunk))
        ev = self.events if events else None
        no_file = np.full(min(chunk, max(n, 1)), -1, np.int32) if self.file is None else None
        lo_ev = 0
        start = 0
        while True:
            stop = min(start + chunk, n)
            if 0 < stop < n:  # move the end to the next request's first page
                stop = int(np.searchsorted(self.req, self.req[stop - 1], side="right"))
            m = stop - start
            idx = None
            file = self.file[start:stop] if self.file is not None else no_file[:m]
            if len(file) < m:  # a chunk stretched to the end of a long request
                file = np.full(m, -1, np.int32)
            part = RefStream(unit[start:stop], self.is_write[start:stop].view(np.int8), self.time_s[start:stop],
                             file, self.rest[start:stop])
            if ev is not None:
                idx = np.arange(start, stop, dtype=np.int64)
                # an event before reference `at` goes with the chunk holding `at`; trailing ones with the last
                hi_ev = len(ev) if stop == n else int(np.searchsorted(ev.at, stop, side="left"))
                if hi_ev > lo_ev:
                    e = slice(lo_ev, hi_ev)
                    is_del = (ev.kind[e] == Event.DELETE) & (ev.n_pages[e] > 0)
                    first = units.of_pages(ev.first_page[e])
                    end = units.of_pages(ev.first_page[e] + np.maximum(ev.n_pages[e], 1) - 1, side="right")
                    extra = (np.where(is_del, first, -1), ev.kind[e], ev.time_s[e], ev.file[e],
                             np.where(is_del, end - first, 0))
                    pos = ev.at[e] - start
                    part = RefStream(*(np.insert(a, pos, b).astype(a.dtype) for a, b in zip(part, extra, strict=True)))
                    idx = np.insert(idx, pos, -1)
                lo_ev = hi_ev
            yield part, idx
            start = stop
            if start >= n:
                break


def _no_shape(page_bytes: int) -> tuple[int, int]:
    return 1, 0


@dataclasses.dataclass(frozen=True, eq=False)
class StreamSpec:
    """What a consumer (a policy's driver, :func:`~flashrepro.cache.simulate`) asks of a trace, once, to get the
    stream it runs on (:meth:`Trace.reference_stream`, :class:`ReferenceStream`, :class:`BatchedStream`).

    ``page_bytes``: the page size a :class:`Trace`'s requests are expanded at (a :class:`PageRefs` keeps its
    own). ``unit_shape``: ``(unit_pages, halo)`` of the unit space (:meth:`PageRefs.units`), or a function of
    the page size giving them (a policy's segments are so many KiB: its pages per segment depend on the page
    size), called when the unit space is first needed. ``events``: the trace's syncs, flushes and deletes
    between the references, when it has any. ``chunk``: entries per chunk (None: one chunk).
    ``keep_index``: keep each chunk's ``ref_index`` as the stream is read (:attr:`ReferenceStream.index`), to
    map stream positions back to references and requests afterwards."""

    page_bytes: int = 4096
    unit_shape: tuple[int, int] | typing.Callable[[int], tuple[int, int]] = _no_shape
    events: bool = False
    chunk: int | None = None
    keep_index: bool = False

    def shape(self, page_bytes: int) -> tuple[int, int]:
        """``(unit_pages, halo)`` at ``page_bytes``."""
        shape = self.unit_shape(page_bytes) if callable(self.unit_shape) else self.unit_shape
        return shape[0], shape[1]


class ReferenceStream:
    """A trace's page references as the one stream a kernel consumes, made by one call
    (:meth:`Trace.reference_stream`, :meth:`PageRefs.reference_stream`) from a :class:`StreamSpec`.

    ``units`` is the unit space (made when first asked for: after ``len(stream)``, the number of page
    references, has been checked); ``for part, ref_index in stream`` gives the chunks, as
    :meth:`PageRefs.stream` does (nothing when there are neither references nor events). What maps a
    stream position back: ``events`` (whether events sit between the references; else entry ``j`` of the
    stream is reference ``j``), ``req`` (each reference's request), ``event_req`` (each event's) and, with
    ``spec.keep_index`` and events, ``index`` (every chunk's ``ref_index`` in order, once the stream is read)."""

    def __init__(self, refs: PageRefs, spec: StreamSpec, units: Units | None = None):
        self.refs = refs
        self.spec = spec
        self.events = bool(spec.events) and refs.events is not None
        self._given_units = units
        self._index: list[np.ndarray] | None = [] if spec.keep_index and self.events else None

    def __len__(self) -> int:
        return len(self.refs)

    @property
    def name(self) -> str:
        return self.refs.name

    @property
    def page_bytes(self) -> int:
        return self.refs.page_bytes

    @property
    def req(self) -> np.ndarray:
        return self.refs.req

    @property
    def event_req(self) -> np.ndarray | None:
        return None if self.refs.events is None else self.refs.events.req

    @cached_property
    def _numbered(self) -> tuple[Units, np.ndarray]:
        """The unit space and every reference's unit in it."""
        if self._given_units is not None:
            return self._given_units, self._given_units.of_pages(self.refs.page)
        return self.refs.units(*self.spec.shape(self.refs.page_bytes))

    @property
    def units(self) -> Units:
        return self._numbered[0]

    def __iter__(self):
        if len(self.refs) == 0 and not self.events:
            return
        units, unit = self._numbered
        for part, idx in self.refs._chunks(units, unit, self.events, self.spec.chunk):
            if self._index is not None:
                self._index.append(idx)
            yield part, idx

    @property
    def index(self) -> np.ndarray | None:
        """Each stream entry's page reference (-1: an event), with ``spec.keep_index`` and events; else None."""
        return None if self._index is None else np.concatenate(self._index)


class BatchedStream:
    """A trace too large to hold, read in batches of whole requests (``source.batches``: a
    :class:`~flashrepro.traces.store.StoredTrace` or :class:`~flashrepro.traces.store.MemoryTrace`), as the
    one stream a kernel consumes. ``units`` is the unit space over the whole trace, the same as
    :meth:`PageRefs.units` on it, from a first pass over the batches (when first asked for); iterating gives
    every batch's chunks in order (each batch a :class:`ReferenceStream` in ``units``) and calls
    ``progress(requests_done)`` after each batch. There is no ``index`` (``spec.keep_index`` is refused)."""

    def __init__(self, source, spec: StreamSpec, batch_requests: int = 1 << 22, progress=None):
        if spec.keep_index:
            raise ValueError("a stream read in batches keeps no index (keep_index=True)")
        self.source = source
        self.spec = spec
        self.batch_requests = batch_requests
        self.progress = progress

    @property
    def name(self) -> str:
        return self.source.name

    @cached_property
    def units(self) -> Units:
        k, halo = self.spec.shape(self.spec.page_bytes)
        k = int(k)
        page_bytes = self.spec.page_bytes
        segs = np.zeros(0, np.int64)
        has_file = False
        for tr in self.source.batches(self.batch_requests):
            segs = sorted_unique(np.concatenate([segs, touched_segments(tr, page_bytes, k, halo)]))
            has_file |= tr.file is not None
        ufile = None
        units_of = Units(k, segs)
        if has_file:  # each unit's file, as Units.file on the whole trace
            ufile = np.full(len(segs) * k, -1, np.int32)
            for tr in self.source.batches(self.batch_requests):
                refs = tr.to_pages(page_bytes)
                np.maximum.at(ufile, units_of.of_pages(refs.page), refs.file)
        return Units(k, segs, ufile)

    def __iter__(self):
        units = self.units
        done = 0
        for tr in self.source.batches(self.batch_requests):
            yield from tr.to_pages(self.spec.page_bytes).reference_stream(self.spec, units)
            done += len(tr)
            if self.progress is not None:
                self.progress(done)


def sorted_unique(x: np.ndarray) -> np.ndarray:
    """The sorted distinct values of ``x``: np.unique's result, by a sort (numpy 2's hash-based np.unique is
    40x slower on millions of page numbers). The stable sort (timsort) takes the runs of ascending pages
    that traces are made of: 2-4x faster than the default on real traces, as fast on random ones
    (measured)."""
    s = np.sort(np.asarray(x).ravel(), kind="stable")
    if s.size == 0:
        return s
    return s[np.concatenate(([True], s[1:] != s[:-1]))]


def dense_remap(page: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Order-preserving ranks of ``page`` and the sorted distinct values.

    When the page numbers span a range not much larger than the number of references, a
    bitmap + prefix sum gives the ranks in O(N + span) instead of np.unique's O(N log N) sort.
    Both paths give identical results (tests/test_trace.py checks it).
    """
    page = np.asarray(page, dtype=np.int64)
    if page.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    lo, hi = int(page.min()), int(page.max())
    span = hi - lo + 1
    if span <= 8 * page.size + 1024:
        present = np.zeros(span, dtype=np.bool_)
        present[page - lo] = True
        rank = np.cumsum(present, dtype=np.int64) - 1
        uniq = np.flatnonzero(present).astype(np.int64) + lo
        return rank[page - lo], uniq
    # np.unique(page, return_inverse=True), by a stable argsort (timsort takes the traces' ascending runs:
    # 2-3x faster than np.unique on real traces, measured), the ranks scattered back through it
    order = np.argsort(page, kind="stable")
    ordered = page[order]
    new = np.empty(page.size, np.bool_)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    rank = np.empty(page.size, np.int64)
    rank[order] = np.cumsum(new, dtype=np.int64) - 1
    return rank, ordered[new]
