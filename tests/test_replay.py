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


# Issue 12, section 3: a full file system, odd bounds and symbolic links.


def _full_after(n_ok: int, monkeypatch):
    """os.pwrite that fails with ENOSPC after ``n_ok`` writes (a full file system without needing one)."""
    import errno

    real = os.pwrite
    calls = {"n": 0}

    def pwrite(fd, data, offset):
        calls["n"] += 1
        if calls["n"] > n_ok:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data, offset)

    monkeypatch.setattr(os, "pwrite", pwrite)


def test_enospc_is_a_clear_error_and_removes_the_target(tmp_path, monkeypatch):
    from flashrepro.replay import ReplayError

    _full_after(3, monkeypatch)
    target = tmp_path / "new" / "deeper" / "card.img"
    with pytest.raises(ReplayError, match="no space left .* after 3 of 10 requests \\(12288 bytes written\\)"):
        replay(_trace(np.arange(10) * 4096, np.full(10, 4096)), target, max_bytes=1 << 20, direct=False)
    assert not target.exists() and not (tmp_path / "new").exists()
    assert list(tmp_path.iterdir()) == []


def test_enospc_keeps_a_target_that_existed(tmp_path, monkeypatch):
    from flashrepro.replay import ReplayError

    target = tmp_path / "card.img"
    target.write_bytes(b"\0" * 8192)
    _full_after(0, monkeypatch)
    with pytest.raises(ReplayError):
        replay(_trace([0], [4096]), target, max_bytes=1 << 20, allow_existing=True, direct=False)
    assert target.exists()  # not ours to remove


def test_an_interrupt_removes_the_target_too(tmp_path, monkeypatch):
    def interrupted(*a):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "pwrite", interrupted)
    with pytest.raises(KeyboardInterrupt):
        replay(_trace([0], [4096]), tmp_path / "x.img", max_bytes=1 << 20, direct=False)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bound", [float("inf"), float("nan"), -4096, 0, 4096.0, True, "4096"])
def test_bad_max_bytes_are_refused(tmp_path, bound):
    with pytest.raises(ValueError, match="max_bytes must be"):
        replay(_trace([0], [4096]), tmp_path / "x", max_bytes=bound)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("dangling", [True, False])
def test_a_symlink_target_is_refused(tmp_path, dangling):
    real = tmp_path / "real.img"
    if not dangling:
        real.write_bytes(b"")
    link = tmp_path / "link.img"
    link.symlink_to(real)
    with pytest.raises(PermissionError, match="dangling symbolic link" if dangling else "symbolic link to"):
        replay(_trace([0], [4096]), link, max_bytes=1 << 20, allow_existing=True)
    assert real.exists() is not dangling and (dangling or real.stat().st_size == 0)
    from flashrepro.replay import read_sweep

    with pytest.raises(PermissionError, match="symbolic link"):
        read_sweep(link, [4096], n_reads=1, spacing=4096)
    assert real.exists() is not dangling


def test_progress_bar(tmp_path, capsys):
    res = replay(_trace([0, 4096], [4096, 4096]), tmp_path / "y", max_bytes=1 << 20, direct=False, progress=True)
    assert res.requests == 2 and "replay y" in capsys.readouterr().err


# Issue 24: a loading.sql statement SQLite refuses stops the SQLite replay (going on would run on a database
# without the app's tables and report a fraction of the requests without a word).


def _broken_app(data_dir, tmp_path):
    import shutil

    folder = tmp_path / "app"
    shutil.copytree(data_dir / "formats" / "android_sql_tiny", folder)
    loading = folder / "loading.sql"
    text = loading.read_text()
    assert "CREATE INDEX notes_body ON notes(body);" in text
    loading.write_text(text.replace("ON notes(body)", "ON nowhere(body)"))
    return folder


def test_a_failed_loading_statement_stops_the_replay(data_dir, tmp_path, isolated_interim):
    from flashrepro.traces import TraceFormatError
    from flashrepro.traces.android_sql import replay as replay_folder

    folder = _broken_app(data_dir, tmp_path)
    with pytest.raises(TraceFormatError) as e:
        replay_folder(folder)
    assert str(e.value) == (f"{folder / 'loading.sql'}:7: SQLite refused the statement 'CREATE INDEX notes_body ON "
                            "nowhere(body);': SQLError: no such table: main.nowhere")
    assert not (isolated_interim / "replays").exists() or not any((isolated_interim / "replays").iterdir())


def test_the_command_line_says_so_in_one_line(data_dir, tmp_path, isolated_interim, capsys):
    from flashrepro.cli import main

    folder = _broken_app(data_dir, tmp_path)
    assert main(["trace-info", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [f"flashrepro trace-info: error: {folder / 'loading.sql'}:7: SQLite refused the "
                                "statement 'CREATE INDEX notes_body ON nowhere(body);': SQLError: no such table: "
                                "main.nowhere"]


def test_a_cached_replay_that_went_on_after_a_failure_is_not_reused(data_dir, tmp_path, isolated_interim):
    """A replay cached by the version that counted loading failures and went on is replayed again (and fails)."""
    import json

    from flashrepro.traces import TraceFormatError
    from flashrepro.traces.android_sql import ReplaySettings, cache_key
    from flashrepro.traces.android_sql import replay as replay_folder

    folder = _broken_app(data_dir, tmp_path)
    target = isolated_interim / "replays" / f"{folder.name}-{cache_key(folder, ReplaySettings())}.npz"
    target.parent.mkdir(parents=True)
    z = np.zeros(1)
    np.savez(target, time_s=z, op=z.astype(np.int8), offset_bytes=z.astype(np.int64), size_bytes=z.astype(np.int64),
             file_id=z.astype(np.int32), meta=np.array(json.dumps({"format": "android-sql", "loading_failed": 1})))
    with pytest.raises(TraceFormatError, match="SQLite refused the statement"):
        replay_folder(folder)
