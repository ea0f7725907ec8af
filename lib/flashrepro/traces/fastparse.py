"""A typed fast path for delimited trace lines: one Numba pass over the bytes, no regular expressions.

Plain lines of a one-byte-separator format are read by :func:`_regular`, which reads each field while it
scans it (about 0.9 GB/s on MSR lines, 3x the field-then-value scan); any other line (blank, comment,
padded, an exponent, an error) by :func:`_generic`, which the former is checked against.

A :class:`FastSpec` says how a format's records split (``","``, ``"\\t"`` or ``"ws"``: runs of spaces and
tabs) and what each field is: ``int`` (optional sign and up to 18 digits), ``float`` (decimal with an
optional exponent, converted exactly as ``float()`` would: the digits as an integer below 2^53 times or
over an exact power of ten, else the line is refused), ``token`` (at most 8 bytes, e.g. an opcode), or
``skip``. Blank lines and ``#`` comments are skipped. The kernel stops at the first line it cannot read
exactly; the caller then reads that block through the format's regular expression instead, which either
accepts the line (e.g. a header) or names it in an error. So the fast path never changes a result: it only
makes the common case fast (``tests/test_io_speed.py`` reads each format's mangled records both ways).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
from numba import njit

from ..jitkit import load

INT, FLOAT, TOKEN, SKIP, DIGITS = 0, 1, 2, 3, 4
KINDS = {"int": INT, "float": FLOAT, "token": TOKEN, "skip": SKIP, "digits": DIGITS}  # digits: 0-9 only, may be empty
SEPS = {",": 0, "ws": 1, "\t": 2, ";": 3}
EXTRA = {"none": 0, "empty": 1, "any": 2, "one": 3}
_POW10 = np.array([10.0**k for k in range(23)])  # exact in float64


@dataclasses.dataclass(frozen=True)
class FastSpec:
    """``fields``: (name, kind) in order; ``extra``: what may follow the last field: ``"none"``, ``"empty"``
    (one empty field, e.g. a trailing comma), ``"one"`` (at most one more field, ignored) or ``"any"``;
    ``pad``: fields of a ``","``/``";"`` format may be padded with spaces. The spec must accept no line the
    format's regular expression refuses (a value it cannot read exactly sends the block to that expression)."""

    sep: str
    fields: tuple[tuple[str, str], ...]
    extra: str = "none"
    pad: bool = False

    def __post_init__(self):
        if self.sep not in SEPS:
            raise ValueError(f"sep must be one of {sorted(SEPS)}, got {self.sep!r}")
        if self.extra not in EXTRA:
            raise ValueError(f"extra must be one of {sorted(EXTRA)}, got {self.extra!r}")
        for name, kind in self.fields:
            if kind not in KINDS:
                raise ValueError(f"field {name!r}: kind must be one of {sorted(KINDS)}, got {kind!r}")


@njit(cache=True, inline="always")
def _is_space(c):
    return c == 32 or c == 9


@njit(cache=True, inline="always")
def _int_into(buf, a, b, out, r, c):
    """buf[a:b] as a signed integer of at most 18 digits into out[r, c]; False if it is not one.
    (Helpers write into their output instead of returning a tuple: tuple returns halve a kernel's speed.)"""
    neg = False
    if a < b and buf[a] == 45:
        neg = True
        a += 1
    if a >= b or b - a > 18:
        return False
    v = np.int64(0)
    for i in range(a, b):
        d = np.int64(buf[i]) - 48
        if d < 0 or d > 9:
            return False
        v = v * 10 + d
    out[r, c] = -v if neg else v
    return True


@njit(cache=True, inline="always")
def _float_into(buf, a, b, out, r, c, pow10):
    """buf[a:b] as a decimal float into out[r, c], only where the conversion is exact (see the module)."""
    neg = False
    if a < b and (buf[a] == 45 or buf[a] == 43):
        neg = buf[a] == 45
        a += 1
    mant = np.int64(0)
    ndig = 0
    scale = 0
    seen = False
    i = a
    while i < b and 48 <= buf[i] <= 57:
        if ndig or buf[i] != 48:
            ndig += 1
        mant = mant * 10 + (np.int64(buf[i]) - 48)
        seen = True
        i += 1
    if i < b and buf[i] == 46:
        i += 1
        while i < b and 48 <= buf[i] <= 57:
            if ndig or buf[i] != 48:
                ndig += 1
            mant = mant * 10 + (np.int64(buf[i]) - 48)
            scale -= 1
            seen = True
            i += 1
    if not seen or ndig > 15:
        return False
    if i < b and (buf[i] == 101 or buf[i] == 69):
        j = i + 1
        eneg = False
        if j < b and (buf[j] == 45 or buf[j] == 43):
            eneg = buf[j] == 45
            j += 1
        if j >= b or b - j > 3:
            return False
        e = 0
        while j < b:
            d = np.int64(buf[j]) - 48
            if d < 0 or d > 9:
                return False
            e = e * 10 + d
            j += 1
        scale += -e if eneg else e
        i = b
    if i != b:
        return False
    if scale == 0:
        v = float(mant)
    elif 0 < scale <= 22:
        v = float(mant) * pow10[scale]
    elif -22 <= scale < 0:
        v = float(mant) / pow10[-scale]
    elif mant == 0:
        v = 0.0
    else:
        return False
    out[r, c] = -v if neg else v
    return True


# The generic reader's steps, over whole lines (the last ending in \n, so a scan stops at a newline at the latest).
@njit(cache=True, inline="always")
def _eol(buf, s):
    """The position of the newline ending the line that ``s`` is on."""
    while buf[s] != 10:
        s += 1
    return s


@njit(cache=True, inline="always")
def _field_end(buf, s, ws, sc):
    """Where the field starting at ``s`` ends: at a space or tab (``ws``), else at the separator ``sc``; at the
    newline at the latest."""
    e = s
    if ws:
        while buf[e] != 10 and not _is_space(buf[e]):
            e += 1
    else:
        while buf[e] != sc and buf[e] != 10:
            e += 1
    return e


@njit(cache=True, inline="always")
def _field_value(buf, a, b, k, pad, ints, floats, tokens, r, c, pow10):
    """The field ``buf[a:b]`` of kind ``k`` (spaces and tabs around it trimmed with ``pad``): an int, a float or a
    token (at most 8 bytes, packed little-endian) written to row ``r``, column ``c`` of its kind's output; digits
    (0-9 only, possibly none) checked; a skipped field taken as it is. Returns whether the field is one."""
    if pad:
        while a < b and _is_space(buf[a]):
            a += 1
        while b > a and _is_space(buf[b - 1]):
            b -= 1
    if k == INT:
        return _int_into(buf, a, b, ints, r, c)
    if k == FLOAT:
        return _float_into(buf, a, b, floats, r, c, pow10)
    if k == TOKEN:
        t = np.uint64(0)
        for j in range(min(b - a, 8)):
            t |= np.uint64(buf[a + j]) << np.uint64(8 * j)
        tokens[r, c] = t
        return 0 < b - a <= 8
    if k == DIGITS:
        for j in range(a, b):
            if buf[j] < 48 or buf[j] > 57:
                return False
    return True


@njit(cache=True, inline="always")
def _generic_tail(buf, s, ws, sc, more, extra):
    """What follows the last field, from ``s`` (``more``: that field ended at a separator, not at the newline):
    nothing, or what ``extra`` allows (one empty field, blanks allowed; at most one more field; any number).
    Returns a position on the line from which its newline is the next one, or -1 if the line has more fields than
    the format takes."""
    if ws:
        if buf[s] != 10 and extra != 2:
            if extra == 3:  # at most one more field
                s = _field_end(buf, s, True, sc)
                while _is_space(buf[s]):
                    s += 1
            if buf[s] != 10:
                return -1
        return s
    if not more:
        return s - 1  # the newline the last field ended at
    if extra == 0:
        return -1
    if extra == 3:  # at most one more field
        s = _field_end(buf, s, False, sc)
    elif extra == 1:  # one empty field: a trailing separator, spaces allowed
        while _is_space(buf[s]):
            s += 1
    if extra != 2 and buf[s] != 10:
        return -1
    return s


@njit(cache=True, inline="always")
def _generic_record(buf, s, r, ws, sc, pad, kinds, slots, extra, ints, floats, tokens, pow10):
    """The line whose first field starts at ``s`` as record ``r``: each field found (:func:`_field_end`) and
    read (:func:`_field_value`), then what follows the last one (:func:`_generic_tail`). Returns a position on the
    line from which its newline is the next one, or -1 if the line is not a record of the format."""
    more = True
    for f in range(kinds.shape[0]):
        if ws:  # runs of spaces and tabs
            more = buf[s] != 10
        if not more:
            return -1  # too few fields
        e = _field_end(buf, s, ws, sc)
        if not ws:
            more = buf[e] != 10
        if not _field_value(buf, s, e, kinds[f], pad and not ws, ints, floats, tokens, r, slots[f], pow10):
            return -1
        if ws:
            s = e
            while _is_space(buf[s]):
                s += 1
        else:
            s = e + 1
    return _generic_tail(buf, s, ws, sc, more, extra)


@njit(cache=True, _nrt=False)
def _generic(buf, pos, line, rec, one, sep, pad, kinds, slots, extra, ints, floats, tokens, line_of, pow10):
    """Parse the records of ``buf`` from byte ``pos`` (the start of 0-based line ``line``; ``rec`` records written
    so before) to its end, or only that line when ``one``. Returns (pos, line, rec, bad_line): where it
    stopped, the records written so far, and the 0-based line of the first line it cannot read (-1 if none).
    One pass over each line: blank lines and comments are skipped, any other is a record (:func:`_generic_record`:
    a field ends at its separator, or run of blanks, or at the newline, then is read by its kind). This is the
    reference :func:`_regular` is checked against. Compiled without reference counting, as :func:`_regular` is."""
    ws = sep == 1
    sc = 44 if sep == 0 else (9 if sep == 2 else 59)
    stop = buf.shape[0]
    while pos < stop:
        if one:
            stop = pos + 1  # this line only
        a = pos
        while _is_space(buf[a]):
            a += 1
        if buf[a] == 10 or buf[a] == 35:  # blank or a comment
            pos = _eol(buf, a) + 1
            line += 1
            continue
        end = _generic_record(buf, a if ws else pos, rec, ws, sc, pad, kinds, slots, extra, ints, floats, tokens,
                              pow10)
        if end < 0:
            return pos, line, rec, line
        line_of[rec] = line
        rec += 1
        pos = _eol(buf, end) + 1  # past any further fields of a format that takes any number
        line += 1
    return pos, line, rec, -1


# The plain-line reader's steps. Each reads from byte ``s`` of ``buf`` (whole lines, the last ending in \n, so a
# scan stops at a newline at the latest) and returns the byte after what it read, or -1 where the line is not plain;
# a value goes to row ``r``, column ``c`` of its kind's output (a step returning a tuple instead halved the speed).
# Both readers are compiled without reference counting (``_nrt=False``: they allocate nothing and return no array).
# With it, every array handed to an inlined step is counted up and down at each call: 4.5x slower here (measured).
@njit(cache=True, inline="always")
def _blanks(buf, s):
    """Skips spaces and tabs from ``s``."""
    while load(buf, s) == 32 or load(buf, s) == 9:
        s += 1
    return s


@njit(cache=True, inline="always")
def _plain_int(buf, s, ints, r, c):
    """An int field: an optional '-' and 1 to 18 digits, written to ``ints[r, c]``."""
    neg = load(buf, s) == 45
    if neg:
        s += 1
    a = s
    v = np.int64(0)
    while True:
        d = np.int64(load(buf, s)) - 48
        if d < 0 or d > 9:
            break
        v = v * 10 + d
        s += 1
    if s == a or s - a > 18:
        return -1
    ints[r, c] = -v if neg else v
    return s


@njit(cache=True, inline="always")
def _plain_float(buf, s, floats, r, c, pow10):
    """A float field without an exponent, of at most 15 significant digits (so exact, as :func:`_float_into`
    reads it), written to ``floats[r, c]``."""
    neg = load(buf, s) == 45
    if neg or load(buf, s) == 43:
        s += 1
    mant = np.int64(0)
    ndig = 0
    scale = 0
    seen = False
    while 48 <= load(buf, s) <= 57:
        if ndig or load(buf, s) != 48:
            ndig += 1
        mant = mant * 10 + (np.int64(load(buf, s)) - 48)
        seen = True
        s += 1
    if load(buf, s) == 46:
        s += 1
        while 48 <= load(buf, s) <= 57:
            if ndig or load(buf, s) != 48:
                ndig += 1
            mant = mant * 10 + (np.int64(load(buf, s)) - 48)
            scale -= 1
            seen = True
            s += 1
    if not seen or ndig > 15 or scale < -22:
        return -1
    v = float(mant) if scale == 0 else float(mant) / pow10[-scale]
    floats[r, c] = -v if neg else v
    return s


@njit(cache=True, inline="always")
def _to_sep(buf, s, sc):
    """Skips to the separator ``sc`` or the newline."""
    while load(buf, s) != sc and load(buf, s) != 10:
        s += 1
    return s


@njit(cache=True, inline="always")
def _plain_token(buf, s, sc, pad, tokens, r, c):
    """A token field: 1 to 8 bytes up to the separator (blanks before it trimmed with ``pad``), packed
    little-endian into ``tokens[r, c]``."""
    a = s
    s = _to_sep(buf, s, sc)
    b = s
    if pad:
        while b > a and (load(buf, b - 1) == 32 or load(buf, b - 1) == 9):
            b -= 1
    if b == a or b - a > 8:
        return -1
    t = np.uint64(0)
    for j in range(b - a):
        t |= np.uint64(load(buf, a + j)) << np.uint64(8 * j)
    tokens[r, c] = t
    return s


@njit(cache=True, inline="always")
def _plain_field(buf, s, k, sc, pad, ints, floats, tokens, r, c, pow10):
    """A field of kind ``k`` (blanks around it skipped with ``pad``): read and stored (int, float, token),
    checked (digits: possibly none) or skipped up to the separator."""
    if pad:
        s = _blanks(buf, s)
    if k == INT:
        s = _plain_int(buf, s, ints, r, c)
    elif k == FLOAT:
        s = _plain_float(buf, s, floats, r, c, pow10)
    elif k == TOKEN:
        s = _plain_token(buf, s, sc, pad, tokens, r, c)
    elif k == DIGITS:
        while 48 <= load(buf, s) <= 57:
            s += 1
    else:
        s = _to_sep(buf, s, sc)
    if pad and s >= 0:
        s = _blanks(buf, s)
    return s


@njit(cache=True, inline="always")
def _plain_tail(buf, s, sc, extra):
    """What follows the last field, at ``s``: the newline, or after a separator what ``extra`` allows (one
    empty field, blanks allowed; at most one more field; any number). Returns the newline's position."""
    if load(buf, s) == 10:
        return s
    if load(buf, s) != sc or extra == 0:
        return -1
    s += 1
    if extra == 1:
        s = _blanks(buf, s)
    elif extra == 3:
        s = _to_sep(buf, s, sc)
    else:
        while load(buf, s) != 10:
            s += 1
    return s if load(buf, s) == 10 else -1


@njit(cache=True, inline="always")
def _plain_record(buf, s, r, sc, pad, kinds, slots, extra, ints, floats, tokens, pow10):
    """The line from ``s`` as record ``r``: each field (:func:`_plain_field`) and the separator after it, then
    the line's tail (:func:`_plain_tail`). Returns the newline's position, or -1 if the line is not plain."""
    nf = kinds.shape[0]
    for f in range(nf):
        s = _plain_field(buf, s, load(kinds, f), sc, pad, ints, floats, tokens, r, load(slots, f), pow10)
        if s < 0:
            return -1
        if f < nf - 1:  # the separator, or too few fields / a field that does not end here
            if load(buf, s) != sc:
                return -1
            s += 1
    return _plain_tail(buf, s, sc, extra)


@njit(cache=True, _nrt=False)
def _regular(buf, pos, line, rec, sc, pad, kinds, slots, extra, ints, floats, tokens, line_of, pow10):
    """The common lines of a delimited format (one-byte separator ``sc``) fast: each field is read as it is
    scanned (one visit per byte, :func:`_plain_record`), records written from byte ``pos`` on. Stops, without
    writing anything for it, at the first line that is not plain: blank, a comment, leading blanks, a float with
    an exponent or more than 15 digits, a field it would refuse; returns (pos, line, rec) there (``pos`` = the
    buffer's length at its end). :func:`_generic` then reads that one line, exactly: what this reads, it reads
    as :func:`_generic` does (``tests/test_io_speed.py`` checks it line by line on random text)."""
    n = buf.shape[0]
    while pos < n:
        c = load(buf, pos)
        if c == 10 or c == 35 or c == 32 or c == 9:
            return pos, line, rec
        s = _plain_record(buf, pos, rec, sc, pad, kinds, slots, extra, ints, floats, tokens, pow10)
        if s < 0:
            return pos, line, rec
        line_of[rec] = line
        rec += 1
        pos = s + 1
        line += 1
    return pos, line, rec


@njit(cache=True)
def count_lines(buf):
    """The number of newlines in ``buf`` (uint8): a loop LLVM vectorises, 9x faster than ``bytes.count`` (0.37
    against 3.3 ms per 8 MiB block, measured: 0.09 s of a 5M-line first run)."""
    c = 0
    for i in range(buf.shape[0]):
        c += buf[i] == 10
    return c


RUN_MIN = 4096  # after a run of fewer plain lines than this, the rest of the block goes to _generic


def _tokenize(buf, sep, pad, kinds, slots, extra, ints, floats, tokens, line_of, pow10):
    """Parse the records of ``buf`` (whole lines, the last ending in \\n); returns (records, bad_line): the number
    of records written and the 0-based line of the first line it cannot read (-1 if none). Runs of plain lines
    go through :func:`_regular`, the line it stops at through :func:`_generic`, and after a short run (fewer
    than :data:`RUN_MIN` lines: a file whose lines are mostly not plain) the rest of the block too;
    whitespace-separated formats through :func:`_generic` alone. The loop is in Python: one Numba function
    holding both kernels ran the plain lines 30% slower."""
    n = buf.shape[0]
    if sep == 1:
        _, _, rec, bad = _generic(buf, 0, 0, 0, False, sep, pad, kinds, slots, extra, ints, floats, tokens, line_of,
                                  pow10)
        return int(rec), int(bad)
    sc = 44 if sep == 0 else (9 if sep == 2 else 59)
    pos, line, rec = 0, 0, 0
    while pos < n:
        first = line
        pos, line, rec = _regular(buf, pos, line, rec, sc, pad, kinds, slots, extra, ints, floats, tokens, line_of,
                                  pow10)
        if pos >= n:
            break
        pos, line, rec, bad = _generic(buf, pos, line, rec, line - first >= RUN_MIN, sep, pad, kinds, slots, extra,
                                       ints, floats, tokens, line_of, pow10)
        if bad >= 0:
            return int(rec), int(bad)
    return int(rec), -1


@njit(cache=True)
def lookup_tokens(tok, keys, codes, out):
    """``out[i]`` = the code of the key equal to ``tok[i]`` (``keys``: distinct packed tokens, a handful); returns
    the first ``i`` whose token is no key (``out`` written up to it), or -1. Every key is compared, without
    a branch on the tokens (a read or a write, at random, would be mispredicted at every other request)."""
    for i in range(tok.shape[0]):
        t = tok[i]
        hit = -1
        for j in range(keys.shape[0]):
            hit = j if keys[j] == t else hit
        if hit < 0:
            return i
        out[i] = codes[hit]
    return -1


@njit(cache=True)
def first_bad_rows(t, off, size, op, keep, limit, max_offset, out):
    """The reader's record checks in one pass: ``out[c]`` = the first row (among those ``keep`` marks, when it
    is not empty) failing check ``c``, or -1: 0 a time that is not finite, 1 a negative offset, 2 a negative
    size, 3 an extent ending past ``max_offset`` (``off > max_offset - max(size, 0)``), 4 a read or write
    (op 0 or 1) larger than ``limit``."""
    for c in range(5):
        out[c] = -1
    sel = keep.shape[0] > 0
    for i in range(t.shape[0]):
        if sel and not keep[i]:
            continue
        o, s = off[i], size[i]
        if out[0] < 0 and not np.isfinite(t[i]):
            out[0] = i
        if out[1] < 0 and o < 0:
            out[1] = i
        if out[2] < 0 and s < 0:
            out[2] = i
        if out[3] < 0 and o > max_offset - max(s, 0):
            out[3] = i
        if out[4] < 0 and op[i] <= 1 and s > limit:
            out[4] = i


def encode_token(name: str) -> int | None:
    """``name`` packed as the tokenizer packs a token (its UTF-8 bytes, little-endian), or None if it is not
    1 to 8 bytes long."""
    b = name.encode("utf-8")
    return int.from_bytes(b, "little") if 0 < len(b) <= 8 else None


@functools.lru_cache(maxsize=64)
def _token_table(items: tuple) -> tuple[np.ndarray, np.ndarray]:
    pairs = sorted((t, code) for name, code in items if (t := encode_token(name)) is not None)
    return np.array([t for t, _ in pairs], np.uint64), np.array([c for _, c in pairs], np.int8)


def token_table(mapping: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """The names of ``mapping`` as sorted packed tokens and their codes (int8): a token's code is
    ``codes[searchsorted(keys, token)]`` where ``keys`` there equals it."""
    return _token_table(tuple(sorted(mapping.items())))


def decode_token(t: int) -> str:
    b = int(t).to_bytes(8, "little").rstrip(b"\0")
    return b.decode("utf-8", errors="replace")


@dataclasses.dataclass
class Parsed:
    """Typed columns by field name, and each record's 0-based line within the block."""

    columns: dict
    line: np.ndarray

    def __len__(self) -> int:
        return len(self.line)


def tokenize(block: bytes, spec: FastSpec, lines: int | None = None) -> tuple[Parsed | None, int]:
    """Parse a block of whole lines; returns (columns, -1) or (None, first unreadable 0-based line).
    ``lines``: the number of newlines in ``block`` or more, when the caller has counted them."""
    if block and block[-1] != 10:
        block = block + b"\n"
    buf = np.frombuffer(block, np.uint8)
    kinds = np.array([KINDS[k] for _, k in spec.fields], np.int8)
    slots = np.zeros(len(kinds), np.int64)  # each field's column among those of its kind
    for k in (INT, FLOAT, TOKEN):
        slots[kinds == k] = np.arange(int(np.count_nonzero(kinds == k)))
    cap = (count_lines(buf) if lines is None else lines) + 1
    n_int, n_float, n_tok = (int(np.count_nonzero(kinds == k)) for k in (INT, FLOAT, TOKEN))
    # column-major: each field's column is contiguous, handed out without a copy. At least two columns each:
    # Numba types a one-column array as C-ordered, so every mix of kinds would compile the kernels anew
    # (up to 8 signatures of several seconds each); with two, every format shares one.
    ints = np.empty((cap, max(n_int, 2)), np.int64, order="F")
    floats = np.empty((cap, max(n_float, 2)), np.float64, order="F")
    tokens = np.empty((cap, max(n_tok, 2)), np.uint64, order="F")
    line_of = np.empty(cap, np.int64)
    n, bad = _tokenize(buf, SEPS[spec.sep], spec.pad, kinds, slots, EXTRA[spec.extra], ints, floats, tokens, line_of,
                       _POW10)
    if bad >= 0:
        return None, int(bad)
    cols = {}
    counters = {INT: 0, FLOAT: 0, TOKEN: 0}
    store = {INT: ints, FLOAT: floats, TOKEN: tokens}
    for name, kind in spec.fields:
        k = KINDS[kind]
        if k in (SKIP, DIGITS):
            continue
        cols[name] = store[k][:n, counters[k]]
        counters[k] += 1
    return Parsed(cols, line_of[:n]), -1
