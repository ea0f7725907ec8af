"""Readers on small fixture files (tests/data/formats, written by hand), errors, compression, the cache."""

import bz2
import gzip
import lzma
import warnings

import numpy as np
import pytest
import zstandard
from conftest import real_trace_dir

from flashrepro import paths
from flashrepro._io import atomic_path
from flashrepro.traces import CsvLayout, Op, TraceFormatError, TraceWarning, catalog, load_trace, read_trace
from flashrepro.traces import store as store_mod

R, W, F = Op.READ, Op.WRITE, Op.FLUSH
S = 512
EXPECTED = {  # file: (format, time_s, op, offset_bytes, size_bytes), read off the fixture lines by hand (offsets on
    # each request's device; the device column: tests/test_device_keys.py)
    "sample.spc": ("spc", [0, 0, 0.026214, 0.026214], [W, R, W, R],
                   [303567 * S, 55590 * S, 303574 * S, 55596 * S],
                   [3584, 3072, 3584, 3072]),
    "sample.msr.csv": ("msr", [0, 1.3792137, 2.3993696], [R, W, W],
                       [383496192, 3221225472, 1024], [32768, 4096, 512]),
    "sample.lis": ("arc", [0, 0, 0], [R, R, R], [100 * S, 104 * S, 7 * S], [8 * S, 16 * S, S]),
    "sample.diskmon.txt": ("diskmon", [0, 0.04375 - 0.000625, 0.34375], [W, R, W],
                           [6194591 * S, 100 * S, 7 * S], [32 * S, 8 * S, S]),
    "sample.mqsim.trace": ("mqsim", [0, 315e-6, 431e-6], [W, R, R],
                           [264719034 * S, 197570570 * S, 8 * S], [16 * S, 16 * S, 32 * S]),
    "sample.fiu.blkparse": ("fiu", [0, 4.980861e-3], [W, R], [18579576 * S, 508516672 * S], [8 * S, 16 * S]),
    "sample.blkparse.txt": ("blkparse", [0, 0.00006, 0.00016], [R, W, F],
                            [584808 * S, 1000 * S, 0], [936 * S, 8 * S, 0]),
    "sample.cloudphysics.csv": ("cloudphysics", [0, 1], [W, R], [42932745 * S, 8 * S], [512, 4096]),
    "sample.most.po": ("most", [0, 0.009494583, 0.01575526], [W, F, R], [23004888 * S, 4079896 * S, 100 * S],
                       [8 * S, 0, 16 * S]),
    "sample.tencent.csv": ("tencent", [0, 0, 1], [W, R, W], [4247200 * S, 13896880 * S, 100 * S],
                           [128 * S, 8 * S, 16 * S]),
    "sample.systor17.csv": ("systor17", [0, 0.25, 1], [R, W, R], [203468398592, 4096, 0], [32768, 4096, 512]),
}

DEVICES = {"sample.tencent.csv": [1058, 1063, 1058], "sample.systor17.csv": [0, 1, 0]}  # the device column


def _check(tr, exp):
    _, t, op, off, size = exp
    np.testing.assert_allclose(tr.time_s, t, atol=1e-9)
    assert tr.op.tolist() == [int(o) for o in op]
    assert tr.offset_bytes.tolist() == off
    assert tr.size_bytes.tolist() == size


@pytest.mark.parametrize("fname", sorted(EXPECTED))
def test_fixture_named_format(fname, data_dir):
    tr = read_trace(data_dir / "formats" / fname, EXPECTED[fname][0])
    _check(tr, EXPECTED[fname])
    if fname in DEVICES:
        assert tr.device.tolist() == DEVICES[fname]
    assert tr.meta["format"] == EXPECTED[fname][0]


@pytest.mark.parametrize("fname", sorted(EXPECTED))
def test_fixture_sniffed_format(fname, data_dir):
    tr = read_trace(data_dir / "formats" / fname)
    assert tr.meta["format"] == EXPECTED[fname][0]
    _check(tr, EXPECTED[fname])


def test_generic_csv_with_column_mapping(data_dir):
    layout = CsvLayout(time="ts", op="kind", offset="where", size="bytes", sep=";", header=True,
                       reads=("RD",), writes=("WR",), offset_unit=4096)
    tr = read_trace(data_dir / "formats" / "sample.generic.csv", "csv", layout=layout)
    assert tr.op.tolist() == [R, W]
    assert tr.offset_bytes.tolist() == [4096, 8192]
    assert tr.size_bytes.tolist() == [4096, 8192]
    np.testing.assert_allclose(tr.time_s, [0, 1])
    with pytest.raises(TraceFormatError, match="needs layout"):
        read_trace(data_dir / "formats" / "sample.generic.csv", "csv")
    with pytest.raises(TraceFormatError, match="no column 'nope'"):
        read_trace(data_dir / "formats" / "sample.generic.csv", "csv",
                   layout=CsvLayout(time="nope", op="kind", offset="where", size="bytes", sep=";", header=True))


COMPRESSORS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress,
               "zst": lambda b: zstandard.ZstdCompressor().compress(b)}


@pytest.mark.parametrize("ext", sorted(COMPRESSORS))
def test_compressed_inputs_read_transparently(ext, data_dir, tmp_path):
    src = data_dir / "formats" / "sample.diskmon.txt"
    p = tmp_path / f"trace.{ext}"
    p.write_bytes(COMPRESSORS[ext](src.read_bytes()))
    _check(read_trace(p), EXPECTED["sample.diskmon.txt"])


@pytest.mark.parametrize("ext", sorted(COMPRESSORS))
def test_truncated_compressed_file_is_an_error(ext, data_dir, tmp_path):
    src = (data_dir / "formats" / "sample.diskmon.txt").read_bytes() * 50
    blob = COMPRESSORS[ext](src)
    p = tmp_path / f"trace.{ext}"
    p.write_bytes(blob[: len(blob) * 2 // 3])
    with pytest.raises(TraceFormatError, match=rf"trace\.{ext}: truncated \w+ data: the file ends before"):
        read_trace(p, "diskmon")


@pytest.mark.parametrize("ext", ["gz", "bz2", "xz"])
def test_corrupt_compressed_file_is_an_error(ext, data_dir, tmp_path):
    """A damaged deflate block raised zlib.error (no OSError), a traceback; every codec's damage is one error."""
    src = (data_dir / "formats" / "sample.diskmon.txt").read_bytes() * 50
    blob = bytearray(COMPRESSORS[ext](src))
    mid = len(blob) // 2
    blob[mid:mid + 8] = bytes(b ^ 0x5A for b in blob[mid:mid + 8])
    p = tmp_path / f"trace.{ext}"
    p.write_bytes(bytes(blob))
    with pytest.raises(TraceFormatError, match=rf"trace\.{ext}: corrupt \w+ data: the compressed stream cannot"):
        read_trace(p, "diskmon")


def _write(tmp_path, text, name="t.spc"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_malformed_line_names_file_and_line(tmp_path):
    p = _write(tmp_path, "0,1,4096,r,0.0\n# comment\n0,abc,4096,r,0.1\n")
    with pytest.raises(TraceFormatError, match=r"t\.spc:3: does not look like a spc record"):
        read_trace(p, "spc")


def test_negative_size_is_an_error(tmp_path):
    p = _write(tmp_path, "0,1,4096,r,0.0\n0,2,-4096,w,0.1\n")
    with pytest.raises(TraceFormatError, match=r"t\.spc:2: negative size -4096"):
        read_trace(p, "spc")


def test_unknown_opcode_is_an_error(tmp_path):
    p = _write(tmp_path, "0\t1.0\t0.1\t0\tRead\t10\t8\n1\t1.1\t0.1\t0\tTrim\t10\t8\n", "t.txt")
    with pytest.raises(TraceFormatError, match=r"t\.txt:2: unknown opcode 'Trim'"):
        read_trace(p, "diskmon")


@pytest.mark.parametrize("text", ["", "\n\n   \n", "# only a comment\n"])
def test_empty_trace_is_an_error(tmp_path, text):
    p = _write(tmp_path, text)
    with pytest.raises(TraceFormatError, match="empty"):
        read_trace(p, "spc")


def test_sector_overflow_is_an_error_unless_dropped(tmp_path):
    text = "0\t0.48\t0.005\t0\tWrite\t8486082789636758048\t2742488\t\n1\t0.61\t0.009\t0\tWrite\t34767\t80\t\n"
    p = _write(tmp_path, text, "p2p.trace")
    with pytest.raises(TraceFormatError, match=r"p2p\.trace:1: sector .* too large"):
        read_trace(p, "diskmon")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tr = read_trace(p, "diskmon", max_sector=1 << 32)
    assert len(tr) == 1 and tr.meta["dropped_records"] == 1
    assert any("dropped 1 records" in str(w.message) for w in caught)


def test_blkparse_completion_without_extent_is_an_error(tmp_path):
    p = _write(tmp_path, "  8,0 0 1 0.1 5 C W [0]\n", "b.txt")
    with pytest.raises(TraceFormatError, match=r"b\.txt:1: a data request without"):
        read_trace(p, "blkparse")


def test_unknown_format_lists_names(tmp_path):
    p = _write(tmp_path, "0,1,4096,r,0.0\n")
    with pytest.raises(ValueError, match="known formats: .*spc"):
        read_trace(p, "nope")


def test_unsniffable_file_asks_for_a_format(tmp_path):
    p = _write(tmp_path, "hello world\n")
    with pytest.raises(TraceFormatError, match="cannot tell the trace format"):
        read_trace(p)


def test_parse_cache_parses_once(data_dir, tmp_path, isolated_interim, monkeypatch):
    src = tmp_path / "copy.txt"
    src.write_bytes((data_dir / "formats" / "sample.diskmon.txt").read_bytes())
    first = load_trace(src, "diskmon")
    cached = list((isolated_interim / "traces").iterdir())
    assert len(cached) == 1 and (cached[0] / "meta.json").is_file()  # nothing half-written beside it

    def boom(*a, **k):
        raise AssertionError("parsed again")

    monkeypatch.setattr(store_mod, "iter_trace", boom)
    again = load_trace(src, "diskmon")
    assert np.array_equal(again.offset_bytes, first.offset_bytes) and again.meta == first.meta
    src.write_bytes(src.read_bytes().replace(b"6194591", b"6194592"))  # new content, new key
    with pytest.raises(AssertionError, match="parsed again"):
        load_trace(src, "diskmon")


def test_atomic_path_leaves_nothing_on_error(tmp_path):
    target = tmp_path / "out.csv"
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []


# --- the real files, when FLASHREPRO_TRACE_DIRS points at them ----------------------------------------
MANIFEST_COUNTS = {  # (reads, writes) or total 512 B sectors, from ../shared/traces/MANIFEST.md
    "real/personal_pc/mayun": (14180, 10664), "real/personal_pc/mayun2": (36705, 50455),
    "real/personal_pc/mayun4": (6424, 11004), "real/personal_pc/systemdisk1": (3332, 23996),
    "real/mqsim/tpcc": (4381, 2618), "real/mqsim/wsrch": (24779, 4), "real/fiu/mail02-head": (8896, 1102),
    "real/msr/hm0-sample": (508, 492), "real/cloudphysics/io": (46974, 66898),
    "real/tencent/sample": (24521, 25479), "real/systor17/sample": (826, 173),
    "real/kv/ycsb-ext4": (9039, 848), "real/kv/ycsb-f2fs": (4722, 1005), "real/kv/ycsb-btrfs": (1301, 523),
}
MANIFEST_SECTORS = {"real/arc/P3": 3_912_296, "real/arc/P6": 12_672_123, "real/arc/OLTP": 914_145}


@pytest.mark.realtrace
@pytest.mark.skipif(real_trace_dir() is None, reason="FLASHREPRO_TRACE_DIRS names no trace folder")
@pytest.mark.parametrize("name", catalog.names("real/"))
def test_real_file_reads(name):
    if catalog.real_path(name) is None:
        pytest.skip(f"{name}: file not in {paths.trace_dirs()}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr = catalog.get(name, scale="paper")
    assert len(tr) > 0
    if name in MANIFEST_COUNTS:
        assert (tr.n_reads, tr.n_writes) == MANIFEST_COUNTS[name]
    if name in MANIFEST_SECTORS:
        assert int(tr.size_bytes.sum()) // 512 == MANIFEST_SECTORS[name]


# --- issue 24: every line read or named -------------------------------------------------------------------
D = Op.TRIM


def _fails_at(path, fmt, line: int, match: str, **opts) -> str:
    with pytest.raises(TraceFormatError, match=match) as e:
        read_trace(path, fmt, **opts)
    assert f"{path}:{line}: " in str(e.value), str(e.value)
    return str(e.value)


@pytest.mark.parametrize("block_bytes", [1 << 20, 64])
def test_blkparse_summary_blocks_anywhere_are_skipped_and_counted(data_dir, block_bytes):
    """Two runs, each ending with its summary, and a summary in the middle of the second: every record after a
    summary is read (it was dropped from the first summary on), a summary block cut by a block boundary too.
    The second run's clock starts again: it is moved to start where the first ended (0.0002 s - 0.00005 s)."""
    from flashrepro.traces.readers import concat, iter_trace

    path = data_dir / "formats" / "sample.blkparse-runs.txt"
    tr = concat(list(iter_trace(path, "blkparse", block_bytes=block_bytes)))
    assert tr.op.tolist() == [W, R, D, W]
    np.testing.assert_allclose(tr.time_s, [0, 0.0001, 0.00025, 0.00045], atol=1e-12)
    assert (tr.offset_bytes - tr.offset_bytes[0]).tolist() == [0, 1000 * S, 4000 * S, 5000 * S]
    assert tr.size_bytes.tolist() == [8 * S, 16 * S, 8 * S, 8 * S]
    assert (tr.meta["skipped_summary_lines"], tr.meta["summary_blocks"], tr.meta["runs_joined"]) == (12, 2, 1)


def test_blkparse_concatenated_runs_keep_every_record(data_dir, tmp_path):
    one = (data_dir / "formats" / "sample.blkparse.txt").read_text()
    single = read_trace(data_dir / "formats" / "sample.blkparse.txt")
    tr = read_trace(_write(tmp_path, one * 3, "three.blkparse"), "blkparse")
    assert tr.op.tolist() == single.op.tolist() * 3
    assert np.all(np.diff(tr.time_s) >= 0)  # each run starts where the one before ended
    assert tr.meta["runs_joined"] == 2 and tr.meta["skipped_summary_lines"] == 3 * single.meta["skipped_summary_lines"]


@pytest.mark.parametrize("text,line,why", [
    ("  8,0 0 2 0.1 1 C W 100 + 8 [x]\n Reads Queued: 1\n", 3, "does not look like a blkparse record"),
    ("CPU0 (8,0):\n Reads Queued: 1\nnot a statistic\n", 4, "does not look like a blkparse record"),
])
def test_blkparse_lines_outside_a_summary_block_are_errors(tmp_path, text, line, why):
    p = _write(tmp_path, "  8,0 0 1 0.0 1 C W 100 + 8 [x]\n" + text, "b.txt")
    _fails_at(p, "blkparse", line, why)


@pytest.mark.parametrize("fmt,line", [
    ("blkparse", "  8,0 0 2 0.1 1 {action} {rwbs} 100 + 8 [x]\n"),
    ("most", "0.1\t{action}\t{rwbs}\t100\t8\t1\tapp\tD\n"),
])
@pytest.mark.parametrize("rwbs", ["RW", "RD", "WD", "WSD", "RN"])
@pytest.mark.parametrize("action", ["C", "Q"])
def test_rwbs_with_two_operations_is_an_error(tmp_path, fmt, line, rwbs, action):
    """RW was read as a write and RD as a discard: which operation is meant cannot be told."""
    first = line.format(action="C", rwbs="W").replace("0.1", "0.0")
    p = _write(tmp_path, first + line.format(action=action, rwbs=rwbs), f"t.{fmt}")
    _fails_at(p, fmt, 2, rf"field rwbs '{rwbs}' has more than one of R, W, D and N")


MOST_LINE = "{t}\tC\t{rwbs}\t{sector}\t{n}\t137\tapp\tD\n"


def test_most_discard_is_a_trim_of_its_extent_not_a_flush(tmp_path):
    """A discard was read as a whole-device flush: lru_flush then wrote back the 7 dirty pages the trace
    had only written (none is synced or flushed)."""
    from flashrepro.cache.simulate import simulate

    p = _write(tmp_path, MOST_LINE.format(t=0, rwbs="W", sector=1000, n=56)
               + MOST_LINE.format(t=0.01, rwbs="D", sector=5000, n=8), "t.po")
    tr = read_trace(p, "most")
    assert tr.op.tolist() == [W, D] and tr.offset_bytes.tolist() == [1000 * S, 5000 * S]
    assert tr.size_bytes.tolist() == [56 * S, 8 * S]
    res = simulate(tr, "lru_flush", 100)
    assert res.counters["device_writes"] == 0 and res.counters["deletes"] == 1


def test_most_completions_without_data_are_dropped_and_counted(tmp_path):
    p = _write(tmp_path, MOST_LINE.format(t=0, rwbs="W", sector=1000, n=8) + MOST_LINE.format(t=1, rwbs="N", sector=0,
               n=0) + MOST_LINE.format(t=2, rwbs="FWS", sector=0, n=0), "t.po")
    tr = read_trace(p, "most")
    assert tr.op.tolist() == [W, F] and tr.meta["dropped_no_data_completions"] == 1


@pytest.mark.parametrize("rwbs", ["Q", "WX", "w"])
def test_most_unknown_rwbs_letter_is_an_error(tmp_path, rwbs):
    p = _write(tmp_path, MOST_LINE.format(t=0, rwbs="W", sector=1000, n=8)
               + MOST_LINE.format(t=1, rwbs=rwbs, sector=8, n=8), "t.po")
    _fails_at(p, "most", 2, "field rwbs|does not look like a most record")


@pytest.mark.parametrize("call,why", [
    ("write 30", "write takes fd count: missing count"),
    ("pwrite 30 4096", "pwrite takes fd offset count: missing count"),
    ("pread 30", "pread takes fd offset count: missing offset, count"),
    ("write 30 4096 7", "write takes fd count: 1 argument"),
    ("open /data/db 30", "open takes path... flags fd: missing an argument"),
    ("fsync", "fsync takes fd result: missing fd, result"),
    ("read 30 4k", "argument count '4k' is not an integer"),
    ("pwrite 30 -4096 10", "pwrite: negative offset -4096"),
    ("pwrite 30 17592186044416 4096", "extent ends past 16 TiB"),
])
def test_mobibench_call_with_wrong_arguments_is_an_error(tmp_path, call, why):
    """``write 30`` was replayed as a write of 30 bytes (the fd taken for the count), ``pwrite 30 4096`` as a
    write at offset 30: a missing argument is not filled in."""
    p = _write(tmp_path, f"1 0 open /data/db O_RDWR 30\n1 5 write 30 100\n1 10 {call}\n1 20 close 30 0\n", "m.log")
    _fails_at(p, "mobibench", 3, why)


@pytest.mark.parametrize("fname", sorted(EXPECTED))
def test_sniffing_passes_over_a_long_comment_block(fname, data_dir, tmp_path):
    """Sniffing looked at the first 20 KB only: after a longer comment block it found no record."""
    raw = (data_dir / "formats" / fname).read_bytes()
    p = tmp_path / fname
    p.write_bytes(b"# a comment line as a tool may write before its records ..............\n" * 600 + raw)
    tr = read_trace(p)
    assert tr.meta["format"] == EXPECTED[fname][0]
    _check(tr, EXPECTED[fname])


def test_unsniffable_file_says_where_and_what_was_tried(tmp_path):
    p = _write(tmp_path, "# a header\n\nhello world\n")
    with pytest.raises(TraceFormatError, match=r"records from line 3 on \('hello world'\) match none of spc, msr, "
                                                r".*; pass format= one of"):
        read_trace(p)
    p = _write(tmp_path, "# only\n# comments\n\n")
    with pytest.raises(TraceFormatError, match="hold only blank lines and comments; pass format="):
        read_trace(p)


@pytest.mark.parametrize("block_bytes", [1 << 20, 64])
def test_line_numbers_count_blank_blocks_at_the_start(tmp_path, block_bytes):
    """Blocks of blank lines before the first record were passed over without counting their lines."""
    from flashrepro.traces.readers import concat, iter_trace

    p = _write(tmp_path, "\n" * 100 + "0,1,4096,r,0.0\n0,x,4096,r,0.0\n")
    with pytest.raises(TraceFormatError, match=r"t\.spc:102: does not look like a spc record: field 'lba'"):
        concat(list(iter_trace(p, "spc", block_bytes=block_bytes)))


@pytest.mark.parametrize("block_bytes", [1 << 20, 64])
@pytest.mark.parametrize("fname", ["sample.spc", "sample.diskmon.txt", "sample.blkparse.txt",
                                   "sample.cloudphysics.csv"])
def test_comment_lines_are_counted(data_dir, tmp_path, fname, block_bytes):
    """A record commented out is skipped, and said: the fast path's comments count as the slow path's."""
    from flashrepro.traces.readers import concat, iter_trace

    lines = (data_dir / "formats" / fname).read_text().splitlines(keepends=True)
    p = tmp_path / fname
    p.write_text("# one\n" + "".join(lines[:2]) + "   # two\n" + "".join(lines[2:]) + "#three\n")
    tr = concat(list(iter_trace(p, EXPECTED[fname][0], block_bytes=block_bytes)))
    _check(tr, EXPECTED[fname])
    assert tr.meta["skipped_comment_lines"] == 3
    assert "skipped_comment_lines" not in read_trace(data_dir / "formats" / fname).meta


def test_msr_header_lines_are_skipped_and_counted_other_text_is_an_error(data_dir, tmp_path):
    body = (data_dir / "formats" / "sample.msr.csv").read_text()
    header = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
    tr = read_trace(_write(tmp_path, header + body + header + body, "h.csv"), "msr")
    assert len(tr) == 6 and tr.meta["skipped_header_lines"] == 2
    p = _write(tmp_path, body + "Timestamp is not a header\n", "t.csv")  # any line starting so was skipped
    _fails_at(p, "msr", 4, "does not look like a msr record: field 'time' is missing or malformed")


def test_byte_order_marks_of_concatenated_files_are_dropped(data_dir, tmp_path):
    raw = (data_dir / "formats" / "sample.diskmon.txt").read_bytes()
    p = tmp_path / "b.txt"
    p.write_bytes(b"\xef\xbb\xbf" + raw + b"\xef\xbb\xbf" + raw.replace(b"\n", b"\r\n"))
    tr = read_trace(p, "diskmon")
    assert tr.op.tolist() == [W, R, W] * 2
    p.write_bytes(raw + b"2\t5.0\t0.0\t0\t\xef\xbb\xbfWrite\t7\t1\n")  # inside a line it is no mark
    _fails_at(p, "diskmon", 4, "diskmon")


@pytest.mark.parametrize("text,line,why", [
    ("0,1,4096,r,0.0\n0,1,-4096,w,0.1\n", 2, "negative size -4096"),
    ("0,1,4096,r,0.0\n0,1,4096,x,0.1\n", 2, r"unknown opcode 'x' in field 'op'"),
    ("0,1,4096,r,0.0\n0,1,4096\n", 2, "does not look like a spc record: field 'op' is missing or malformed"),
    ("0,1,4096,r,0.0\n0,1,4096,r,0.1,7\n", 2, "does not look like a spc record: unexpected text after field 'time'"),
])
def test_messages_name_the_field(tmp_path, text, line, why):
    _fails_at(_write(tmp_path, text), "spc", line, why)


def test_csv_header_errors_name_the_header_line(tmp_path):
    p = _write(tmp_path, "# exported\n\nversion,time,opcode,size,lbn\n1,5,2a,512,8\n", "c.csv")
    _fails_at(p, "cloudphysics", 3, r"no column 'op' \(op\) in the header")
    p = _write(tmp_path, "version,time,op,size,lbn\n1,5,2a,512,8\n1,6,28,512\n", "c.csv")
    _fails_at(p, "cloudphysics", 3, r"4 fields where the first line has 5 \(line 1\)")


def test_csv_header_after_a_block_of_comments(data_dir, tmp_path):
    """The header was looked for in the first block only: with comments filling it, a blank line was taken as
    the header."""
    from flashrepro.traces.readers import concat, iter_trace

    p = tmp_path / "c.csv"
    p.write_bytes(b"# comment\n" * 50 + (data_dir / "formats" / "sample.cloudphysics.csv").read_bytes())
    tr = concat(list(iter_trace(p, "cloudphysics", block_bytes=64)))
    _check(tr, EXPECTED["sample.cloudphysics.csv"])
    assert tr.meta["skipped_comment_lines"] == 50


@pytest.mark.parametrize("first,why", [("\x00", r"1 field\(s\), but layout= reads column 4"),
                                       ("1538323200,4247200,128,1,1058,7", "6 fields where the other lines have 5")])
def test_csv_without_header_names_a_bad_first_line(data_dir, tmp_path, first, why):
    """The first line sets the field count of a file without header: a bad first line was reported at the
    second, as a record with a wrong count (found by the hostile suite)."""
    rest = (data_dir / "formats" / "sample.tencent.csv").read_text()
    _fails_at(_write(tmp_path, first + "\n" + rest, "t.csv"), "tencent", 1, why)


def test_fiu_last_field_reads_alike_on_both_paths(tmp_path):
    """The fast path took any token after minor (the md5, unused) and the regular expression only hex: the same
    line read alone, and was refused beside a line that sends its block to the regular expression."""
    line = "100 1 nfsd 1000 8 W 6 0 not-hex\n"
    alone = read_trace(_write(tmp_path, line, "a.fiu"), "fiu")
    beside = read_trace(_write(tmp_path, line + "200 1 my proc 1008 8 W 6 0 d6c75ba4\n", "b.fiu"), "fiu")
    assert beside.offset_bytes.tolist() == [1000 * S, 1008 * S] and alone.offset_bytes.tolist() == [1000 * S]


def _trace_warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [(w.category, str(w.message)) for w in caught]


def test_a_cached_read_says_what_the_parse_said(tmp_path, isolated_interim):
    """A reader's TraceWarning (here, a record dropped past the sector limit) is kept with the parse cache's entry
    and given again on every load: a cached read used to say nothing, so a notebook's output depended on whether
    the cache was warm."""
    text = "0\t0.48\t0.005\t0\tWrite\t8486082789636758048\t2742488\t\n1\t0.61\t0.009\t0\tWrite\t34767\t80\t\n"
    p = _write(tmp_path, text, "p2p.trace")
    first, said = _trace_warnings(lambda: load_trace(p, "diskmon", max_sector=1 << 32))
    again, said_again = _trace_warnings(lambda: load_trace(p, "diskmon", max_sector=1 << 32))
    assert said == said_again == [(TraceWarning, f"{p}: dropped 1 records past sector 4294967296 (first at line 1)")]
    assert len(list((isolated_interim / "traces").glob("*/meta.json"))) == 1  # the second load read the entry
    assert len(first) == len(again) == 1 and again.meta["dropped_records"] == 1
    _, plain = _trace_warnings(lambda: read_trace(p, "diskmon", max_sector=1 << 32))
    assert plain == said  # the same as reading without the cache
    clean = _write(tmp_path, text.splitlines(keepends=True)[1], "clean.trace")
    assert _trace_warnings(lambda: load_trace(clean, "diskmon"))[1] == []


def test_other_warnings_of_a_parse_pass_once_and_are_not_kept(tmp_path, isolated_interim, monkeypatch):
    real = store_mod.iter_trace

    def noisy(*args, **kwargs):
        warnings.warn("a library's deprecation", DeprecationWarning, stacklevel=1)
        yield from real(*args, **kwargs)

    monkeypatch.setattr(store_mod, "iter_trace", noisy)
    p = _write(tmp_path, "1\t0.61\t0.009\t0\tWrite\t34767\t80\t\n", "d.trace")
    assert _trace_warnings(lambda: load_trace(p, "diskmon"))[1] == [(DeprecationWarning, "a library's deprecation")]
    assert _trace_warnings(lambda: load_trace(p, "diskmon"))[1] == []  # cached: only a reader's notes come back
