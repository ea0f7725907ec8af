"""Readers of real trace formats into :class:`~flashrepro.traces.trace.Trace`.

Every text format goes through the same path. The file is decompressed as a stream (by magic bytes; a
truncated or corrupt stream is an error saying which) and cut into blocks of whole lines (a UTF-8
byte-order mark starting a line is dropped; CR LF and lone CR end lines too). Each block is read by the
format's typed fast path where it has one (:mod:`.fastparse`: one Numba pass, no regular expressions); a
block the fast path cannot read exactly goes through the format's anchored regular expression in polars
instead, which accepts the line or names it. A line that neither matches nor is skippable raises
:class:`TraceFormatError` naming the file, the 1-based line number, the first field that is wrong and the
line; so do unknown opcodes, negative sizes, non-finite times, offsets that overflow, device numbers out of
range, and reads or writes larger than ``max_request_bytes`` (1 GiB unless a reader is told otherwise; a trim
of any size is a range, never expanded). Lines that are skipped are counted in the trace's meta: comments
(``skipped_comment_lines``), headers a format knows (``skipped_header_lines``), blkparse's summary blocks
(``skipped_summary_lines``); blank lines are not. Blocks are parsed one at a time, so a file of any length
parses in bounded memory (:func:`iter_trace`). Without a format, :func:`sniff_format` reads the first
records, past any number of blank and comment lines.

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
import itertools
import math
import os
import re
import stat
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._io import MAX_REQUEST_BYTES, TraceFormatError, TraceWarning, open_decompressed
from . import fastparse
from .fastparse import FastSpec
from .trace import Op, Trace

if TYPE_CHECKING:
    import polars as pl

INT, FLOAT = "int64", "float64"  # what _Fields.num reads a column as
SECTOR = 512
_MAX_OFFSET = 1 << 62  # offsets at or above this cannot be right (and would overflow when keyed)
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
    ``fast(opts, state) -> FastSpec | None``). ``summary`` matches the first line of a block of statistics the
    file may hold between records (blkparse's per-CPU summary at the end of each run), ``summary_body`` the
    other lines of such a block: see :func:`_drop_summaries`.
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
    summary: str | None = None
    summary_body: str | None = None
    batched: bool = True
    join: Callable | None = None  # ``join(prev, cols, ctx, **opts)``: mend a record cut by a block boundary
    prepare: Callable | None = None  # ``prepare(block, ctx) -> (block, lines taken)``: the file's first blocks,
    # until it sets ``ctx.prepared``


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
    in_summary: bool = False  # the previous block ended inside a summary block
    prepared: bool = False  # the format's ``prepare`` has found what it looks for (a CSV header)
    final: bool = False  # the current block is the last one
    block_lines: int | None = None  # lines in the current block (an upper bound on its records)
    max_request_bytes: int = MAX_REQUEST_BYTES  # the largest read or write accepted
    state: dict = dataclasses.field(default_factory=dict)  # a builder's own state (a CSV header, ...)
    meta: dict = dataclasses.field(default_factory=dict)  # counts summed over blocks, other facts kept first


def _name(col: str) -> str:
    """A column's field name as a message gives it (a column a builder derived is named with a leading _)."""
    return col.lstrip("_")


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
            self.fail(int(bad.arg_max()), f"field {_name(col)!r} is not {kind}")
        arr = out.to_numpy()
        return self._checked(arr, col, nonneg)

    def _checked(self, arr: np.ndarray, col: str, nonneg: bool) -> np.ndarray:
        if arr.dtype.kind == "f":
            bad = np.flatnonzero(~np.isfinite(arr))
            if bad.size:
                self.fail(int(bad[0]), f"{_name(col)} {arr[bad[0]]} is not a finite number")
        if nonneg:
            neg = np.flatnonzero(arr < 0)
            if neg.size:
                self.fail(int(neg[0]), f"negative {_name(col)} {arr[neg[0]]}")
        return arr

    def op(self, col: str, mapping: dict[str, int]) -> np.ndarray:
        import polars as pl

        s = self.df[col].str.strip_chars()
        out = s.replace_strict(mapping, default=None, return_dtype=pl.Int8)
        bad = out.is_null()
        if bad.any():
            i = int(bad.arg_max())
            self.fail(i, f"unknown opcode {s[i]!r} in field {_name(col)!r} (expected one of {sorted(mapping)})")
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

    def __init__(self, parsed: fastparse.Parsed, ctx: _Ctx, block: bytes, skipped: dict):
        self.cols, self.rec_line, self.ctx, self.block = parsed.columns, parsed.line, ctx, block
        self.path = ctx.path
        self.skipped = skipped  # lines the kernel passed over, by kind: counted in meta if the block is read

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

    def _checked(self, arr: np.ndarray, col: str, nonneg: bool) -> np.ndarray:
        """What :meth:`_Fields._checked` refuses, found by reductions (no temporary array): which row it is does
        not matter here, the block goes to the exact path, which names it."""
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            self.fail(0, f"{_name(col)} is not a finite number")
        if nonneg and arr.size and arr.min() < 0:
            self.fail(0, f"negative {_name(col)}")
        return arr

    def op(self, col: str, mapping: dict[str, int]) -> np.ndarray:
        """The tokens looked up among the mapping's names packed as the tokenizer packs them (one pass of a
        kernel over a handful of keys: a binary search took 0.06 s of a 5M-line first run, np.unique's sort 0.1 s
        per million records)."""
        keys, codes = fastparse.token_table(mapping)
        tok = self.cols[col]
        if len(keys) == 0:  # no name of the mapping fits in a token
            self.fail(0, "no opcode can match")
        out = np.empty(len(tok), np.int8)
        bad = fastparse.lookup_tokens(tok, keys, codes, out)
        if bad >= 0:
            name = fastparse.decode_token(tok[bad])
            self.fail(int(bad), f"unknown opcode {name!r} in field {_name(col)!r} (expected one of "
                                f"{sorted(mapping)})")
        return out


def _normalise(data: bytes) -> bytes:
    """Line ends as \\n (CR LF and lone CR too)."""
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def _read_block(f, carry: bytes, size: int, spare: list | None = None) -> bytearray:
    """``carry`` then up to ``size`` more bytes of ``f``, read straight into one buffer (no concatenation) from
    a plain file; a decompressing reader's output is appended. The buffer is one of ``spare`` (blocks a reader
    is done with) if there is one: a fresh 8 MiB buffer is zeroed and faulted in page by page (0.04 s of a
    5M-line first run). A regular file's buffer holds at most what is left of it (a 4 KB file's, 4 KB)."""
    if not isinstance(f, (io.BufferedReader, io.FileIO)):
        buf = bytearray(carry)
        buf += f.read(size)
        return buf
    st = os.fstat(f.fileno())
    if stat.S_ISREG(st.st_mode):  # (a pipe's or a /proc file's size says nothing)
        size = max(0, min(size, st.st_size - f.tell()))
    need = len(carry) + size
    buf = spare.pop() if spare else None
    if buf is not None:
        try:  # a block's end was cut after its last line: usually a few bytes to put back
            if len(buf) > need:
                del buf[need:]
            elif len(buf) < need:
                buf += bytes(need - len(buf))
        except BufferError:  # something still looks at that block: leave it alone
            buf = None
    if buf is None:
        buf = bytearray(need)
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


_BOM = b"\xef\xbb\xbf"


def _drop_boms(lines: bytearray) -> bytearray:
    """Whole lines (line ends normalised) without the UTF-8 byte-order mark that may start each: files that
    each begin with one, concatenated, hold one at the start of each part."""
    if lines.startswith(_BOM):
        del lines[:3]
    if lines.find(_BOM[:1]) >= 0 and _BOM in lines:  # one memchr (0.1 ms per 8 MiB; "in" alone took 12 ms)
        lines = bytearray(bytes(lines).replace(b"\n" + _BOM, b"\n"))
    return lines


def iter_blocks(path: Path, block_bytes: int = BLOCK_BYTES, spare: list | None = None) -> Iterator[bytes]:
    """The decompressed content of ``path`` in blocks of whole lines (bytes or bytearray), line ends
    normalised, a UTF-8 byte-order mark at the start of a line dropped. A truncated or corrupt compressed file
    raises :class:`TraceFormatError`. Each block is a buffer the reader fills in place: the text is copied
    once, from the file into it. ``spare``: a list the caller puts blocks it is done with in (no reference to
    them kept, no view of them left): their buffers are filled again instead of fresh ones."""
    carry = b""
    with open_decompressed(path) as f:
        while True:
            data = _read_block(f, carry, block_bytes, spare)
            if len(data) == len(carry):  # nothing more in the file
                break
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
            yield _drop_boms(data)
    rest = _normalise(carry)
    if rest:
        yield _drop_boms(bytearray(rest if rest.endswith(b"\n") else rest + b"\n"))


_COMMENT_LINE = re.compile(rb"^[ \t]*#", re.MULTILINE)  # what the fast path skips as a comment


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
    if spec is None or fmt.summary is not None:  # the fast path does not know summary blocks
        return None
    rest, taken = _peel_header(block, fmt, ctx)
    parsed, bad = fastparse.tokenize(rest, spec, ctx.block_lines)
    if parsed is None or len(parsed) == 0:
        return None
    parsed.line += taken
    comments = len(_COMMENT_LINE.findall(rest)) if b"#" in rest else 0  # one C scan; usually none
    return _FastFields(parsed, ctx, block, {"skipped_header_lines": taken, "skipped_comment_lines": comments})


def _slow_fields(block: bytes, fmt: Format, ctx: _Ctx) -> _Fields | None:
    import polars as pl

    text = block.decode("utf-8", errors="replace")
    if text.endswith("\n"):
        text = text[:-1]
    lines = pl.Series("line", [text]).str.split("\n").explode()
    df = pl.DataFrame({"line": lines}).with_row_index("_line", offset=1)
    if fmt.summary is not None:
        df = _drop_summaries(df, fmt, ctx)
    skip = df["line"].str.contains(fmt.skip)
    comment = df["line"].str.contains(r"^\s*#")
    _count(ctx, "skipped_comment_lines", (skip & comment).sum())
    _count(ctx, "skipped_header_lines", (skip & ~comment & df["line"].str.contains(r"\S")).sum())
    df = df.filter(~skip)
    if df.height == 0:
        return None
    groups = df["line"].str.extract_groups(fmt.pattern)
    matched = groups.struct.field(groups.struct.fields[0]).is_not_null()
    if not matched.all():
        i = int((~matched).arg_max())
        lineno = int(df["_line"][i])
        if fmt.strict:
            line = lines[lineno - 1]
            raise TraceFormatError(f"{ctx.path}:{ctx.line_base + lineno}: does not look like a {fmt.name} record: "
                                   f"{_which_field(fmt.pattern, line)} ({fmt.description}): {line[:200]!r}")
        nbad = int((~matched).sum())
        ctx.meta["skipped_lines"] = ctx.meta.get("skipped_lines", 0) + nbad
        ctx.meta.setdefault("first_skipped_line", ctx.line_base + lineno)
    fields = groups.struct.unnest().with_columns(*(df[c] for c in ("_line", "_run") if c in df.columns))
    fields = fields.filter(matched)
    if fields.height == 0:
        return None
    return _Fields(fields, ctx, lines)


@functools.lru_cache(maxsize=64)
def _field_prefixes(pattern: str) -> tuple[tuple[str, re.Pattern], ...]:
    """For each named group at the top level of ``pattern``: its name and the pattern up to its end."""
    out, depth, name, i = [], 0, None, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 1
        elif c == "[":  # a character class: up to its closing bracket (one right after [ or [^ is a member)
            i = pattern.index("]", i + (3 if pattern.startswith("[^", i) else 2))
        elif c == "(":
            if depth == 0 and pattern.startswith("(?P<", i):
                name = pattern[i + 4:pattern.index(">", i)]
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0 and name is not None:
                out.append((name, re.compile(pattern[:i + 1])))
                name = None
        i += 1
    return tuple(out)


def _which_field(pattern: str, line: str) -> str:
    """What is wrong with a line ``pattern`` does not match: the first field that is missing or not what the
    format has there (the first named group the line's start cannot match), or text after the last field."""
    last = None
    for name, prefix in _field_prefixes(pattern):
        if not prefix.match(line):
            return f"field {name!r} is missing or malformed"
        last = name
    return f"unexpected text after field {last!r}" if last else "it does not match"


def _count(ctx: _Ctx, key: str, n: int) -> None:
    """Add ``n`` to the count ``key`` of the file's meta (a count appears only once it is not zero)."""
    if n:
        ctx.meta[key] = ctx.meta.get(key, 0) + int(n)


def _drop_summaries(df: pl.DataFrame, fmt: Format, ctx: _Ctx) -> pl.DataFrame:
    """The lines of ``df`` without those of summary blocks, which are counted in the file's meta
    (``skipped_summary_lines``, ``summary_blocks``). A summary block starts at a line matching ``fmt.summary``
    and goes on over the lines after it that match ``fmt.summary`` or ``fmt.summary_body`` or are blank, into
    the next block of the file if need be; the first other line ends it. A summary-like line outside a block is
    not skipped (it is then no record, an error). Each line keeps in ``_run`` the number of summary blocks
    before it in the file: a file of several runs, one after the other, has one block after each."""
    import polars as pl

    line = df["line"]
    head = line.str.contains(fmt.summary).to_numpy()
    body = head | line.str.contains(fmt.summary_body).to_numpy() | line.str.contains(r"^\s*$").to_numpy()
    row = np.arange(len(head))
    last_head = np.maximum.accumulate(np.where(head, row, -1))
    last_other = np.maximum.accumulate(np.where(body, -1, row))
    inside = body & ((last_head > last_other) | (ctx.in_summary & (last_other < 0)))
    starts = inside & ~np.r_[ctx.in_summary, inside[:-1]]
    run = ctx.meta.get("summary_blocks", 0) + np.cumsum(starts)
    if len(inside):
        ctx.in_summary = bool(inside[-1])
    _count(ctx, "skipped_summary_lines", np.count_nonzero(inside))
    _count(ctx, "summary_blocks", np.count_nonzero(starts))
    return df.with_columns(pl.Series("_run", run, pl.Int64)).filter(pl.Series(~inside))


def _check_columns(f: _Fields, cols: dict) -> None:
    """Every record's time finite and its extent inside [0, 2^62) bytes, or the line is named."""
    t = np.asarray(cols["time_s"], np.float64)
    off, size = np.asarray(cols["offset_bytes"]), np.asarray(cols["size_bytes"])
    keep = cols.get("keep")
    rows = np.arange(len(t)) if keep is None else np.flatnonzero(keep)
    sub = slice(None) if keep is None else keep
    for bad, why in zip((~np.isfinite(t[sub]), off[sub] < 0, size[sub] < 0,
                         off[sub] > _MAX_OFFSET - np.maximum(size[sub], 0)), _CHECKS, strict=True):
        i = np.flatnonzero(bad)
        if i.size:
            f.fail(int(rows[i[0]]), why)


_CHECKS = ("time is not a finite number", "negative offset", "negative size", "extent ends past 2^62 bytes")


def _check_records(f: _Fields, cols: dict, limit: int) -> None:
    """:func:`_check_columns` then :func:`_check_request_sizes`, the five checks in one pass of a kernel
    (``fastparse.first_bad_rows``) where the columns are int64 offsets and sizes: the same first failing row
    of the first failing check, without a temporary array per check (0.03 s of a 5M-line first run)."""
    t = np.asarray(cols["time_s"], np.float64)
    off, size, op = np.asarray(cols["offset_bytes"]), np.asarray(cols["size_bytes"]), np.asarray(cols["op"])
    keep = cols.get("keep")
    if off.dtype != np.int64 or size.dtype != np.int64 or op.dtype.kind not in "iu" or \
            not len(t) == len(off) == len(size) == len(op) or (keep is not None and keep.dtype != np.bool_):
        _check_columns(f, cols)
        _check_request_sizes(f, cols, limit)
        return
    first = np.empty(5, np.int64)
    fastparse.first_bad_rows(t, off, size, op, _NO_ROWS if keep is None else keep, limit, _MAX_OFFSET, first)
    for row, why in zip(first[:4], _CHECKS, strict=True):
        if row >= 0:
            f.fail(int(row), why)
    if first[4] >= 0:
        _fail_request_size(f, op, size, int(first[4]), limit)


_NO_ROWS = np.zeros(0, np.bool_)


def _build(f: _Fields, fmt: Format, ctx: _Ctx) -> dict:
    cols = fmt.build(f, **ctx.opts)
    _check_records(f, cols, ctx.max_request_bytes)
    return cols


def _parse_block(block: bytes, fmt: Format, ctx: _Ctx) -> dict | None:
    """One block's Trace columns (times relative to the file's first record), or None if it has no records."""
    taken = 0
    if fmt.prepare is not None and not ctx.prepared:
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
            for key, n in f.skipped.items():
                _count(ctx, key, n)
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
    # t - (+0.0) is t, bit for bit (-0.0 too): a builder that already made times relative is not copied
    cols["time_s"] = t if ctx.t0 == 0.0 and math.copysign(1.0, ctx.t0) > 0 else t - ctx.t0
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
    limit = check_request_limit(opts.pop("max_request_bytes", MAX_REQUEST_BYTES))
    # blocks parsed one by one hand their buffers back (not when the first ones are held to sniff the format)
    spare = [] if format and get_format(format).batched else None
    blocks = iter_blocks(path, block_bytes, spare)
    if format:
        fmt = get_format(format)
    else:
        head = _sniff_head(blocks)
        if all(b.isspace() for b in head):
            raise TraceFormatError(f"{path}: the file is empty (empty trace)")
        fmt = sniff_format(b"".join(head), path)
        blocks = itertools.chain(head, blocks)
    if not fmt.batched:
        blocks = iter([b"".join(blocks)])
    ctx = _Ctx(path, fmt, opts, max_request_bytes=limit)
    prev = None
    blank = True  # every line so far blank
    for block in blocks:
        blank = blank and (not block or block.isspace())
        ctx.block_lines = int(fastparse.count_lines(np.frombuffer(block, np.uint8)))
        cols = _parse_block(block, fmt, ctx)
        ctx.line_base += ctx.block_lines
        if spare is not None and isinstance(block, bytearray):
            spare.append(block)
        del block
        if cols is None:
            continue
        if prev is not None:
            if fmt.join is not None:
                prev, cols = fmt.join(prev, cols, ctx, **opts)
                if len(cols["op"]) == 0:  # the whole block mended the previous record
                    continue
            yield _trace(prev, path, fmt, ctx)
        prev = cols
    if prev is None and blank:
        raise TraceFormatError(f"{path}: the file is empty (empty trace)")
    if prev is None:
        raise TraceFormatError(f"{path}: no {fmt.name} records found (empty trace)")
    if ctx.meta.get("skipped_lines"):
        warnings.warn(f"{path}: skipped {ctx.meta['skipped_lines']} lines that are not {fmt.name} records (first "
                      f"at line {ctx.meta['first_skipped_line']})", TraceWarning, stacklevel=2)
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


SNIFF_LINES = 100  # lines other than blank ones and comments that sniffing looks at
SNIFF_BYTES = 8 << 20  # sniffing reads at most about this much of a file to find them
_CONTENT_LINE = re.compile(rb"^[ \t]*[^ \t\n#]", re.MULTILINE)


def _sniff_head(blocks: Iterator[bytes]) -> list:
    """The first blocks of a file, enough to sniff its format: until they hold :data:`SNIFF_LINES` lines other
    than blank ones and comments, or :data:`SNIFF_BYTES`, or the file ends."""
    head, size, found = [], 0, 0
    for block in blocks:
        head.append(block)
        size += len(block)
        if size >= SNIFF_BYTES:
            break
        found += len(_CONTENT_LINE.findall(block))
        if found >= SNIFF_LINES:
            break
    return head


def _content_lines(data: bytes, limit: int) -> list[tuple[int, str]]:
    """The first ``limit`` lines of ``data`` (whole lines) that are neither blank nor comments, with their
    1-based line numbers; a long comment block or blank stretch before them is passed over."""
    out: list[tuple[int, str]] = []
    pos, lineno = 0, 0
    while pos < len(data) and len(out) < limit:
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        lineno += 1
        line = data[pos:end].decode("utf-8", errors="replace")
        if line.strip() and not line.lstrip().startswith("#"):
            out.append((lineno, line))
        pos = end + 1
    return out


def _records_for_sniffing(fmt: Format, lines: list[str]) -> list[str]:
    """The first ten of ``lines`` that ``fmt`` would read as records: not its skipped lines (a header it
    knows) nor summary lines."""
    recs = [ln for ln in lines if not re.search(fmt.skip, ln)]
    if fmt.summary is not None:
        recs = [ln for ln in recs if not (re.search(fmt.summary, ln) or re.search(fmt.summary_body, ln))]
    return recs[:10]


def sniff_format(data: bytes, path: Path) -> Format:
    """The first registered format whose pattern matches the first records of ``data`` (whole lines: the start
    of a file). Blank lines, comments and the lines a format skips (a header) are passed over however many
    they are, up to :data:`SNIFF_LINES` other lines. An explicit ``sniff`` pattern is about the first record
    (often a header); otherwise all of the first ten must match the format's pattern."""
    found = _content_lines(data, SNIFF_LINES)
    lines = [ln for _, ln in found]
    tried = [fmt.name for fmt in FORMATS.values() if fmt.sniff is not None]
    for fmt in FORMATS.values():
        if fmt.sniff is None:
            continue
        recs = _records_for_sniffing(fmt, lines)
        if recs and (re.match(fmt.sniff, recs[0]) if fmt.sniff else all(re.match(fmt.pattern, r) for r in recs)):
            return fmt
    if not found:
        why = f"its first {len(data):,} bytes hold only blank lines and comments"
    else:
        why = f"the records from line {found[0][0]} on ({found[0][1][:80]!r}) match none of {', '.join(tried)}"
    raise TraceFormatError(f"{path}: cannot tell the trace format: {why}; pass format= one of "
                           f"{', '.join(format_names())}")


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
                      TraceWarning, stacklevel=6)
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
        _fail_request_size(f, op, size, int(rows[0]), limit)


def _fail_request_size(f: _Fields, op: np.ndarray, size: np.ndarray, i: int, limit: int) -> None:
    what = "read" if op[i] == Op.READ else "write"
    f.fail(i, f"a {what} of {int(size[i]):,} bytes is larger than the limit of {limit:,} bytes (max_request_bytes)")


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
    _msr, skip=r"^\s*(#.*)?$|^(?i:\s*timestamp\s*,\s*hostname\s*,\s*disknumber\s*,\s*type\s*,\s*offset\s*,\s*size"
              r"\s*,\s*responsetime\s*)$",
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
    r"\s+(?P<major>\d+)\s+(?P<minor>\d+)(?:\s+(?P<md5>\S+))?\s*$", _fiu, join=_fiu_join,
    fast=FastSpec("ws", (("time", "int"), ("pid", "digits"), ("proc", "skip"), ("lba", "int"), ("size", "int"),
                         ("op", "token"), ("major", "int"), ("minor", "int")), extra="one")))


def _checked_rwbs(f: _Fields):
    """The rwbs field of every line, refused (file, line, field) where it has a letter blktrace does not write
    or more than one of R, W, D and N: blktrace writes exactly one (the operation: read, write, discard or
    none) or, for a flush alone, none of them; with two, the operation would depend on which letter is looked
    at first (``RW`` was read as a write, ``RD`` as a discard)."""
    rwbs = f.df["rwbs"]
    odd = np.flatnonzero(~rwbs.str.contains(r"^[RWDFSMAENB]+$").to_numpy())
    if odd.size:
        f.fail(int(odd[0]), f"field rwbs {rwbs[int(odd[0])]!r} has a letter blktrace does not write (RWDFSMAENB)")
    two = np.flatnonzero(rwbs.str.count_matches("[RWDN]").to_numpy() > 1)
    if two.size:
        f.fail(int(two[0]), f"field rwbs {rwbs[int(two[0])]!r} has more than one of R, W, D and N (read, write, "
                            f"discard, no data): the operation is ambiguous")
    return rwbs


def _joined_runs(f: _Fields, time_s: np.ndarray) -> tuple[np.ndarray, int]:
    """The times of a file holding several blkparse runs one after the other (a summary block ends each run)
    on one clock, and the number of runs moved. blkparse's clock starts again with each run: where a run's
    first line is earlier than the latest line before it, that run and what follows are moved to start at
    that latest time. The pause between the runs is not in the file, so none is assumed: every interval
    within a run is kept, the order of the runs too, and the trace's span is the sum of the runs' spans. A
    summary block after which the time goes on (no new run) moves nothing."""
    run = f.df["_run"].to_numpy()
    st = f.state
    offset, latest = st.get("run_offset", 0.0), st.get("latest_time")
    out = np.asarray(time_s, np.float64).copy()
    moved = 0
    bounds = np.flatnonzero(np.diff(np.r_[st.get("run", 0), run])).tolist() + [len(out)]
    start = 0
    for end in bounds:  # one pass per run (a handful), each vectorised
        out[start:end] += offset
        if end > start:
            top = float(out[start:end].max())
            latest = top if latest is None else max(latest, top)
        if end < len(out) and latest is not None and time_s[end] + offset < latest:
            offset = latest - float(time_s[end])
            moved += 1
        start = end
    st.update(run_offset=offset, latest_time=latest, run=int(run[-1]))
    return out, moved


def _blkparse(f, action="C"):
    """Completions (``action``) of data requests: D (discard) -> TRIM, W -> WRITE, R -> READ; a completion
    with F and no data letter is a FLUSH; other completions without data (e.g. ``N``) are dropped and
    counted. An rwbs field with a letter blktrace never writes, or with two operations, is an error.
    Summary blocks (``CPU0 (8,16):`` ... ``Total (8,16):`` ... ``Events (8,16): ... entries``) are skipped
    wherever they are and counted; the records of a later run follow, on the clock of :func:`_joined_runs`
    (a later run starts where the one before ended, counted in meta ``runs_joined``)."""
    df = f.df
    sel = (df["action"] == action).to_numpy()
    rwbs = _checked_rwbs(f)
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
                             ext.struct.field("n").fill_null("0").alias("_count"))
    sector, n = f.num("_sector"), f.num("_count")
    keep = sel & (data | flush)
    dropped = int(np.count_nonzero(sel & ~(data | flush)))
    cols = _sector_trace(f, f.num("time", FLOAT), op, _linux_device(f, "maj", "min"), sector, n)
    cols["time_s"], moved = _joined_runs(f, cols["time_s"])
    cols["keep"] = keep
    cols["meta"] = {**cols["meta"], "dropped_no_data_completions": dropped}
    if moved:
        cols["meta"]["runs_joined"] = moved
    return cols


# blkparse's statistics at the end of a run: per CPU and in total, then throughput, events and skips
_BLKPARSE_SUMMARY = r"^(CPU\d+|Total) \(.*\):\s*$"
_BLKPARSE_SUMMARY_BODY = r"^\s+[A-Za-z][A-Za-z /]*:|^(Throughput|Events) \(.*\):|^Skips:"


register_format(Format(
    "blkparse", "blkparse text: maj,min cpu seq time pid action rwbs sector + n [process]; action C kept; "
    "per-CPU summary blocks skipped and counted, the runs after them read on",
    rf"^\s*(?P<maj>\d+),(?P<min>\d+)\s+(?P<cpu>\d+)\s+(?P<seq>\d+)\s+(?P<time>{_F})\s+(?P<pid>\d+)\s+"
    r"(?P<action>[A-Za-z]+)\s+(?P<rwbs>[A-Z]+)\s*(?P<rest>.*)$", _blkparse,
    summary=_BLKPARSE_SUMMARY, summary_body=_BLKPARSE_SUMMARY_BODY,
    sniff=r"^\s*\d+,\d+\s+\d+\s+\d+\s+[0-9.]+\s+\d+\s+[A-Za-z]+\s+[A-Z]+"))


def _most(f, action="C"):
    """Completions (``action``) as in blkparse: D (discard) -> TRIM of the extent, W -> WRITE, R -> READ, a
    completion of length zero with W or R -> FLUSH (MOST logs barriers so), F and no data letter -> FLUSH;
    other completions without data (``N``) are dropped and counted. The rwbs field is checked as blkparse's
    (:func:`_checked_rwbs`)."""
    sel = (f.df["action"] == action).to_numpy()
    rwbs = _checked_rwbs(f)
    n = f.num("count")
    has = {c: rwbs.str.contains(c).to_numpy() for c in "RWDF"}
    op = np.select([has["D"], has["W"], has["R"]], [Op.TRIM, Op.WRITE, Op.READ], Op.FLUSH).astype(np.int8)
    rw = has["R"] | has["W"]
    op = np.where(rw & (n == 0), Op.FLUSH, op).astype(np.int8)
    kept = rw | has["D"] | has["F"]
    cols = _sector_trace(f, f.num("time", FLOAT), op, np.zeros(f.n, np.int64), f.num("sector"), n)
    cols["keep"] = sel & kept
    dropped = int(np.count_nonzero(sel & ~kept))
    if dropped:
        cols["meta"] = {**cols["meta"], "dropped_no_data_completions": dropped}
    return cols


register_format(Format(
    "most", "MOST (Android blktrace viewer) .po: time action rwbs sector size_sectors pid process type [file]; "
    "action C kept",
    rf"^\s*(?P<time>{_F})\t(?P<action>[A-Z])\t(?P<rwbs>[A-Z]+)\t\s*(?P<sector>\d+)\t\s*(?P<count>{_I})\t\s*(?P<pid>\d+)"
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


def _csv_columns(layout: CsvLayout, header: list[str] | None, path, line: int) -> dict[str, int]:
    """Role -> 0-based column index; ``line``: the header's line number (for messages)."""
    out = {}
    for role in _ROLES:
        spec = getattr(layout, role)
        if spec is None:
            continue
        if isinstance(spec, str) and not spec.lstrip("-").isdigit():
            if header is None:
                raise TraceFormatError(f"{path}: layout= names column {spec!r} for {role}, but has header=False")
            if spec not in header:
                raise TraceFormatError(f"{path}:{line}: no column {spec!r} ({role}) in the header {header}")
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
    """The header (if the layout has one) off the start of the file, and where each field is. Blank lines and
    comments before it are passed over (comments counted), into the next block if need be."""
    layout = ctx.opts.get("layout", preset)
    if layout is None:
        raise TraceFormatError(f"{ctx.path}: format 'csv' needs layout=CsvLayout(...) or a preset name "
                               f"({', '.join(CSV_PRESETS)})")
    layout = _layout(layout)
    taken, pos = 0, 0
    while True:  # the first line that is not blank or a comment: the header, or the first record
        if pos >= len(block):
            return block[pos:], taken  # none in this block
        end = block.find(b"\n", pos)
        end = len(block) if end < 0 else end
        line = block[pos:end].decode("utf-8", errors="replace")
        if line.strip() and not line.lstrip().startswith("#"):
            break
        _count(ctx, "skipped_comment_lines", line.strip() != "")
        pos, taken = end + 1, taken + 1
    first = ctx.line_base + taken + 1
    header = [h.strip() for h in line.split(layout.sep)] if layout.header else None
    if layout.header:
        pos, taken = end + 1, taken + 1
    columns = ctx.state["columns"] = _csv_columns(layout, header, ctx.path, first)
    width = ctx.state["width"] = len(line.split(layout.sep))  # every record has as many fields as the first line
    ctx.state["width_line"] = first
    if width <= max(columns.values()):
        raise TraceFormatError(f"{ctx.path}:{first}: {width} field(s), but layout= reads column "
                               f"{max(columns.values())} (0-based): {line[:200]!r}")
    ctx.prepared = True
    return block[pos:], taken


def _first_line_is_odd(f, widths: np.ndarray, odd: np.ndarray) -> bool:
    """Whether the first line of a file without header is the one to name for field counts that differ: it is
    in this block, and the two or more records after it agree on a count of their own."""
    return (f.line_of(0) == f.state["width_line"] and len(widths) > 2 and bool(odd[1:].all())
            and bool((widths[1:] == widths[1]).all()))


def _csv(f, layout: CsvLayout | dict | str | None = None):
    layout = _layout(layout)
    if not isinstance(f, _FastFields):
        parts = f.df["row"].str.split(layout.sep)
        widths = parts.list.len().to_numpy()
        odd = widths != f.state["width"]
        if odd.any():
            if _first_line_is_odd(f, widths, odd):
                f.fail(0, f"{widths[0]} fields where the other lines have {widths[1]}")
            i = int(np.argmax(odd))
            f.fail(i, f"{widths[i]} fields where the first line has {f.state['width']} (line "
                      f"{f.state['width_line']})")
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
# the arguments of the calls the replay reads, in order; "path..." may hold spaces (it is what the others leave)
_MOBIBENCH_ARGS = {"open": ("path...", "flags", "fd"), "close": ("fd", "result"), "unlink": ("path...", "result"),
                   "read": ("fd", "count"), "write": ("fd", "count"), "pread": ("fd", "offset", "count"),
                   "pwrite": ("fd", "offset", "count"), "fsync": ("fd", "result"), "fdatasync": ("fd", "result")}
_FILE_BYTES = 1 << 44  # a file-level trace keeps each file's blocks in its own 2^44-byte range (filelevel.py)


def _mobibench_args(f, i: int, op: str, args: list[str]) -> dict:
    """The arguments of call ``op`` on record ``i`` by name (numbers as int), or the line refused naming what
    is missing, extra or wrong: a call with too few arguments must not be read with a default (``write 30``
    wrote 30 bytes to no file), nor one with too many by position."""
    names = _MOBIBENCH_ARGS[op]
    has_path = names[0] == "path..."
    fixed = names[1:] if has_path else names
    if len(args) < len(names):
        missing = "an argument" if has_path else ", ".join(names[len(args):])
        f.fail(i, f"{op} takes {' '.join(names)}: missing {missing}")
    if not has_path and len(args) > len(names):
        f.fail(i, f"{op} takes {' '.join(names)}: {len(args) - len(names)} argument(s) more")
    out = {"path": " ".join(args[:len(args) - len(fixed)])} if has_path else {}
    for name, value in zip(fixed, args[len(args) - len(fixed):], strict=True):
        if name != "flags":
            if not re.fullmatch(r"-?[0-9]{1,18}", value):
                f.fail(i, f"{op}: argument {name} {value!r} is not an integer of at most 18 digits")
            value = int(value)
        out[name] = value
    if op in ("pread", "pwrite") and out["offset"] < 0 and out["count"] > 0:
        f.fail(i, f"{op}: negative offset {out['offset']}")
    return out


class _MobibenchReplay:
    """The state of a MobiGen log's replay: the file-level trace being built (``fb``), the open fds (fd ->
    ``[file id, position, pseudo]``, a pseudo file carrying no data), the current file of each path, and the
    calls skipped, by reason. One method per kind of call; ``i`` is the call's record, ``t`` its time (s)."""

    def __init__(self, f, file_identity: str, unopened: str, merge_writes: bool):
        from .filelevel import FileBlocks

        self.f, self.file_identity, self.unopened = f, file_identity, unopened
        self.fb = FileBlocks(merge_writes)
        self.fds: dict = {}
        self.by_path: dict = {}
        self.skipped = {"unopened_fd_calls": 0, "pseudo_file_calls": 0, "failed_calls": 0, "other_calls": 0,
                        "unlinks_matched": 0, "unlinks_unmatched": 0}

    def new_file(self, i: int, label: str) -> int:
        from .filelevel import MAX_FILES

        if len(self.fb.labels) >= MAX_FILES:
            self.f.fail(i, f"more than {MAX_FILES} files")
        return self.fb.new_file(label)

    def open(self, i: int, t: float, a: dict) -> None:
        """A new file (or, by path, the path's current one, truncated with O_TRUNC) on the returned fd."""
        path, flags, fd = a["path"], a["flags"], a["fd"]
        if fd < 0:
            self.skipped["failed_calls"] += 1
            return
        pseudo = bool(_PSEUDO.match(path)) or "O_DIRECTORY" in flags
        if self.file_identity == "path" and path in self.by_path:
            fid = self.by_path[path]
            if "O_TRUNC" in flags:
                self.fb.truncate(t, fid, 0)
        else:
            fid = self.new_file(i, path)
            self.by_path[path] = fid
        self.fds[fd] = [fid, 0, pseudo]

    def unlink(self, t: float, a: dict) -> None:
        """The path's current file deleted, if the log opened it."""
        fid = self.by_path.pop(a["path"], None)
        if fid is None:
            self.skipped["unlinks_unmatched"] += 1
        else:
            self.skipped["unlinks_matched"] += 1
            self.fb.delete(t, fid)

    def io(self, i: int, op: str, t: float, a: dict) -> None:
        """read, write, pread, pwrite (at the fd's position, or the call's offset), fsync and fdatasync."""
        fd = a["fd"]
        if fd not in self.fds:
            if self.unopened == "skip":
                self.skipped["unopened_fd_calls"] += 1
                return
            self.fds[fd] = [self.new_file(i, f"<fd {fd}>"), 0, False]
        entry = self.fds[fd]
        if op in ("fsync", "fdatasync"):
            self.fb.sync(t, entry[0])
            return
        n = a["count"]
        if n <= 0:
            self.skipped["failed_calls"] += 1
            return
        if entry[2]:
            self.skipped["pseudo_file_calls"] += 1
            return
        if op in ("pread", "pwrite"):
            offset = a["offset"]
        else:
            offset = entry[1]
            entry[1] += n
        if offset + n > _FILE_BYTES:
            self.f.fail(i, f"{op}: the file's extent ends past 16 TiB ({offset} + {n} bytes), where a "
                           f"file-level trace puts the next file")
        (self.fb.write if op.endswith("write") else self.fb.read)(t, entry[0], offset, n)


def _mobibench(f, file_identity="open", unopened="skip", merge_writes=True):
    """MobiGen syscall lines -> a file-level block trace: file positions tracked per fd (there is no lseek in
    these logs), each open a new file (``file_identity="open"``; the logs anonymise most paths, e.g. 464
    opens of ``data/data``) or one file per path until it is unlinked (``"path"``); I/O on fds opened before
    the log starts (sockets and pipes: 1,448-byte reads, -1 results) skipped (``unopened="skip"``) or taken
    as files (``"keep"``); /proc, /dev and /sys files and directories carry no data blocks."""
    if file_identity not in ("open", "path"):
        raise TraceFormatError(f"{f.path}: file_identity must be 'open' or 'path', got {file_identity!r}")
    if unopened not in ("skip", "keep"):
        raise TraceFormatError(f"{f.path}: unopened must be 'skip' or 'keep', got {unopened!r}")
    t_us = f.num("time")
    order = np.argsort(t_us, kind="stable")  # the log is grouped by thread; the fd table is the process's
    ops = f.df["op"].to_list()
    rests = f.df["rest"].fill_null("").to_list()
    replay = _MobibenchReplay(f, file_identity, unopened, merge_writes)
    calls = [_mobibench_args(f, i, op, rest.split()) if op in _MOBIBENCH_ARGS else None  # in file order: the
             for i, (op, rest) in enumerate(zip(ops, rests, strict=True))]               # first bad line named
    for i in order.tolist():
        op, t, a = ops[i], t_us[i] * 1e-6, calls[i]
        if a is None:
            replay.skipped["other_calls"] += 1
        elif op == "open":
            replay.open(i, t, a)
        elif op == "close":
            replay.fds.pop(a["fd"], None)
        elif op == "unlink":
            replay.unlink(t, a)
        else:
            replay.io(i, op, t, a)
    tr = replay.fb.trace("mobibench", str(f.path), {})
    return {"time_s": tr.time_s, "op": tr.op, "offset_bytes": tr.offset_bytes, "size_bytes": tr.size_bytes,
            "file": tr.file, "meta": {**replay.skipped, "files": len(tr.meta["files"]),
                                      "merged_block_writes": tr.meta["merged_block_writes"],
                                      "file_identity": file_identity, "unopened": unopened}}


register_format(Format(
    "mobibench", "MobiGen/Mobibench syscall log: thread time_us op args (open path flags fd, read|write fd n, "
    "pread|pwrite fd offset n, fsync fd, unlink path, ...); a file-level block trace (paper 5)",
    r"^\s*(?P<tid>\d+)\s+(?P<time>\d+)\s+(?P<op>[a-z][a-z_0-9]*)(?:\s+(?P<rest>.*?))?\s*$", _mobibench,
    batched=False))
