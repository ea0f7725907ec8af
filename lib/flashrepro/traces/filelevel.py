"""Building a file-level block trace from file operations (SQLite's VFS calls, syscall logs).

Every file gets an id; its block ``b`` is page ``(id << 32) | b`` (4 KiB blocks), so pages are numbered per
file and a file's range is ``[id << 32, (id + 1) << 32)``. Reads and writes become READ/WRITE requests of the
blocks they touch, a sync an ``Op.SYNC`` of the file, a truncate an ``Op.TRIM`` of the blocks past the new
end, a delete an ``Op.TRIM`` of every block the file had. With ``merge_writes``, the blocks of a write that
the previous operation on the same file (a write) already touched are not written again: one block write per
block per run of consecutive writes, as a page cache sees them (SQLite writes a journal record as 4 B + page
+ 4 B at unaligned offsets, so per-syscall counting sees every journal block written twice).
"""

from __future__ import annotations

import numpy as np

from .._io import TraceFormatError
from .trace import Op, Trace

FILE_SHIFT = 32
BLOCK = 4096
MAX_FILES = 1 << (62 - FILE_SHIFT - 12)  # byte offsets stay below 2^62


class FileBlocks:
    """Collects requests; :meth:`trace` returns them as a :class:`Trace` with a ``file`` column."""

    def __init__(self, merge_writes: bool = True):
        self.merge_writes = merge_writes
        self.labels: list[str] = []
        self.size: list[int] = []  # blocks each file has had since it was last emptied
        self.last: list = []  # per file: (first, last) block of its previous op when that was a write
        self.t, self.op, self.first, self.count, self.fid = [], [], [], [], []
        self.merged = 0  # block writes merged into the previous write

    def new_file(self, label: str) -> int:
        if len(self.labels) >= MAX_FILES:
            raise TraceFormatError(f"more than {MAX_FILES} files")
        self.labels.append(label)
        self.size.append(0)
        self.last.append(None)
        return len(self.labels) - 1

    def _emit(self, t, op, f, first, count):
        self.t.append(t)
        self.op.append(op)
        self.fid.append(f)
        self.first.append((f << FILE_SHIFT) + first)
        self.count.append(count)

    def read(self, t: float, f: int, offset: int, size: int) -> None:
        if size <= 0:
            return
        a, b = offset // BLOCK, (offset + size - 1) // BLOCK
        self.size[f] = max(self.size[f], b + 1)  # the file has at least the blocks read
        self._emit(t, Op.READ, f, a, b - a + 1)
        self.last[f] = None

    def write(self, t: float, f: int, offset: int, size: int) -> None:
        if size <= 0:
            return
        a, b = offset // BLOCK, (offset + size - 1) // BLOCK
        self.size[f] = max(self.size[f], b + 1)
        prev, self.last[f] = self.last[f], (a, b)
        if self.merge_writes and prev is not None and prev[0] <= b and a <= prev[1]:
            pieces = [(x, y) for x, y in ((a, min(b, prev[0] - 1)), (max(a, prev[1] + 1), b)) if x <= y]
            self.merged += (b - a + 1) - sum(y - x + 1 for x, y in pieces)
        else:
            pieces = [(a, b)]
        for x, y in pieces:
            self._emit(t, Op.WRITE, f, x, y - x + 1)

    def sync(self, t: float, f: int) -> None:
        self._emit(t, Op.SYNC, f, 0, 0)
        self.last[f] = None

    def truncate(self, t: float, f: int, new_size_bytes: int) -> None:
        keep = -(-new_size_bytes // BLOCK)
        if self.size[f] > keep:
            self._emit(t, Op.TRIM, f, keep, self.size[f] - keep)
        self.size[f] = min(self.size[f], keep)
        self.last[f] = None

    def delete(self, t: float, f: int) -> None:
        self.truncate(t, f, 0)

    def trace(self, name: str, source: str, meta: dict) -> Trace:
        if not self.op:
            raise TraceFormatError(f"{source}: no file I/O")
        op = np.array(self.op, np.int8)
        first = np.array(self.first, np.int64)
        count = np.array(self.count, np.int64)
        return Trace(np.array(self.t, np.float64), op, first * BLOCK, np.where(op == Op.SYNC, 0, count * BLOCK),
                     name=name, source=source, meta={**meta, "files": self.labels, "merged_block_writes": self.merged},
                     file=np.array(self.fid, np.int32))
