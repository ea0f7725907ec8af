"""Streaming: a trace read in batches (the parse cache, ``simulate_stream``) gives what the whole trace gives."""

import numpy as np
import pytest
from conftest import random_trace
from hypothesis import given, settings
from hypothesis import strategies as st
from test_contract import event_trace

from flashrepro.cache import POLICIES, simulate, simulate_stream
from flashrepro.traces import CsvLayout, Trace, iter_trace, open_trace, read_trace
from flashrepro.traces.readers import concat
from flashrepro.traces.store import MemoryTrace
from flashrepro.traces.trace import Op, Units, sorted_unique, touched_segments

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


def test_a_killed_parse_leaves_nothing_after_the_next(tmp_path, isolated_interim, data_dir):
    """A parse killed mid-way leaves a temporary folder named after its (gone) process: the next parse
    into the same cache folder removes it; a live process's folder is left alone."""
    import os
    import subprocess

    folder = isolated_interim / "traces"
    folder.mkdir(parents=True)
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = folder / f".0123abcd.pid{gone.pid}.k2j4h5g6"
    live = folder / f".4567ef01.pid{os.getpid()}.a1b2c3d4"
    for d in (stale, live):
        d.mkdir()
        (d / "offset_bytes.bin").write_bytes(b"\0" * 64)
    open_trace(data_dir / "formats" / "sample.spc", "spc")
    assert not stale.exists() and live.exists()
    assert len(list(folder.glob("*/meta.json"))) == 1


@settings(max_examples=200, deadline=None)
@given(segs=st.lists(st.integers(0, 3000), min_size=1, max_size=60, unique=True),
       pages=st.lists(st.integers(-5, 13000), min_size=1, max_size=60), k=st.sampled_from([1, 2, 4]),
       wide=st.booleans())
def test_units_rank_table_equals_binary_search(segs, pages, k, wide):
    """Units.of_pages by its rank table (a narrow span) equals the binary search (a wide one)."""
    segs = np.array(sorted(segs), np.int64) * (10**6 if wide else 1)
    pages = np.concatenate([np.array(pages, np.int64), segs * k, segs * k + k - 1, segs * k - 1])
    u = Units(k, segs)
    for side in ("left", "right"):
        seg = pages // k
        r = np.searchsorted(segs, seg, side="left")
        inside = (r < len(segs)) & (segs[np.minimum(r, len(segs) - 1)] == seg)
        off = pages % k + (side == "right")
        np.testing.assert_array_equal(u.of_pages(pages, side), np.where(inside, r * k + off, r * k))
    assert (u._rank_table is None) == (wide and int(segs[-1] - segs[0]) + 1 > 4 * len(segs) + (1 << 16))


def test_sorted_unique_is_np_unique():
    rng = np.random.default_rng(0)
    for x in (rng.integers(0, 50, 1000), rng.integers(-(2**40), 2**40, 500), np.zeros(0, np.int64)):
        np.testing.assert_array_equal(sorted_unique(x), np.unique(x))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.sampled_from([1, 2, 8]), halo=st.integers(0, 2),
       n=st.integers(1, 40))
def test_touched_segments_equal_the_expanded_pages(seed, k, halo, n):
    rng = np.random.default_rng(seed)
    op = rng.choice([Op.READ, Op.WRITE, Op.FLUSH, Op.TRIM], n).astype(np.int8)
    tr = Trace(np.zeros(n), op, rng.integers(0, 300, n) * 512, rng.integers(0, 40, n) * 512)
    page = tr.to_pages(4096).page
    expect = sorted_unique(np.concatenate([sorted_unique(page // k) + j for j in range(halo + 1)]))
    np.testing.assert_array_equal(touched_segments(tr, 4096, k, halo), expect)
