"""One policy over a trace source, in one pass when the trace fits in memory.

:func:`~flashrepro.cache.simulate.simulate_stream` reads a source twice, batch by batch: first the unit space
(the sorted distinct segments every request touches), then the policy. That keeps memory bounded whatever
the trace's length, but costs a sort of every request interval and a rank lookup of every page. When the
whole trace is small enough to hold, :func:`simulate_source` instead expands it to page references once,
takes the unit space from those references (:meth:`~flashrepro.traces.trace.PageRefs.units`: a bitmap and
a prefix sum when the pages span a range not much wider than their number) and feeds the policy the same
chunks. When every request is a read or write of one page and the policy's units are pages (the common
case: a block trace at 4 KiB, LRU), the reference stream is the trace's own columns with each page's rank,
and the page expansion is skipped. The counters are the same either way (``tests/test_io_speed.py``
checks it); the command line's ``flashrepro simulate`` runs through here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..traces.trace import RefStream, Units, dense_remap, references_pages
from . import contract as C
from .registry import get_policy, make_params
from .simulate import UNIT_BYTES, SimResult, Simulator, simulate_stream, stream_spec

# Held whole: a Trace of 25 bytes per request plus, per page reference, 33 bytes of PageRefs and 8 of units
# (one-page requests at page units: 8 bytes per request and no PageRefs). Up to 8M requests and 16M page
# references stay under about 1 GB; longer traces, or requests of many pages, are streamed.
WHOLE_MAX_REQUESTS = 1 << 23
WHOLE_MAX_REFS = 1 << 24
# References per kernel call on the one-page path: its constant columns (file -1, one page) are this long and
# reused (4M-long ones cost 0.13 s of fresh memory on a 5M-line first run; the calls cost ~10 us each).
ONE_PAGE_CHUNK = 1 << 16


def simulate_source(source, policy: str, capacity_pages: int | None = None, *, page_bytes: int = 4096,
                    flush_at_end: bool = False, progress=None, whole_max_requests: int = WHOLE_MAX_REQUESTS,
                    whole_max_refs: int = WHOLE_MAX_REFS, **params) -> SimResult:
    """:func:`~flashrepro.cache.simulate.simulate_stream`'s result (no I/O log), in one pass over the
    trace held whole when ``source`` has at most ``whole_max_requests`` requests and
    ``whole_max_refs`` page references, streamed otherwise.

    ``source`` is a :class:`~flashrepro.traces.store.StoredTrace` or
    :class:`~flashrepro.traces.store.MemoryTrace` (from ``open_trace``); ``progress(requests_done)`` is
    called after each chunk."""
    if len(source) > whole_max_requests:
        return simulate_stream(source, policy, capacity_pages, page_bytes=page_bytes, flush_at_end=flush_at_end,
                               progress=progress, **params)
    from .._io import check_memory

    pol = get_policy(policy)
    p = make_params(policy, **params)
    tiers = C.resolve_tiers(p, capacity_pages)
    k = pol.kernel.unit_pages(p, page_bytes)
    halo = pol.kernel.unit_halo(p, page_bytes)
    trace = source.load()
    if k == 1 and halo == 0 and trace.file is None:
        one = _one_page_stream(trace, page_bytes)
        if one is not None:  # every request a read or a write of one page: the stream is the trace itself
            units, rank = one
            check_memory(units.n * UNIT_BYTES, f"{policy} over {units.n:,} units of 1 page ({source.name})")
            sim = Simulator(policy, units, tiers, p, flush_at_end=flush_at_end)
            each = None if progress is None else (lambda part, end: progress(end))
            return sim.run(_one_page_chunks(trace, rank), each).result(source.name)
    data = references_pages(trace.op) & (trace.size_bytes > 0)
    off, size = trace.address_bytes[data], trace.size_bytes[data]
    if int(((off + size - 1) // page_bytes - off // page_bytes + 1).sum()) > whole_max_refs:
        del trace, data, off, size
        return simulate_stream(source, policy, capacity_pages, page_bytes=page_bytes, flush_at_end=flush_at_end,
                               progress=progress, **params)
    stream = trace.reference_stream(stream_spec(pol, p, page_bytes))
    if len(stream) == 0:
        raise ValueError(f"trace {source.name!r} has no read or write page references")
    units = stream.units
    check_memory(units.n * UNIT_BYTES, f"{policy} over {units.n:,} units of {k} page(s) ({source.name})")
    done = 0  # page references fed

    def each(part, idx):
        nonlocal done
        done += len(part.unit) if idx is None else int((idx >= 0).sum())
        if progress is not None and done:
            progress(int(stream.req[done - 1]) + 1)  # requests up to that of the last reference fed

    res = Simulator(policy, units, tiers, p, flush_at_end=flush_at_end).run(stream, each).result(source.name)
    if progress is not None:
        progress(len(trace))  # trailing requests without page references (syncs, trims)
    return res


def _one_page_chunks(trace, rank):
    """A trace whose every request is a read or a write of one page, as the reference stream's chunks: its
    pages' ranks (``rank``) and ops as they are, no file, one page each; ``(chunk, end)`` pairs, ``end`` the
    requests up to the chunk's last."""
    n = len(trace)
    no_file, one_page = np.full(min(n, ONE_PAGE_CHUNK), -1, np.int32), np.ones(min(n, ONE_PAGE_CHUNK), np.int64)
    for start in range(0, n, ONE_PAGE_CHUNK):
        end = min(start + ONE_PAGE_CHUNK, n)
        m = end - start
        yield RefStream(rank[start:end], trace.op[start:end], trace.time_s[start:end], no_file[:m], one_page[:m]), end


@njit(cache=True)
def _one_page_each(op, offset, size, page_bytes, shift, page):
    """Each request's page (of its address, ``Trace.address_bytes``) into ``page``; the smallest and largest
    page, or (-1, -1) as soon as a request is not a read or write of exactly one page. With ``shift`` >= 0
    (``page_bytes`` is ``1 << shift``) a page is an address shifted right, not divided (addresses are >= 0:
    the same page; the kernel 4x faster, measured)."""
    lo = np.int64(2**62)
    hi = np.int64(-1)
    for i in range(op.shape[0]):
        if shift >= 0:
            first = offset[i] >> shift
            last = (offset[i] + size[i] - 1) >> shift
        else:
            first = offset[i] // page_bytes
            last = (offset[i] + size[i] - 1) // page_bytes
        if op[i] > 1 or size[i] <= 0 or last != first:
            return np.int64(-1), np.int64(-1)
        page[i] = first
        lo = min(lo, first)
        hi = max(hi, first)
    return lo, hi


@njit(cache=True)
def _dense_ranks(page, lo, span):
    """Order-preserving ranks of ``page`` (all in [lo, lo + span)), written over it, and the sorted distinct
    pages, by a bitmap and a prefix sum: ``dense_remap``'s result, with no fresh array of the trace's length
    (fresh memory is what costs here)."""
    rank_of = np.zeros(span, np.int32)
    for i in range(page.shape[0]):
        rank_of[page[i] - lo] = 1
    r = 0
    for j in range(span):
        if rank_of[j]:
            rank_of[j] = r
            r += 1
        else:
            rank_of[j] = -1
    uniq = np.empty(r, np.int64)
    for j in range(span):
        if rank_of[j] >= 0:
            uniq[rank_of[j]] = j + lo
    for i in range(page.shape[0]):
        page[i] = rank_of[page[i] - lo]
    return uniq


def _one_page_stream(trace, page_bytes: int):
    """(Units, each request's unit) of a trace whose requests are all reads or writes of one page each (the
    common case of a block trace at 4 KiB), without the page expansion of ``Trace.to_pages``; None otherwise.
    The units are the pages' order-preserving ranks, as ``PageRefs.units(1)`` gives them."""
    n = len(trace)
    page = np.empty(n, np.int64)
    shift = page_bytes.bit_length() - 1 if page_bytes > 0 and page_bytes & (page_bytes - 1) == 0 else -1
    lo, hi = _one_page_each(trace.op, trace.address_bytes, trace.size_bytes, page_bytes, shift, page)
    if hi < 0:
        return None
    span = int(hi - lo) + 1
    if span <= 8 * n + 1024 and span < 2**31:
        uniq = _dense_ranks(page, lo, span)
        rank = page
    else:
        rank, uniq = dense_remap(page)
    return Units(1, uniq), rank
