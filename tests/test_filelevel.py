"""File-level block traces (paper 5): the android-sql format (SQL statement traces replayed through SQLite with
a VFS shim) and the mobibench format (syscall logs), on hand-written fixtures and, when present, the real
traces."""

import json

import numpy as np
import pytest
from conftest import real_trace_dir
from test_cli import run

from flashrepro.traces import Op, catalog, load_trace, read_trace
from flashrepro.traces.android_sql import ReplaySettings, file_kinds, replay
from flashrepro.traces.filelevel import FILE_SHIFT, FileBlocks

PG = 4096


def blocks(tr):
    """(op, file, first block, blocks) per request."""
    page = tr.offset_bytes // PG
    return list(zip(tr.op.tolist(), tr.file.tolist(), (page & ((1 << FILE_SHIFT) - 1)).tolist(),
                    (tr.size_bytes // PG).tolist(), strict=True))


# --- the builder -----------------------------------------------------------------------------------------
def test_consecutive_writes_to_a_block_are_merged():
    """A journal record as SQLite writes it: 4 B, a 4 KiB page, 4 B, at an offset that is not block-aligned."""
    for merge in (True, False):
        fb = FileBlocks(merge)
        f = fb.new_file("j")
        off = 4096 - 8
        for size in (4, 4096, 4, 4, 4096, 4):  # two records: blocks 0, 0-1, 1, 2, 2-3, 3
            fb.write(0.0, f, off, size)
            off += size
        tr = fb.trace("t", "mem", {})
        if merge:
            assert [(b, n) for _, _, b, n in blocks(tr)] == [(0, 1), (1, 1), (2, 1), (3, 1)]  # each block once
            assert tr.meta["merged_block_writes"] == 4
        else:
            assert sum(n for *_, n in blocks(tr)) == 8 and tr.meta["merged_block_writes"] == 0
    fb = FileBlocks(True)
    f = fb.new_file("db")
    fb.write(0.0, f, 0, 4096)
    fb.read(0.0, f, 0, 16)  # a read between two writes of the block: the second is a write again
    fb.write(0.0, f, 0, 4096)
    assert [o for o, *_ in blocks(fb.trace("t", "mem", {}))] == [Op.WRITE, Op.READ, Op.WRITE]


def test_truncate_and_delete_trim_the_blocks_past_the_end():
    fb = FileBlocks()
    f = fb.new_file("j")
    fb.write(0.0, f, 0, 5 * PG)
    fb.truncate(1.0, f, PG + 1)  # keeps blocks 0 and 1
    fb.delete(2.0, f)
    fb.delete(3.0, f)  # nothing left: no request
    assert blocks(fb.trace("t", "mem", {}))[1:] == [(Op.TRIM, 0, 2, 3), (Op.TRIM, 0, 0, 2)]


# --- android-sql --------------------------------------------------------------------------------------
@pytest.fixture
def tiny(data_dir):
    return data_dir / "formats" / "android_sql_tiny"


def test_replay_of_a_tiny_app(tiny, isolated_interim):
    tr = read_trace(tiny, "android-sql")
    m = tr.meta
    assert (m["statements"], m["failed"], m["loading_failed"]) == (12, 1, 0)
    assert m["failures"] == {"SQLError: no such table": 1}  # counted and reported, never hidden
    assert m["pragmas"] == {"journal_mode": "delete", "synchronous": "2", "cache_size": "500", "page_size": "4096"}
    kinds = file_kinds(tr)
    journal_files = set(tr.file[kinds == "journal"].tolist())
    assert len(journal_files) == m["vfs_calls"]["delete"] >= 3  # one file per journal generation
    assert set(m["files"]) >= {"app.db", "app.db-journal", "app.db-journal#1"}
    # every journal is synced, written before the database and deleted (a trim of all its blocks)
    for j in journal_files:
        ops = tr.op[tr.file == j].tolist()
        assert Op.SYNC in ops and ops[-1] == Op.TRIM and ops[0] == Op.WRITE
    assert np.all(np.diff(tr.time_s) >= 0) and 0 <= tr.time_s.min() and tr.time_s.max() < 1050.0
    # merged: a journal block is written once, except each journal's header block, which SQLite (synchronous
    # FULL) rewrites after the first sync with the record count
    w = (tr.op == Op.WRITE) & (kinds == "journal")
    pages = np.concatenate([np.arange(o, o + s) for o, s in zip(tr.offset_bytes[w] // PG, tr.size_bytes[w] // PG,
                                                                strict=True)])
    uniq, times = np.unique(pages, return_counts=True)
    assert set(uniq[times > 1] & ((1 << FILE_SHIFT) - 1)) == {0} and times.max() == 2


def test_replay_settings_change_the_trace_and_the_cache_key(tiny, isolated_interim):
    base = replay(tiny)
    again = replay(tiny)  # from data/interim/replays
    assert len(list((isolated_interim / "replays").glob("*.npz"))) == 1
    for col in ("time_s", "op", "offset_bytes", "size_bytes", "file"):
        assert np.array_equal(getattr(base, col), getattr(again, col))
    assert again.meta == base.meta
    unmerged = replay(tiny, merge_writes=False)
    assert unmerged.meta["merged_block_writes"] == 0 < base.meta["merged_block_writes"]
    assert unmerged.to_pages().is_write.sum() > base.to_pages().is_write.sum()
    by_path = replay(tiny, journal_identity="path")
    assert len(by_path.meta["files"]) == 2  # app.db and one app.db-journal
    normal = replay(tiny, synchronous="normal")
    assert (normal.op == Op.SYNC).sum() < (base.op == Op.SYNC).sum()
    assert len(list((isolated_interim / "replays").glob("*.npz"))) == 4
    with pytest.raises(ValueError, match="synchronous"):
        replay(tiny, synchronous="sometimes")


def test_android_sql_from_the_command_line(tiny, capsys, isolated_interim):
    code, out, _ = run(capsys, "simulate", "--json", "--policy", "write_once", "--trace", str(tiny), "--format",
                       "android-sql",
                       "--capacity-pages", "8")
    assert code == 0
    d = json.loads(out)
    assert d["syncs"] > 0 and d["deletes"] > 0 and d["references"] > 0
    code, out, _ = run(capsys, "trace-info", str(tiny))  # a folder format is recognised without --format
    assert code == 0 and json.loads(out)["trims"] == d["deletes"]
    code, _, err = run(capsys, "trace-info", str(tiny), "--format", "diskmon")
    assert code == 2 and "reads a file" in err


def test_load_trace_takes_a_folder(tiny, isolated_interim):
    tr = load_trace(tiny, "android-sql", name="tiny")
    assert tr.name == "tiny" and tr.file is not None


# --- mobibench ------------------------------------------------------------------------------------------
def test_mobibench_tracks_positions_per_fd(data_dir, isolated_interim):
    path = data_dir / "formats" / "sample.mobibench"
    tr = read_trace(path)  # sniffed
    assert tr.meta["format"] == "mobibench"
    R, W, SY, T = Op.READ, Op.WRITE, Op.SYNC, Op.TRIM
    # time order across threads: write 0-4095, (thread 2) read 4096-8191, write 100 B at 8192, pwrite at 0,
    # fsync; fd 31 is read before it is opened (a socket: skipped), /proc is no data; the re-opened path is a
    # new file (file 2); the unlink trims what it had
    assert blocks(tr) == [(W, 0, 0, 1), (R, 0, 1, 1), (W, 0, 2, 1), (W, 0, 0, 1), (SY, 0, 0, 0), (R, 2, 1, 1),
                          (T, 2, 0, 2)]
    assert tr.time_s.tolist() == pytest.approx([0, 5e-6, 10e-6, 20e-6, 30e-6, 70e-6, 80e-6])  # from the first I/O
    m = tr.meta
    assert (m["unopened_fd_calls"], m["pseudo_file_calls"], m["failed_calls"], m["unlinks_matched"]) == (1, 1, 1, 1)
    by_path = read_trace(path, "mobibench", file_identity="path")
    assert blocks(by_path)[-2:] == [(R, 0, 1, 1), (T, 0, 0, 3)]
    cached = load_trace(path, "mobibench")
    assert np.array_equal(cached.file, tr.file)
    assert np.array_equal(load_trace(path, "mobibench").file, tr.file)  # the file column survives the cache


# --- the real traces ------------------------------------------------------------------------------------
@pytest.mark.realtrace
@pytest.mark.skipif(real_trace_dir() is None, reason="FLASHREPRO_TRACE_DIRS names no trace folder")
@pytest.mark.parametrize("app,statements,failed", [("facebook", 5022, 1), ("map", 3827, 0)])
def test_real_apps_replay(app, statements, failed):
    name = f"real/android_sql/{app}"
    if catalog.real_path(name) is None:
        pytest.skip(f"{name} not present")
    tr = catalog.get(name, scale="paper")
    assert (tr.meta["statements"], tr.meta["failed"]) == (statements, failed)
    assert ReplaySettings().span_s > tr.time_s.max()


@pytest.mark.realtrace
@pytest.mark.skipif(real_trace_dir() is None, reason="FLASHREPRO_TRACE_DIRS names no trace folder")
def test_real_mobigen_facebook():
    name = "real/android/mobigen-facebook"
    if catalog.real_path(name) is None:
        pytest.skip(f"{name} not present")
    tr = catalog.get(name, scale="paper")
    m = tr.meta
    # 30,819 lines (MANIFEST.md): 997 fsyncs, one of them on an fd opened before the log starts
    assert (tr.op == Op.SYNC).sum() + m["unopened_fd_calls"] > 0
    assert (tr.op == Op.SYNC).sum() == 996
    assert 115 < tr.time_s.max() < 118
