"""Issue 12 section 7: the fast way through ``flashrepro simulate`` gives what the slow way gives."""

import numpy as np
import pytest
from conftest import random_trace
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_contract import event_trace

from flashrepro.cache import POLICIES, simulate_stream
from flashrepro.cache.onepass import simulate_source
from flashrepro.traces.fastparse import FastSpec
from flashrepro.traces.store import MemoryTrace

SEG = {"segment_kib": 16}


def _params(policy):
    return dict(SEG) if policy.startswith("seg_") else {}


def _files(tr):
    """The same trace with a file column (the unit space then carries each unit's file)."""
    import dataclasses

    rng = np.random.default_rng(7)
    return dataclasses.replace(tr, file=rng.integers(0, 5, len(tr)).astype(np.int32))


@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("make", [lambda: random_trace(3), lambda: event_trace(5), lambda: _files(random_trace(6))],
                         ids=["plain", "events", "files"])
def test_one_pass_counters_equal_the_streamed_ones(policy, make, monkeypatch):
    """The whole trace in one pass (the command line's way) and the two-pass stream in batches of 97 requests:
    every counter equal, for every policy; and above the size bound the stream is what runs."""
    tr = make()
    streamed = simulate_stream(MemoryTrace(tr), policy, 64, flush_at_end=True, batch_requests=97,
                               **_params(policy)).to_dict()
    seen = []
    whole = simulate_source(MemoryTrace(tr), policy, 64, flush_at_end=True, progress=seen.append, **_params(policy))
    assert whole.to_dict() == streamed
    assert seen and seen[-1] == len(tr) and seen == sorted(seen)
    from flashrepro.cache import onepass

    calls = []
    monkeypatch.setattr(onepass, "simulate_stream", lambda *a, **k: calls.append(1) or simulate_stream(*a, **k))
    big = simulate_source(MemoryTrace(tr), policy, 64, flush_at_end=True, whole_max_requests=len(tr) - 1,
                          **_params(policy))
    assert big.to_dict() == streamed
    many_pages = simulate_source(MemoryTrace(tr), policy, 64, flush_at_end=True, whole_max_refs=len(tr) - 1,
                                 **_params(policy))  # more page references than that: streamed too
    assert many_pages.to_dict() == streamed and len(calls) == 2


def _spc_lines(n, lba0=0):
    return "".join(f"0,{lba0 + 8 * i},4096,{'w' if i % 3 == 0 else 'r'},{i * 0.001:.3f}\n" for i in range(n))


def test_the_parse_cache_never_serves_a_changed_file(tmp_path, isolated_interim, monkeypatch):
    """The cache key is the file's identity (stat and its first and last bytes), not a hash of all of it: a
    rewrite of the same size that changes only the middle is parsed again, whether its modification time is
    new or set back to the old one (the status-change time moves); an untouched file is not."""
    import os

    from flashrepro.traces import load_trace
    from flashrepro.traces import store as store_mod

    monkeypatch.setattr(store_mod, "EDGE_BYTES", 64)  # so that the middle of a small file is outside the edges
    path = tmp_path / "t.spc"
    path.write_text(_spc_lines(200))
    first = load_trace(path, "spc")
    parses = []
    real = store_mod.iter_trace
    monkeypatch.setattr(store_mod, "iter_trace", lambda *a, **k: parses.append(1) or real(*a, **k))
    assert np.array_equal(load_trace(path, "spc").offset_bytes, first.offset_bytes) and not parses

    data = path.read_bytes()
    mid = data.index(b"0,800,")  # line 101: same length after the edit
    edited = data[:mid] + b"0,808," + data[mid + 6:]
    assert len(edited) == len(data) and edited[:64] == data[:64] and edited[-64:] == data[-64:]
    old = os.stat(path)
    path.write_bytes(edited)  # same size, new bytes, new mtime
    second = load_trace(path, "spc")
    assert len(parses) == 1 and second.offset_bytes[100] == 808 * 512 != first.offset_bytes[100]

    edited = data[:mid] + b"0,816," + data[mid + 6:]
    path.write_bytes(edited)  # another edit, with the first version's mtime set back: a new ctime all the same
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert os.stat(path).st_mtime_ns == old.st_mtime_ns and os.stat(path).st_size == old.st_size
    third = load_trace(path, "spc")
    assert len(parses) == 2 and third.offset_bytes[100] == 816 * 512
    load_trace(path, "spc")
    assert len(parses) == 2  # unchanged since: from the cache


_ALPHABET = "0123456789" * 4 + ",,,;\t  -+.eE#xRW\n\n"
_EDGE = st.sampled_from(["9" * 18, "9" * 19, "-" + "1" * 18, "0.000000000000000000000001", "1" * 15 + ".5",
                         "1" * 16, "1e5", ".5", "5.", "+3", "-", " 7 ", ""])
# a field of each kind, as a valid-looking line has it (built once: a strategy is validated when first drawn)
_PLAIN = {"int": st.integers(-10**6, 10**6).map(str) | _EDGE,
          "float": st.floats(-1e6, 1e6).map(lambda x: f"{x:.4f}") | _EDGE,
          "token": st.sampled_from(["R", "W", "Read", "w", "Readings", "ReadWrite", " W ", ""]),
          "skip": st.sampled_from(["", "hm", "x y"]),
          "digits": st.sampled_from(["", "7", "123"])}
_TEXT = st.text(alphabet=_ALPHABET, max_size=30)


@st.composite
def _block_and_spec(draw):
    sep = draw(st.sampled_from([",", ";", "\t"]))
    kinds = draw(st.lists(st.sampled_from(["int", "float", "token", "skip", "digits"]), min_size=1, max_size=5))
    spec = FastSpec(sep, tuple((f"f{i}", k) for i, k in enumerate(kinds)),
                    extra=draw(st.sampled_from(["none", "empty", "one", "any"])), pad=draw(st.booleans()))
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        if draw(st.booleans()):  # a valid-looking line
            lines.append(sep.join(draw(_PLAIN[k]) for k in kinds))
        else:  # random text over the characters that matter
            lines.append(draw(_TEXT).replace("\n", ""))
    return ("\n".join(lines) + "\n").encode(), spec


@settings(max_examples=600, deadline=None, derandomize=True)
@given(case=_block_and_spec(), run_min=st.sampled_from([0, 1, 3, 4096]))
def test_the_fused_tokenizer_reads_what_the_generic_one_reads(case, run_min):
    """fastparse's plain-line reader (_regular, fields read while scanned) and its generic one line by line
    (_generic, the reference): the same records, values, line numbers and first bad line on random text,
    whether after a short run of plain lines the generic one takes one line (run_min 0) or the rest."""
    from flashrepro.traces import fastparse as fp

    block, spec = case
    saved, fp.RUN_MIN = fp.RUN_MIN, run_min
    try:
        _check_fused(block, spec)
    finally:
        fp.RUN_MIN = saved


def _check_fused(block, spec):
    from flashrepro.traces import fastparse as fp

    buf = np.frombuffer(block, np.uint8)
    kinds = np.array([fp.KINDS[k] for _, k in spec.fields], np.int8)
    slots = np.zeros(len(kinds), np.int64)
    for k in (fp.INT, fp.FLOAT, fp.TOKEN):
        slots[kinds == k] = np.arange(int(np.count_nonzero(kinds == k)))
    cap = block.count(b"\n") + 1
    out = []
    for run in ("fused", "generic"):
        arrs = (np.zeros((cap, 5), np.int64, order="F"), np.zeros((cap, 5), np.float64, order="F"),
                np.zeros((cap, 5), np.uint64, order="F"), np.zeros(cap, np.int64))
        args = (fp.SEPS[spec.sep], spec.pad, kinds, slots, fp.EXTRA[spec.extra], *arrs, fp._POW10)
        if run == "fused":
            rec, bad = fp._tokenize(buf, *args)
        else:
            _, _, rec, bad = fp._generic(buf, 0, 0, 0, False, *args)
        out.append((rec, bad, *(a[:rec] for a in arrs)))
    (r1, b1, *a1), (r2, b2, *a2) = out
    assert (r1, b1) == (r2, b2), block
    for x, y in zip(a1, a2, strict=True):
        np.testing.assert_array_equal(x, y, err_msg=repr(block))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(text=st.binary(max_size=200).map(lambda b: b"a" + b.replace(b"\0", b"\r")), bom=st.booleans(),
       block=st.integers(4, 40))
def test_blocks_are_whole_lines_of_the_normalised_text(text, bom, block, tmp_path_factory):
    """iter_blocks (one buffer per block, filled in place): whole lines, CR LF and lone CR as LF, a leading
    byte-order mark dropped (the first block must hold it: blocks are MiBs), the concatenation the whole
    normalised text, whatever the block size."""
    from flashrepro.traces.readers import _normalise, iter_blocks

    path = tmp_path_factory.mktemp("blocks") / "t.txt"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text)
    blocks = list(iter_blocks(path, block))
    want = _normalise(text)
    assert b"".join(blocks) == (want if not want or want.endswith(b"\n") else want + b"\n")
    assert all(b.endswith(b"\n") for b in blocks)


def _one_page_trace(seed, n=3000, sparse=False):
    """Reads and writes of one page each (some inside a page, not at its start); ``sparse``: pages far apart
    (the ranks then come from a sort, not a bitmap)."""
    from flashrepro.traces import Trace

    rng = np.random.default_rng(seed)
    page = rng.zipf(1.3, n) % 500 * (10**6 if sparse else 1)
    inner = rng.integers(0, 8, n) * 512
    size = rng.integers(1, 8 - inner // 512 + 1) * 512
    op = (rng.random(n) < 0.4).astype(np.int8)
    return Trace(np.arange(n) * 1e-3, op, page * 4096 + inner, size, name=f"one-page-{seed}")


@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_one_page_requests_skip_the_expansion_with_equal_counters(policy, sparse, monkeypatch):
    """One-page requests: the trace's own columns as the reference stream (where the policy's units are
    pages), fed in chunks of 97: every counter equal to the streamed run's."""
    from flashrepro.cache import onepass

    monkeypatch.setattr(onepass, "ONE_PAGE_CHUNK", 97)

    tr = _one_page_trace(11, sparse=sparse)
    assert onepass._one_page_stream(tr, 4096) is not None
    streamed = simulate_stream(MemoryTrace(tr), policy, 64, flush_at_end=True, batch_requests=97,
                               **_params(policy)).to_dict()
    seen = []
    whole = simulate_source(MemoryTrace(tr), policy, 64, flush_at_end=True, progress=seen.append, **_params(policy))
    assert whole.to_dict() == streamed and seen[-1] == len(tr) and seen == sorted(seen)


def test_the_one_page_units_are_the_expanded_ones():
    from flashrepro.cache import onepass

    for sparse in (False, True):
        tr = _one_page_trace(12, sparse=sparse)
        units, rank = onepass._one_page_stream(tr, 4096)
        want, want_rank = tr.to_pages(4096).units(1)
        np.testing.assert_array_equal(units.segments, want.segments)
        np.testing.assert_array_equal(rank, want_rank)
    two = _one_page_trace(13)
    two.size_bytes[5] = 8192  # one request of two pages: the general path
    assert onepass._one_page_stream(two, 4096) is None


# A record of each format with a fast path, split into its fields (the separator between them drawn below), and the
# header line its files start with, if any.
_RECORDS = {"spc": (",", ["0", "1024", "4096", "r", "0.5"], ""),
            "msr": (",", ["128166372003061629", "hm", "1", "Read", "383496192", "32768", "1132"], ""),
            "arc": (" ", ["1000", "8", "0", "1"], ""),
            "diskmon": (" ", ["1", "0.5", "0.001", "0", "Read", "1000", "8"], ""),
            "mqsim": (" ", ["1000", "0", "2048", "8", "1"], ""),
            "ssdsim": (" ", ["1000", "0", "2048", "8", "0"], ""),
            "fiu": (" ", ["100", "1", "nfsd", "1000", "8", "W", "6", "0", "d6c75ba4"], ""),
            "cloudphysics": (",", ["1", "5633898", "2a", "512", "42932745"], "version,time,op,size,lbn\n"),
            "tencent": (",", ["1538323200", "4247200", "128", "1", "1058"], ""),
            "systor17": (",", ["1455591804.25", "0.006475000", "R", "0", "203468398592", "32768"],
                         "Timestamp,Response,IOType,LUN,Offset,Size\n")}
_NEEDS_OPTIONS = {"csv"}  # a fast path only once the user's column mapping is known (tests/test_readers.py)
_FIELD = st.sampled_from(["0", "7", "4096", "-3", "+3", "9" * 18, "9" * 19, "1.5", "0.000001", "1" * 16 + ".5",
                          "1e3", "2.5E-2", ".5", "5.", "Read", "Write", "r", "W", "w", "R", "ReadWrite", "hm", "x y",
                          "", " 8 ", "#", "\t"])


@st.composite
def _mangled_records(draw):
    fmt = draw(st.sampled_from(sorted(_RECORDS)))
    sep, fields, header = _RECORDS[fmt]
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        f = list(fields)
        for _ in range(draw(st.sampled_from([0] * 8 + [1, 2]))):  # mostly none: a field replaced, dropped or added
            i = draw(st.integers(0, len(f)))
            how = draw(st.sampled_from(["replace", "drop", "add"]))
            if how == "add" or i == len(f):
                f.insert(i, draw(_FIELD))
            elif how == "drop":
                del f[i]
            else:
                f[i] = draw(_FIELD)
        between = [draw(st.sampled_from([" ", "  ", "\t"])) if sep == " " else
                   draw(st.sampled_from([","] * 6 + [" ,", ", "])) for _ in f[1:]]
        line = f[0] + "".join(s + x for s, x in zip(between, f[1:], strict=True))
        lead, trail = draw(st.sampled_from([""] * 6 + [" ", "\t"])), draw(st.sampled_from([""] * 6 + [" ", ","]))
        lines.append(lead + line + trail)
    return fmt, header + "\n".join(lines) + "\n"


def test_every_fast_path_is_checked_against_its_expression():
    """Each format with a fast path has a record in _RECORDS, so the test below mangles its lines."""
    from flashrepro.traces.readers import FORMATS

    assert {n for n, f in FORMATS.items() if f.fast is not None} - _NEEDS_OPTIONS == set(_RECORDS)


def _read_or_error(path, fmt):
    from flashrepro.traces.readers import read_trace

    try:
        t = read_trace(path, fmt)
    except Exception as e:  # the same error, by type and message, is the same result
        return type(e).__name__, str(e)
    return {k: v.tolist() for k, v in sorted(vars(t).items()) if isinstance(v, np.ndarray)}


@settings(max_examples=300, deadline=None, derandomize=True)
@given(case=_mangled_records())
@example(case=("fiu", "100 1 nfsd 1000 8 W 6 0 d6c75ba4 more\n"))  # one field more than the format's optional one
@example(case=("fiu", "100 1 nfsd 1000 8 W 6 0\n"))  # without the optional one
def test_the_fast_path_reads_what_the_regular_expression_reads(case, tmp_path_factory):
    """Each format's typed fast path (fastparse) against its anchored regular expression alone, on its records
    with fields replaced, dropped or added, padded and blank-led: the same columns, or the same error with the
    same file, line and reason. The fast path only makes the common case fast; it never changes a result."""
    import dataclasses

    from flashrepro.traces import readers

    fmt, text = case
    path = tmp_path_factory.mktemp("fast") / f"t.{fmt}"
    path.write_text(text)
    fast = _read_or_error(path, fmt)
    with pytest.MonkeyPatch.context() as m:
        m.setitem(readers.FORMATS, fmt, dataclasses.replace(readers.FORMATS[fmt], fast=None))
        slow = _read_or_error(path, fmt)
    assert fast == slow, text
