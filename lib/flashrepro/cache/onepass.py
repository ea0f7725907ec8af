"""One policy over a trace source, in one pass when the trace fits in memory (issue 12 section 7).

:func:`~flashrepro.cache.simulate.simulate_stream` reads a source twice, batch by batch: first the unit space
(the sorted distinct segments every request touches), then the policy. That keeps memory bounded whatever
the trace's length, but costs a sort of every request interval and a rank lookup of every page. When the
whole trace is small enough to hold, :func:`simulate_source` instead expands it to page references once,
takes the unit space from those references (:meth:`~flashrepro.traces.trace.PageRefs.units`: a bitmap and
a prefix sum when the pages span a range not much wider than their number) and feeds the policy the same
chunks. The counters are the same either way (``tests/test_io_speed.py`` checks it); the command line's
``flashrepro simulate`` runs through here.
"""

from __future__ import annotations

from . import contract as C
from .registry import get_policy, make_params
from .simulate import DEFAULT_CHUNK, UNIT_BYTES, SimResult, Simulator, simulate_stream

# Requests held whole (a Trace of 25 bytes per request plus, per page reference, 33 bytes of PageRefs and
# 8 of units): 8M requests of one page each stay under about 0.6 GB. Longer traces are streamed.
WHOLE_MAX_REQUESTS = 1 << 23


def simulate_source(source, policy: str, capacity_pages: int | None = None, *, page_bytes: int = 4096,
                    flush_at_end: bool = False, progress=None, whole_max_requests: int = WHOLE_MAX_REQUESTS,
                    **params) -> SimResult:
    """:func:`~flashrepro.cache.simulate.simulate_stream`'s result (no I/O log), in one pass over the
    trace held whole when ``source`` has at most ``whole_max_requests`` requests, streamed otherwise.

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
    refs = trace.to_pages(page_bytes)
    events = pol.caps.flushes and refs.events is not None
    if len(refs) == 0:
        raise ValueError(f"trace {source.name!r} has no read or write page references")
    units, _ = refs.units(k, halo)
    check_memory(units.n * UNIT_BYTES, f"{policy} over {units.n:,} units of {k} page(s) ({source.name})")
    sim = Simulator(policy, units, tiers, p, flush_at_end=flush_at_end)
    done = 0  # page references fed
    for part, idx in refs.stream(k, events=events, chunk=DEFAULT_CHUNK, halo=halo):
        sim.feed(part)
        done += len(part.unit) if idx is None else int((idx >= 0).sum())
        if progress is not None and done:
            progress(int(refs.req[done - 1]) + 1)  # requests up to that of the last reference fed
    if progress is not None:
        progress(len(trace))  # trailing requests without page references (syncs, trims)
    sim.finish()
    return SimResult(policy, p, sum(tiers.values()), source.name, sim.counter_dict(), None, None, tiers, None)
