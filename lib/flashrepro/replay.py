"""Replay an after-cache trace against a real file or block device and time it, as the BS-CLOCK paper did
on its microSD cards (Sec. 4: O_DIRECT, Linux 3.2).

Safety first: the target is touched only within ``max_bytes`` (request offsets are folded into that
range, keeping each request's size and its order), a path that already holds data (a non-empty file or
any block device) is refused unless ``allow_existing=True``, and a request larger than ``max_bytes`` is an
error. Where the file system refuses O_DIRECT (tmpfs, some overlay file systems) the replay falls back to
buffered I/O with ``fdatasync`` after every write request, and says so in ``mode``.

A symbolic link as the target is refused (dangling or not: the replay writes only where it was told to), and
``max_bytes`` must be a positive whole number. If the file system fills up (ENOSPC, or EDQUOT), or the run is
interrupted or fails in any other way, a target file the replay created is removed again, with any folder it
created for it, and the error says what happened (:class:`ReplayError` for a full file system).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import math
import mmap
import os
import stat
import time
from pathlib import Path

import numpy as np

from .traces.trace import Op, Trace, references_pages


@dataclasses.dataclass(frozen=True)
class ReplayResult:
    seconds: float
    mode: str  # "O_DIRECT" or "buffered+fdatasync"
    requests: int
    bytes_written: int
    bytes_read: int
    target: str
    folded: bool  # offsets were folded into max_bytes


class ReplayError(OSError):
    """The replay could not finish (e.g. no space left on the target's file system); what it created is gone."""


def _check_max_bytes(max_bytes) -> int:
    if isinstance(max_bytes, float) and not math.isfinite(max_bytes):
        raise ValueError(f"max_bytes must be a finite number of bytes, got {max_bytes}")
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, np.integer)):
        raise ValueError(f"max_bytes must be a whole number of bytes, got {max_bytes!r}")
    if max_bytes <= 0:
        raise ValueError(f"max_bytes must be positive, got {max_bytes}")
    return int(max_bytes)


def _check_target(path: Path, allow_existing: bool) -> None:
    if path.is_symlink():
        what = "a dangling symbolic link" if not path.exists() else f"a symbolic link to {os.readlink(path)}"
        raise PermissionError(f"{path} is {what}; give the real path of the file or device to replay on")
    if not path.exists():
        return
    st = path.stat()
    if stat.S_ISBLK(st.st_mode):
        if not allow_existing:
            raise PermissionError(f"{path} is a block device; pass allow_existing=True to overwrite it")
    elif not stat.S_ISREG(st.st_mode):
        raise PermissionError(f"{path} is neither a regular file nor a block device")
    elif st.st_size > 0 and not allow_existing:
        raise PermissionError(f"{path} already holds {st.st_size} bytes; pass allow_existing=True to overwrite it")


def _open(path: Path, direct: bool) -> tuple[int, str]:
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    if direct and hasattr(os, "O_DIRECT"):
        try:
            return os.open(path, flags | os.O_DIRECT, 0o644), "O_DIRECT"
        except OSError as e:
            if e.errno not in (errno.EINVAL, errno.EOPNOTSUPP):
                raise
    return os.open(path, flags, 0o644), "buffered+fdatasync"


def _mkdirs(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; the ones created, deepest first."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for d in reversed(missing):
        d.mkdir(exist_ok=True)
    return missing


@contextlib.contextmanager
def _created(path: Path):
    """Remove ``path`` (and the folders made for it) if the block fails and ``path`` did not exist before."""
    existed = path.exists()
    made = _mkdirs(path.parent)
    try:
        yield
    except BaseException:
        if not existed:
            with contextlib.suppress(OSError):
                path.unlink()
            for d in made:
                with contextlib.suppress(OSError):
                    d.rmdir()
        raise


def replay(trace: Trace, target, *, max_bytes: int, allow_existing: bool = False, direct: bool = True,
           align_bytes: int = 4096, progress: bool = False) -> ReplayResult:
    """Issue every request of ``trace`` (reads and writes, in order, one at a time) to ``target``.

    Offsets are taken relative to the trace's lowest offset; if the span does not fit in ``max_bytes``
    they are folded (``offset % usable``), which keeps sizes, order and runs of adjacent requests.
    ``progress`` shows a tqdm bar of the requests on stderr.
    """
    path = Path(target)
    max_bytes = _check_max_bytes(max_bytes)
    _check_target(path, allow_existing)
    rw = references_pages(trace.op)
    op, off, size = trace.op[rw], trace.offset_bytes[rw], trace.size_bytes[rw]
    if len(op) == 0:
        raise ValueError("nothing to replay: the trace has no reads or writes")
    if np.any(size % align_bytes) or np.any(off % align_bytes):
        raise ValueError(f"requests must be multiples of {align_bytes} bytes for O_DIRECT replay")
    biggest = int(size.max())
    if biggest > max_bytes:
        raise ValueError(f"a request of {biggest} bytes does not fit in max_bytes={max_bytes}")
    rel = off - off.min()
    usable = (max_bytes - biggest) // align_bytes * align_bytes + align_bytes
    folded = bool(np.any(rel + size > max_bytes))
    if folded:
        rel = rel % usable
    with _created(path):
        seconds, mode = _issue(path, direct, op, rel, size, biggest, progress)
    return ReplayResult(seconds, mode, len(op), int(size[op == Op.WRITE].sum()), int(size[op == Op.READ].sum()),
                        str(path), folded)


def _issue(path: Path, direct: bool, op, rel, size, biggest: int, progress: bool) -> tuple[float, str]:
    buf = mmap.mmap(-1, biggest)  # page-aligned, as O_DIRECT needs
    view = memoryview(buf)
    fd = -1
    bar = None
    k = 0
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(op), unit="req", desc=f"replay {path.name}", leave=False)
    try:
        buf.write(bytes(range(256)) * (biggest // 256) + bytes(biggest % 256))
        fd, mode = _open(path, direct)
        t0 = time.perf_counter()
        for k in range(len(op)):
            if bar is not None:
                bar.update(1)
            n = int(size[k])
            o = int(rel[k])
            if op[k] == Op.WRITE:
                try:
                    os.pwrite(fd, view[:n], o)
                except OSError as e:
                    if mode == "O_DIRECT" and e.errno == errno.EINVAL:  # refused at first use: fall back
                        os.close(fd)
                        fd, mode = _open(path, direct=False)
                        os.pwrite(fd, view[:n], o)
                    else:
                        raise
                if mode != "O_DIRECT":
                    os.fdatasync(fd)
            else:
                os.preadv(fd, [view[:n]], o)
        seconds = time.perf_counter() - t0
    except OSError as e:
        if e.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
            done = int(size[:k][op[:k] == Op.WRITE].sum())
            raise ReplayError(e.errno, f"no space left for the replay on {path}'s file system after {k} of "
                              f"{len(op)} requests ({done} bytes written); free space or lower max_bytes "
                              f"(a target the replay created is removed)", str(path)) from None
        raise
    finally:
        if fd >= 0:
            os.close(fd)
        if bar is not None:
            bar.close()
        view.release()
        with contextlib.suppress(BufferError):  # a slice still held by a traceback: freed with it
            buf.close()
    return seconds, mode


def write_sweep(target, total_bytes: int, request_bytes: list[int], **kw) -> list[ReplayResult]:
    """Fig. 2's experiment on real storage: write ``total_bytes`` sequentially in requests of each size."""
    out = []
    for req in request_bytes:
        n = total_bytes // req
        tr = Trace(np.zeros(n), np.full(n, Op.WRITE, np.int8), np.arange(n, dtype=np.int64) * req,
                   np.full(n, req, np.int64), name=f"sweep-{req}")
        out.append(replay(tr, target, max_bytes=total_bytes, allow_existing=True, **kw))
    return out


def read_sweep(target, request_bytes: list[int], n_reads: int = 64, spacing: int = 1 << 20, seed: int = 0,
               **kw) -> list[ReplayResult]:
    """Fig. 4's experiment on real storage (paper 2, Sec. 3.4): a file filled with random data (so no SSD
    deduplication or compression helps), then ``n_reads`` reads of each size, each at the start of its own
    ``spacing``-aligned slot (1 MiB apart, so the SSD's own read-ahead does not help), with O_DIRECT."""
    path = Path(target)
    _check_target(path, kw.pop("allow_existing", False))
    biggest = max(request_bytes)
    if biggest > spacing:
        raise ValueError(f"a read of {biggest} bytes does not fit a {spacing}-byte slot")
    total = n_reads * spacing
    rng = np.random.default_rng(seed)
    with _created(path), open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
                                      0o644), "wb") as f:
        for _ in range(n_reads):
            f.write(rng.integers(0, 256, spacing, dtype=np.uint8).tobytes())
        f.flush()
        os.fsync(f.fileno())
    out = []
    for req in request_bytes:
        tr = Trace(np.zeros(n_reads), np.full(n_reads, Op.READ, np.int8),
                   np.arange(n_reads, dtype=np.int64) * spacing, np.full(n_reads, req, np.int64), name=f"reads-{req}")
        out.append(replay(tr, path, max_bytes=total, allow_existing=True, **kw))
    return out
