"""Pages keyed by device and page (issue 24, item 1): a ``device`` column and an address space with no bit
budget per device, so no disk size or device number folds two devices' pages together."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrepro.cache import simulate
from flashrepro.cache.simulate import simulate_stream
from flashrepro.traces import Op, Trace, TraceFormatError, open_trace, read_trace
from flashrepro.traces.trace import DEVICE_GRAIN, AddressSpace, touched_segments

S = 512
TB = 10**12
R, W, T = int(Op.READ), int(Op.WRITE), int(Op.TRIM)


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def _trace(op, device, offset, size, **kw):
    n = len(op)
    return Trace(np.arange(n) * 1e-3, np.array(op, np.int8), np.array(offset, np.int64), np.array(size, np.int64),
                 device=None if device is None else np.array(device, np.int64), **kw)


# --- the readers' device columns ------------------------------------------------------------------------------
FIXTURE_DEVICES = {  # file: (format, device column), read off the fixture lines by hand (None: all on device 0)
    "sample.spc": ("spc", [0, 1, 0, 1]),
    "sample.msr.csv": ("msr", [0, 0, 1]),
    "sample.mqsim.trace": ("mqsim", [4, 3, 13]),
    "sample.blkparse.txt": ("blkparse", [8 << 20 | 16] * 3),  # 8,16: major 8 minor 16
    "sample.fiu.blkparse": ("fiu", [6 << 20] * 2),  # "6 0"
    "sample.diskmon.txt": ("diskmon", None),  # disk 0
    "sample.lis": ("arc", None),  # no device field
}


@pytest.mark.parametrize("fname", sorted(FIXTURE_DEVICES))
def test_fixture_device_columns(fname, data_dir):
    fmt, want = FIXTURE_DEVICES[fname]
    tr = read_trace(data_dir / "formats" / fname, fmt)
    assert (tr.device.tolist() if want is not None else tr.device) == want


def test_offsets_past_16_tib_on_a_multi_device_format_are_read(tmp_path):
    """A 20 TB disk: an offset past 2^44 bytes was refused as 'multi-device' when the device was folded in."""
    p = _write(tmp_path, "big.csv", f"128166372003061629,hm,1,Write,{20 * TB},4096,1\n"
                                    f"128166372003061630,hm,0,Write,{20 * TB},4096,1\n"
                                    f"128166372003061631,hm,1,Read,{20 * TB},4096,1\n")
    tr = read_trace(p, "msr")
    assert tr.offset_bytes.tolist() == [20 * TB] * 3 and tr.device.tolist() == [1, 0, 1]
    refs = tr.to_pages()
    assert refs.n_unique == 2 and refs.dense.tolist() == [1, 0, 1]  # device 0's page first, device 1's apart
    assert simulate(tr, "lru", 8).counters["hits"] == 1


def test_blkparse_minor_numbers_do_not_collide_with_the_next_major(tmp_path):
    """8,256 was (8 << 8) + 256 = 9,0: two devices' pages were one."""
    p = _write(tmp_path, "t.blkparse", "  8,256 0 1 0.1 1 C W 1000 + 8 [x]\n  9,0 0 2 0.2 1 C R 1000 + 8 [x]\n")
    tr = read_trace(p, "blkparse")
    assert tr.device.tolist() == [8 << 20 | 256, 9 << 20]
    assert tr.to_pages().n_unique == 2 and simulate(tr, "lru", 8).counters["hits"] == 0


@pytest.mark.parametrize("dev,why", [("8,1048576", "field 'min' is 1048576: a Linux device's minor number is below "
                                                  "2\\^20"),
                                     ("4096,0", "field 'maj' is 4096: a Linux device's major number is below 2\\^12")])
def test_blkparse_device_numbers_a_linux_dev_t_cannot_hold_are_errors(tmp_path, dev, why):
    p = _write(tmp_path, "t.blkparse", f"  8,0 0 1 0.1 1 C W 1000 + 8 [x]\n  {dev} 0 2 0.2 1 C R 1000 + 8 [x]\n")
    with pytest.raises(TraceFormatError, match=why) as e:
        read_trace(p, "blkparse")
    assert "t.blkparse:2:" in str(e.value)


def test_fiu_keeps_its_devices_apart_and_merges_only_within_one(tmp_path):
    """FIU's 'major minor' columns were ignored: the same lba on two devices was one page."""
    lines = ["1000 1 nfsd 96 8 W 6 0 ab", "2000 1 nfsd 96 8 W 8 16 ab",  # same lba, two devices
             "3000 1 nfsd 104 8 W 8 16 ab", "4000 1 nfsd 112 8 W 6 0 ab"]  # contiguous lbas, devices change
    p = _write(tmp_path, "t.fiu", "\n".join(lines) + "\n")
    tr = read_trace(p, "fiu")
    assert tr.device.tolist() == [6 << 20, 8 << 20 | 16, 8 << 20 | 16, 6 << 20]
    assert tr.to_pages().n_unique == 4
    merged = read_trace(p, "fiu", merge_contiguous=True)  # only 2000 + 3000 are one run on one device
    assert merged.size_bytes.tolist() == [8 * S, 16 * S, 8 * S] and merged.meta["merged_records"] == 1
    across = read_trace(p, "fiu", merge_contiguous=True, block_bytes=16)  # a block boundary after every line
    assert across.size_bytes.tolist() == merged.size_bytes.tolist()


def test_a_trace_made_without_its_device_column_is_an_error():
    """A transform that rebuilds a multi-device trace from its columns and forgets ``device`` would put every
    device's pages together: its meta still says several devices, so it is refused."""
    tr = _trace([W, W], [1, 2], [0, 0], [4096, 4096])
    assert tr.meta["several_devices"] is True
    with pytest.raises(ValueError, match="several devices, but it has no device column"):
        Trace(tr.time_s, tr.op, tr.offset_bytes, tr.size_bytes, meta=tr.meta)
    one = _trace([W, W], [5, 5], [0, 0], [4096, 4096])  # one device: nothing to lose
    assert "several_devices" not in one.meta and one.address_bytes is one.offset_bytes


def test_head_keys_pages_as_the_whole_trace():
    tr = _trace([W, W, R], [3, 0, 3], [0, 0, 4096], [4096] * 3)
    head = tr.head(1)  # only device 3's request, keyed in the whole trace's space
    assert head.address_bytes.tolist() == tr.address_bytes[:1].tolist()


def test_stats_say_what_the_reader_said(tmp_path, data_dir):
    tr = read_trace(data_dir / "formats" / "sample.blkparse.txt", "blkparse")
    reading = tr.stats()["reading"]
    assert reading["format"] == "blkparse" and reading["dropped_no_data_completions"] == tr.meta[
        "dropped_no_data_completions"]
    mask = _trace([R], None, [0], [4096], meta={"mask": np.ones(3, bool), "pair": (1, 2), "n": np.int64(4)})
    assert mask.stats()["reading"] == {"mask": "array of 3 bool", "pair": [1, 2], "n": 4}  # JSON-ready


# --- the address space --------------------------------------------------------------------------------------
def test_address_space_layout():
    space = AddressSpace(np.array([2, 7, 1 << 40]), np.array([20 * TB, 0, 4096]))
    base = space.base_bytes.tolist()
    assert base[0] == 0 and all(b % DEVICE_GRAIN == 0 for b in base)
    assert base[1] >= 20 * TB + DEVICE_GRAIN and base[2] == base[1] + DEVICE_GRAIN  # an empty device: one grain
    with pytest.raises(ValueError, match="not in the address space"):
        space.addresses(np.array([3]), np.array([0]))
    with pytest.raises(ValueError, match="do not fit in 2\\^62 bytes"):
        AddressSpace(np.arange(3), np.full(3, 1 << 61))
    assert AddressSpace.from_json(space.to_json()).base_bytes.tolist() == base


DEVICE_NUMBERS = [0, 1, 2, 7, 255, 256, 4095 << 20 | 1048575, 1 << 40, (1 << 62) + 5]
devices = st.sampled_from(DEVICE_NUMBERS)


WIDE_OFFSETS = st.integers(0, 1 << 50)


@st.composite
def multi_device_trace(draw, offsets=WIDE_OFFSETS, devices=devices):
    n = draw(st.integers(1, 40))
    op = draw(st.lists(st.sampled_from([R, W, W, R, T]), min_size=n, max_size=n))
    dev = draw(st.lists(devices, min_size=n, max_size=n))
    off = draw(st.lists(offsets, min_size=n, max_size=n))
    size = draw(st.lists(st.sampled_from([0, 1, 512, 4096, 4097, 65536, 1 << 20]), min_size=n, max_size=n))
    return _trace(op, dev, off, size)


def pair_ranks(a, b):
    """Dense ranks of the pairs ``(a[i], b[i])`` in lexicographic order: ``np.unique(np.stack([a, b], axis=1),
    axis=0, return_inverse=True)[1]``, from each column's dense ranks (which keep the order) paired as one
    integer, ten times faster (the rows-as-one-value sort of ``axis=0`` is slow)."""
    ra = np.unique(a, return_inverse=True)[1].ravel()
    ub, rb = np.unique(b, return_inverse=True)
    return np.unique(ra * len(ub) + rb.ravel(), return_inverse=True)[1].ravel()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(tr=multi_device_trace(), page_bytes=st.sampled_from([512, 4096, 1 << 20]), k=st.sampled_from([1, 4, 64]),
       halo=st.integers(0, 3))
def test_pages_are_keyed_by_device_and_page(tr, page_bytes, k, halo):
    """The page keys order the references as (device, page on the device) pairs do, and only equal pairs share a
    key; segments of k pages and a halo after them never reach another device's pages."""
    refs = tr.to_pages(page_bytes)
    if len(refs) == 0:
        return
    dev, page = tr.device_numbers[refs.req], tr.offset_bytes[refs.req] // page_bytes + (
        refs.page - tr.address_bytes[refs.req] // page_bytes)
    assert refs.dense.tolist() == pair_ranks(dev, page).tolist()
    segs = touched_segments(tr, page_bytes, k, halo)
    owner = np.searchsorted(tr.address_space.base_bytes, segs * k * page_bytes, side="right") \
        if tr.address_space is not None else np.ones(len(segs), int)
    seg = refs.page // k  # a segment holds one device's pages: as many (segment, device) pairs as segments
    assert pair_ranks(seg, dev).max() + 1 == len(np.unique(seg))
    if tr.address_space is not None:  # a halo segment lies in the space of the device it follows
        ends = tr.address_space.base_bytes + tr.address_space.data_bytes + DEVICE_GRAIN
        assert np.all(segs * k * page_bytes < ends[owner - 1])


# devices below 2^18, drawn as such (a filter on the traces threw away five of every six drawn)
FOLDABLE_DEVICES = st.sampled_from([d for d in DEVICE_NUMBERS if d < 1 << 18])


def _folded(tr):
    """The trace as the readers gave it before: the device folded in as device << 44 on one device."""
    return Trace(tr.time_s, tr.op, (tr.device_numbers << 44) + tr.offset_bytes, tr.size_bytes)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(tr=multi_device_trace(offsets=st.integers(0, (1 << 34)), devices=FOLDABLE_DEVICES),
       policy=st.sampled_from(["lru", "seg_prefetch", "linux_readahead", "write_once", "bs_clock"]))
def test_results_equal_the_old_folding_wherever_it_fitted(tr, policy):
    """Where device << 44 fitted (devices below 2^18, extents below 16 TiB), keying by (device, page) gives the
    same numbers: the same page order, and segments aligned alike."""
    if not ((tr.op <= W) & (tr.size_bytes > 0)).any():
        return
    params = {"on_delete": "drop"} if policy == "write_once" else {}
    for pb, capacity in ((512, 130), (4096, 20)):  # room for a few 32 KiB segments
        new, old = tr.to_pages(pb), _folded(tr).to_pages(pb)
        assert new.dense.tolist() == old.dense.tolist()
        got = simulate(tr, policy, capacity, page_bytes=pb, flush_at_end=True, **params).counters
        assert got == simulate(_folded(tr), policy, capacity, page_bytes=pb, flush_at_end=True, **params).counters


def test_a_trim_never_reaches_the_next_device():
    """A whole-device discard of 1 TiB on device 1 (whose data is 4 KiB) must not drop device 2's page, which
    lies a couple of GiB further in the address space."""
    tr = _trace([W, W, T, R, R], [1, 2, 1, 1, 2], [0, 0, 0, 0, 0], [4096, 4096, 1 << 40, 4096, 4096])
    r = simulate(tr, "write_once", 8, on_delete="drop").counters
    assert r["deleted_pages"] == 1 and r["hits"] == 1  # device 2's page survives and is hit; device 1's was dropped


def test_stored_batches_are_keyed_in_the_whole_trace_space(tmp_path, isolated_interim):
    """Batches of a stored multi-device trace number pages alike (the space is kept in meta.json): device 3
    reaches 40 TB only in the second half, so a batch's own space would differ from the first half's."""
    rng = np.random.default_rng(5)
    n = 3000
    dev = rng.choice([3, 1 << 33, 70000], n)
    lba = rng.integers(0, 4000, n) * 8 + np.where((dev == 3) & (np.arange(n) > n // 2), 40 * TB // S, 0)
    lines = [f"{t} {d} {a} 8 {int(w)}\n" for t, d, a, w in zip(range(n), dev, lba, rng.random(n) < 0.3, strict=True)]
    p = _write(tmp_path, "m.mqsim", "".join(lines))
    src = open_trace(p, "mqsim")
    whole = src.load()
    assert np.array_equal(whole.address_bytes, read_trace(p, "mqsim").address_bytes)
    for policy in ("lru", "seg_prefetch"):
        want = simulate(whole, policy, 500).counters
        got = simulate_stream(src, policy, 500, batch_requests=257).counters
        assert {k: got[k] for k in ("hits", "misses", "device_reads")} == \
            {k: want[k] for k in ("hits", "misses", "device_reads")}


def test_simulate_from_the_cli_keys_devices_apart(tmp_path, capsys, isolated_interim):
    """The command line's one-page fast path reads addresses too: the same offset on two devices is two pages."""
    import json

    from flashrepro.cli import main

    p = _write(tmp_path, "t.mqsim", "0 1 1000 8 0\n1 2 1000 8 0\n2 1 1000 8 1\n")
    assert main(["simulate", "--json", "--policy", "lru", "--trace", str(p), "--format", "mqsim", "--capacity-pages",
                "8",
                 "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hits"] == 1 and out["misses"] == 2
