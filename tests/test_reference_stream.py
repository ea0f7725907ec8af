"""One way down: a run asks its trace once for the reference stream (``Trace.reference_stream`` or, for a trace
read in batches, one ``BatchedStream``) and then only drives the kernel over its chunks."""

import importlib

import numpy as np
import pytest
from conftest import random_trace
from test_contract import event_trace

from flashrepro.cache import simulate, simulate_stream
from flashrepro.traces import StreamSpec, Trace
from flashrepro.traces.store import MemoryTrace
from flashrepro.traces.trace import BatchedStream, PageRefs, ReferenceStream

simulate_module = importlib.import_module("flashrepro.cache.simulate")  # the package's `simulate` is the function
RUNS = [("lru", {}), ("seg_prefetch", {"segment_kib": 16}), ("write_once", {}), ("linux_readahead", {})]


def _spy(monkeypatch, cls, name, calls):
    real = getattr(cls, name)

    def spy(*a, **k):
        calls[name] = calls.get(name, 0) + 1
        return real(*a, **k)

    monkeypatch.setattr(cls, name, spy)


@pytest.mark.parametrize("policy,params", RUNS, ids=[r[0] for r in RUNS])
@pytest.mark.parametrize("log_io", [False, True])
def test_simulate_asks_the_trace_once(monkeypatch, policy, params, log_io):
    """One reference_stream call per run, whatever the chunking; simulate itself never expands pages, builds
    units or slices chunks (PageRefs.stream, use_units), and chunked runs equal whole ones."""
    tr = event_trace(3)
    results = []
    for chunk in (None, 7, 500):
        calls = {}
        with monkeypatch.context() as m:
            _spy(m, Trace, "reference_stream", calls)
            _spy(m, Trace, "to_pages", calls)
            for name in ("units", "stream", "use_units", "reference_stream"):
                _spy(m, PageRefs, name, calls)
            results.append(simulate(tr, policy, 60, flush_at_end=True, log_io=log_io, chunk_refs=chunk, **params))
        assert calls.get("reference_stream") == 1  # Trace's; a PageRefs' is not asked
        assert calls.get("to_pages") == 1 and calls.get("units") == 1  # inside that one call's stream
        assert "stream" not in calls and "use_units" not in calls
    whole = results[0]
    for other in results[1:]:
        assert other.counters == whole.counters
        if log_io:
            assert np.array_equal(other.outcome, whole.outcome)
            for col in ("ref", "req", "op", "cause", "first_page", "n_pages", "tier"):
                assert np.array_equal(getattr(other.io_log, col), getattr(whole.io_log, col)), col


def test_chunked_stream_equals_whole_stream():
    """The chunks of one ReferenceStream concatenate to its single chunk, events and index included, and
    PageRefs.stream gives the same chunks."""
    tr = event_trace(4)
    k, halo = 4, 1
    whole = tr.reference_stream(StreamSpec(unit_shape=(k, halo), events=True, keep_index=True))
    (one, one_idx), = list(whole)
    assert whole.events and np.array_equal(whole.index, one_idx)
    for chunk in (1, 9, 250):
        s = tr.reference_stream(StreamSpec(unit_shape=lambda pb: (k, halo), events=True, chunk=chunk,
                                           keep_index=True))
        parts = list(s)
        assert len(parts) > 1
        for j, col in enumerate(one):
            assert np.array_equal(np.concatenate([p[j] for p, _ in parts]), col)
        assert np.array_equal(s.index, one_idx)
        old = list(tr.to_pages().stream(k, events=True, chunk=chunk, halo=halo))
        assert len(old) == len(parts)
        for (a, ia), (b, ib) in zip(old, parts, strict=True):
            assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True)) and np.array_equal(ia, ib)
    assert s.units is tr.to_pages().units(k, halo)[0]


def test_unit_space_waits_until_asked():
    """The unit shape is asked for only when the units are (after a caller has checked there are references),
    at the PageRefs' own page size."""
    asked = []
    refs = random_trace(1).to_pages(8192)
    s = refs.reference_stream(StreamSpec(page_bytes=4096, unit_shape=lambda pb: asked.append(pb) or (2, 0)))
    assert len(s) == len(refs) and asked == []
    assert s.units.unit_pages == 2 and asked == [8192] and s.page_bytes == 8192
    empty = Trace(np.zeros(2), np.array([2, 4], np.int8), np.zeros(2), np.zeros(2))  # a flush and a sync only
    s = empty.reference_stream(StreamSpec(unit_shape=lambda pb: 1 / 0))
    assert len(s) == 0 and list(s) == []  # nothing to feed, and no unit space made
    with pytest.raises(ValueError, match="no read or write page references"):
        simulate(empty, "seg_prefetch", 8, segment_kib=2)  # the empty trace is named before the segment size


def test_simulate_takes_page_refs_at_their_own_page_size():
    tr = random_trace(2)
    a = simulate(tr.to_pages(8192), "seg_prefetch", 64, segment_kib=32, log_io=True)
    b = simulate(tr, "seg_prefetch", 64, page_bytes=8192, segment_kib=32, log_io=True)
    assert a.counters == b.counters and a.io_log.page_bytes == b.io_log.page_bytes == 8192
    assert np.array_equal(a.io_log.first_page, b.io_log.first_page)


@pytest.mark.parametrize("make", [lambda: random_trace(3), lambda: event_trace(5)], ids=["plain", "files"])
@pytest.mark.parametrize("policy,params", RUNS, ids=[r[0] for r in RUNS])
def test_simulate_stream_asks_the_source_once(monkeypatch, make, policy, params):
    """One BatchedStream per run: one pass over the batches for the unit space (two when the trace has
    files), one to feed the kernel; each batch's references are numbered in that space, not through
    PageRefs.use_units. The counters are simulate's on the whole trace, and stream_units gives its units."""
    tr = make()
    made, calls, batches = [], {}, []

    class Spy(BatchedStream):
        def __init__(self, *a, **k):
            made.append(1)
            super().__init__(*a, **k)

    src = MemoryTrace(tr)
    real_batches = src.batches
    monkeypatch.setattr(src, "batches", lambda n: batches.append(n) or real_batches(n), raising=False)
    monkeypatch.setattr(simulate_module, "BatchedStream", Spy)
    _spy(monkeypatch, PageRefs, "use_units", calls)
    done = []
    got = simulate_stream(src, policy, 64, flush_at_end=True, batch_requests=97, progress=done.append, **params)
    assert made == [1] and "use_units" not in calls
    assert batches == [97] * (3 if tr.file is not None else 2)
    assert done == list(range(97, len(tr), 97)) + [len(tr)]
    assert got.counters == simulate(tr, policy, 64, flush_at_end=True, **params).counters
    m = simulate_module
    spec = m.stream_spec(m.get_policy(policy), m.make_params(policy, **params), 4096)
    want = tr.to_pages().units(*spec.shape(4096))[0]
    units = simulate_module.stream_units(MemoryTrace(tr), *spec.shape(4096), batch_requests=97)
    assert np.array_equal(units.segments, want.segments) and units.unit_pages == want.unit_pages
    assert (units.file is None) == (want.file is None)
    if want.file is not None:
        assert np.array_equal(units.file, want.file)


def test_batched_stream_keeps_no_index():
    with pytest.raises(ValueError, match="keeps no index"):
        BatchedStream(MemoryTrace(random_trace(1)), StreamSpec(keep_index=True))
    assert isinstance(random_trace(1).reference_stream(StreamSpec()), ReferenceStream)
