"""Paper 3 (CLOCK-HBM) outside the kernels: the FIU reader's merge option, the Table 4 workload models, the
paper's numbers, and the experiment tables' definitions."""

import numpy as np

from flashrepro.traces import Op, load_trace, read_trace

R, W = Op.READ, Op.WRITE
S = 512


def test_fiu_merge_contiguous(data_dir, isolated_interim):
    """Runs of consecutive records with one op, each starting where the last ended, become one request; a
    change of op, a gap, or a record contiguous with an earlier but not the previous one starts a new one."""
    path = data_dir / "formats" / "sample.fiu-merge.blkparse"
    plain = read_trace(path, "fiu")
    assert len(plain) == 7 and set(plain.size_bytes.tolist()) == {8 * S}
    merged = read_trace(path, "fiu", merge_contiguous=True)
    assert merged.op.tolist() == [W, R, R, R]
    assert merged.offset_bytes.tolist() == [1000 * S, 1024 * S, 5000 * S, 1040 * S]
    assert merged.size_bytes.tolist() == [24 * S, 16 * S, 8 * S, 8 * S]
    np.testing.assert_allclose(merged.time_s, [0, 300e-9, 500e-9, 600e-9], atol=1e-12)
    assert merged.meta["merged_records"] == 3 and merged.meta["records"] == 7
    assert int(merged.size_bytes.sum()) == int(plain.size_bytes.sum())
    # the parse cache keys on reader options: both readings are stored and come back as parsed
    assert len(load_trace(path, "fiu")) == 7
    assert len(load_trace(path, "fiu", merge_contiguous=True)) == 4
    assert len(list((isolated_interim / "traces").glob("*.npz"))) == 2
    assert load_trace(path, "fiu", merge_contiguous=True).size_bytes.tolist() == merged.size_bytes.tolist()
