"""Bad input never gives a wrong number (issue 12): every case is a clear error naming file and line, or a
correct read. Hypothesis mutates fields of valid lines and checks the readers against small independent
oracles (one per format, written from the format's description, not from the reader)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashrepro.cli import main
from flashrepro.traces import Op, TraceFormatError, read_trace

SECTOR = 512
LIMIT = 1 << 30  # the readers' default max_request_bytes
R, W, FL, TR = int(Op.READ), int(Op.WRITE), int(Op.FLUSH), int(Op.TRIM)


def _write(tmp_path, name: str, data: bytes | str):
    """``data`` as a new file (an old one unlinked first: on ext4 rewriting a file in place flushes it to disk
    when it is closed, 1-5 ms each time a hypothesis case writes its file again)."""
    p = tmp_path / name
    p.unlink(missing_ok=True)
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def _rows(tr):
    return list(zip(tr.time_s.tolist(), tr.op.tolist(), tr.device_numbers.tolist(), tr.offset_bytes.tolist(),
                    tr.size_bytes.tolist(), strict=True))


def _error_at(path, fmt, line: int, match: str | None = None):
    with pytest.raises(TraceFormatError, match=match or None) as e:
        read_trace(path, fmt)
    assert f"{path.name}:{line}:" in str(e.value), str(e.value)
    return str(e.value)


# --- the silent-wrong-result cases ------------------------------------------------------------------
DEVICE_CASES = {  # the same offset on device 0 and on a device numbered 2^40: must never fold onto the same pages
    "spc": ("0,1000,4096,w,0.0\n", "1099511627776,1000,4096,r,0.1\n"),
    "msr": ("128166372003061629,hm,0,Write,512000,4096,1\n",
            "128166372003061630,hm,1099511627776,Read,512000,4096,1\n"),
    "diskmon": ("0 0.0 0.0 0 Write 1000 8\n", "1 0.1 0.0 1099511627776 Read 1000 8\n"),
    "mqsim": ("0 0 1000 8 0\n", "100 1099511627776 1000 8 1\n"),
    "tencent": ("1,1000,8,1,0\n", "2,1000,8,0,1099511627776\n"),
    "blkparse": ("  0,0 0 1 0.1 1 C W 1000 + 8 [x]\n", "  4095,1048575 0 2 0.2 1 C R 1000 + 8 [x]\n"),
}


@pytest.mark.parametrize("fmt", sorted(DEVICE_CASES))
def test_large_device_numbers_never_wrap_onto_device_zero(fmt, tmp_path):
    first, second = DEVICE_CASES[fmt]
    tr = read_trace(_write(tmp_path, f"a.{fmt}", first + second), fmt)
    assert tr.device.tolist() == [0, 4095 << 20 | 1048575 if fmt == "blkparse" else 1 << 40]
    assert tr.offset_bytes[0] == tr.offset_bytes[1] and tr.to_pages().n_unique == 2


@pytest.mark.parametrize("line,why", [
    ("  8,0 0 1 0.1 1 C W 1000 + 12a4 [x]\n", "sector \\+ count"),
    ("  8,0 0 1 0.1 1 C W 1000 + \n", "sector \\+ count"),
    ("  8,0 0 1 0.1 1 C W 10\x0000 + 8 [x]\n", None),
    ("  8,0 0 1 0.1 1 C Q 1000 + 8 [x]\n", "letter blktrace does not write"),
    ("  8,0 0 1 0.1 1 C W 9223372036854775808 + 8 [x]\n", "not an integer below 2\\^63"),
    ("  8,0 0 1 0.1\n", "does not look like a blkparse record"),
    ("garbage line\n", "does not look like a blkparse record"),
])
def test_blkparse_bad_completion_lines_are_errors(tmp_path, line, why):
    good = "  8,0 0 1 0.0 1 C W 100 + 8 [x]\n"
    p = _write(tmp_path, "t.blkparse", good + line)
    _error_at(p, "blkparse", 2, why)


def test_blkparse_completions_without_data_are_counted(tmp_path):
    p = _write(tmp_path, "t.blkparse", "  8,0 0 1 0.0 1 C W 100 + 8 [x]\n  8,0 0 2 0.1 0 C N [0]\n"
                                       "  8,0 0 3 0.2 0 C FN [0]\n")
    tr = read_trace(p, "blkparse")
    assert tr.op.tolist() == [W, FL] and tr.meta["dropped_no_data_completions"] == 1


def test_fiu_with_cr_only_line_endings(tmp_path):
    lines = [f"{i * 1000} 1 proc {8 * i} 8 {'RW'[i % 2]} 6 0 abcd" for i in range(200)]
    tr = read_trace(_write(tmp_path, "t.fiu", "\r".join(lines) + "\r"), "fiu")
    crlf = read_trace(_write(tmp_path, "u.fiu", "\r\n".join(lines) + "\r\n"), "fiu")
    assert len(tr) == 200 and _rows(tr) == _rows(crlf)


BOM_SAMPLES = {"spc": "sample.spc", "msr": "sample.msr.csv", "mqsim": "sample.mqsim.trace", "arc": "sample.lis",
               "diskmon": "sample.diskmon.txt", "fiu": "sample.fiu.blkparse", "blkparse": "sample.blkparse.txt",
               "most": "sample.most.po", "cloudphysics": "sample.cloudphysics.csv", "mobibench": "sample.mobibench"}


@pytest.mark.parametrize("fmt", sorted(BOM_SAMPLES))
def test_utf8_byte_order_mark_is_accepted(fmt, tmp_path, data_dir):
    raw = (data_dir / "formats" / BOM_SAMPLES[fmt]).read_bytes()
    p = _write(tmp_path, BOM_SAMPLES[fmt], b"\xef\xbb\xbf" + raw)
    plain = read_trace(data_dir / "formats" / BOM_SAMPLES[fmt], fmt)
    assert _rows(read_trace(p, fmt)) == _rows(plain)  # named
    assert _rows(read_trace(p)) == _rows(plain)  # sniffed


@pytest.mark.parametrize("fmt,line,why", [
    ("spc", "0,1000,35184372088832,w,0.0\n", "larger than the limit of 1,073,741,824 bytes"),
    ("arc", "0 4611686018427387904 0 1\n", "too large"),
    ("msr", "128166372003061629,hm,0,Read,9223372036854775807,4096,1\n", None),
    ("spc", "0,1000,4096,w,1e400\n", "not a finite number"),
    ("mqsim", "nan 0 1000 8 0\n", None),
])
def test_huge_and_non_finite_values_are_errors(fmt, line, why, tmp_path):
    _error_at(_write(tmp_path, f"t.{fmt}", line), fmt, 1, why)


def test_request_too_big_to_expand_says_so_before_starting(tmp_path, capsys, isolated_interim):
    p = _write(tmp_path, "big.lis", "0 68719476736 0 1\n5 1 0 2\n")  # one request of 2^45 bytes
    assert main(["simulate", "--json", "--policy", "lru", "--trace", str(p), "--format", "arc",
                 "--capacity-pages", "100"]) == 2
    err = capsys.readouterr().err
    assert "big.lis:1:" in err and "larger than the limit" in err  # the reader's limit, at its line
    # with the limit raised, the page expansion says it does not fit before it starts
    from flashrepro.cache import simulate

    tr = read_trace(p, "arc", max_request_bytes=1 << 46)
    with pytest.raises(MemoryError, match="35,184,372,088,832 bytes"):
        simulate(tr, "lru", 100)


# --- hypothesis: field mutations of valid lines against per-format oracles ----------------------------------
class Bad(Exception):
    """The oracle's verdict: this line is not a valid record."""


def _uint(s, below=1 << 62):
    if not s.isascii() or not s.isdigit():
        raise Bad
    v = int(s)
    if v >= below:
        raise Bad
    return v


def _device(s):
    """A device number: any integer below 2^63 (it addresses no bytes, so the 2^62-byte bound of offsets and
    sizes is not its)."""
    return _uint(s, 1 << 63)


def _digits(s):
    """A field the reader checks but does not use: any run of ASCII digits."""
    if not s.isascii() or not s.isdigit():
        raise Bad


def _float(s):
    if not s.isascii():  # Python's float() reads other scripts' digits; a trace never holds them
        raise Bad
    try:
        v = float(s)
    except ValueError:
        raise Bad from None
    if not np.isfinite(v) or v < 0 or s.strip() != s or "_" in s:
        raise Bad
    return v


def _op(s, table):
    if s not in table:
        raise Bad
    return table[s]


def _dev(dev, offset, size):
    """(device, offset) of a read or write, which must end by 2^62 bytes and be at most LIMIT bytes long."""
    if offset + size > 1 << 62 or size > LIMIT:
        raise Bad
    return dev, offset


def o_spc(f):
    if len(f) != 5:
        raise Bad
    size = _uint(f[2])
    return (_float(f[4]), _op(f[3], {"r": R, "R": R, "w": W, "W": W}), *_dev(_device(f[0]), _uint(f[1]) * SECTOR, size),
            size)


def o_arc(f):
    if len(f) != 4:
        raise Bad
    _digits(f[2].removeprefix("-")), _digits(f[3])
    start, n = _uint(f[0]) * SECTOR, _uint(f[1]) * SECTOR
    return (0.0, R, *_dev(0, start, n), n)


def o_five(f, unit):
    if len(f) != 5:
        raise Bad
    size = _uint(f[3]) * SECTOR
    return (_float(f[0]) * unit, _op(f[4], {"1": R, "0": W}), *_dev(_device(f[1]), _uint(f[2]) * SECTOR, size), size)


def o_diskmon(f):
    if len(f) != 7:
        raise Bad
    _digits(f[0]), _float(f[2])
    size = _uint(f[6]) * SECTOR
    return (_float(f[1]), _op(f[4], {"Read": R, "Write": W}), *_dev(_device(f[3]), _uint(f[5]) * SECTOR, size), size)


def o_fiu(f):
    """ts pid process... lba size op major minor [md5]: the process name may hold spaces, so the record is
    read from its end, with the md5 if the last field is one."""
    def tail(rest, md5):  # the md5 is not used: any one token
        lba, size, op, major, minor = rest
        major, minor = _uint(major), _uint(minor)
        if major >= 1 << 12 or minor >= 1 << 20:  # not a Linux device number
            raise Bad
        n = _uint(size) * SECTOR
        return (_uint(f[0]) * 1e-9, _op(op, {"R": R, "W": W}), *_dev(major << 20 | minor, _uint(lba) * SECTOR, n), n)

    if len(f) < 8:
        raise Bad
    _digits(f[1])
    if len(f) >= 9:
        try:
            return tail(f[-6:-1], f[-1])
        except Bad:
            pass
    return tail(f[-5:], None)


def o_tencent(f):
    if len(f) != 5:
        raise Bad
    size = _uint(f[2]) * SECTOR
    return (_float(f[0]), _op(f[3], {"0": R, "1": W}), *_dev(_device(f[4]), _uint(f[1]) * SECTOR, size), size)


# format -> (separator, oracle, field generators of a valid line)
_small = st.integers(0, 10**6).map(str)
_pos = st.integers(1, 4096).map(str)
_time = st.floats(0, 1e6, allow_nan=False).map(lambda x: f"{x:.6f}")
FORMATS = {
    "spc": (",", o_spc, [st.integers(0, 7).map(str), _small, _pos, st.sampled_from("rRwW"), _time]),
    "arc": (" ", o_arc, [_small, _pos, st.just("0"), _small]),
    "mqsim": (" ", lambda f: o_five(f, 1e-9), [_small, st.integers(0, 7).map(str), _small, _pos,
                                              st.sampled_from("01")]),
    "diskmon": (" ", o_diskmon, [_small, _time, _time, st.integers(0, 3).map(str),
                                 st.sampled_from(["Read", "Write"]), _small, _pos]),
    "fiu": (" ", o_fiu, [_small, _small, st.sampled_from(["nfsd", "rpc.mountd"]), _small, _pos,
                         st.sampled_from("RW"), st.just("6"), st.just("0"), st.just("d6c75ba4")]),
    "tencent": (",", o_tencent, [_small, _small, _pos, st.sampled_from("01"), st.integers(0, 9).map(str)]),
}
MUTANT = st.one_of(
    st.sampled_from(["", "12a4", "-5", "0x10", "1e400", "nan", "inf", "9" * 25, str(2**63), str(2**62 + 1),
                     "\x00", "1\x002", "x", "R", "W", "0", "1", " ", "1.5", "٣", "１"]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6),
)


@st.composite
def mutated_file(draw, fmt):
    sep, _, gens = FORMATS[fmt]
    lines = [[draw(g) for g in gens] for _ in range(draw(st.integers(2, 6)))]
    i = draw(st.integers(0, len(lines) - 1))
    j = draw(st.integers(0, len(gens) - 1))
    kind = draw(st.sampled_from(["replace", "replace", "drop", "extra"]))
    if kind == "replace":
        lines[i][j] = draw(MUTANT)
    elif kind == "drop":
        del lines[i][j]
    else:
        lines[i].insert(j, draw(MUTANT))
    return lines, i


DEVICE_FIELD = {"spc": 0, "mqsim": 1, "diskmon": 3, "tencent": 4}  # the formats whose lines name a device
VALID_LINE = {"spc": "0,8,4096,w,0.0", "mqsim": "0 0 8 8 0", "diskmon": "0 0.0 0.0 0 Write 8 8",
              "tencent": "1,8,8,1,0"}


@pytest.mark.parametrize("fmt", sorted(DEVICE_FIELD))
@pytest.mark.parametrize("device,valid", [(2**62 + 1, True), (2**63 - 1, True), (2**63, False)])
def test_the_oracles_bound_device_numbers_as_the_readers_do(fmt, device, valid, tmp_path):
    """A device number addresses no bytes: any integer below 2^63 is one (the mutations draw 2^62 + 1, which an
    oracle bounding it like an offset refused while the readers took it)."""
    sep, oracle, _ = FORMATS[fmt]
    fields = VALID_LINE[fmt].split(sep)
    fields[DEVICE_FIELD[fmt]] = str(device)
    try:
        oracle(fields)
        said = True
    except Bad:
        said = False
    assert said == valid
    path = _write(tmp_path, f"d.{fmt}", sep.join(fields) + "\n")
    if valid:
        assert read_trace(path, fmt).device_numbers.tolist() == [device]
    else:
        with pytest.raises(TraceFormatError, match=f"d.{fmt}:1:"):
            read_trace(path, fmt)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_field_is_an_error_at_its_line_or_a_correct_read(fmt, data, tmp_path):
    """Either the reader names the file and the mutated line, or the oracle also finds every line valid and
    the reader's numbers are the oracle's."""
    sep, oracle, _ = FORMATS[fmt]
    lines, bad_i = data.draw(mutated_file(fmt))
    text = "".join(sep.join(f) + "\n" for f in lines)
    path = _write(tmp_path, f"m.{fmt}", text.encode("utf-8"))
    expected = []
    verdict = None
    for k, raw in enumerate(text.split("\n")[:-1]):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue  # blank lines and comments are skipped in every format
        fields = raw.split(sep) if sep == "," else raw.split()
        if sep == "," and fields and fields[-1] == "" and fmt == "spc":
            fields = fields[:-1]  # SPC lines may end with a comma
        try:
            expected.append(oracle([x.strip() if sep == "," else x for x in fields]))
        except Bad:
            verdict = verdict or k + 1
    try:
        tr = read_trace(path, fmt)
    except TraceFormatError as e:
        assert verdict is not None, f"reader refused a valid file: {e}\n{text!r}"
        at = bad_i + 1
        if "fields where the first line has" in str(e) and bad_i == 0:  # a ragged CSV: the first line sets the width
            at = int(str(e).split(f"{path.name}:")[1].split(":")[0])
        assert f"{path.name}:{at}:" in str(e), f"{e} (mutated line {bad_i + 1})\n{text!r}"
        return
    assert verdict is None, f"reader accepted line {verdict}, the oracle refuses it:\n{text!r}"
    got = _rows(tr)
    assert len(got) == len(expected)
    t0 = expected[0][0] if expected else 0.0  # times are relative to the first record's
    for g, x in zip(got, expected, strict=True):
        assert g[1:] == x[1:], (g, x, text)
        assert g[0] == pytest.approx(x[0] - t0, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("fmt", sorted(FORMATS) + ["blkparse", "most", "msr", "cloudphysics", "mobibench"])
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blob=st.binary(min_size=1, max_size=300))
def test_random_bytes_are_an_error_or_a_sane_read(fmt, blob, tmp_path):
    path = _write(tmp_path, f"r.{fmt}", blob)
    try:
        tr = read_trace(path, fmt)
    except TraceFormatError as e:
        assert path.name in str(e)
        return
    assert np.isfinite(tr.time_s).all() and (tr.size_bytes >= 0).all() and (tr.offset_bytes >= 0).all()
