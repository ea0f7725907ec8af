"""The parse cache trusts an entry only if its meta.json and column files agree (issue 24, item 3): a hand-edited
meta.json, a damaged column or an entry of an older layout is parsed again, never misread."""

import json

import numpy as np
import pytest

from flashrepro.traces import load_trace, open_trace, read_trace
from flashrepro.traces import store as store_mod

LINES = "0 3 1000 8 0\n1 70000 1000 8 1\n2 3 2000 16 1\n3 3 1000 8 1\n"  # mqsim: two devices


@pytest.fixture
def parses(monkeypatch):
    """The number of times the store parses a file."""
    count = []
    real = store_mod.iter_trace
    monkeypatch.setattr(store_mod, "iter_trace", lambda *a, **k: count.append(1) or real(*a, **k))
    return count


@pytest.fixture
def cached(tmp_path, isolated_interim, parses):
    """A two-device mqsim file parsed into the cache: (file, its entry's folder, the trace read without cache)."""
    p = tmp_path / "t.mqsim"
    p.write_text(LINES)
    load_trace(p, "mqsim")
    (entry,) = [m.parent for m in (isolated_interim / "traces").glob("*/meta.json")]
    return p, entry, read_trace(p, "mqsim")


def _same(a, b):
    for col in ("time_s", "op", "offset_bytes", "size_bytes", "device_numbers", "address_bytes"):
        assert np.array_equal(getattr(a, col), getattr(b, col)), col
    assert a.meta == b.meta and a.name == b.name


def _edit_json(entry, change, checksum=False):
    info = json.loads((entry / "meta.json").read_text())
    change(info)
    if checksum:  # an edit that also recomputes the checksum: only the column headers can tell
        info["checksum"] = store_mod._checksum(info)
    (entry / "meta.json").write_text(json.dumps(info))


def test_an_unedited_entry_is_read_back_without_parsing(cached, parses):
    p, entry, want = cached
    _same(load_trace(p, "mqsim"), want)
    assert len(parses) == 1
    info = json.loads((entry / "meta.json").read_text())
    assert info["columns"] == {"time_s": "<f8", "op": "|i1", "offset_bytes": "<i8", "size_bytes": "<i8",
                               "device": "<i8"}
    assert info["space"]["devices"] == [3, 70000] and info["meta"]["several_devices"] is True
    for col in info["columns"]:  # plain .npy files
        assert np.array_equal(np.load(entry / f"{col}.npy"), getattr(want, col))


EDITS = {
    "length": lambda i: i.update(n=i["n"] + 1),
    "name": lambda i: i.update(name="other"),
    "meta": lambda i: i["meta"].update(format="spc"),
    "dtype": lambda i: i["columns"].update(offset_bytes="<i4"),
    "column dropped": lambda i: i["columns"].pop("device"),
    "space": lambda i: i["space"].update(devices=[3, 4]),
    "no checksum": lambda i: i.pop("checksum"),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_hand_edited_meta_json_is_parsed_again(cached, parses, edit):
    p, entry, want = cached
    _edit_json(entry, EDITS[edit])
    _same(load_trace(p, "mqsim"), want)
    assert len(parses) == 2
    load_trace(p, "mqsim")  # the entry written again is trusted
    assert len(parses) == 2


@pytest.mark.parametrize("edit", ["length", "dtype", "column dropped"])
def test_an_edit_with_its_checksum_recomputed_is_caught_by_the_headers(cached, parses, edit):
    p, entry, want = cached
    _edit_json(entry, EDITS[edit], checksum=True)
    _same(load_trace(p, "mqsim"), want)
    assert len(parses) == 2


def _truncate(entry):
    f = entry / "size_bytes.npy"
    f.write_bytes(f.read_bytes()[:-8])


def _other_dtype(entry):
    np.save(entry / "op.npy", np.load(entry / "op.npy").astype(np.int16))


def _extra_column(entry):
    np.save(entry / "file.npy", np.zeros(4, np.int32))


def _missing_column(entry):
    (entry / "device.npy").unlink()


def _not_npy(entry):
    (entry / "time_s.npy").write_bytes(b"\0" * 160)


def _bad_json(entry):
    (entry / "meta.json").write_text("{not json")


@pytest.mark.parametrize("damage", [_truncate, _other_dtype, _extra_column, _missing_column, _not_npy, _bad_json])
def test_a_damaged_entry_is_parsed_again(cached, parses, damage):
    p, entry, want = cached
    damage(entry)
    _same(load_trace(p, "mqsim"), want)
    assert len(parses) == 2


def test_an_entry_of_the_old_layout_is_parsed_again(cached, parses):
    """Raw .bin columns and a meta.json without columns or checksum (the layout before .npy), at the key: the
    offsets of such an entry had the device folded in, so reading it as today's would be wrong."""
    p, entry, want = cached
    for f in entry.glob("*.npy"):
        f.unlink()
    for col in ("time_s", "op", "size_bytes"):
        getattr(want, col).tofile(entry / f"{col}.bin")
    ((want.device_numbers << 44) + want.offset_bytes).tofile(entry / "offset_bytes.bin")
    (entry / "meta.json").write_text(json.dumps({"name": want.name, "meta": want.meta, "n": len(want)}))
    _same(load_trace(p, "mqsim"), want)
    assert len(parses) == 2


def test_an_entry_without_the_readers_warnings_is_read_without_parsing(cached, parses):
    """An entry made before the parse cache kept the reader's TraceWarning messages is still trusted (parsing it
    again on its first open raced the other processes opening it: one discarded the entry another had just
    written); it has no warnings to give."""
    p, entry, want = cached
    _edit_json(entry, lambda info: info.pop("warnings"), checksum=True)
    _same(load_trace(p, "mqsim"), want)
    assert len(parses) == 1


def test_batches_of_a_stored_trace_read_the_device_column(cached):
    p, entry, want = cached
    parts = list(open_trace(p, "mqsim").batches(3))
    assert [len(b) for b in parts] == [3, 1]
    assert np.concatenate([b.address_bytes for b in parts]).tolist() == want.address_bytes.tolist()
    assert parts[1].device.tolist() == [3] and parts[1].space is not None  # one device, keyed in the whole space
