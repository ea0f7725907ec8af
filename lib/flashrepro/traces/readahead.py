"""A host's sequential read-ahead in front of a device-side cache: the request stream below the page cache.

Paper 2 (Baek 2011) measured both its schemes "through the Linux kernel" with default settings (Sec. 5: the
'existing' scheme is the 'proposed' one with the technique removed from the RAID driver), so Linux's
sequential read-ahead sits above the driver's cache in both. Sec. 2.2 describes that read-ahead: no
read-ahead on a read that does not continue the previous one; on one that does, the read-ahead size doubles,
up to a preset maximum (Linux: 16 KiB first, 128 KiB at most).

:func:`readahead_front` turns a trace into the stream the driver below sees: each read that continues the
previous read is followed by a read of the next ``window`` pages (the read-ahead request, at the same time
and file). The read-ahead requests are marked in ``meta["readahead_requests"]``; :func:`requested` gives the
trace's own requests back, which is what bandwidth and hit ratios are measured over. The window logic is
stateless (it looks at request addresses only, as Sec. 2.2 describes it); pages already in memory are the
cache's business below (they hit there, free). Writes pass through and do not change the read-ahead state.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .trace import Op, Trace

READAHEAD_KEY = "readahead_requests"


@njit(cache=True)
def _windows(op, first, end, min_pages, max_pages):
    """Read-ahead pages after each request (0 for writes, events and reads that do not continue the last)."""
    n = op.shape[0]
    out = np.zeros(n, np.int64)
    last_end, window = -1, 0
    for i in range(n):
        if op[i] != Op.READ or end[i] <= first[i]:
            continue
        if first[i] == last_end:
            window = min_pages if window == 0 else min(2 * window, max_pages)
        else:
            window = 0
        out[i] = window
        last_end = end[i]
    return out


def readahead_front(trace: Trace, min_kib: int = 16, max_kib: int = 128, page_bytes: int = 4096) -> Trace:
    """``trace`` as a cache below a host's sequential read-ahead sees it (see the module docstring).

    >>> t = Trace(np.zeros(3), np.zeros(3, np.int8), np.array([0, 4096, 8192]), np.full(3, 4096))
    >>> ra = readahead_front(t)
    >>> (len(ra), ra.size_bytes.tolist(), ra.meta[READAHEAD_KEY].tolist())
    (5, [4096, 4096, 16384, 4096, 32768], [False, False, True, False, True])
    """
    if not 0 < min_kib <= max_kib:
        raise ValueError(f"read-ahead needs 0 < min_kib <= max_kib, got {min_kib} and {max_kib}")
    if READAHEAD_KEY in trace.meta:
        raise ValueError(f"trace {trace.name!r} already has a read-ahead front")
    pb = int(page_bytes)
    min_pages, max_pages = max(1, min_kib * 1024 // pb), max(1, max_kib * 1024 // pb)
    first = trace.offset_bytes // pb
    end = -(-(trace.offset_bytes + trace.size_bytes) // pb)
    win = _windows(trace.op, first, end, min_pages, max_pages)
    extra = win > 0
    at = np.flatnonzero(extra)
    n = len(trace)
    pos = np.arange(n) + np.r_[0, np.cumsum(extra)[:-1]]  # each request's row in the new trace
    total = n + len(at)
    ahead = np.zeros(total, bool)
    ahead[pos[at] + 1] = True

    def spread(col, extra_values, dtype):
        out = np.empty(total, dtype)
        out[pos] = col
        out[pos[at] + 1] = extra_values
        return out

    time_s = spread(trace.time_s, trace.time_s[at], np.float64)
    op = spread(trace.op, Op.READ, np.int8)
    offset = spread(trace.offset_bytes, end[at] * pb, np.int64)
    size = spread(trace.size_bytes, win[at] * pb, np.int64)
    file = None if trace.file is None else spread(trace.file, trace.file[at], np.int32)
    meta = {**trace.meta, READAHEAD_KEY: ahead, "readahead_kib": (int(min_kib), int(max_kib))}
    return Trace(time_s, op, offset, size, name=trace.name, source=trace.source, meta=meta, file=file)


def readahead_mask(trace: Trace) -> np.ndarray | None:
    """Per request of ``trace``: whether the read-ahead front added it (None: the trace has no front)."""
    return trace.meta.get(READAHEAD_KEY)


def requested(trace: Trace) -> Trace:
    """The trace's own requests: ``trace`` without the read-ahead requests its front added."""
    mask = readahead_mask(trace)
    if mask is None:
        return trace
    keep = ~mask
    meta = {k: v for k, v in trace.meta.items() if k not in (READAHEAD_KEY, "readahead_kib")}
    return Trace(trace.time_s[keep], trace.op[keep], trace.offset_bytes[keep], trace.size_bytes[keep],
                 name=trace.name, source=trace.source, meta=meta,
                 file=None if trace.file is None else trace.file[keep])
