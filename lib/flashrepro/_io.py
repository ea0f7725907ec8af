"""File helpers: transparent decompression and atomic writes (temporary name, then rename)."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import zlib
from pathlib import Path

import zstandard

from .tempfiles import atomic_path  # noqa: F401  (re-exported: one implementation, named after the writer's pid)

MAX_REQUEST_BYTES = 1 << 30  # a read or write larger than this is an error (reader keyword max_request_bytes)

_MAGIC = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bz2",
    b"\xfd7zXZ\x00": "xz",
    b"\x28\xb5\x2f\xfd": "zstd",
}


class TraceFormatError(ValueError):
    """A trace file could not be read; the message names the file, the line and the reason."""


class TraceWarning(UserWarning):
    """A trace file was read, but not all of it: lines that are not records skipped, records dropped. The
    message names the file and the first line; the parse cache keeps it with the entry and gives it again each
    time the entry is opened, so a cached read says what the first one said."""


# What the decompressors raise on damaged input: zlib.error (a bad deflate block in gzip) is no OSError
_DECODE_ERRORS = (EOFError, OSError, zlib.error, lzma.LZMAError, zstandard.ZstdError, ValueError)


def _damaged(path, kind: str, e: BaseException) -> TraceFormatError:
    """The error for compressed data that cannot be decoded: truncated (the stream ends early) or corrupt."""
    if isinstance(e, EOFError):
        what = f"truncated {kind} data: the file ends before the compressed stream does"
    else:
        what = f"corrupt {kind} data: the compressed stream cannot be decoded"
    return TraceFormatError(f"{path}: {what} ({type(e).__name__}: {e})")


def compression_of(path: str | os.PathLike) -> str | None:
    """The compression of ``path`` judged by its first bytes (not its name), or None."""
    with open(path, "rb") as f:
        head = f.read(6)
    for magic, name in _MAGIC.items():
        if head.startswith(magic):
            return name
    return None


def read_bytes(path: str | os.PathLike) -> bytes:
    """The decompressed content of ``path`` (gzip, bz2, xz, zstd or plain).

    A truncated or corrupt compressed file raises :class:`TraceFormatError` saying which, rather than
    returning the part that could be decoded.
    """
    path = Path(path)
    kind = compression_of(path)
    raw = path.read_bytes()
    try:
        if kind is None:
            return raw
        if kind == "gzip":
            return gzip.decompress(raw)
        if kind == "bz2":
            return bz2.decompress(raw)
        if kind == "xz":
            return lzma.decompress(raw)
        return _zstd_decompress(raw)
    except _DECODE_ERRORS as e:
        raise _damaged(path, kind, e) from e


class _Checked(io.RawIOBase):
    """A decompressing reader whose truncation or corruption errors become :class:`TraceFormatError`."""

    def __init__(self, path: Path, kind: str, inner):
        self.path, self.kind, self.inner = path, kind, inner

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        try:
            return self.inner.read(n)
        except _DECODE_ERRORS as e:
            raise _damaged(self.path, self.kind, e) from e

    def close(self) -> None:
        self.inner.close()
        super().close()


class _ZstdFrames(io.RawIOBase):
    """zstd decompressed as a stream, frame after frame; a frame cut short is an error (a plain stream reader
    would stop quietly)."""

    def __init__(self, path: Path):
        self.path = path
        self.f = open(path, "rb")
        self.d = zstandard.ZstdDecompressor().decompressobj()
        self.in_frame = False
        self.out: list[bytes] = []
        self.have = 0
        self.eof = False

    def readable(self) -> bool:
        return True

    def _fill(self, n: int) -> None:
        while not self.eof and (n < 0 or self.have < n):
            data = self.f.read(1 << 22)
            if not data:
                if self.in_frame:
                    raise EOFError("the last zstd frame ends early")
                self.eof = True
                break
            while data:
                piece = self.d.decompress(data)
                self.out.append(piece)
                self.have += len(piece)
                if self.d.eof:
                    data = self.d.unused_data
                    self.d = zstandard.ZstdDecompressor().decompressobj()
                    self.in_frame = False
                else:
                    data = b""
                    self.in_frame = True

    def read(self, n: int = -1) -> bytes:
        try:
            self._fill(n)
        except (EOFError, zstandard.ZstdError) as e:
            raise _damaged(self.path, "zstd", e) from e
        buf = b"".join(self.out)
        out, rest = (buf, b"") if n < 0 else (buf[:n], buf[n:])
        self.out, self.have = ([rest] if rest else []), len(rest)
        return out

    def close(self) -> None:
        self.f.close()
        super().close()


@contextlib.contextmanager
def open_decompressed(path: str | os.PathLike):
    """A binary reader of the decompressed content of ``path`` (gzip, bz2, xz, zstd or plain), streamed;
    a truncated or corrupt compressed file raises :class:`TraceFormatError` when the reader reaches it."""
    path = Path(path)
    kind = compression_of(path)
    if kind is None:
        r = open(path, "rb")
    elif kind == "zstd":
        r = _ZstdFrames(path)
    else:
        r = _Checked(path, kind, {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}[kind](path, "rb"))
    try:
        yield r
    finally:
        r.close()


def _zstd_decompress(raw: bytes) -> bytes:
    out = []
    pos = 0
    # Several concatenated frames are legal; each must end properly.
    while pos < len(raw):
        dobj = zstandard.ZstdDecompressor().decompressobj()
        out.append(dobj.decompress(raw[pos:]))
        if not dobj.eof:
            raise EOFError("the last zstd frame ends early")
        pos = len(raw) - len(dobj.unused_data)
    return b"".join(out)


def write_text_atomic(target: str | os.PathLike, text: str) -> None:
    with atomic_path(target) as tmp:
        tmp.write_text(text)


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux's MemAvailable), or None where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def check_memory(nbytes: int, what: str) -> None:
    """Refuse, with a clear message, work that needs more memory than is available (rather than failing with
    a MemoryError or swapping minutes later)."""
    avail = available_memory()
    if avail is not None and nbytes > avail:
        raise MemoryError(f"{what} needs about {nbytes / 2**30:.1f} GiB of memory; {avail / 2**30:.1f} GiB are "
                          f"available")
