"""Huge requests (issue 24, item 2): a read or write above the readers' limit is an error at its line, at once;
a trim of any size is a range event, never expanded page by page.

"At once" and "never expanded" are checked by the memory the work takes, not by its time (speed belongs to
``make bench``; a timed assertion fails on a loaded machine): :func:`small_peak` bounds the peak of what
Python and NumPy allocate (tracemalloc), where a 1 TiB request expanded page by page, or read into a buffer,
would take gigabytes. (Arrays a compiled kernel allocates inside itself are not traced.)"""

import contextlib
import json
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrepro.cache import simulate
from flashrepro.cli import main
from flashrepro.traces import Op, Trace, TraceFormatError, load_trace, read_trace

S = 512
TIB = 1 << 40
R, W, T = int(Op.READ), int(Op.WRITE), int(Op.TRIM)


@contextlib.contextmanager
def small_peak(limit: int = 64 << 20):
    """The block's peak of traced allocations (Python objects and NumPy arrays) stays under ``limit`` bytes."""
    tracemalloc.start()
    try:
        yield
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit, f"the block allocated {peak:,} bytes at its peak"


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


# one valid line, then a read or write of 1 TiB (2^31 sectors), then a valid line
HUGE = {
    "blkparse": ("  8,0 0 1 0.1 1 C W 8 + 8 [x]\n", "  8,0 0 2 0.2 1 C W 0 + 2147483648 [mkfs]\n"),
    "fiu": ("1000 1 nfsd 8 8 W 6 0 ab\n", "2000 1 nfsd 0 2147483648 R 6 0 ab\n"),
    "spc": ("0,8,4096,w,0.0\n", f"0,0,{TIB},r,0.1\n"),
    "msr": ("128166372003061629,hm,0,Write,4096,4096,1\n", f"128166372003061630,hm,0,Read,0,{TIB},1\n"),
    "arc": ("8 8 0 1\n", "0 2147483648 0 2\n"),
    "mqsim": ("0 0 8 8 0\n", "100 0 0 2147483648 1\n"),
    "diskmon": ("0 0.0 0.0 0 Write 8 8\n", "1 0.1 0.0 0 Read 0 2147483648\n"),
    "tencent": ("1,8,8,1,0\n", "2,0,2147483648,0,0\n"),
}


@pytest.mark.parametrize("fmt", sorted(HUGE))
def test_a_huge_read_or_write_is_an_error_at_its_line_at_once(fmt, tmp_path):
    first, huge = HUGE[fmt]
    p = _write(tmp_path, f"t.{fmt}", first + huge + first)
    with small_peak(), pytest.raises(TraceFormatError) as e:
        read_trace(p, fmt)
    msg = str(e.value)
    assert f"t.{fmt}:2:" in msg and "1,099,511,627,776 bytes is larger than the limit of 1,073,741,824 bytes" in msg
    assert "max_request_bytes" in msg


def test_the_limit_is_a_reader_keyword(tmp_path, isolated_interim):
    first, huge = HUGE["blkparse"]
    p = _write(tmp_path, "t.blkparse", first + huge)
    tr = read_trace(p, "blkparse", max_request_bytes=2 * TIB)
    assert tr.size_bytes.tolist() == [8 * S, TIB]
    with pytest.raises(TraceFormatError, match=r"t.blkparse:1: a write of 4,096 bytes is larger than the limit of "
                                               r"4,095 bytes"):
        read_trace(p, "blkparse", max_request_bytes=4095)
    for bad in (0, -1, "1G", True, 1.5, 1 << 62):
        with pytest.raises(ValueError, match="max_request_bytes must be a whole number of bytes"):
            read_trace(p, "blkparse", max_request_bytes=bad)
    # through the parse cache: the default spelt out is the same entry; another limit is another entry
    q = _write(tmp_path, "ok.blkparse", first)
    load_trace(q, "blkparse")
    load_trace(q, "blkparse", max_request_bytes=1 << 30)
    assert len(list((isolated_interim / "traces").glob("*/meta.json"))) == 1
    with pytest.raises(TraceFormatError, match="larger than the limit"):
        load_trace(q, "blkparse", max_request_bytes=4095)


def test_trace_info_of_a_terabyte_write_fails_at_once(tmp_path, capsys, isolated_interim):
    """It used to expand 2^28 pages (a minute, 10 GB) before printing anything."""
    first, huge = HUGE["blkparse"]
    p = _write(tmp_path, "big.blkparse", first + huge)
    with small_peak():
        assert main(["trace-info", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "big.blkparse:2:" in err and "limit of 1,073,741,824 bytes" in err


def test_trims_of_any_size_are_ranges(tmp_path, capsys, isolated_interim):
    """Whole-device discards as mkfs issues them (1 TiB, 16 TiB, 2^61 bytes): read, described and simulated
    without being expanded page by page (:func:`small_peak`); the bytes they discard are in the trace's meta."""
    lines = ["  8,0 0 1 0.0 1 C W 0 + 8 [x]", "  8,0 0 2 0.1 1 C W 64 + 8 [x]",  # pages 0 and 8 written
             "  8,0 0 3 0.2 1 C D 0 + 2147483648 [mkfs]",  # 1 TiB: drops pages 0 and 8
             "  8,0 0 4 0.3 1 C R 0 + 16 [x]", "  8,0 0 5 0.4 1 C W 8 + 8 [x]",  # pages 0, 1 missed; 1 written
             "  8,0 0 6 0.5 1 C D 0 + 34359738368 [mkfs]",  # 16 TiB: drops pages 0 and 1
             "  8,0 0 7 0.6 1 C R 64 + 8 [x]",  # page 8 missed
             "  8,0 0 8 0.7 1 C D 8 + 4503599627370496 [mkfs]",  # 2^61 bytes from page 1: drops page 8
             "  8,0 0 9 0.8 1 C R 0 + 16 [x]"]  # pages 0, 1 missed
    p = _write(tmp_path, "trim.blkparse", "\n".join(lines) + "\n")
    with small_peak():
        tr = read_trace(p, "blkparse")
        assert tr.meta["trimmed_bytes"] == TIB + 16 * TIB + (1 << 61)
        stats = tr.stats()
        assert stats["trims"] == 3 and stats["footprint_pages"] == 3 and stats["reading"]["trimmed_bytes"] == \
            TIB + 16 * TIB + (1 << 61)
        r = simulate(tr, "write_once", 16, on_delete="drop").counters
        assert r["deletes"] == 3 and r["deleted_pages"] == 2 + 2 + 1 and r["read_misses"] == 2 + 1 + 2
        assert main(["trace-info", str(p)]) == 0 and json.loads(capsys.readouterr().out)["trims"] == 3


# one request: (op, device, first page, pages, bytes into the first page)
_REQUEST = st.tuples(st.sampled_from([R, W, W, T]), st.sampled_from([0, 5, 1 << 33]), st.integers(0, 63),
                     st.one_of(st.integers(1, 20), st.sampled_from([1 << 18, 1 << 28])), st.sampled_from([0, 512]))


@st.composite
def trace_with_trims(draw):
    """Requests on up to three devices, pages 0..63 at 4 KiB, some of them trims of up to 20 pages or of 1 GiB or
    1 TiB (past the next device's first address, were they not kept to their own). (Drawn a request at a time:
    six choices a request, where five lists took ten: each element of a list is one, and whether it goes on.)"""
    n = draw(st.integers(2, 40))
    op, dev, first, pages, inner = zip(*draw(st.lists(_REQUEST, min_size=n, max_size=n)), strict=True)
    off = [f * 4096 + i for f, i in zip(first, inner, strict=True)]
    size = [k * 4096 if o == T else min(k, 3) * 4096 - i for o, k, i in zip(op, pages, inner, strict=True)]
    return Trace(np.arange(n) * 1e-3, np.array(op, np.int8), np.array(off), np.array(size), device=np.array(dev))


def _trims_page_by_page(tr: Trace, page_bytes: int) -> Trace:
    """The trace with each trim replaced by one trim per page of its range that a read or write of its device
    touches (page by page, the expansion a range event stands for); a trim that touches none stays (empty)."""
    data = (tr.op <= W) & (tr.size_bytes > 0)
    touched = set()
    for d, o, s in zip(tr.device_numbers[data], tr.offset_bytes[data], tr.size_bytes[data], strict=True):
        touched.update((int(d), p) for p in range(o // page_bytes, (o + s - 1) // page_bytes + 1))
    rows = []
    for i in range(len(tr)):
        d, o, s = int(tr.device_numbers[i]), int(tr.offset_bytes[i]), int(tr.size_bytes[i])
        if tr.op[i] != T:
            rows.append((tr.time_s[i], tr.op[i], d, o, s))
            continue
        hit = sorted(p for dd, p in touched if dd == d and o // page_bytes <= p <= (o + s - 1) // page_bytes)
        rows += [(tr.time_s[i], T, d, p * page_bytes, page_bytes) for p in hit] or [(tr.time_s[i], T, d, o, 0)]
    t, op, d, o, s = (np.array(c) for c in zip(*rows, strict=True))
    return Trace(t, op.astype(np.int8), o, s, device=d)


@settings(max_examples=250, deadline=None, derandomize=True)
@given(tr=trace_with_trims(), capacity=st.integers(2, 40))
def test_a_trim_range_drops_what_its_page_by_page_expansion_drops(tr, capacity):
    """A trim as one range event gives the numbers of its page-by-page expansion (restricted to the pages that
    reads and writes touch, on its own device): what is dropped, what is then missed, what is written."""
    if not ((tr.op <= W) & (tr.size_bytes > 0)).any():
        return
    ranged = simulate(tr, "write_once", capacity, on_delete="drop", flush_at_end=True).counters
    paged = simulate(_trims_page_by_page(tr, 4096), "write_once", capacity, on_delete="drop",
                     flush_at_end=True).counters
    del ranged["deletes"], paged["deletes"]  # one event against one per page
    assert ranged == paged


def test_the_page_by_page_reference_sees_trims():
    """The reference above is not vacuous: on this trace a trim drops a page that is then read again."""
    tr = Trace(np.arange(3) * 1.0, np.array([W, T, R], np.int8), np.array([4096, 0, 4096]),
               np.array([4096, 1 << 20, 4096]), device=np.array([5, 5, 5]))
    r = simulate(_trims_page_by_page(tr, 4096), "write_once", 4, on_delete="drop").counters
    assert r["deleted_pages"] == 1 and r["read_misses"] == 1
    assert simulate(tr, "write_once", 4, on_delete="drop").counters["deleted_pages"] == 1

