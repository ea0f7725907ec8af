"""The contract between the simulation driver and every cache policy kernel.

A policy is a class registered with :func:`~flashrepro.cache.registry.register` that provides

* a frozen parameter dataclass (tiers such as ``dram_pages`` declared with :func:`tier`),
* :class:`Caps`, what it does beyond a plain demand-paged cache (prefetch, flush on time or sync, tiers),
* ``counters``: its :class:`Counter` set, :data:`BASE` plus its own, each tagged with a cause,
* ``unit_pages(params, page_bytes)``: the granularity of its unit space (pages, or blocks of segments),
* ``new_state(units, tiers, params)``: its state, a tuple of arrays kept between chunks,
* ``log_rows_per_ref(tiers, params)``: the most log rows one reference can produce (2 for a demand-paged
  cache: a read and a write-back; a whole cache for a policy that flushes everything at once),
* ``step(refs, start, state, counters, log, nlog, outcome, base, do_log, params)``: advance over one
  :class:`~flashrepro.traces.trace.RefStream` chunk from entry ``start``; returns ``(stop, nlog)``,
* ``finish(state, counters, log, nlog, do_log, flush_at_end, last_ref, params)``: end of trace.

The Python methods only unpack parameters and call ``@njit`` kernels, which take arrays and scalars.

Counters live in one int64 array; a kernel keeps its tallies in local scalars inside the loop (they stay
in registers) and adds them to the array when it returns (:func:`add_base`). Indices come from module
constants (Numba treats them as compile-time constants): the :data:`BASE` slots below, then the policy's
own from ``N_BASE`` on. The page-granular policies share one loop, :func:`flashrepro.cache.driver.page_loop`, and
the segment policies another (:mod:`flashrepro.cache.segment`), into which their hooks are inlined at compile time;
``linux_readahead``, whose reads merge into runs per request, writes its own.

The device I/O log is an int64 array of rows ``(ref, op, cause, first_unit, n_units, tier)`` written with
:func:`row`. Before each reference a kernel checks that ``log_rows_per_ref`` rows are free; if not it
stops there (its state saved, as at the end of a chunk) and returns ``stop`` < the chunk's length; the
driver doubles the log and calls it again from ``stop``. So no bound is assumed and nothing is ever
written past the end. (A kernel that grows the array itself, reassigning it in its loop, runs at half
speed in Numba: measured.)
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from ..traces.trace import Event

# --- the device I/O log ---------------------------------------------------------------------------------
IO_READ, IO_WRITE = 0, 1
# Why a device I/O (or a move between tiers) happened (the I/O log's `cause` column).
DEMAND, EVICTION, END_FLUSH, PREFETCH, PERIODIC_FLUSH, SYNC_FLUSH, MIGRATION = range(7)
CAUSES = ("demand", "eviction", "end_flush", "prefetch", "periodic_flush", "sync_flush", "migration")
WRITE_BACK_CAUSES = ("eviction", "end_flush", "periodic_flush", "sync_flush")  # dirty data reaching the device
LOG_COLS = 6  # ref, op, cause, first unit, units, tier
# A page reference's outcome (``SimResult.outcome``, written by a kernel when it logs): 0/1 for a plain cache;
# a prefetching one tells a hit on a page that was prefetched and not referenced since.
MISS, HIT, PREFETCH_HIT = 0, 1, 2


def new_log(rows: int, do_log: bool) -> np.ndarray:
    """An empty log of ``rows`` rows (none without ``do_log``). Rows at ``nlog`` and beyond are never read, so
    they are left uninitialised: zeroing them costs a write per page of a buffer that may stay mostly unused."""
    return np.empty((max(int(rows), 16) if do_log else 0, LOG_COLS), dtype=np.int64)


def grow_log(log: np.ndarray, need: int) -> np.ndarray:
    """``log`` with at least ``need`` rows (doubling), the rows so far kept (the new rows uninitialised)."""
    if log.shape[0] >= need:
        return log
    bigger = np.empty((max(need, 2 * log.shape[0]), LOG_COLS), np.int64)
    bigger[:log.shape[0]] = log
    return bigger


@njit(cache=True, inline="always")
def row(log, nlog, ref, op, cause, first, count, tier):
    """Write one log row at ``nlog`` (the kernel has checked there is room); returns ``nlog + 1``."""
    log[nlog, 0] = ref
    log[nlog, 1] = op
    log[nlog, 2] = cause
    log[nlog, 3] = first
    log[nlog, 4] = count
    log[nlog, 5] = tier
    return nlog + 1


# --- counters --------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Counter:
    """One counter: its name in results, the cause it counts (a name in :data:`CAUSES`, or None for
    counters that are not device traffic), and what it means."""

    name: str
    cause: str | None
    help: str


# Slots every kernel fills. Derived counts (misses, read hits, ...) are computed from them in Python.
REFS, HITS, WRITE_REFS, WRITE_HITS, DEV_READS, DEV_READ_REQS = range(6)
DEV_WRITES_EVICT, DEV_WRITES_END, DEV_WRITE_REQS, DIRTYINGS, DIRTY_AT_END, EVICTIONS, RESIDENT_AT_END = range(6, 13)
N_BASE = 13
BASE = (
    Counter("references", None, "page references (reads and writes)"),
    Counter("hits", None, "references found in the cache"),
    Counter("write_references", None, "page writes"),
    Counter("write_hits", None, "page writes found in the cache"),
    Counter("device_reads", "demand", "pages read from the device (demand and prefetch)"),
    Counter("device_read_requests", "demand", "read requests sent to the device"),
    Counter("device_writes_eviction", "eviction", "dirty pages written back because they (or a victim) left"),
    Counter("device_writes_end_flush", "end_flush", "dirty pages written back after the last reference"),
    Counter("device_write_requests", None, "write requests sent to the device (all causes)"),
    Counter("dirtyings", None, "times a clean or new page became dirty"),
    Counter("dirty_at_end", None, "pages still dirty after the last reference (not flushed)"),
    Counter("evictions", None, "pages that left the cache to make room"),
    Counter("resident_at_end", None, "pages held after the last reference (prefetched ones included)"),
)
assert len(BASE) == N_BASE
FLUSH_COUNTERS = (  # for policies that write back on a timer or on sync (Caps.flushes)
    Counter("device_writes_periodic_flush", "periodic_flush", "dirty pages written back by the periodic flush"),
    Counter("device_writes_sync_flush", "sync_flush", "dirty pages written back by an fsync or a flush event"),
    Counter("periodic_flushes", None, "periodic flush points reached"),
    Counter("syncs", None, "sync and flush events seen"),
)


def derived(counters: dict) -> dict:
    """The counts that follow from the stored ones: misses, read hits, device writes of every cause, ..."""
    c = counters
    out = {
        "read_hits": c["hits"] - c["write_hits"],
        "misses": c["references"] - c["hits"],
        "write_misses": c["write_references"] - c["write_hits"],
        "read_misses": c["references"] - c["write_references"] - (c["hits"] - c["write_hits"]),
        "device_writes": sum(c.get(f"device_writes_{cause}", 0) for cause in WRITE_BACK_CAUSES),
    }
    return out


@dataclasses.dataclass(frozen=True)
class Caps:
    """What a policy does beyond a demand-paged, single-tier cache; property tests skip the rules that
    do not apply to it.

    ``prefetches``: reads pages nobody asked for (device reads may exceed read misses, occupancy includes
    prefetched pages). ``flushes``: sees time and the trace's sync/flush/delete events in its stream
    (writes back on a timer or a sync, may drop deleted pages). ``tiers``: holds pages in more than one
    memory (migrations).
    ``evicts_without_miss``: pages may leave at a flush or a delete, so evictions need not equal
    misses - capacity. ``drops_with_room``: may drop a page while it has free space (its paper's rule, e.g.
    CLOCK-DNV's clean DRAM victims), so a cache larger than the footprint can miss more than once per page."""

    prefetches: bool = False
    flushes: bool = False
    tiers: bool = False
    evicts_without_miss: bool = False
    drops_with_room: bool = False


# --- tiers -----------------------------------------------------------------------------------------------
def tier(share: float, help: str = "") -> dataclasses.Field:
    """A parameter-dataclass field that is the size of one memory tier, in pages.

    Left at None it takes ``share`` of ``simulate(..., capacity_pages=N)``; set explicitly, all tiers of
    the policy must be set and ``capacity_pages`` must be None or their sum."""
    return dataclasses.field(default=None, metadata={"tier": True, "share": share, "help": help})


def tier_fields(params_cls) -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(params_cls) if f.metadata.get("tier")]


def resolve_tiers(params, capacity_pages: int | None) -> dict[str, int]:
    """Tier name -> pages. A policy without tier fields has one tier, ``capacity_pages``."""
    fields = tier_fields(type(params))
    if not fields:
        if capacity_pages is None:
            raise ValueError("capacity_pages is required")
        return {"capacity_pages": _pages(capacity_pages, "capacity_pages")}
    given = {f.name: getattr(params, f.name) for f in fields}
    names = ", ".join(given)
    if all(v is None for v in given.values()):
        if capacity_pages is None:
            raise ValueError(f"give capacity_pages or every tier ({names})")
        total = _pages(capacity_pages, "capacity_pages")
        out, left = {}, total
        for f in fields[:-1]:
            out[f.name] = int(round(f.metadata["share"] * total))
            left -= out[f.name]
        out[fields[-1].name] = left
        return out
    if any(v is None for v in given.values()):
        raise ValueError(f"set every tier ({names}) or none of them")
    out = {k: _pages(v, k, minimum=0) for k, v in given.items()}
    if capacity_pages is not None and _pages(capacity_pages, "capacity_pages") != sum(out.values()):
        raise ValueError(f"capacity_pages={capacity_pages} is not the sum of the tiers {out}")
    if sum(out.values()) < 1:
        raise ValueError(f"the tiers {out} hold no page")
    return out


def _pages(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be a whole number of pages, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


def tier_counters(tiers: tuple[str, ...]) -> tuple[Counter, ...]:
    """The per-tier counters of a tiered policy: hits, writes absorbed, pages held at the end, and page
    moves between each ordered pair of tiers (``migrations_<from>_<to>``)."""
    out = []
    for t in tiers:
        out += [Counter(f"hits_{t}", None, f"references found in {t}"),
                Counter(f"writes_{t}", None, f"page writes that landed in {t}"),
                Counter(f"resident_{t}", None, f"pages held in {t} after the last reference")]
    for a in tiers:
        for b in tiers:
            if a != b:
                out.append(Counter(f"migrations_{a}_{b}", "migration", f"pages moved from {a} to {b}"))
    return tuple(out)


# --- shared by every kernel -------------------------------------------------------------------------------
ROWS_PER_REF = 2  # the most I/O log rows a page reference makes in a plain cache: a device read and a write-back


@njit(cache=True)
def add_base(counters, refs, hits, write_hits, write_refs, dev_reads, dev_read_reqs, dev_write_evict=0,
             dev_write_reqs=0, dirtyings=0, evictions=0):
    """Add one step's tallies to the base counters (a step keeps them in local variables and adds them once, at
    its end; callers name them: ``add_base(counters, refs=..., hits=..., ...)``): ``refs`` references,
    ``hits`` and ``write_hits`` of them hits, ``write_refs`` writes, ``dev_reads`` pages read from the device in
    ``dev_read_reqs`` requests, ``dev_write_evict`` pages written back on eviction in ``dev_write_reqs``
    requests, ``dirtyings`` clean pages made dirty, ``evictions`` pages evicted."""
    counters[REFS] += refs
    counters[HITS] += hits
    counters[WRITE_HITS] += write_hits
    counters[WRITE_REFS] += write_refs
    counters[DEV_READS] += dev_reads
    counters[DEV_READ_REQS] += dev_read_reqs
    counters[DEV_WRITES_EVICT] += dev_write_evict
    counters[DEV_WRITE_REQS] += dev_write_reqs
    counters[DIRTYINGS] += dirtyings
    counters[EVICTIONS] += evictions


@njit(cache=True, inline="always")
def add_refs(counters, event, start, stop):
    """Add the references of stream entries ``start .. stop - 1`` (an entry is a reference to one unit) and the
    write references among them: for a step that counts them after its loop rather than in it."""
    writes = 0
    for j in range(start, stop):
        writes += event[j] == Event.WRITE
    counters[REFS] += stop - start
    counters[WRITE_REFS] += writes


def end_of_trace(order, order_dirty, flush_at_end, counters, log, nlog, do_log, last_ref, tier):
    """The pages still dirty after the last reference (``order``: resident units in the order a flush
    writes them, ``order_dirty`` their dirty flags) are written back (``flush_at_end``) or counted as
    ``dirty_at_end``; ``resident_at_end`` is added. Returns ``(log, nlog)``."""
    dirty = np.asarray(order, np.int64)[np.asarray(order_dirty, bool)]
    counters[RESIDENT_AT_END] += len(order)
    if not flush_at_end:
        counters[DIRTY_AT_END] += len(dirty)
        return log, nlog
    counters[DEV_WRITES_END] += len(dirty)
    counters[DEV_WRITE_REQS] += len(dirty)
    if do_log and len(dirty):
        log = grow_log(log, nlog + len(dirty))
        log[nlog:nlog + len(dirty)] = np.column_stack([np.full(len(dirty), last_ref), np.full(len(dirty), IO_WRITE),
                                                       np.full(len(dirty), END_FLUSH), dirty,
                                                       np.ones(len(dirty), np.int64), np.full(len(dirty), tier)])
        nlog += len(dirty)
    return log, nlog
