"""Hostile input for every trace reader (issue 24): no traceback and no silently wrong number.

Each test starts from a valid file of a format (its sample in tests/data/formats, with records generated
here mixed in), damages it, reads it in process and checks the verdict against the undamaged file:

* an error is a :class:`TraceFormatError` (or ``ValueError``) whose message names the file and a line the
  damage touched (or the line a reading of the file without the touched lines fails at);
* a read is the reading of the file without the touched lines (the damage made them lines the format skips:
  comments, summary lines, calls it counts and passes over), or of the undamaged file where the damage
  touched a field the format does not use, or (a file cut short) that reading plus at most the cut record.

Every test is derandomized (the same cases on every run) and has no deadline; the generated cases number
about 1,550 in all (the ``max_examples`` below times the formats each test runs on; a format registered twice
under two names, one reader, runs once).
"""

from __future__ import annotations

import bz2
import dataclasses
import gzip
import lzma
import re
from functools import cache, lru_cache
from pathlib import Path

import numpy as np
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashrepro._io import compression_of
from flashrepro.traces import CsvLayout, TraceFormatError, read_trace
from flashrepro.traces.readers import format_names, get_format

DATA = Path(__file__).parent.parent / "data" / "formats"
GENERIC = CsvLayout(time="ts", op="kind", offset="where", size="bytes", sep=";", header=True, reads=("RD",),
                    writes=("WR",), offset_unit=4096)
# format -> (sample file, reader options, field separator: "ws" = runs of blanks)
SAMPLES = {
    "arc": ("sample.lis", {}, "ws"), "blkparse": ("sample.blkparse.txt", {}, "ws"),
    "cloudphysics": ("sample.cloudphysics.csv", {}, ","), "csv": ("sample.generic.csv", {"layout": GENERIC}, ";"),
    "diskmon": ("sample.diskmon.txt", {}, "ws"), "fiu": ("sample.fiu.blkparse", {}, "ws"),
    "mobibench": ("sample.mobibench", {}, "ws"), "most": ("sample.most.po", {}, "\t"),
    "mqsim": ("sample.mqsim.trace", {}, "ws"), "msr": ("sample.msr.csv", {}, ","), "spc": ("sample.spc", {}, ","),
    "ssdsim": ("sample.mqsim.trace", {}, "ws"), "systor17": ("sample.systor17.csv", {}, ","),
    "tencent": ("sample.tencent.csv", {}, ","),
}


def _reader(fmt: str) -> tuple:
    """What reads a format's hostile cases: its registration but for its name and description, its sample file
    and options (a format that is another's under a second name, as ssdsim is mqsim's, reads every case as that
    one does)."""
    return dataclasses.replace(get_format(fmt), name="", description=""), SAMPLES[fmt]


# the line formats the generated cases run on: each reader once (the first name of one registered twice)
LINE_FORMATS = [f for i, f in enumerate(sorted(SAMPLES)) if _reader(f) not in map(_reader, sorted(SAMPLES)[:i])]
HEADER_FORMATS = {"cloudphysics", "csv", "systor17"}  # a header line the layout's columns are named in
COMPARED = ("time_s", "op", "offset_bytes", "size_bytes", "file")
SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
MAX = {"fields": 40, "line": 20, "cut": 15, "ends": 15, "concat": 8, "compressed": 30, "noise": 10}


def test_every_reader_is_covered():
    assert set(format_names()) == set(SAMPLES) | {"android-sql"}  # a new format gets a sample here


# --- valid records, generated -------------------------------------------------------------------------------
_u = st.integers
_t = st.floats(0, 1000, allow_nan=False).map(lambda x: f"{x:.6f}")
RECORDS = {  # format -> strategy of one valid record line (without its newline)
    "spc": st.tuples(_u(0, 7), _u(0, 10**6), _u(1, 65536), st.sampled_from("rRwW"), _t).map(
        lambda r: "{},{},{},{},{}".format(*r)),
    "msr": st.tuples(_u(0, 10**9), _u(0, 7), st.sampled_from(["Read", "Write"]), _u(0, 1 << 34), _u(1, 1 << 20),
                     _u(0, 10**5)).map(lambda r: f"{128166372003061629 + r[0]},hm,{r[1]},{r[2]},{r[3]},{r[4]},{r[5]}"),
    "arc": st.tuples(_u(0, 10**7), _u(1, 256), _u(0, 10**4)).map(lambda r: f"{r[0]} {r[1]} 0 {r[2]}"),
    "diskmon": st.tuples(_u(0, 10**5), _t, _u(0, 3), st.sampled_from(["Read", "Write"]), _u(0, 10**7),
                         _u(1, 256)).map(lambda r: f"{r[0]}\t{r[1]}\t0.00003815\t{r[2]}\t{r[3]}\t{r[4]}\t{r[5]}"),
    "mqsim": st.tuples(_u(0, 10**12), _u(0, 15), _u(0, 10**8), _u(1, 256), _u(0, 1)).map(
        lambda r: "{} {} {} {} {}".format(*r)),
    "fiu": st.tuples(_u(0, 10**14), _u(0, 10**5), st.sampled_from(["nfsd", "rpc.mountd"]), _u(0, 10**9),
                     _u(1, 64), st.sampled_from("RW")).map(lambda r: "{} {} {} {} {} {} 6 0 d6c75ba4e".format(*r)),
    "tencent": st.tuples(_u(1538323200, 1538329999), _u(0, 10**8), _u(1, 256), _u(0, 1), _u(0, 2000)).map(
        lambda r: "{},{},{},{},{}".format(*r)),
    "cloudphysics": st.tuples(_u(0, 10**7), st.sampled_from(["28", "2a"]), _u(1, 1 << 16), _u(0, 10**8)).map(
        lambda r: "1,{},{},{},{}".format(*r)),
    "systor17": st.tuples(_u(0, 10**5), st.sampled_from("RW"), _u(0, 7), _u(0, 1 << 36), _u(1, 1 << 16)).map(
        lambda r: f"{1455591804 + r[0]}.5,0.000475,{r[1]},{r[2]},{r[3]},{r[4]}"),
    "csv": st.tuples(_t, st.sampled_from(["RD", "WR"]), _u(0, 10**6), _u(1, 1 << 16)).map(
        lambda r: "{};{};{};{}".format(*r)),
    "blkparse": st.tuples(_u(0, 3), _u(1, 10**6), _t, st.sampled_from(["C", "Q", "I", "D"]),
                          st.sampled_from(["R", "W", "WS", "RA", "D", "WSM"]), _u(0, 10**8), _u(1, 256)).map(
        lambda r: "  8,16 {} {} {} 4528 {} {} {} + {} [java]".format(*r)),
    "most": st.tuples(_t, st.sampled_from("ACDQ"), st.sampled_from(["W", "WS", "R", "RA", "D", "WAS"]),
                      _u(0, 10**8), _u(1, 256)).map(lambda r: "{}\t{}\t{}\t{}\t{:>4}\t137\t     app\tD".format(*r)),
    "mobibench": st.tuples(_u(1, 3), _u(0, 100), st.sampled_from(["write", "read"]), _u(1, 8192)).map(
        lambda r: f"{r[0]} {r[1]} {r[2]} 30 {r[3]}")
    | st.tuples(_u(1, 3), _u(0, 100), st.sampled_from(["pwrite", "pread"]), _u(0, 1 << 20), _u(1, 8192)).map(
        lambda r: "{} {} {} 30 {} {}".format(*r)),
}
RECORDS["ssdsim"] = RECORDS["mqsim"]


@cache
def sample_lines(fmt: str) -> tuple[str, ...]:
    return tuple((DATA / SAMPLES[fmt][0]).read_text().splitlines())


def _is_summary(fmt: str, line: str) -> bool:
    """A blkparse summary line (the sample's end), which generated records go before."""
    return fmt == "blkparse" and not re.match(r"\s*\d+,\d+\s", line)


@st.composite
def base_file(draw, fmt: str) -> list[str]:
    """The sample's lines with 0 to 4 generated records among its records (after a header, before blkparse's
    summary: one run)."""
    lines = list(sample_lines(fmt))
    first = 1 if fmt in HEADER_FORMATS else 0
    end = next((i for i, ln in enumerate(lines) if _is_summary(fmt, ln)), len(lines))
    for rec in draw(st.lists(RECORDS[fmt], max_size=4)):
        lines.insert(draw(st.integers(first, end)), rec)
        end += 1
    return lines


# --- reading and comparing ------------------------------------------------------------------------------------
def read(path: Path, fmt: str | None):
    """(trace, None) or (None, message) for a file the reader refuses."""
    opts = SAMPLES[fmt][1] if fmt else {}
    try:
        return read_trace(path, fmt, **opts), None
    except (TraceFormatError, ValueError) as e:
        return None, str(e)


def write(path: Path, data: bytes | str) -> Path:
    """``data`` as a new file at ``path`` (the old one unlinked first: on ext4 rewriting a file in place flushes
    it to disk when it is closed, 1-5 ms a case; a new file is not flushed)."""
    path.unlink(missing_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def same(a, b) -> bool:
    return all(np.array_equal(getattr(a, k), getattr(b, k)) if getattr(a, k) is not None else getattr(b, k) is None
               for k in COMPARED)


def line_named(message: str, path: Path) -> int | None:
    m = re.search(re.escape(str(path)) + r":(\d+):", message)
    return int(m.group(1)) if m else None


def check_verdict(tmp: Path, fmt: str, damaged: str | bytes, untouched: str, touched: set[int],
                  original=None, cut: bool = False) -> None:
    """The damaged file is refused naming a touched line (or a line the untouched file is refused at), or read
    as the untouched file (the touched lines blanked), or as ``original`` when that is given, or (``cut``: the
    file ends in the touched line) as the untouched file plus at most one record. (The untouched file is read
    only where the verdict needs it: not for a refusal at a touched line.)"""
    path, upath = write(tmp / f"m.{fmt}", damaged), write(tmp / f"u.{fmt}", untouched)
    tr, err = read(path, fmt)
    if err is not None:
        assert str(path) in err, err
        at = line_named(err, path)
        if at is None and compression_of(path) is not None:  # the damage starts with a compressor's magic
            assert 1 in touched and compression_of(upath) is None, err
        elif at is None:  # a verdict on the whole file (no records, a layout that does not fit): shared
            _, uerr = read(upath, fmt)
            assert uerr is not None and line_named(uerr, upath) is None, (err, uerr, damaged)
        elif at not in touched:
            _, uerr = read(upath, fmt)
            allowed = touched | ({line_named(uerr, upath)} if uerr else set())
            assert at in allowed, (err, sorted(touched), uerr, damaged)
        return
    utr, uerr = read(upath, fmt)
    if utr is not None and same(tr, utr):
        return
    if original is not None and same(tr, original):
        return
    if cut and utr is None:  # the whole lines hold no record: the cut one may be one
        assert len(tr) == 1 or fmt == "mobibench", damaged
        return
    if cut:
        if fmt == "mobibench":  # a cut call may move among the others (they replay in time order)
            return
        n = len(utr)
        assert len(tr) - n in (0, 1) and all(np.array_equal(getattr(tr, k)[:n], getattr(utr, k)) for k in COMPARED
                                             if getattr(tr, k) is not None), damaged
        return
    raise AssertionError(f"read as neither the untouched nor the original file:\n{damaged!r}\n{uerr}")


def blank(lines: list[str], touched: set[int]) -> str:
    """The file with its touched lines (1-based) left blank: the same line numbers, nothing read from them."""
    return "".join(("" if i + 1 in touched else ln) + "\n" for i, ln in enumerate(lines))


def original_of(tmp: Path, fmt: str, lines: list[str]):
    """The reading of the undamaged file (which must be valid)."""
    tr, err = _read_text(tmp / f"o.{fmt}", fmt, "".join(ln + "\n" for ln in lines))
    assert err is None, f"a generated file is not valid: {err}"
    return tr


@lru_cache(maxsize=256)
def _read_text(path: Path, fmt: str, text: str):
    """``read`` of ``text`` written at ``path``, once per text (many cases start from the same file; a trace
    read is never changed)."""
    return read(write(path, text), fmt)


# --- field mutations ------------------------------------------------------------------------------------------
JUNK = ["", "x", "12a4", "0x10", "1e400", "nan", "inf", "-inf", "\u0663", "\uff11", "\x00", "1\x002", "1\ufeff7",
        "7\ufeff", "#x", "1,5", "--1", "+-3"]  # no field of any format takes these
NEGATIVE = ["-1", "-4096", str(-(2**62))]
HUGE = [str(2**62), str(2**63 - 1), str(2**62 - 1), str(2**63), "9" * 25]  # past 2^62 bytes in any unit
NOISE_CHARS = st.characters(codec="utf-8", exclude_categories=["Cs", "Zs", "Zl", "Zp", "Cc"])


def field_roles(fmt: str, fields: list[str], header: bool) -> list[str]:
    """What each field of a line is to the reader: "num" (an offset, a size or a Linux device number: any
    junk, negative or huge value is wrong), "dev" (a format's own device number: junk, negative or past 2^63
    is wrong), "time" (junk or negative is wrong), "op" (junk is wrong, or names no operation kept), "count"
    (mobibench: junk is wrong, a negative count a failed call), "noise" (checked or not, never used: any
    value reads as the original or is refused), "free" (a mobibench path: any text is a path, so none is
    wrong; left alone)."""
    if header:
        used = {"cloudphysics": {"time", "op", "size", "lbn"}, "systor17": {"Timestamp", "IOType", "LUN", "Offset",
                                                                             "Size"}}.get(fmt)
        return ["op" if used is None or f in used else "noise" for f in fields]
    n, T, N, O, Z, D = len(fields), "time", "num", "op", "noise", "dev"
    fixed = {"spc": [D, N, N, O, T], "msr": [T, Z, D, O, N, N, Z], "arc": [N, N, Z, Z],
             "diskmon": [Z, T, Z, N, O, N, N], "mqsim": [T, D, N, N, O], "ssdsim": [T, D, N, N, O],
             "fiu": [T, Z, Z, N, N, O, Z, Z, Z], "tencent": [T, N, N, O, D], "cloudphysics": [Z, T, O, N, N],
             "systor17": [T, Z, O, D, N, N], "csv": [T, O, N, N], "most": [T, O, O, N, N] + [Z] * 9}
    if fmt in fixed:
        return (fixed[fmt] + [Z] * n)[:n]
    if fmt == "blkparse":  # maj,min cpu seq time pid action rwbs [sector + count] [process] ...
        data = fields[5] == "C" and re.search("[RWD]", fields[6])
        return ([N, Z, Z, T, Z, O, O] + ([N, O, N] if data else []) + [Z] * n)[:n]
    op = fields[2]  # mobibench: tid time op args
    args = {"read": 2, "write": 2, "pread": 3, "pwrite": 3, "fsync": 1, "fdatasync": 1, "close": 1}
    if op in args:
        return ([Z, T, O] + ["count"] * args[op] + [Z] * n)[:n]
    if op == "open":  # tid time open path... flags fd
        return [Z, T, O] + ["free"] * (n - 5) + [Z, "count"]
    if op == "unlink":
        return [Z, T, O] + ["free"] * (n - 4) + [Z]
    return [Z, T, O] + [Z] * (n - 3)


def split_fields(line: str, sep: str) -> list[str]:
    """The line as fields and the separators between them (even: fields, odd: separators)."""
    if sep == "ws":
        parts = re.split(r"([ \t]+)", line)
        if len(parts) > 2 and parts[0] == "":  # leading blanks: kept with the first field
            parts = [parts[1] + parts[2]] + parts[3:]
        return parts
    out = []
    for i, f in enumerate(line.split(sep)):
        out += ([sep] if i else []) + [f]
    return out


@cache  # a strategy per role and separator, built (and validated by hypothesis) once
def bad_value(role: str, sep: str):
    """A value no field of ``role`` takes. A device number ("dev", a format's own numbering: a volume, LUN or
    ASU) may be any count below 2^63, which the device column holds as it is; only values past it are wrong."""
    huge = HUGE if role in ("num", "op") else [h for h in HUGE if int(h) >= 2**63] if role == "dev" else []
    values = JUNK + (NEGATIVE if role in ("num", "op", "time", "dev") else []) + huge
    if sep == "ws":  # an empty field is a missing one there: kept, it is what JUNK means by ""
        values = [v for v in values if v == "" or not re.search(r"\s", v)]
    return st.sampled_from([v for v in values if sep not in v or sep == "ws"])


@cache
def noise_value(sep: str):
    bad = {"ws": " \t", ",": ",", ";": ";", "\t": "\t"}[sep] + "\n\r"
    return st.text(NOISE_CHARS, max_size=6).filter(lambda v: not any(c in bad for c in v)
                                                    and not re.match(r'"?/?(proc|dev|sys)/', v))


@pytest.mark.parametrize("fmt", LINE_FORMATS)
@settings(max_examples=MAX["fields"], **SETTINGS)
@given(data=st.data())
def test_a_field_made_wrong_is_refused_at_its_line(fmt, data, tmp_path):
    """A used field given a value no format takes is an error at that line (or made the line a comment: then
    it is skipped and counted); a field the reader does not use, given any value, reads as before or is
    refused at that line."""
    lines = data.draw(base_file(fmt))
    sep = SAMPLES[fmt][2]
    candidates = [i for i, ln in enumerate(lines) if ln.strip() and not _is_summary(fmt, ln)]
    k = data.draw(st.sampled_from(candidates))
    parts = split_fields(lines[k], sep)
    header = fmt in HEADER_FORMATS and k == 0
    roles = field_roles(fmt, parts[::2], header)
    j = data.draw(st.sampled_from([i for i, r in enumerate(roles) if r != "free"]))
    used = roles[j] != "noise"
    lead = re.match(r"\s*", parts[2 * j]).group() if sep == "ws" and j == 0 else ""
    parts[2 * j] = lead + data.draw(bad_value(roles[j], sep) if used else noise_value(sep))
    damaged = lines[:k] + ["".join(parts)] + lines[k + 1:]
    original = None if used else original_of(tmp_path, fmt, lines)
    check_verdict(tmp_path, fmt, "".join(ln + "\n" for ln in damaged), blank(lines, {k + 1}), {k + 1}, original)
    if damaged[k].lstrip().startswith("#"):  # a comment now: skipped and counted
        tr, _ = read(tmp_path / f"m.{fmt}", fmt)
        utr, _ = read(tmp_path / f"u.{fmt}", fmt)
        if tr is not None and utr is not None:
            assert tr.meta.get("skipped_comment_lines", 0) == utr.meta.get("skipped_comment_lines", 0) + 1


# --- whole lines, cuts, line ends, concatenation -------------------------------------------------------------
def _line_ends(data: bytes) -> int:
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n")


@pytest.mark.parametrize("fmt", LINE_FORMATS)
@settings(max_examples=MAX["line"], **SETTINGS)
@given(data=st.data())
def test_a_line_of_random_bytes_is_refused_at_its_line(fmt, data, tmp_path):
    lines = data.draw(base_file(fmt))
    k = data.draw(st.integers(0, len(lines) - 1))
    junk = data.draw(st.binary(max_size=40))
    touched = set(range(k + 1, k + 2 + _line_ends(junk)))
    enc = [ln.encode() + b"\n" for ln in lines]
    damaged = b"".join(enc[:k]) + junk + b"\n" + b"".join(enc[k + 1:])
    check_verdict(tmp_path, fmt, damaged, blank(lines, {k + 1}), touched, original_of(tmp_path, fmt, lines))


@pytest.mark.parametrize("fmt", LINE_FORMATS)
@settings(max_examples=MAX["cut"], **SETTINGS)
@given(data=st.data())
def test_a_file_cut_short_reads_its_whole_lines_or_names_the_cut_one(fmt, data, tmp_path):
    lines = data.draw(base_file(fmt))
    text = "".join(ln + "\n" for ln in lines).encode()
    cut = data.draw(st.integers(1, len(text) - 1).filter(lambda p: text[p - 1:p] != b"\n"))
    k = text[:cut].count(b"\n")  # the 0-based line the cut falls in
    untouched = "".join(ln + "\n" for ln in lines[:k])
    check_verdict(tmp_path, fmt, text[:cut], untouched, {k + 1}, cut=True)


@st.composite
def line_ends(draw, lines: list[str]) -> bytes:
    """The lines with LF, CR LF or CR after each (CR only before a line that is not empty: CR then an empty
    line's LF would be one CR LF), a byte-order mark before some, the last line end perhaps missing."""
    out = []
    for i, ln in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else "x"
        end = draw(st.sampled_from(["\n", "\r\n", "\r"] if nxt else ["\n", "\r\n"]))
        bom = "\ufeff" if draw(st.integers(0, 4)) == 0 else ""
        out.append(bom + ln + end)
    if draw(st.booleans()):
        out[-1] = out[-1].rstrip("\r\n")
    return "".join(out).encode()


@cache
def sample_read(fmt: str):
    """The reading of the format's sample file, as it is."""
    tr, err = read(DATA / SAMPLES[fmt][0], fmt)
    assert err is None, err
    return tr


@cache
def sniffed_as_itself(fmt: str) -> bool:
    tr, _ = read(DATA / SAMPLES[fmt][0], None)
    return tr is not None and tr.meta["format"] == fmt


@pytest.mark.parametrize("fmt", LINE_FORMATS)
@settings(max_examples=MAX["ends"], **SETTINGS)
@given(data=st.data())
def test_line_ends_marks_and_comment_blocks_change_nothing(fmt, data, tmp_path):
    """Mixed line ends, byte-order marks at line starts and a comment block of any length before the records
    (sniffing looked at 20 KB) read as the plain file, the comments counted."""
    lines = data.draw(base_file(fmt))
    original = original_of(tmp_path, fmt, lines)
    comments = data.draw(st.sampled_from([0, 1, 40, 400]))
    body = data.draw(line_ends(lines))
    path = write(tmp_path / f"e.{fmt}", b"# an exported trace; the columns are ...........\n" * comments + body)
    for name in [fmt] + ([None] if sniffed_as_itself(fmt) else []):
        tr, err = read(path, name)
        assert err is None, err
        assert same(tr, original) and tr.meta["format"] == fmt
        assert tr.meta.get("skipped_comment_lines", 0) == comments + original.meta.get("skipped_comment_lines", 0)


def _blkparse_clock(lines: list[str]) -> tuple[float, float]:
    """The first and the latest time of a blkparse run's event lines (read here from the text)."""
    times = [float(ln.split()[3]) for ln in lines if not _is_summary("blkparse", ln) and ln.strip()]
    return times[0], max(times)


@pytest.mark.parametrize("fmt", sorted(set(LINE_FORMATS) - {"mobibench"}))
@settings(max_examples=MAX["concat"], **SETTINGS)
@given(data=st.data())
def test_concatenated_files_read_as_their_parts(fmt, data, tmp_path):
    """A file of 2 or 3 copies of one file (each with its own line ends and byte-order mark) holds each copy's
    records in turn; a second CSV header is refused at its line; blkparse runs follow one another in time
    (a run starts where the one before ended). (mobibench is left out: its calls replay in time order, so two
    logs interleave.)"""
    lines = data.draw(base_file(fmt))
    original = original_of(tmp_path, fmt, lines)
    k = data.draw(st.integers(2, 3))
    parts = [data.draw(line_ends(lines)) for _ in range(k)]
    parts = [p if p.endswith((b"\n", b"\r")) else p + b"\n" for p in parts]
    path = write(tmp_path / f"c.{fmt}", b"".join(parts))
    tr, err = read(path, fmt)
    if fmt in HEADER_FORMATS:
        assert err is not None and line_named(err, path) == len(lines) + 1, err
        return
    assert err is None, err
    shift = 0.0
    if fmt == "blkparse":
        first, latest = _blkparse_clock(lines)
        shift = latest - first
        assert tr.meta["summary_blocks"] == k and tr.meta.get("runs_joined", 0) == (k - 1 if shift > 0 else 0)
    n = len(original)
    for i in range(k):
        piece = slice(i * n, (i + 1) * n)
        assert tr.op[piece].tolist() == original.op.tolist()
        assert np.array_equal(tr.offset_bytes[piece], original.offset_bytes)
        assert np.array_equal(tr.size_bytes[piece], original.size_bytes)
        np.testing.assert_allclose(tr.time_s[piece], original.time_s + i * shift, rtol=0, atol=1e-9)
    assert len(tr) == k * n


# --- compressed files and random bytes --------------------------------------------------------------------------
CODECS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress,
          "zst": lambda b: zstandard.ZstdCompressor(write_checksum=True).compress(b)}


@pytest.mark.parametrize("codec", sorted(CODECS))
@settings(max_examples=MAX["compressed"], **SETTINGS)
@given(data=st.data())
def test_damaged_compressed_file_is_refused_naming_it(codec, data, tmp_path):
    """Cut short, bytes flipped or junk appended: refused naming the file (truncated or corrupt data, or the
    text it decodes to), or read as the undamaged file (a byte no check covers, e.g. gzip's time stamp)."""
    fmt = data.draw(st.sampled_from(LINE_FORMATS))
    blob = bytearray(CODECS[codec]("".join(ln + "\n" for ln in sample_lines(fmt)).encode()))
    how = data.draw(st.sampled_from(["cut", "flip", "append"]))
    if how == "cut":
        blob = blob[:data.draw(st.integers(0, len(blob) - 1))]
    elif how == "flip":
        for at in data.draw(st.lists(st.integers(0, len(blob) - 1), min_size=1, max_size=3)):
            blob[at] ^= data.draw(st.integers(1, 255))
    else:
        blob += data.draw(st.binary(min_size=1, max_size=20))
    path = write(tmp_path / f"t.{codec}", bytes(blob))
    tr, err = read(path, fmt)
    if err is not None:
        assert str(path) in err, err
        return
    assert same(tr, sample_read(fmt))


@pytest.mark.parametrize("fmt", sorted(SAMPLES) + ["android-sql"])
@settings(max_examples=MAX["noise"], **SETTINGS)
@given(blob=st.binary(max_size=200))
def test_random_bytes_are_refused_naming_the_file_or_read_sanely(fmt, blob, tmp_path):
    path = write(tmp_path / f"r.{fmt}", blob)
    opts = SAMPLES[fmt][1] if fmt in SAMPLES else {}
    try:
        tr = read_trace(path, fmt, **opts)
    except (TraceFormatError, ValueError) as e:
        assert str(path) in str(e), str(e)
        return
    assert np.isfinite(tr.time_s).all() and (tr.size_bytes >= 0).all() and (tr.offset_bytes >= 0).all()
