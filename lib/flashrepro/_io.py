"""File helpers: transparent decompression and atomic writes (temporary name, then rename)."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import zstandard

_MAGIC = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bz2",
    b"\xfd7zXZ\x00": "xz",
    b"\x28\xb5\x2f\xfd": "zstd",
}


class TraceFormatError(ValueError):
    """A trace file could not be read; the message names the file, the line and the reason."""


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

    A truncated or corrupt compressed file raises :class:`TraceFormatError` rather than
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
    except (EOFError, OSError, lzma.LZMAError, zstandard.ZstdError, ValueError) as e:
        raise TraceFormatError(f"{path}: corrupt or truncated {kind} data ({e})") from e


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


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path next to ``target``; rename it onto ``target`` only on success.

    Readers of ``target`` never see a half-written file, and an exception leaves nothing behind.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix or target.suffix, dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        if tmp_path.exists():  # mkstemp makes files 0600; give the result the usual umask-based mode
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp_path, 0o666 & ~umask)
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_text_atomic(target: str | os.PathLike, text: str) -> None:
    with atomic_path(target) as tmp:
        tmp.write_text(text)
