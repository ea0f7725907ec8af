"""Streaming: a trace read in batches (the parse cache, ``simulate_stream``) gives what the whole trace gives."""

import numpy as np
import pytest
from conftest import random_trace
from test_contract import event_trace

from flashrepro.cache import POLICIES, simulate, simulate_stream
from flashrepro.traces import CsvLayout, Trace, iter_trace, open_trace, read_trace
from flashrepro.traces.readers import concat
from flashrepro.traces.store import MemoryTrace

SEG = {"segment_kib": 16}


def _params(policy):
    return dict(SEG) if policy.startswith("seg_") else {}


@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("make", [lambda: random_trace(3), lambda: event_trace(5)], ids=["plain", "events"])
def test_stream_counters_equal_whole_trace(policy, make):
    """Batches of 97 requests (not a divisor of anything) through the chunked kernels: every counter equal."""
    tr = make()
    whole = simulate(tr, policy, 64, flush_at_end=True, **_params(policy)).counters
    streamed = simulate_stream(MemoryTrace(tr), policy, 64, flush_at_end=True, batch_requests=97,
                               **_params(policy)).counters
    assert streamed == whole


def _equal(a: Trace, b: Trace):
    for col in ("time_s", "op", "offset_bytes", "size_bytes"):
        np.testing.assert_array_equal(getattr(a, col), getattr(b, col), err_msg=col)


def test_stored_trace_batches_and_slices(tmp_path, isolated_interim):
    tr = random_trace(4, n=1000)
    path = tmp_path / "t.csv"
    path.write_text("".join(f"{t:.6f},{'W' if o == 2 else 'R'},{off},{size}\n"
                            for t, o, off, size in zip(tr.time_s, tr.op, tr.offset_bytes, tr.size_bytes,
                                                       strict=True)))
    layout = {"layout": CsvLayout(time=0, op=1, offset=2, size=3)}
    whole = read_trace(path, "csv", **layout)
    stored = open_trace(path, "csv", **layout)
    assert len(stored) == len(whole) == 1000
    _equal(stored.load(), whole)
    part = stored.slice(100, 350)
    np.testing.assert_array_equal(part.offset_bytes, whole.offset_bytes[100:350])
    np.testing.assert_array_equal(part.time_s, whole.time_s[100:350])
    parts = list(stored.batches(333))
    assert [len(p) for p in parts] == [333, 333, 333, 1]
    _equal(concat(parts), whole)
    # the reader's own batches (bounded memory while parsing) concatenate to the whole
    batches = list(iter_trace(path, "csv", block_bytes=4096, **layout))
    assert len(batches) > 5
    _equal(concat(batches), whole)
