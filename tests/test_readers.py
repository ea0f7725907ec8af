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
from flashrepro.traces import CsvLayout, Op, TraceFormatError, catalog, load_trace, read_trace
from flashrepro.traces import store as store_mod
from flashrepro.traces.readers import DEVICE_SHIFT

R, W, F = Op.READ, Op.WRITE, Op.FLUSH
S = 512
EXPECTED = {  # file: (format, time_s, op, offset_bytes, size_bytes), read off the fixture lines by hand
    "sample.spc": ("spc", [0, 0, 0.026214, 0.026214], [W, R, W, R],
                   [303567 * S, 55590 * S + (1 << DEVICE_SHIFT), 303574 * S, 55596 * S + (1 << DEVICE_SHIFT)],
                   [3584, 3072, 3584, 3072]),
    "sample.msr.csv": ("msr", [0, 1.3792137, 2.3993696], [R, W, W],
                       [383496192, 3221225472, 1024 + (1 << DEVICE_SHIFT)], [32768, 4096, 512]),
    "sample.lis": ("arc", [0, 0, 0], [R, R, R], [100 * S, 104 * S, 7 * S], [8 * S, 16 * S, S]),
    "sample.diskmon.txt": ("diskmon", [0, 0.04375 - 0.000625, 0.34375], [W, R, W],
                           [6194591 * S, 100 * S, 7 * S], [32 * S, 8 * S, S]),
    "sample.mqsim.trace": ("mqsim", [0, 315e-6, 431e-6], [W, R, R],
                           [264719034 * S + (4 << DEVICE_SHIFT), 197570570 * S + (3 << DEVICE_SHIFT),
                            8 * S + (13 << DEVICE_SHIFT)], [16 * S, 16 * S, 32 * S]),
    "sample.fiu.blkparse": ("fiu", [0, 4.980861e-3], [W, R], [18579576 * S, 508516672 * S], [8 * S, 16 * S]),
    "sample.blkparse.txt": ("blkparse", [0, 0.00006, 0.00016], [R, W, F],
                            [584808 * S + (2064 << DEVICE_SHIFT), 1000 * S + (2064 << DEVICE_SHIFT),
                             2064 << DEVICE_SHIFT], [936 * S, 8 * S, 0]),
    "sample.cloudphysics.csv": ("cloudphysics", [0, 1], [W, R], [42932745 * S, 8 * S], [512, 4096]),
    "sample.most.po": ("most", [0, 0.009494583, 0.01575526], [W, F, R], [23004888 * S, 4079896 * S, 100 * S],
                       [8 * S, 0, 16 * S]),
}


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
