"""Readers of real trace formats into :class:`~flashrepro.traces.trace.Trace`.

Every text format goes through the same path. The file is decompressed as a stream (by magic bytes) and
cut into blocks of whole lines (a UTF-8 byte-order mark is dropped; CR LF and lone CR end lines too). Each
block is read by the format's typed fast path where it has one (:mod:`.fastparse`: one Numba pass, no
regular expressions); a block the fast path cannot read exactly goes through the format's anchored
regular expression in polars instead, which accepts the line or names it. A line that neither matches nor is
skippable (blank, comment, header) raises :class:`TraceFormatError` naming the file, the 1-based line
number, the line and the reason; so do unknown opcodes, negative sizes, non-finite times, offsets that
overflow, and reads or writes larger than ``max_request_bytes`` (1 GiB unless a reader is told otherwise; a
trim of any size is a range, never expanded). Blocks are parsed one at a time, so a file of any length parses
in bounded memory (:func:`iter_trace`).

Formats with a device field give the trace a ``device`` column beside the offset on that device: blkparse and
FIU the Linux device number (``major << 20 | minor``, a minor of up to 20 bits), the others the number as
written (SPC's ASU, MSR's disk, a LUN or a volume). Pages are keyed by device and page
(:class:`~flashrepro.traces.trace.AddressSpace`), with no share of bits per device, so devices of any number
and size never share pages, and an offset is never refused for being past some per-device limit.

Add a format with :func:`register_format`; ``flashrepro formats`` lists them.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import re
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._io import TraceFormatError, open_decompressed
from . import fastparse
from .fastparse import FastSpec
from .trace import Op, Trace

if TYPE_CHECKING:
    import polars as pl

INT, FLOAT = "int64", "float64"  # what _Fields.num reads a column as
SECTOR = 512
_MAX_OFFSET = 1 << 62  # offsets at or above this cannot be right (and would overflow when keyed)
MAX_REQUEST_BYTES = 1 << 30  # a read or write larger than this is an error (reader keyword max_request_bytes)
LINUX_MAJOR_BITS, LINUX_MINOR_BITS = 12, 20  # a Linux device number (dev_t) is major << 20 | minor
# Lines are parsed in blocks of about this many bytes. Small blocks reuse memory the last one freed: 64 MiB
# made the first run of a 245 MB file 1.4x slower (each block's buffers fresh pages) and 100 MiB bigger.
BLOCK_BYTES = 8 << 20


@dataclasses.dataclass(frozen=True)
class Format:
    """A line-oriented trace format.

    ``pattern`` is an anchored regex with named groups; ``skip`` matches lines to ignore; ``build``
    turns the matched columns (see :class:`_Fields`) into Trace columns. ``fast`` is the typed fast path
    (a :class:`~.fastparse.FastSpec` whose field names are the pattern's groups, or a callable
    ``fast(opts, state) -> FastSpec | None``); ``tail`` matches the first line of a trailing section that is
    skipped to the end of the file (blkparse's per-CPU summary), its lines counted in the trace's meta.
    ``batched=False`` reads the whole file as one block (a builder that needs every line at once); ``join``
    mends what a block boundary cut (two records a builder would have merged).
    """

    name: str
    description: str
    pattern: str
    build: Callable
    skip: str = r"^\s*(#.*)?$"
    strict: bool = True  # False: lines that do not match are skipped, counted and reported (meta, a warning)
    sniff: str | None = ""  # regex the first records must match for format=None; "" = pattern, None = never
    folder: Callable | None = None  # a format that reads a folder, not lines: ``folder(path, **opts) -> Trace``
    is_folder: Callable | None = None  # ``is_folder(path) -> bool``: sniffs a folder of this format
    fast: FastSpec | Callable | None = None
    tail: str | None = None
    batched: bool = True
    join: Callable | None = None  # ``join(prev, cols, ctx, **opts)``: mend a record cut by a block boundary
    prepare: Callable | None = None  # ``prepare(block, ctx) -> (block, lines taken)``: the file's first block


FORMATS: dict[str, Format] = {}


def register_format(fmt: Format) -> Format:
    if fmt.name in FORMATS:
        raise ValueError(f"format {fmt.name!r} is already registered")
    if fmt.pattern and "\\d" in fmt.pattern:  # regex \d also matches other scripts' digits; a trace is ASCII
        fmt = dataclasses.replace(fmt, pattern=fmt.pattern.replace("\\d", "[0-9]"))
    FORMATS[fmt.name] = fmt
    return fmt


def format_names() -> list[str]:
    return sorted(FORMATS)


def get_format(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown trace format {name!r}; known formats: {', '.join(format_names())}") from None


@dataclasses.dataclass
class _Ctx:
    """What carries from one block of a file to the next."""

    path: Path
    fmt: Format
    opts: dict
    line_base: int = 0  # lines before the current block
    t0: float | None = None  # the first record's time: every time is relative to it
    in_tail: bool = False
    final: bool = False  # the current block is the last one
    block_lines: int | None = None  # lines in the current block (an upper bound on its records)
    max_request_bytes: int = MAX_REQUEST_BYTES  # the largest read or write accepted
    state: dict = dataclasses.field(default_factory=dict)  # a builder's own state (a CSV header, ...)
    meta: dict = dataclasses.field(default_factory=dict)  # counts summed over blocks, other facts kept first


class _Fields:
    """Typed access to one block's records, with errors that point at the offending line.

    ``df`` holds the matched string columns and ``_line`` (1-based line numbers within the block);
    ``lines`` the block's lines (for messages)."""

    def __init__(self, df: pl.DataFrame, ctx: _Ctx, lines):
        self.df, self.ctx, self.lines = df, ctx, lines
        self.path = ctx.path

    @property
    def n(self) -> int:
        return self.df.height

    @property
    def state(self) -> dict:
        return self.ctx.state

    def line_of(self, row: int) -> int:
        """The 1-based line number in the file of record ``row``."""
        return self.ctx.line_base + int(self.df["_line"][row])

    def text_of(self, row: int) -> str:
        return self.lines[int(self.df["_line"][row]) - 1]

    def fail(self, row: int, why: str):
        raise TraceFormatError(f"{self.path}:{self.line_of(row)}: {why}: {self.text_of(row)[:200]!r}")

    def take(self, keep: np.ndarray) -> None:
        """Keep only the records where ``keep`` is true (before any column is read)."""
        import polars as pl

        self.df = self.df.filter(pl.Series(keep))

    def num(self, col: str, dtype=INT, nonneg: bool = True) -> np.ndarray:
        import polars as pl  # the line-by-line path only: polars stays off a fast read's imports (0.15 s)

        s = self.df[col].str.strip_chars()
        out = s.cast(pl.Float64 if dtype == FLOAT else pl.Int64, strict=False)
        bad = out.is_null() & s.is_not_null()
        if bad.any():
            kind = "an integer below 2^63" if dtype == INT else "a number"
            self.fail(int(bad.arg_max()), f"field {col.lstrip('_')!r} is not {kind}")
        arr = out.to_numpy()
        return self._checked(arr, col, nonneg)

    def _checked(self, arr: np.ndarray, col: str, nonneg: bool) -> np.ndarray:
        if arr.dtype.kind == "f":
            bad = np.flatnonzero(~np.isfinite(arr))
            if bad.size:
                self.fail(int(bad[0]), f"{col} {arr[bad[0]]} is not a finite number")
        if nonneg:
            neg = np.flatnonzero(arr < 0)
            if neg.size:
                self.fail(int(neg[0]), f"negative {col} {arr[neg[0]]}")
        return arr

    def op(self, col: str, mapping: dict[str, int]) -> np.ndarray:
        import polars as pl

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


class _Fallback(Exception):
    """The fast path met something it does not decide; the block goes through the regular expression."""


class _FastFields(_Fields):
    """The same access over the typed columns of the fast path. Whatever would be an error here sends the
    block to the regular-expression path instead, which accepts the line or names it."""

    def __init__(self, parsed: fastparse.Parsed, ctx: _Ctx, block: bytes):
        self.cols, self.rec_line, self.ctx, self.block = parsed.columns, parsed.line, ctx, block
        self.path = ctx.path

    @property
    def n(self) -> int:
        return len(self.rec_line)

    def fail(self, row: int, why: str):
        raise _Fallback(why)

    def take(self, keep: np.ndarray) -> None:
        self.cols = {k: v[keep] for k, v in self.cols.items()}
        self.rec_line = self.rec_line[keep]

    def num(self, col: str, dtype=INT, nonneg: bool = True) -> np.ndarray:
        arr = self.cols[col]
        if dtype == FLOAT:
            arr = arr.astype(np.float64)
        return self._checked(arr, col, nonneg)

    def op(self, col: str, mapping: dict[str, int]) -> np.ndarray:
        """The tokens looked up among the mapping's names packed as the tokenizer packs them (a binary search
        in a handful of keys; np.unique's sort cost 0.1 s per million records)."""
        keys, codes = fastparse.token_table(mapping)
        tok = self.cols[col]
        if len(keys) == 0:  # no name of the mapping fits in a token
            self.fail(0, "no opcode can match")
        at = np.minimum(np.searchsorted(keys, tok), len(keys) - 1)
        bad = np.flatnonzero(keys[at] != tok)
        if bad.size:
            name = fastparse.decode_token(tok[bad[0]])
            self.fail(int(bad[0]), f"unknown opcode {name!r} (expected one of {sorted(mapping)})")
        return codes[at]


def _normalise(data: bytes) -> bytes:
    """Line ends as \\n (CR LF and lone CR too)."""
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def _read_block(f, carry: bytes, size: int) -> bytearray:
    """``carry`` then up to ``size`` more bytes of ``f``, read straight into one buffer (no concatenation) from
    a plain file; a decompressing reader's output is appended."""
    if not isinstance(f, (io.BufferedReader, io.FileIO)):
        buf = bytearray(carry)
        buf += f.read(size)
        return buf
    buf = bytearray(len(carry) + size)
    buf[:len(carry)] = carry
    view = memoryview(buf)
    got = len(carry)
    with view:
        while got < len(buf):
            n = f.readinto(view[got:])
            if not n:
                break
            got += n
    del buf[got:]
    return buf


def iter_blocks(path: Path, block_bytes: int = BLOCK_BYTES) -> Iterator[bytes]:
    """The decompressed content of ``path`` in blocks of whole lines (bytes or bytearray), line ends
    normalised, a leading UTF-8 byte-order mark dropped. A truncated or corrupt compressed file raises
    :class:`TraceFormatError`. Each block is a fresh buffer the reader fills in place: the text is copied once,
    from the file into it."""
    carry = b""
    first = True
    with open_decompressed(path) as f:
        while True:
            data = _read_block(f, carry, block_bytes)
            if len(data) == len(carry):  # nothing more in the file
                break
            if first:
                if data.startswith(b"\xef\xbb\xbf"):
                    del data[:3]
                first = False
            if data.endswith(b"\r"):  # the \n of a CR LF may come with the next chunk
                carry = b"\r"
                del data[-1:]
            else:
                carry = b""
            if b"\r" in data:
                data = bytearray(_normalise(bytes(data)))
            cut = data.rfind(b"\n")
            if cut < 0:
                carry = bytes(data) + carry
                continue
            carry = bytes(data[cut + 1:]) + carry
            del data[cut + 1:]
            yield data
    rest = _normalise(carry)
    if rest:
        yield rest if rest.endswith(b"\n") else rest + b"\n"


def _peel_header(block: bytes, fmt: Format, ctx: _Ctx) -> tuple[bytes, int]:
    """At the start of a file, lines the format skips (e.g. a header row) go before the fast path; returns the
    rest of the block and the number of lines taken off."""
    if ctx.line_base != 0:
        return block, 0
    taken = 0
    pos = 0
    for _ in range(8):
        end = block.find(b"\n", pos)
        if end < 0:
            break
        line = block[pos:end].decode("utf-8", errors="replace")
        if not re.search(fmt.skip, line) or not line.strip() or line.lstrip().startswith("#"):
            break
        pos, taken = end + 1, taken + 1
    return block[pos:], taken


def _fast_fields(block: bytes, fmt: Format, ctx: _Ctx) -> _FastFields | None:
    spec = fmt.fast(ctx.opts, ctx.state) if callable(fmt.fast) else fmt.fast
    if spec is None or ctx.in_tail:
        return None
    rest, taken = _peel_header(block, fmt, ctx)
    parsed, bad = fastparse.tokenize(rest, spec, ctx.block_lines)
    if parsed is None or len(parsed) == 0:
        return None
    parsed.line += taken
    return _FastFields(parsed, ctx, block)


def _slow_fields(block: bytes, fmt: Format, ctx: _Ctx) -> _Fields | None:
    import polars as pl

    text = block.decode("utf-8", errors="replace")
    if text.endswith("\n"):
        text = text[:-1]
    lines = pl.Series("line", [text]).str.split("\n").explode()
    df = pl.DataFrame({"line": lines}).with_row_index("_line", offset=1)
    if ctx.in_tail:
        ctx.meta["skipped_tail_lines"] = ctx.meta.get("skipped_tail_lines", 0) + df.height
        return None
    if fmt.tail is not None:
        t = df["line"].str.contains(fmt.tail)
        if t.any():
            start = int(t.arg_max())
            ctx.meta["skipped_tail_lines"] = ctx.meta.get("skipped_tail_lines", 0) + df.height - start
            df = df.slice(0, start)
            ctx.in_tail = True
    df = df.filter(~df["line"].str.contains(fmt.skip))
    if df.height == 0:
        return None
    groups = df["line"].str.extract_groups(fmt.pattern)
    matched = groups.struct.field(groups.struct.fields[0]).is_not_null()
    if not matched.all():
        i = int((~matched).arg_max())
        lineno = int(df["_line"][i])
        if fmt.strict:
            raise TraceFormatError(f"{ctx.path}:{ctx.line_base + lineno}: does not look like a {fmt.name} record "
                                   f"({fmt.description}): {lines[lineno - 1][:200]!r}")
        nbad = int((~matched).sum())
        ctx.meta["skipped_lines"] = ctx.meta.get("skipped_lines", 0) + nbad
        ctx.meta.setdefault("first_skipped_line", ctx.line_base + lineno)
    fields = groups.struct.unnest().with_columns(df["_line"]).filter(matched)
    if fields.height == 0:
        return None
    return _Fields(fields, ctx, lines)


def _check_columns(f: _Fields, cols: dict) -> None:
    """Every record's time finite and its extent inside [0, 2^62) bytes, or the line is named."""
    t = np.asarray(cols["time_s"], np.float64)
    off, size = np.asarray(cols["offset_bytes"]), np.asarray(cols["size_bytes"])
    keep = cols.get("keep")
    rows = np.arange(len(t)) if keep is None else np.flatnonzero(keep)
    sub = slice(None) if keep is None else keep
    for bad, why in ((~np.isfinite(t[sub]), "time is not a finite number"), (off[sub] < 0, "negative offset"),
                     (size[sub] < 0, "negative size"),
                     (off[sub] > _MAX_OFFSET - np.maximum(size[sub], 0), "extent ends past 2^62 bytes")):
        i = np.flatnonzero(bad)
        if i.size:
            f.fail(int(rows[i[0]]), why)


def _build(f: _Fields, fmt: Format, ctx: _Ctx) -> dict:
    cols = fmt.build(f, **ctx.opts)
    _check_columns(f, cols)
    _check_request_sizes(f, cols, ctx.max_request_bytes)
    return cols


def _parse_block(block: bytes, fmt: Format, ctx: _Ctx) -> dict | None:
    """One block's Trace columns (times relative to the file's first record), or None if it has no records."""
    taken = 0
    if ctx.line_base == 0 and fmt.prepare is not None:
        block, taken = fmt.prepare(block, ctx)
    ctx.line_base += taken
    try:
        return _parse_lines(block, fmt, ctx)
    finally:
        ctx.line_base -= taken


def _parse_lines(block: bytes, fmt: Format, ctx: _Ctx) -> dict | None:
    cols = None
    f = _fast_fields(block, fmt, ctx)
    if f is not None:
        saved = dict(ctx.state), dict(ctx.meta)
        try:
            cols = _build(f, fmt, ctx)
        except _Fallback:
            ctx.state, ctx.meta = saved
    if cols is None:
        f = _slow_fields(block, fmt, ctx)
        if f is None:
            return None
        cols = _build(f, fmt, ctx)
    keep_rows = cols.pop("keep", None)
    for k, v in cols.pop("meta", {}).items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            ctx.meta[k] = ctx.meta.get(k, 0) + v
        else:
            ctx.meta.setdefault(k, v)
    if keep_rows is not None:
        cols = {k: v[keep_rows] for k, v in cols.items()}
    if len(cols["op"]) == 0:
        return None
    t = np.asarray(cols["time_s"], dtype=np.float64)
    if ctx.t0 is None:
        ctx.t0 = float(t[0])
    cols["time_s"] = t - ctx.t0
    return cols


def iter_trace(path, format: str | None = None, block_bytes: int = BLOCK_BYTES, **opts) -> Iterator[Trace]:
    """A text trace file as a sequence of :class:`Trace` batches of whole records, parsed block by block
    (bounded memory). The last batch's ``meta`` holds the facts of the whole file. A read or write larger than
    ``max_request_bytes`` (a keyword of every format; default :data:`MAX_REQUEST_BYTES`, 1 GiB) is an error
    naming its line."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no trace file at {path}")
    if format and get_format(format).folder is not None:
        raise TraceFormatError(f"{path}: format {format!r} reads a folder, not a file")
    fmt = get_format(format) if format else None
    limit = check_request_limit(opts.pop("max_request_bytes", MAX_REQUEST_BYTES))
    blocks = iter_blocks(path, block_bytes)
    ctx = None
    prev = None
    for block in blocks:
        if ctx is None:
            if not block or block.isspace():
                continue
            fmt = fmt or sniff_format(block, path)
            if not fmt.batched:
                block = block + b"".join(blocks)
            ctx = _Ctx(path, fmt, opts, max_request_bytes=limit)
        ctx.block_lines = int(fastparse.count_lines(np.frombuffer(block, np.uint8)))
        cols = _parse_block(block, fmt, ctx)
        ctx.line_base += ctx.block_lines
        if cols is None:
            continue
        if prev is not None:
            if fmt.join is not None:
                prev, cols = fmt.join(prev, cols, ctx, **opts)
                if len(cols["op"]) == 0:  # the whole block mended the previous record
                    continue
            yield _trace(prev, path, fmt, ctx)
        prev = cols
    if ctx is None:
        raise TraceFormatError(f"{path}: the file is empty (empty trace)")
    if prev is None:
        raise TraceFormatError(f"{path}: no {fmt.name} records found (empty trace)")
    if ctx.meta.get("skipped_lines"):
        warnings.warn(f"{path}: skipped {ctx.meta['skipped_lines']} lines that are not {fmt.name} records (first "
                      f"at line {ctx.meta['first_skipped_line']})", stacklevel=2)
    yield _trace(prev, path, fmt, ctx, final=True)


def _trace(cols: dict, path: Path, fmt: Format, ctx: _Ctx, final: bool = False) -> Trace:
    meta = {"format": fmt.name, **ctx.meta} if final else {"format": fmt.name}
    return Trace(**cols, name=path.name.split(".")[0], source=str(path), meta=meta)


def read_trace(path, format: str | None = None, **opts) -> Trace:
    """Read a trace file (plain or gzip/bz2/xz/zstd compressed) without caching.

    ``format=None`` sniffs the format from the first records. Prefer
    :func:`flashrepro.traces.load_trace`, which caches the parsed arrays.
    """
    path = Path(path)
    if path.is_dir():
        return read_folder(path, format, **opts)
    return concat(list(iter_trace(path, format, **opts)))


def concat(parts: list[Trace]) -> Trace:
    """Batches of one file back into one :class:`Trace` (meta from the last batch)."""
    parts = [p for p in parts if len(p)] or parts[-1:]
    last = parts[-1]
    if len(parts) == 1:
        return Trace(last.time_s, last.op, last.offset_bytes, last.size_bytes, name=last.name, source=last.source,
                     meta=last.meta, file=last.file, device=last.device)
    cols = {k: np.concatenate([getattr(p, k) for p in parts]) for k in ("time_s", "op", "offset_bytes", "size_bytes")}
    file = None if last.file is None else np.concatenate([p.file for p in parts])
    device = None if all(p.device is None for p in parts) else np.concatenate([p.device_numbers for p in parts])
    return Trace(**cols, name=last.name, source=last.source, meta=last.meta, file=file, device=device)


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
        first = f.line_of(int(np.argmax(bad)))
        if isinstance(f, _FastFields):
            raise _Fallback("records to drop")  # the warning and the counts come from the exact path
        warnings.warn(f"{f.path}: dropped {nbad} records past sector {max_sector} (first at line {first})",
                      stacklevel=6)
    return ~bad, {"dropped_records": nbad, "dropped_reason": f"extent past sector {max_sector}"}


def _sector_trace(f, time_s, op, dev, sector, nsect, max_sector=None):
    """Trace columns of records in 512-byte sectors on device ``dev``; the bytes trims discard are counted in
    the meta (``trimmed_bytes``)."""
    keep, meta = _extent_filter(f, sector, nsect, max_sector)
    if keep is not None:  # drop before scaling so bogus values cannot overflow
        time_s, op, dev, sector, nsect = (a[keep] for a in (time_s, op, dev, sector, nsect))
        f.take(keep)
    offset, size = f.scaled(sector, SECTOR, "sector"), f.scaled(nsect, SECTOR, "length")
    trims = op == Op.TRIM
    if trims.any():
        meta = {**meta, "trimmed_bytes": int(size[trims].sum())}
    return {"time_s": time_s, "op": op, "device": np.asarray(dev, np.int64), "offset_bytes": offset,
            "size_bytes": size, "meta": meta}


def _linux_device(f, major_field: str, minor_field: str) -> np.ndarray:
    """The records' Linux device numbers (dev_t: ``major << 20 | minor``). A major number of more than 12 bits
    or a minor number of more than 20 is no Linux device's: an error naming the line."""
    major, minor = f.num(major_field), f.num(minor_field)
    for field, part, value, bits in ((major_field, "major", major, LINUX_MAJOR_BITS),
                                     (minor_field, "minor", minor, LINUX_MINOR_BITS)):
        big = np.flatnonzero(value >= 1 << bits)
        if big.size:
            f.fail(int(big[0]), f"field {field!r} is {value[big[0]]}: a Linux device's {part} number is below "
                                f"2^{bits}")
    return (major << LINUX_MINOR_BITS) | minor


def check_request_limit(value, what: str = "max_request_bytes") -> int:
    """``value`` as a whole number of bytes from 1 up, else ValueError naming ``what`` (a CLI passes its flag)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 < int(value) < _MAX_OFFSET:
        raise ValueError(f"{what} must be a whole number of bytes from 1 to 2^62, got {value!r}")
    return int(value)


def _check_request_sizes(f: _Fields, cols: dict, limit: int) -> None:
    """No read or write larger than ``limit`` bytes (a trim may be any size): a request of a terabyte would
    take minutes to expand into pages before anything failed."""
    op, size, keep = cols["op"], cols["size_bytes"], cols.get("keep")
    big = (op <= Op.WRITE) & (size > limit)
    rows = np.flatnonzero(big if keep is None else big & keep)
    if rows.size:
        i = int(rows[0])
        what = "read" if op[i] == Op.READ else "write"
        f.fail(i, f"a {what} of {int(size[i]):,} bytes is larger than the limit of {limit:,} bytes "
                  f"(max_request_bytes)")


_F = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"  # a float
_I = r"-?\d+"  # an integer, sign kept so that negative sizes get their own message


def _spc(f):
    return {"time_s": f.num("time", FLOAT), "op": f.op("op", _opmap("rR", "wW")), "device": f.num("asu"),
            "offset_bytes": f.scaled(f.num("lba"), SECTOR, "lba"), "size_bytes": f.num("size")}


register_format(Format(
    "spc", "UMass SPC: ASU,LBA(512 B),size(bytes),opcode(r/w),timestamp(s)",
    rf"^\s*(?P<asu>\d+)\s*,\s*(?P<lba>\d+)\s*,\s*(?P<size>{_I})\s*,\s*(?P<op>[A-Za-z]+)\s*,\s*(?P<time>{_F})\s*,?\s*$",
    _spc, fast=FastSpec(",", (("asu", "int"), ("lba", "int"), ("size", "int"), ("op", "token"), ("time", "float")),
                        extra="empty", pad=True)))


def _msr(f):
    t = f.num("time")
    t0 = f.state.setdefault("t0", int(t[0]))  # times are 100 ns ticks since 1601: subtract before scaling
    return {"time_s": (t - t0) * 1e-7, "op": f.op("op", _opmap(["Read", "read"], ["Write", "write"])),
            "device": f.num("disk"), "offset_bytes": f.num("offset"), "size_bytes": f.num("size")}


register_format(Format(
    "msr", "MSR Cambridge CSV: Timestamp(100 ns),Hostname,DiskNumber,Type,Offset(B),Size(B),ResponseTime",
    rf"^(?P<time>\d+),(?P<host>[^,]*),(?P<disk>\d+),(?P<op>[^,]*),(?P<offset>\d+),(?P<size>{_I}),(?P<resp>\d*)\s*$",
    _msr, skip=r"^\s*(#.*)?$|^Timestamp",
    fast=FastSpec(",", (("time", "int"), ("host", "skip"), ("disk", "int"), ("op", "token"), ("offset", "int"),
                        ("size", "int"), ("resp", "digits")))))


def _arc(f):
    n = f.num("count")
    start = f.num("start")
    return {"time_s": np.zeros(len(n)), "op": np.full(len(n), Op.READ, np.int8),
            "offset_bytes": f.scaled(start, SECTOR, "block"), "size_bytes": f.scaled(n, SECTOR, "count")}


register_format(Format(
    "arc", "ARC .lis: start_block(512 B) count ignore request_no; reads only, no time",
    rf"^\s*(?P<start>\d+)\s+(?P<count>{_I})\s+(?P<ignore>{_I})\s+(?P<req>\d+)\s*$", _arc,
    fast=FastSpec("ws", (("start", "int"), ("count", "int"), ("ignore", "int"), ("req", "digits")))))


def _diskmon(f, max_sector=None):
    return _sector_trace(f, f.num("time", FLOAT), f.op("op", _opmap(["Read"], ["Write"])),
                         f.num("disk"), f.num("sector"), f.num("len"), max_sector)


register_format(Format(
    "diskmon", "Sysinternals DiskMon log: seq time_s duration_s disk Read|Write sector length_sectors",
    rf"^\s*(?P<seq>\d+)\s+(?P<time>{_F})\s+(?P<dur>{_F})\s+(?P<disk>\d+)\s+(?P<op>[A-Za-z]+)\s+"
    rf"(?P<sector>\d+)\s+(?P<len>{_I})\s*$", _diskmon,
    fast=FastSpec("ws", (("seq", "int"), ("time", "float"), ("dur", "float"), ("disk", "int"), ("op", "token"),
                         ("sector", "int"), ("len", "int")))))


def _mqsim(f, time_unit_s=1e-9):
    return _sector_trace(f, f.num("time", FLOAT) * time_unit_s, f.op("op", {"1": Op.READ, "0": Op.WRITE}),
                         f.num("dev"), f.num("sector"), f.num("len"))


_FIVE = rf"^\s*(?P<time>{_F})\s+(?P<dev>\d+)\s+(?P<sector>\d+)\s+(?P<len>{_I})\s+(?P<op>\S+)\s*$"
_FIVE_FAST = FastSpec("ws", (("time", "float"), ("dev", "int"), ("sector", "int"), ("len", "int"), ("op", "token")))
register_format(Format(
    "mqsim", "MQSim/DiskSim ASCII: arrival_ns device sector size_sectors type(0=write,1=read)", _FIVE, _mqsim,
    fast=_FIVE_FAST))
register_format(Format(
    "ssdsim", "SSDsim ASCII: time device lsn size_sectors op(0=write,1=read); time_unit_s=1e-3 for ms",
    _FIVE, _mqsim, fast=_FIVE_FAST))


def _fiu(f, merge_contiguous=False):
    """``merge_contiguous=True``: consecutive records of the same operation whose extents touch end to start
    become one request (the FIU IODedup traces log one 4 KiB block per record, so a request of several
    blocks appears as a run of records; paper 3's Table 4 sizes of 6-45 KB are such merged requests). The
    merged request keeps its first record's time."""
    cols = _sector_trace(f, f.num("time") * 1e-9, f.op("op", _opmap("R", "W")),
                         _linux_device(f, "major", "minor"), f.num("lba"), f.num("size"))
    if merge_contiguous:
        cols.update(merge_contiguous_requests(cols["time_s"], cols["op"], cols["offset_bytes"], cols["size_bytes"],
                                              cols["device"]))
    return cols


def _fiu_join(prev: dict, cols: dict, ctx: _Ctx, merge_contiguous=False) -> tuple[dict, dict]:
    """A run of contiguous records cut by a block boundary is one request, as if the file were one block."""
    if not merge_contiguous:
        return prev, cols
    if prev["op"][-1] == cols["op"][0] and prev["device"][-1] == cols["device"][0] and \
            prev["offset_bytes"][-1] + prev["size_bytes"][-1] == cols["offset_bytes"][0]:
        prev = dict(prev, size_bytes=prev["size_bytes"].copy())
        prev["size_bytes"][-1] += cols["size_bytes"][0]
        cols = {k: v[1:] for k, v in cols.items()}
        ctx.meta["merged_records"] = ctx.meta.get("merged_records", 0) + 1
    return prev, cols


def merge_contiguous_requests(time_s, op, offset, size, device=None) -> dict:
    """Merge runs of consecutive requests with the same op (and device), each starting where the previous one
    ended."""
    time_s, op, offset, size = (np.asarray(a) for a in (time_s, op, offset, size))
    joins = np.r_[False, (op[1:] == op[:-1]) & (offset[1:] == offset[:-1] + size[:-1])]
    if device is not None:
        device = np.asarray(device)
        joins[1:] &= device[1:] == device[:-1]
    starts = np.flatnonzero(~joins)
    out = {"time_s": time_s[starts], "op": op[starts], "offset_bytes": offset[starts],
           "size_bytes": np.add.reduceat(size, starts) if len(starts) else size[:0],
           "meta": {"merged_records": int(joins.sum()), "records": len(op)}}
    if device is not None:
        out["device"] = device[starts]
    return out


register_format(Format(
    "fiu", "FIU blkparse-like: ts_ns pid process lba(512 B) size_sectors R|W major minor md5; "
    "merge_contiguous=True joins runs of contiguous records",
    rf"^\s*(?P<time>\d+)\s+(?P<pid>\d+)\s+(?P<proc>.+?)\s+(?P<lba>\d+)\s+(?P<size>{_I})\s+(?P<op>\S+)"
    r"\s+(?P<major>\d+)\s+(?P<minor>\d+)(?:\s+(?P<md5>[0-9a-fA-F]+))?\s*$", _fiu, join=_fiu_join,
    fast=FastSpec("ws", (("time", "int"), ("pid", "digits"), ("proc", "skip"), ("lba", "int"), ("size", "int"),
                         ("op", "token"), ("major", "int"), ("minor", "int")), extra="one")))

def _blkparse(f, action="C"):
    """Completions (``action``) of data requests: D (discard) -> TRIM, W -> WRITE, R -> READ; a completion
    with F and no data letter is a FLUSH; other completions without data (e.g. ``N``) are dropped and
    counted. An rwbs field with a letter blktrace never writes is an error."""
    df = f.df
    sel = (df["action"] == action).to_numpy()
    rwbs = df["rwbs"]
    odd = np.flatnonzero(sel & ~rwbs.str.contains(r"^[RWDFSMAENB]+$").to_numpy())
    if odd.size:
        f.fail(int(odd[0]), f"rwbs {rwbs[int(odd[0])]!r} has a letter blktrace does not write (RWDFSMAENB)")
    data = rwbs.str.contains("[RWD]").to_numpy()
    flush = rwbs.str.contains("F").to_numpy() & ~data
    ext = df["rest"].str.extract_groups(rf"^(?P<sector>\d+)\s+\+\s+(?P<n>{_I})(?:\s|$)")
    no_ext = ext.struct.field("sector").is_null().to_numpy()
    bad = np.flatnonzero(sel & data & no_ext)
    if bad.size:
        f.fail(int(bad[0]), "a data request without 'sector + count'")
    op = np.where(rwbs.str.contains("D").to_numpy(), Op.TRIM,
                  np.where(rwbs.str.contains("W").to_numpy(), Op.WRITE,
                           np.where(rwbs.str.contains("R").to_numpy(), Op.READ, Op.FLUSH))).astype(np.int8)
    f.df = f.df.with_columns(ext.struct.field("sector").fill_null("0").alias("_sector"),
                             ext.struct.field("n").fill_null("0").alias("_n"))
    sector, n = f.num("_sector"), f.num("_n")
    keep = sel & (data | flush)
    dropped = int(np.count_nonzero(sel & ~(data | flush)))
    cols = _sector_trace(f, f.num("time", FLOAT), op, _linux_device(f, "maj", "min"), sector, n)
    cols["keep"] = keep
    cols["meta"] = {**cols["meta"], "dropped_no_data_completions": dropped}
    return cols


register_format(Format(
    "blkparse", "blkparse text: maj,min cpu seq time pid action rwbs sector + n [process]; action C kept; the "
    "per-CPU summary at the end skipped",
    rf"^\s*(?P<maj>\d+),(?P<min>\d+)\s+(?P<cpu>\d+)\s+(?P<seq>\d+)\s+(?P<time>{_F})\s+(?P<pid>\d+)\s+"
    r"(?P<action>[A-Za-z]+)\s+(?P<rwbs>[A-Z]+)\s*(?P<rest>.*)$", _blkparse, tail=r"^(CPU\d+|Total) \(",
    sniff=r"^\s*\d+,\d+\s+\d+\s+\d+\s+[0-9.]+\s+\d+\s+[A-Za-z]+\s+[A-Z]+"))


def _most(f, action="C"):
    sel = (f.df["action"] == action).to_numpy()
    rwbs = f.df["rwbs"]
    n = f.num("n")
    op = np.where(rwbs.str.contains("W").to_numpy(), Op.WRITE,
                  np.where(rwbs.str.contains("R").to_numpy(), Op.READ, Op.FLUSH)).astype(np.int8)
    op = np.where(n == 0, Op.FLUSH, op).astype(np.int8)  # zero-length completions are barriers/flushes
    cols = _sector_trace(f, f.num("time", FLOAT), op, np.zeros(f.n, np.int64), f.num("sector"), n)
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


def _layout(layout) -> CsvLayout:
    if isinstance(layout, str):
        return CSV_PRESETS[layout]
    if isinstance(layout, dict):
        return CsvLayout(**layout)
    return layout


_ROLES = ("offset", "size", "op", "time", "device")
_ROLE_KIND = {"offset": "int", "size": "int", "op": "token", "time": "float", "device": "int"}


def _csv_columns(layout: CsvLayout, header: list[str] | None, path) -> dict[str, int]:
    """Role -> 0-based column index."""
    out = {}
    for role in _ROLES:
        spec = getattr(layout, role)
        if spec is None:
            continue
        if isinstance(spec, str) and not spec.lstrip("-").isdigit():
            if header is None:
                raise TraceFormatError(f"{path}: column {spec!r} is a name, but the layout has no header")
            if spec not in header:
                raise TraceFormatError(f"{path}: no column {spec!r} in header {header}")
            spec = header.index(spec)
        out[role] = int(spec)
    return out


def _csv_fast(opts: dict, state: dict) -> FastSpec | None:
    """The fast path of a delimited trace, once its header (if any) is known."""
    layout = opts.get("layout")
    if layout is None or "columns" not in state:
        return None
    layout = _layout(layout)
    if layout.sep not in fastparse.SEPS:
        return None
    by_index = {i: role for role, i in state["columns"].items()}
    fields = tuple((by_index.get(i, f"_{i}"), _ROLE_KIND[by_index[i]] if i in by_index else "skip")
                   for i in range(max(max(by_index) + 1, state["width"])))
    return FastSpec(layout.sep, fields, extra="none", pad=True)


def _csv_prepare(block: bytes, ctx: _Ctx, preset: str | None = None) -> tuple[bytes, int]:
    """The header (if the layout has one) off the first block, and where each field is."""
    layout = ctx.opts.get("layout", preset)
    if layout is None:
        raise TraceFormatError(f"{ctx.path}: format 'csv' needs layout=CsvLayout(...) or a preset name "
                               f"({', '.join(CSV_PRESETS)})")
    layout = _layout(layout)
    header, taken, pos = None, 0, 0
    while True:  # the first line that is not blank or a comment: the header, or the first record
        end = block.find(b"\n", pos)
        line = block[pos:end if end >= 0 else len(block)].decode("utf-8", errors="replace")
        if line.strip() and not line.lstrip().startswith("#") or end < 0:
            break
        pos, taken = end + 1, taken + 1
    if layout.header:
        header = [h.strip() for h in line.split(layout.sep)]
        pos, taken = (end + 1 if end >= 0 else len(block)), taken + 1
    ctx.state["columns"] = _csv_columns(layout, header, ctx.path)
    ctx.state["width"] = len(line.split(layout.sep))  # every record has as many fields as the first line
    return block[pos:], taken


def _csv(f, layout: CsvLayout | dict | str | None = None):
    layout = _layout(layout)
    if not isinstance(f, _FastFields):
        parts = f.df["row"].str.split(layout.sep)
        odd = (parts.list.len() != f.state["width"]).to_numpy()
        if odd.any():
            i = int(np.argmax(odd))
            f.fail(i, f"{parts.list.len()[i]} fields where the first line has {f.state['width']}")
        for role, i in f.state["columns"].items():
            s = parts.list.get(i, null_on_oob=True)
            if s.is_null().any():
                f.fail(int(s.is_null().arg_max()), f"missing field {getattr(layout, role)!r}")
            f.df = f.df.with_columns(s.alias(role))
    cols = f.state["columns"]
    n = f.n
    size = f.scaled(f.num("size"), layout.size_unit, "size")
    offset = f.scaled(f.num("offset"), layout.offset_unit, "offset")
    time = f.num("time", FLOAT) * layout.time_unit_s if "time" in cols else np.zeros(n)
    out = {"time_s": time, "op": f.op("op", _opmap(layout.reads, layout.writes)), "offset_bytes": offset,
           "size_bytes": size}
    if "device" in cols:
        out["device"] = f.num("device")
    return out


_ROW = r"^(?P<row>.*)$"
register_format(Format(
    "csv", "delimited text with a column mapping: layout=CsvLayout(...) or a preset name "
    f"({', '.join(CSV_PRESETS)})", _ROW, _csv, sniff=None, fast=_csv_fast, prepare=_csv_prepare))
# the presets are formats of their own, so they work from the command line and are sniffed
def _preset(name: str, description: str, sniff: str) -> Format:
    return Format(name, description, _ROW, functools.partial(_csv, layout=name), sniff=sniff,
                  fast=lambda opts, state: _csv_fast({"layout": name}, state),
                  prepare=functools.partial(_csv_prepare, preset=name))


register_format(_preset("cloudphysics", "CloudPhysics CSV: version,time,op(28/2a),size(B),lbn(512 B)",
                        r"^version,time,op,size,lbn"))
register_format(_preset("tencent", "Tencent CBS CSV: timestamp,offset(512 B),size(512 B),ioType(0=R,1=W),volume",
                        r"^\d+,\d+,\d+,[01],\d+\s*$"))
register_format(_preset("systor17", "SYSTOR'17 CSV: Timestamp,Response,IOType,LUN,Offset(B),Size(B)",
                        r"^Timestamp,Response,IOType,LUN"))


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
    r"^\s*(?P<tid>\d+)\s+(?P<time>\d+)\s+(?P<op>[a-z][a-z_0-9]*)(?:\s+(?P<rest>.*?))?\s*$", _mobibench,
    batched=False))
