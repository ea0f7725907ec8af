"""The Trace type, its page expansion and the order-preserving remap."""

import numpy as np
import pytest

from flashrepro.traces import Op, Trace, dense_remap


def test_to_pages_handles_straddling_requests():
    # 4 KiB at 2 KiB straddles pages 0 and 1; 1 byte at 8191 is in page 1; 12 KiB at 8 KiB is pages 2..4
    tr = Trace([0, 1, 2, 3], [Op.READ, Op.WRITE, Op.READ, Op.FLUSH], [2048, 8191, 8192, 0], [4096, 1, 12288, 0])
    refs = tr.to_pages(4096)
    assert refs.page.tolist() == [0, 1, 1, 2, 3, 4]
    assert refs.req.tolist() == [0, 0, 1, 2, 2, 2]
    assert refs.is_write.tolist() == [False, False, True, False, False, False]
    assert tr.to_pages(4096) is refs  # cached
    assert tr.to_pages(512).page.tolist()[:9] == list(range(4, 12)) + [15]


def test_zero_size_and_flush_expand_to_nothing():
    tr = Trace([0, 0], [Op.WRITE, Op.TRIM], [4096, 0], [0, 8192])
    assert len(tr.to_pages()) == 0


@pytest.mark.parametrize("kw,msg", [
    ({"size_bytes": [-1]}, "negative size_bytes"),
    ({"offset_bytes": [-4096]}, "negative offset_bytes"),
    ({"op": [7]}, "unknown op code 7"),
    ({"time_s": [float("nan")]}, "NaN"),
])
def test_trace_validation(kw, msg):
    cols = {"time_s": [0.0], "op": [0], "offset_bytes": [0], "size_bytes": [4096], **kw}
    with pytest.raises(ValueError, match=msg):
        Trace(**cols)


def test_empty_trace_is_rejected():
    with pytest.raises(ValueError, match="empty"):
        Trace([], [], [], [])


def test_columns_must_agree_in_length():
    with pytest.raises(ValueError, match="different lengths"):
        Trace([0, 1], [0], [0], [1])


@pytest.mark.parametrize("seed", range(5))
def test_dense_remap_paths_agree(seed):
    rng = np.random.default_rng(seed)
    dense_pages = rng.integers(1000, 3000, 5000)  # small span: bitmap path
    sparse_pages = rng.integers(0, 1 << 50, 5000)  # huge span: sort path
    for p in (dense_pages, sparse_pages):
        d, u = dense_remap(p)
        u2, inv = np.unique(p, return_inverse=True)
        assert np.array_equal(u, u2) and np.array_equal(d, inv)


def test_stats_counts():
    tr = Trace([0, 2.5], [Op.READ, Op.WRITE], [0, 4096], [8192, 4096], name="x")
    s = tr.stats()
    assert (s["requests"], s["reads"], s["writes"], s["page_references"], s["footprint_pages"]) == (2, 1, 1, 3, 2)
    assert s["duration_s"] == 2.5 and s["read_bytes"] == 8192


def test_head():
    tr = Trace([0, 1, 2], [0, 1, 0], [0, 1, 2], [1, 1, 1])
    assert len(tr.head(2)) == 2 and tr.head(10) is tr
