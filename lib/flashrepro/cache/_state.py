"""What every cache kernel shares: the counter layout and the device I/O log layout.

Kernels take only arrays and scalars. They fill ``counters`` (int64, indexed by the constants below)
and, when ``do_log`` is true, rows of ``log`` (int64, shape (n, 5)): ``(ref, op, cause, first, count)``:
the page reference that triggered the device I/O, read/write, why, first dense page, page count.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# counter indices
REFS, HITS, READ_HITS, WRITE_HITS, MISSES, READ_MISSES, WRITE_MISSES = range(7)
DEV_READS, DEV_READ_REQS, DEV_WRITES_EVICT, DEV_WRITES_FLUSH, DEV_WRITE_REQS = range(7, 12)
DIRTYINGS, DIRTY_AT_END, EVICTIONS, BULK_CLEANED = range(12, 16)
N_COUNTERS = 16
COUNTER_NAMES = ("references", "hits", "read_hits", "write_hits", "misses", "read_misses", "write_misses",
                 "device_reads", "device_read_requests", "device_writes_eviction", "device_writes_flush",
                 "device_write_requests", "dirtyings", "dirty_at_end", "evictions",
                 "bulk_cleaned")  # bulk_cleaned: dirty pages written along with a victim and kept (BS-CLOCK)
assert len(COUNTER_NAMES) == N_COUNTERS

# log op and cause codes
IO_READ, IO_WRITE = 0, 1
CAUSE_DEMAND, CAUSE_EVICT, CAUSE_FLUSH = 0, 1, 2
CAUSE_NAMES = ("demand", "eviction", "flush")
LOG_COLS = 5


@njit(cache=True, inline="always")
def log_io(log, nlog, do_log, ref, op, cause, first, count):
    """Append one device I/O to the log (when logging) and return the new length."""
    if do_log:
        log[nlog, 0] = ref
        log[nlog, 1] = op
        log[nlog, 2] = cause
        log[nlog, 3] = first
        log[nlog, 4] = count
    return nlog + 1


@njit(cache=True, inline="always")
def store_counters(counters, n_refs, hits, write_hits, write_refs, dev_write_evict, dev_write_flush,
                   dev_write_reqs, dirtyings, dirty_at_end, evictions):
    """Write a kernel's counters once, at the end.

    Inside the loop kernels keep a few scalars (which can live in registers) and count branch-free:
    hits, write hits and write references; the rest follows. With reads and writes interleaved at
    random, an ``if w`` per reference would be mispredicted often. A page-level kernel reads one page
    per read miss, so device reads = read misses.
    """
    read_hits = hits - write_hits
    write_misses = write_refs - write_hits
    read_misses = n_refs - hits - write_misses
    counters[REFS] = n_refs
    counters[HITS] = hits
    counters[READ_HITS] = read_hits
    counters[WRITE_HITS] = write_hits
    counters[MISSES] = n_refs - hits
    counters[READ_MISSES] = read_misses
    counters[WRITE_MISSES] = write_misses
    counters[DEV_READS] = read_misses
    counters[DEV_READ_REQS] = read_misses
    counters[DEV_WRITES_EVICT] = dev_write_evict
    counters[DEV_WRITES_FLUSH] = dev_write_flush
    counters[DEV_WRITE_REQS] = dev_write_reqs
    counters[DIRTYINGS] = dirtyings
    counters[DIRTY_AT_END] = dirty_at_end
    counters[EVICTIONS] = evictions


@njit(cache=True)
def finish(order, order_dirty, flush_at_end, counters, log, nlog, do_log, n_refs, hits, write_hits, write_refs,
           dev_write_pages, dev_write_reqs, dirtyings, evictions):
    """End of trace for every kernel: the pages still dirty (``order`` lists the resident pages in the order
    a flush would write them, ``order_dirty`` their dirty flags) are flushed (``flush_at_end``) or counted
    as ``dirty_at_end``; then all counters are stored. Returns the log length."""
    flushed = dirty_at_end = 0
    for k in range(order.shape[0]):
        if order_dirty[k]:
            if flush_at_end:
                flushed += 1
                nlog = log_io(log, nlog, do_log, n_refs - 1, IO_WRITE, CAUSE_FLUSH, order[k], 1)
            else:
                dirty_at_end += 1
    store_counters(counters, n_refs, hits, write_hits, write_refs, dev_write_pages, flushed, dev_write_reqs + flushed,
                   dirtyings, dirty_at_end, evictions)
    return nlog


def new_counters() -> np.ndarray:
    return np.zeros(N_COUNTERS, dtype=np.int64)


def new_log(n_refs: int, capacity: int, do_log: bool) -> np.ndarray:
    """A log big enough for any kernel: at most one read and one write request per reference, plus
    one flush write per resident page at the end."""
    rows = 2 * n_refs + capacity + 1 if do_log else 0
    return np.zeros((rows, LOG_COLS), dtype=np.int64)
