"""The host read-ahead front (paper 2's 'Linux default settings' above the driver's cache): windows as Sec. 2.2
describes them, the trace's own requests recoverable, and a plain-Python reference, request by request."""

import numpy as np
import pytest
from conftest import random_trace
from hypothesis import given, settings
from hypothesis import strategies as hst

from flashrepro.traces import Op, Trace
from flashrepro.traces.readahead import readahead_front, readahead_mask, requested


def reference(requests, min_pages, max_pages):
    """[(op, first_page, end_page)] -> the read-ahead pages after each request (Sec. 2.2 in plain Python)."""
    out, last_end, window = [], None, 0
    for op, first, end in requests:
        if op != Op.READ or end <= first:
            out.append(0)
            continue
        window = (min_pages if window == 0 else min(2 * window, max_pages)) if first == last_end else 0
        out.append(window)
        last_end = end
    return out


def _pages(t, pb=4096):
    return list(zip(t.op.tolist(), (t.offset_bytes // pb).tolist(),
                    (-(-(t.offset_bytes + t.size_bytes) // pb)).tolist(), strict=True))


def test_sequential_reads_double_the_window_up_to_the_maximum():
    n = 7
    t = Trace(np.arange(n) * 1.0, np.zeros(n, np.int8), np.arange(n) * 4096, np.full(n, 4096))
    ra = readahead_front(t)
    mask = readahead_mask(ra)
    assert ra.size_bytes[mask].tolist() == [16384, 32768, 65536, 131072, 131072, 131072]  # 16 -> 128 KiB
    assert ra.offset_bytes[mask].tolist() == [k * 4096 for k in range(2, 8)]  # right after each read
    assert ra.time_s[mask].tolist() == t.time_s[1:].tolist()


def test_a_jump_or_a_write_stops_read_ahead_and_writes_keep_the_state():
    op = np.array([Op.READ, Op.READ, Op.WRITE, Op.READ, Op.READ, Op.READ], np.int8)
    off = np.array([0, 1, 50, 2, 100, 101]) * 4096
    t = Trace(np.zeros(6), op, off, np.full(6, 4096))
    ra = readahead_front(t)
    # read 1 continues read 0: 16 KiB; the write passes; read 3 continues read 1 (writes do not count): 32 KiB;
    # read 4 jumps: none (the window restarts); read 5 continues it: 16 KiB again
    assert ra.size_bytes[readahead_mask(ra)].tolist() == [16384, 32768, 16384]
    assert ra.op[readahead_mask(ra)].tolist() == [Op.READ] * 3


@settings(max_examples=30, deadline=None)
@given(seed=hst.integers(0, 10_000), lo=hst.sampled_from([4, 8, 16]), hi=hst.sampled_from([16, 64, 128]))
def test_matches_reference_and_gives_the_trace_back(seed, lo, hi):
    t = random_trace(seed, n=400, n_pages=40)
    t = Trace(t.time_s, t.op, np.sort(t.offset_bytes) if seed % 2 else t.offset_bytes, t.size_bytes, name="r")
    ra = readahead_front(t, lo, min(hi, 128) if hi >= lo else lo)
    mask = readahead_mask(ra)
    want = reference(_pages(t), lo // 4, max(lo, min(hi, 128)) // 4)
    assert (ra.size_bytes[mask] // 4096).tolist() == [w for w in want if w]
    back = requested(ra)
    for col in ("time_s", "op", "offset_bytes", "size_bytes"):
        assert np.array_equal(getattr(back, col), getattr(t, col))
    assert readahead_mask(back) is None and back.name == t.name


def test_bad_settings_are_refused():
    t = random_trace(1, n=10)
    with pytest.raises(ValueError, match="min_kib <= max_kib"):
        readahead_front(t, 64, 16)
    with pytest.raises(ValueError, match="already has"):
        readahead_front(readahead_front(t))
