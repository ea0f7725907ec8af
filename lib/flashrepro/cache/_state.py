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
DIRTYINGS, DIRTY_AT_END, EVICTIONS = range(12, 15)
N_COUNTERS = 15
COUNTER_NAMES = ("references", "hits", "read_hits", "write_hits", "misses", "read_misses", "write_misses",
                 "device_reads", "device_read_requests", "device_writes_eviction", "device_writes_flush",
                 "device_write_requests", "dirtyings", "dirty_at_end", "evictions")
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
def count_ref(counters, hit, w):
    """Book one page reference as hit/miss and read/write."""
    counters[REFS] += 1
    if hit:
        counters[HITS] += 1
        if w:
            counters[WRITE_HITS] += 1
        else:
            counters[READ_HITS] += 1
    else:
        counters[MISSES] += 1
        if w:
            counters[WRITE_MISSES] += 1
        else:
            counters[READ_MISSES] += 1


def new_counters() -> np.ndarray:
    return np.zeros(N_COUNTERS, dtype=np.int64)


def new_log(n_refs: int, capacity: int, do_log: bool) -> np.ndarray:
    """A log big enough for any kernel: at most one read and one write request per reference, plus
    one flush write per resident page at the end."""
    rows = 2 * n_refs + capacity + 1 if do_log else 0
    return np.zeros((rows, LOG_COLS), dtype=np.int64)
