"""Replay: bounded, refuses data it was not told to overwrite, falls back when O_DIRECT is refused."""

import os

import numpy as np
import pytest

from flashrepro.replay import replay, write_sweep
from flashrepro.traces import Op, Trace


def _trace(offsets, sizes, ops=None):
    n = len(offsets)
    return Trace(np.zeros(n), ops if ops is not None else np.full(n, Op.WRITE), offsets, sizes)


def test_replay_writes_within_bounds(tmp_path):
    target = tmp_path / "dev.img"
    tr = _trace([0, 4096 * 1000, 4096 * 10**6], [4096, 8192, 4096])
    res = replay(tr, target, max_bytes=64 * 1024)
    assert res.requests == 3 and res.bytes_written == 16384 and res.folded
    assert target.stat().st_size <= 64 * 1024
    assert res.mode in ("O_DIRECT", "buffered+fdatasync")


def test_replay_reads_and_writes(tmp_path):
    target = tmp_path / "dev.img"
    tr = _trace([0, 0, 4096], [8192, 4096, 4096], np.array([Op.WRITE, Op.READ, Op.READ]))
    res = replay(tr, target, max_bytes=1 << 20)
    assert (res.bytes_written, res.bytes_read, res.folded) == (8192, 8192, False)


def test_refuses_existing_data(tmp_path):
    target = tmp_path / "precious.db"
    target.write_bytes(b"important")
    with pytest.raises(PermissionError, match="already holds 9 bytes"):
        replay(_trace([0], [4096]), target, max_bytes=1 << 20)
    assert target.read_bytes() == b"important"
    replay(_trace([0], [4096]), target, max_bytes=1 << 20, allow_existing=True)


def test_request_larger_than_bound_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="does not fit"):
        replay(_trace([0], [1 << 21]), tmp_path / "x", max_bytes=1 << 20)


def test_unaligned_requests_are_an_error(tmp_path):
    with pytest.raises(ValueError, match="multiples of 4096"):
        replay(_trace([512], [4096]), tmp_path / "x", max_bytes=1 << 20)


def test_buffered_fallback(tmp_path):
    res = replay(_trace([0, 4096], [4096, 4096]), tmp_path / "y", max_bytes=1 << 20, direct=False)
    assert res.mode == "buffered+fdatasync"


def test_write_sweep(tmp_path):
    out = write_sweep(tmp_path / "sweep.img", 1 << 20, [4096, 1 << 20])
    assert [r.requests for r in out] == [256, 1]
    assert all(r.bytes_written == 1 << 20 for r in out)
    assert os.path.getsize(tmp_path / "sweep.img") == 1 << 20


def test_read_sweep_fills_the_file_and_reads_each_size(tmp_path):
    from flashrepro.replay import read_sweep

    target = tmp_path / "ssd.img"
    res = read_sweep(target, [4096, 65536], n_reads=4, spacing=1 << 17)
    assert [r.bytes_read for r in res] == [4 * 4096, 4 * 65536]
    assert target.stat().st_size == 4 << 17
    data = target.read_bytes()
    assert len(set(data[:4096])) > 200  # random bytes, not a pattern a device could compress
