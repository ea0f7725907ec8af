"""Readers of real trace formats into :class:`~flashrepro.traces.trace.Trace`.

Every text format goes through the same path: decompress (by magic bytes), split into lines, match each
line against the format's anchored regular expression in polars (vectorised; a 1M-line file takes about
a second), convert the captured fields, and validate. A line that neither matches nor is skippable
(blank, comment, header) raises :class:`TraceFormatError` naming the file, the 1-based line number, the
line and the reason; so do unknown opcodes, negative sizes and offsets that overflow.

Multi-device formats fold the device number into the byte offset (``device << 44``, 16 TiB per device),
so distinct devices never share pages and the order within a device is kept.

Add a format with :func:`register_format`; ``flashrepro formats`` lists them.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

from .._io import TraceFormatError, read_bytes
from .trace import Op, Trace

DEVICE_SHIFT = 44
SECTOR = 512
_MAX_OFFSET = 1 << 62  # offsets at or above this cannot be right (and would overflow when shifted)


@dataclasses.dataclass(frozen=True)
class Format:
    """A line-oriented trace format.

    ``pattern`` is an anchored regex with named groups; ``skip`` matches lines to ignore; ``build``
    turns the matched string columns (a polars DataFrame with a ``_line`` column of 1-based line
    numbers) into Trace columns via a :class:`_Fields` helper.
    """

    name: str
    description: str
    pattern: str
    build: Callable
    skip: str = r"^\s*(#.*)?$"
    strict: bool = True  # False: lines that do not match are skipped (blkparse's summary sections)
    sniff: str | None = ""  # regex the first records must match for format=None; "" = pattern, None = never
    folder: Callable | None = None  # a format that reads a folder, not lines: ``folder(path, **opts) -> Trace``
    is_folder: Callable | None = None  # ``is_folder(path) -> bool``: sniffs a folder of this format


FORMATS: dict[str, Format] = {}


def register_format(fmt: Format) -> Format:
    if fmt.name in FORMATS:
        raise ValueError(f"format {fmt.name!r} is already registered")
    FORMATS[fmt.name] = fmt
    return fmt


def format_names() -> list[str]:
    return sorted(FORMATS)


def get_format(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown trace format {name!r}; known formats: {', '.join(format_names())}") from None


class _Fields:
    """Typed access to the matched columns, with errors that point at the offending line."""

    def __init__(self, df: pl.DataFrame, path: Path, lines: pl.Series):
        self.df, self.path, self.lines = df, path, lines

    def fail(self, row: int, why: str):
        lineno = int(self.df["_line"][row])
        text = self.lines[lineno - 1]
        raise TraceFormatError(f"{self.path}:{lineno}: {why}: {text[:200]!r}")

    def num(self, col: str, dtype=pl.Int64, nonneg: bool = True) -> np.ndarray:
        s = self.df[col].str.strip_chars()
        out = s.cast(dtype, strict=False)
        bad = out.is_null() & s.is_not_null()
        if bad.any():
            self.fail(int(bad.arg_max()), f"field {col!r} is not a valid {dtype} number")
        arr = out.to_numpy()
        if nonneg:
            neg = np.flatnonzero(arr < 0)
            if neg.size:
                self.fail(int(neg[0]), f"negative {col} {arr[neg[0]]}")
        return arr

    def op(self, col: str, mapping: dict[str, int]) -> np.ndarray:
        s = self.df[col].str.strip_chars()
        out = s.replace_strict(mapping, default=None, return_dtype=pl.Int8)
        bad = out.is_null()
        if bad.any():
            i = int(bad.arg_max())
            self.fail(i, f"unknown opcode {s[i]!r} (expected one of {sorted(mapping)})")
        return out.to_numpy()

    def scaled(self, values: np.ndarray, unit: int, what: str) -> np.ndarray:
        """``values * unit`` as int64, refusing values that would overflow."""
        limit = _MAX_OFFSET // max(unit, 1)
        over = np.flatnonzero(values >= limit)
        if over.size:
            self.fail(int(over[0]), f"{what} {values[over[0]]} is too large (over 2^62 bytes)")
        return values.astype(np.int64) * unit


def _lines(data: bytes, path: Path) -> pl.Series:
    text = data.decode("utf-8", errors="replace")
    if text.endswith("\n"):
        text = text[:-1]
    return pl.Series("line", [text]).str.split("\n").explode().str.strip_suffix("\r")


def parse_lines(data: bytes, path: Path, fmt: Format, **opts) -> Trace:
    """Parse decompressed ``data`` with ``fmt``; ``path`` is used in messages and as the source."""
    lines = _lines(data, path)
    df = pl.DataFrame({"line": lines}).with_row_index("_line", offset=1)
    keep = ~df["line"].str.contains(fmt.skip)
    df = df.filter(keep)
    groups = df["line"].str.extract_groups(fmt.pattern)
    matched = groups.struct.field(groups.struct.fields[0]).is_not_null()
    if fmt.strict and not matched.all():
        i = int((~matched).arg_max())
        lineno = int(df["_line"][i])
        raise TraceFormatError(f"{path}:{lineno}: does not look like a {fmt.name} record "
                               f"({fmt.description}): {lines[lineno - 1][:200]!r}")
    fields = groups.struct.unnest().with_columns(df["_line"]).filter(matched)
    if fields.height == 0:
        raise TraceFormatError(f"{path}: no {fmt.name} records found (empty trace)")
    f = _Fields(fields, path, lines)
    cols = fmt.build(f, **opts)
    keep_rows = cols.pop("keep", None)
    meta = cols.pop("meta", {})
    if keep_rows is not None:
        cols = {k: v[keep_rows] for k, v in cols.items()}
        if len(cols["op"]) == 0:
            raise TraceFormatError(f"{path}: no {fmt.name} records left after filtering (empty trace)")
    t = np.asarray(cols["time_s"], dtype=np.float64)
    cols["time_s"] = t - t[0] if t.size else t
    return Trace(**cols, name=path.name.split(".")[0], source=str(path),
                 meta={"format": fmt.name, **meta})


def read_trace(path, format: str | None = None, **opts) -> Trace:
    """Read a trace file (plain or gzip/bz2/xz/zstd compressed) without caching.

    ``format=None`` sniffs the format from the first records. Prefer
    :func:`flashrepro.traces.load_trace`, which caches the parsed arrays.
    """
    path = Path(path)
    if path.is_dir():
        return read_folder(path, format, **opts)
    if not path.is_file():
        raise FileNotFoundError(f"no trace file at {path}")
    if format and get_format(format).folder is not None:
        raise TraceFormatError(f"{path}: format {format!r} reads a folder, not a file")
    data = read_bytes(path)
    if not data.strip():
        raise TraceFormatError(f"{path}: the file is empty (empty trace)")
    fmt = get_format(format) if format else sniff_format(data, path)
    return parse_lines(data, path, fmt, **opts)


def read_folder(path: Path, format: str | None = None, **opts) -> Trace:
    """A trace stored as a folder (``android-sql``: an app's SQL statement files, replayed through SQLite)."""
    if format:
        fmt = get_format(format)
    else:
        found = [f for f in FORMATS.values() if f.is_folder is not None and f.is_folder(path)]
        if not found:
            raise TraceFormatError(f"{path} is a folder, and no folder format recognises it; folder formats: "
                                   f"{', '.join(f.name for f in FORMATS.values() if f.folder is not None)}")
        fmt = found[0]
    if fmt.folder is None:
        raise TraceFormatError(f"{path} is a folder; format {fmt.name!r} reads a file")
    return fmt.folder(path, **opts)


def sniff_format(data: bytes, path: Path) -> Format:
    """The first registered format whose pattern matches the first few records of ``data``."""
    lines = data[:20000].decode("utf-8", errors="replace").splitlines()
    head = lines[:-1] or lines  # the last line may be cut at the 20,000-byte mark
    for fmt in FORMATS.values():
        if fmt.sniff is None:
            continue
        recs = [ln.rstrip("\r") for ln in head if not re.search(fmt.skip, ln)][:10]
        # an explicit sniff pattern is about the first record (often a header); otherwise all must match
        if recs and (re.match(fmt.sniff, recs[0]) if fmt.sniff else all(re.match(fmt.pattern, r) for r in recs)):
            return fmt
    raise TraceFormatError(f"{path}: cannot tell the trace format; pass format= one of {', '.join(format_names())}")


def _opmap(reads, writes) -> dict[str, int]:
    return {**{r: Op.READ for r in reads}, **{w: Op.WRITE for w in writes}}


def _extent_filter(f: _Fields, offset_sectors: np.ndarray, size_sectors: np.ndarray, max_sector: int | None):
    """Rows to keep when a reader is told to drop records beyond ``max_sector`` (bogus sector values)."""
    if max_sector is None:
        return None, {}
    bad = (offset_sectors + np.minimum(size_sectors, max_sector) > max_sector) | (size_sectors > max_sector)
    nbad = int(bad.sum())
    if nbad:
        first = int(f.df["_line"][int(np.argmax(bad))])
        warnings.warn(f"{f.path}: dropped {nbad} records past sector {max_sector} (first at line {first})",
                      stacklevel=4)
    return ~bad, {"dropped_records": nbad, "dropped_reason": f"extent past sector {max_sector}"}


def _sector_trace(f, time_s, op, dev, sector, nsect, max_sector=None):
    keep, meta = _extent_filter(f, sector, nsect, max_sector)
    if keep is not None:  # drop before scaling so bogus values cannot overflow
        time_s, op, dev, sector, nsect = (a[keep] for a in (time_s, op, dev, sector, nsect))
        f.df = f.df.filter(pl.Series(keep))
    offset = f.scaled(sector, SECTOR, "sector") + (dev.astype(np.int64) << DEVICE_SHIFT)
    return {"time_s": time_s, "op": op, "offset_bytes": offset, "size_bytes": f.scaled(nsect, SECTOR, "length"),
            "meta": meta}


_F = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"  # a float
_I = r"-?\d+"  # an integer, sign kept so that negative sizes get their own message


def _spc(f):
    return {"time_s": f.num("time", pl.Float64), "op": f.op("op", _opmap("rR", "wW")),
            "offset_bytes": f.scaled(f.num("lba"), SECTOR, "lba") + (f.num("asu") << DEVICE_SHIFT),
            "size_bytes": f.num("size")}


register_format(Format(
    "spc", "UMass SPC: ASU,LBA(512 B),size(bytes),opcode(r/w),timestamp(s)",
    rf"^\s*(?P<asu>\d+)\s*,\s*(?P<lba>\d+)\s*,\s*(?P<size>{_I})\s*,\s*(?P<op>[A-Za-z]+)\s*,\s*(?P<time>{_F})\s*,?\s*$",
    _spc))


def _msr(f):
    t = f.num("time")
    return {"time_s": (t - t[0]) * 1e-7, "op": f.op("op", _opmap(["Read", "read"], ["Write", "write"])),
            "offset_bytes": f.num("offset") + (f.num("disk") << DEVICE_SHIFT), "size_bytes": f.num("size")}


register_format(Format(
    "msr", "MSR Cambridge CSV: Timestamp(100 ns),Hostname,DiskNumber,Type,Offset(B),Size(B),ResponseTime",
    rf"^(?P<time>\d+),(?P<host>[^,]*),(?P<disk>\d+),(?P<op>[^,]*),(?P<offset>\d+),(?P<size>{_I}),(?P<resp>\d*)\s*$",
    _msr, skip=r"^\s*(#.*)?$|^Timestamp"))


def _arc(f):
    n = f.num("count")
    start = f.num("start")
    return {"time_s": np.zeros(len(n)), "op": np.full(len(n), Op.READ, np.int8),
            "offset_bytes": f.scaled(start, SECTOR, "block"), "size_bytes": f.scaled(n, SECTOR, "count")}


register_format(Format(
    "arc", "ARC .lis: start_block(512 B) count ignore request_no; reads only, no time",
    rf"^\s*(?P<start>\d+)\s+(?P<count>{_I})\s+(?P<ignore>{_I})\s+(?P<req>\d+)\s*$", _arc))


def _diskmon(f, max_sector=None):
    return _sector_trace(f, f.num("time", pl.Float64), f.op("op", _opmap(["Read"], ["Write"])),
                         f.num("disk"), f.num("sector"), f.num("len"), max_sector)


register_format(Format(
    "diskmon", "Sysinternals DiskMon log: seq time_s duration_s disk Read|Write sector length_sectors",
    rf"^\s*(?P<seq>\d+)\s+(?P<time>{_F})\s+(?P<dur>{_F})\s+(?P<disk>\d+)\s+(?P<op>[A-Za-z]+)\s+"
    rf"(?P<sector>\d+)\s+(?P<len>{_I})\s*$", _diskmon))


def _mqsim(f, time_unit_s=1e-9):
    return _sector_trace(f, f.num("time", pl.Float64) * time_unit_s, f.op("op", {"1": Op.READ, "0": Op.WRITE}),
                         f.num("dev"), f.num("sector"), f.num("len"))


_FIVE = rf"^\s*(?P<time>{_F})\s+(?P<dev>\d+)\s+(?P<sector>\d+)\s+(?P<len>{_I})\s+(?P<op>\S+)\s*$"
register_format(Format(
    "mqsim", "MQSim/DiskSim ASCII: arrival_ns device sector size_sectors type(0=write,1=read)", _FIVE, _mqsim))
register_format(Format(
    "ssdsim", "SSDsim ASCII: time device lsn size_sectors op(0=write,1=read); time_unit_s=1e-3 for ms",
    _FIVE, _mqsim))


def _fiu(f, merge_contiguous=False):
    """``merge_contiguous=True``: consecutive records of the same operation whose extents touch end to start
    become one request (the FIU IODedup traces log one 4 KiB block per record, so a request of several
    blocks appears as a run of records; paper 3's Table 4 sizes of 6-45 KB are such merged requests). The
    merged request keeps its first record's time."""
    cols = _sector_trace(f, f.num("time", pl.Float64) * 1e-9, f.op("op", _opmap("R", "W")),
                         np.zeros(f.df.height, np.int64), f.num("lba"), f.num("size"))
    if merge_contiguous:
        cols.update(merge_contiguous_requests(cols["time_s"], cols["op"], cols["offset_bytes"], cols["size_bytes"]))
    return cols


def merge_contiguous_requests(time_s, op, offset, size) -> dict:
    """Merge runs of consecutive requests with the same op, each starting where the previous one ended."""
    time_s, op, offset, size = (np.asarray(a) for a in (time_s, op, offset, size))
    joins = np.r_[False, (op[1:] == op[:-1]) & (offset[1:] == offset[:-1] + size[:-1])]
    starts = np.flatnonzero(~joins)
    return {"time_s": time_s[starts], "op": op[starts], "offset_bytes": offset[starts],
            "size_bytes": np.add.reduceat(size, starts) if len(starts) else size[:0],
            "meta": {"merged_records": int(joins.sum()), "records": len(op)}}


register_format(Format(
    "fiu", "FIU blkparse-like: ts_ns pid process lba(512 B) size_sectors R|W major minor md5; "
    "merge_contiguous=True joins runs of contiguous records",
    rf"^\s*(?P<time>\d+)\s+(?P<pid>\d+)\s+(?P<proc>.+?)\s+(?P<lba>\d+)\s+(?P<size>{_I})\s+(?P<op>\S+)"
    r"\s+(?P<major>\d+)\s+(?P<minor>\d+)(?:\s+(?P<md5>[0-9a-fA-F]+))?\s*$", _fiu))


def _blkparse(f, action="C"):
    df = f.df
    sel = (df["action"] == action).to_numpy()
    rwbs = df["rwbs"]
    has_data = (rwbs.str.contains("[RWD]") & (df["action"] == action)).to_numpy()
    ext = df["rest"].str.extract_groups(rf"^(?P<sector>\d+)\s+\+\s+(?P<n>{_I})")
    no_ext = ext.struct.field("sector").is_null().to_numpy()
    bad = np.flatnonzero(has_data & no_ext)
    if bad.size:
        f.fail(int(bad[0]), "a data request without 'sector + count'")
    op = np.where(rwbs.str.contains("D").to_numpy(), Op.TRIM,
                  np.where(rwbs.str.contains("W").to_numpy(), Op.WRITE,
                           np.where(rwbs.str.contains("R").to_numpy(), Op.READ, Op.FLUSH))).astype(np.int8)
    sector = ext.struct.field("sector").fill_null("0").cast(pl.Int64).to_numpy()
    n = ext.struct.field("n").fill_null("0").cast(pl.Int64).to_numpy()
    neg = np.flatnonzero(sel & (n < 0))
    if neg.size:
        f.fail(int(neg[0]), f"negative size {n[neg[0]]}")
    dev = (f.num("maj") << 8) + f.num("min")
    cols = _sector_trace(f, f.num("time", pl.Float64), op, dev, sector, n)
    cols["keep"] = sel
    return cols


register_format(Format(
    "blkparse", "blkparse text: maj,min cpu seq time pid action rwbs sector + n [process]; action C kept",
    rf"^\s*(?P<maj>\d+),(?P<min>\d+)\s+(?P<cpu>\d+)\s+(?P<seq>\d+)\s+(?P<time>{_F})\s+(?P<pid>\d+)\s+"
    r"(?P<action>[A-Za-z]+)\s+(?P<rwbs>[A-Z]+)\s*(?P<rest>.*)$", _blkparse, strict=False,
    sniff=r"^\s*\d+,\d+\s+\d+\s+\d+\s+[0-9.]+\s+\d+\s+[A-Za-z]+\s+[A-Z]+"))


def _most(f, action="C"):
    sel = (f.df["action"] == action).to_numpy()
    rwbs = f.df["rwbs"]
    n = f.num("n")
    op = np.where(rwbs.str.contains("W").to_numpy(), Op.WRITE,
                  np.where(rwbs.str.contains("R").to_numpy(), Op.READ, Op.FLUSH)).astype(np.int8)
    op = np.where(n == 0, Op.FLUSH, op).astype(np.int8)  # zero-length completions are barriers/flushes
    cols = _sector_trace(f, f.num("time", pl.Float64), op, np.zeros(f.df.height, np.int64), f.num("sector"), n)
    cols["keep"] = sel
    return cols


register_format(Format(
    "most", "MOST (Android blktrace viewer) .po: time action rwbs sector size_sectors pid process type [file]; "
    "action C kept",
    rf"^\s*(?P<time>{_F})\t(?P<action>[A-Z])\t(?P<rwbs>[A-Z]+)\t\s*(?P<sector>\d+)\t\s*(?P<n>{_I})\t\s*(?P<pid>\d+)"
    r"\t(?P<rest>.*)$", _most))


@dataclasses.dataclass(frozen=True)
class CsvLayout:
    """Where the fields of a delimited trace are and in which units.

    Columns are 0-based indices or header names (``header=True``). Units are multipliers: bytes per
    offset unit, bytes per size unit, seconds per time unit.
    """

    offset: int | str
    size: int | str
    op: int | str
    time: int | str | None = None
    device: int | str | None = None
    reads: tuple[str, ...] = ("R", "r", "Read", "read", "0")
    writes: tuple[str, ...] = ("W", "w", "Write", "write", "1")
    sep: str = ","
    header: bool = False
    offset_unit: int = 1
    size_unit: int = 1
    time_unit_s: float = 1.0


CSV_PRESETS = {
    "cloudphysics": CsvLayout(offset="lbn", size="size", op="op", time="time", header=True,
                              reads=("28",), writes=("2a", "2A"), offset_unit=SECTOR),
    "tencent": CsvLayout(time=0, offset=1, size=2, op=3, device=4, reads=("0",), writes=("1",),
                         offset_unit=SECTOR, size_unit=SECTOR),
    "systor17": CsvLayout(time="Timestamp", op="IOType", device="LUN", offset="Offset", size="Size",
                          header=True),
}


def _csv(f, layout: CsvLayout | dict | str | None = None):
    if layout is None:
        raise TraceFormatError(f"{f.path}: format 'csv' needs layout=CsvLayout(...) or a preset name "
                               f"({', '.join(CSV_PRESETS)})")
    if isinstance(layout, str):
        layout = CSV_PRESETS[layout]
    elif isinstance(layout, dict):
        layout = CsvLayout(**layout)
    rows = f.df["row"]
    parts = rows.str.split(layout.sep)
    hdr = None
    if layout.header:
        hdr = [h.strip() for h in rows[0].split(layout.sep)]
        f.df = f.df.slice(1)
        parts = parts.slice(1)

    def col(spec):
        if isinstance(spec, str) and hdr is not None:
            if spec not in hdr:
                raise TraceFormatError(f"{f.path}: no column {spec!r} in header {hdr}")
            spec = hdr.index(spec)
        return parts.list.get(int(spec), null_on_oob=True).alias(f"column {spec}")

    need = [c for c in (layout.offset, layout.size, layout.op, layout.time, layout.device) if c is not None]
    if f.df.height == 0:
        raise TraceFormatError(f"{f.path}: no records (empty trace)")
    for spec in need:
        s = col(spec)
        if s.is_null().any():
            f.fail(int(s.is_null().arg_max()), f"missing field {spec!r}")
    f.df = f.df.with_columns([col(c).alias(str(c)) for c in need])
    n = f.df.height
    dev = f.num(str(layout.device)) if layout.device is not None else np.zeros(n, np.int64)
    time = f.num(str(layout.time), pl.Float64) * layout.time_unit_s if layout.time is not None else np.zeros(n)
    return {"time_s": time, "op": f.op(str(layout.op), _opmap(layout.reads, layout.writes)),
            "offset_bytes": f.scaled(f.num(str(layout.offset)), layout.offset_unit, "offset")
            + (dev << DEVICE_SHIFT),
            "size_bytes": f.scaled(f.num(str(layout.size)), layout.size_unit, "size")}


_ROW = r"^(?P<row>.*)$"
register_format(Format(
    "csv", "delimited text with a column mapping: layout=CsvLayout(...) or a preset name "
    f"({', '.join(CSV_PRESETS)})", _ROW, _csv, sniff=None))
# the presets are formats of their own, so they work from the command line and are sniffed
register_format(Format("cloudphysics", "CloudPhysics CSV: version,time,op(28/2a),size(B),lbn(512 B)", _ROW,
                       functools.partial(_csv, layout="cloudphysics"), sniff=r"^version,time,op,size,lbn"))
register_format(Format("tencent", "Tencent CBS CSV: timestamp,offset(512 B),size(512 B),ioType(0=R,1=W),volume",
                       _ROW, functools.partial(_csv, layout="tencent"), sniff=r"^\d+,\d+,\d+,[01],\d+\s*$"))
register_format(Format("systor17", "SYSTOR'17 CSV: Timestamp,Response,IOType,LUN,Offset(B),Size(B)", _ROW,
                       functools.partial(_csv, layout="systor17"), sniff=r"^Timestamp,Response,IOType,LUN"))


# --- file-level traces ------------------------------------------------------------------------------------
def _android_sql(path, **opts):
    from .android_sql import read_folder as replay_folder

    return replay_folder(path, **opts)


def _is_app_folder(path):
    from .android_sql import is_app_folder

    return is_app_folder(Path(path))


def _no_lines(f, **opts):
    raise TraceFormatError(f"{f.path}: this format reads a folder")


register_format(Format(
    "android-sql", "a folder of Android app SQL statement traces (loading.sql, threads/*.sql, benchset/*.sql), "
    "replayed through SQLite into a file-level block trace with syncs and deletes (paper 5)", r"^$", _no_lines,
    sniff=None, folder=_android_sql, is_folder=_is_app_folder))


_PSEUDO = re.compile(r'^"?/?(proc|dev|sys)/')


def _mobibench(f, file_identity="open", unopened="skip", merge_writes=True):
    """MobiGen syscall lines -> a file-level block trace: file positions tracked per fd (there is no lseek in
    these logs), each open a new file (``file_identity="open"``; the logs anonymise most paths, e.g. 464
    opens of ``data/data``) or one file per path until it is unlinked (``"path"``); I/O on fds opened before
    the log starts (sockets and pipes: 1,448-byte reads, -1 results) skipped (``unopened="skip"``) or taken
    as files (``"keep"``); /proc, /dev and /sys files and directories carry no data blocks."""
    from .filelevel import FileBlocks

    if file_identity not in ("open", "path"):
        raise TraceFormatError(f"{f.path}: file_identity must be 'open' or 'path', got {file_identity!r}")
    if unopened not in ("skip", "keep"):
        raise TraceFormatError(f"{f.path}: unopened must be 'skip' or 'keep', got {unopened!r}")
    t_us = f.num("time")
    order = np.argsort(t_us, kind="stable")  # the log is grouped by thread; the fd table is the process's
    ops = f.df["op"].to_list()
    rests = f.df["rest"].fill_null("").to_list()
    fb = FileBlocks(merge_writes)
    fds: dict = {}  # fd -> [file id or None (no data), position]
    by_path: dict = {}  # path -> file id (the path's current file)
    skipped = {"unopened_fd_calls": 0, "pseudo_file_calls": 0, "failed_calls": 0, "other_calls": 0,
               "unlinks_matched": 0, "unlinks_unmatched": 0}
    for i in order.tolist():
        op, args, t = ops[i], rests[i].split(), t_us[i] * 1e-6
        try:
            if op == "open":
                path, flags, fd = " ".join(args[:-2]), args[-2], int(args[-1])
                if fd < 0:
                    skipped["failed_calls"] += 1
                    continue
                pseudo = bool(_PSEUDO.match(path)) or "O_DIRECTORY" in flags
                if file_identity == "path" and path in by_path:
                    fid = by_path[path]
                    if "O_TRUNC" in flags:
                        fb.truncate(t, fid, 0)
                else:
                    fid = fb.new_file(path)
                    by_path[path] = fid
                fds[fd] = [fid, 0, pseudo]
            elif op == "close":
                fds.pop(int(args[0]), None)
            elif op == "unlink":
                path = " ".join(args[:-1])
                fid = by_path.pop(path, None)
                if fid is None:
                    skipped["unlinks_unmatched"] += 1
                else:
                    skipped["unlinks_matched"] += 1
                    fb.delete(t, fid)
            elif op in ("read", "write", "pread", "pwrite", "fsync", "fdatasync"):
                fd = int(args[0])
                if fd not in fds:
                    if unopened == "skip":
                        skipped["unopened_fd_calls"] += 1
                        continue
                    fds[fd] = [fb.new_file(f"<fd {fd}>"), 0, False]
                entry = fds[fd]
                if op in ("fsync", "fdatasync"):
                    fb.sync(t, entry[0])
                    continue
                n = int(args[-1])
                if n <= 0:
                    skipped["failed_calls"] += 1
                    continue
                if entry[2]:
                    skipped["pseudo_file_calls"] += 1
                    continue
                if op in ("pread", "pwrite"):
                    offset = int(args[1])
                else:
                    offset = entry[1]
                    entry[1] += n
                (fb.write if op.endswith("write") else fb.read)(t, entry[0], offset, n)
            else:
                skipped["other_calls"] += 1
        except (IndexError, ValueError):
            f.fail(i, f"cannot read the arguments of {op!r}")
    tr = fb.trace("mobibench", str(f.path), {})
    return {"time_s": tr.time_s, "op": tr.op, "offset_bytes": tr.offset_bytes, "size_bytes": tr.size_bytes,
            "file": tr.file, "meta": {**skipped, "files": len(tr.meta["files"]),
                                      "merged_block_writes": tr.meta["merged_block_writes"],
                                      "file_identity": file_identity, "unopened": unopened}}


register_format(Format(
    "mobibench", "MobiGen/Mobibench syscall log: thread time_us op args (open path flags fd, read|write fd n, "
    "pread|pwrite fd offset n, fsync fd, unlink path, ...); a file-level block trace (paper 5)",
    r"^\s*(?P<tid>\d+)\s+(?P<time>\d+)\s+(?P<op>[a-z][a-z_0-9]*)(?:\s+(?P<rest>.*?))?\s*$", _mobibench))
