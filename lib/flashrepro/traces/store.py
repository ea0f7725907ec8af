"""Parse once: parsed trace columns cached under data/interim/traces, keyed by the file's identity.

The key (:func:`file_key`) is the file's device, inode, size, modification and status-change times (ns) and
a hash of its first and last MiB, not a hash of the whole content (0.13 s on a 245 MB file, on every run).
Any write through the file system changes the size or the modification time, and
setting the modification time back (``touch -d``, ``cp -p``, ``rsync -t``) changes the status-change time,
which no user call can set; so an edited file is parsed again. What this key cannot see: a file system that
keeps coarse timestamps (FAT: 2 s) with a same-size rewrite inside one tick that leaves the first and last
MiB alone, or a disk image edited outside the running system. A copy of the file elsewhere is parsed again
(its inode differs).

A cache entry is a folder ``<key>/`` of raw column files (``time_s.bin``, ``op.bin``, ``offset_bytes.bin``,
``size_bytes.bin`` and, where the trace has them, ``file.bin`` and ``device.bin``) and ``meta.json`` (with
the :class:`~flashrepro.traces.trace.AddressSpace` of a trace on several devices). A file is parsed block by
block straight into the entry (a temporary folder, renamed when complete), so parsing takes bounded memory
whatever the file's length; :class:`StoredTrace` reads the entry back whole or in batches.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .. import paths
from ..tempfiles import sweep
from .readers import concat, iter_trace, read_trace
from .trace import AddressSpace, Trace

# Bump when a reader's output changes, so old cache entries are not reused.
# 3: a device column (offsets no longer carry the device).
READER_VERSION = 3
COLUMNS = {"time_s": np.float64, "op": np.int8, "offset_bytes": np.int64, "size_bytes": np.int64, "file": np.int32,
           "device": np.int64}
FILL = {"file": -1, "device": 0}  # an optional column's value for rows of batches that lack it


EDGE_BYTES = 1 << 20  # the head and the tail of a file that go into its key


def file_key(path: Path) -> str:
    """The file's identity (see the module): device, inode, size, mtime and ctime in ns, and a sha256 of its
    first and last :data:`EDGE_BYTES` (the whole file when it is no longer than twice that)."""
    st = os.stat(path)
    h = hashlib.sha256(f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}".encode())
    with open(path, "rb") as f:
        if st.st_size <= 2 * EDGE_BYTES:
            h.update(f.read())
        else:
            h.update(f.read(EDGE_BYTES))
            f.seek(st.st_size - EDGE_BYTES)
            h.update(f.read(EDGE_BYTES))
    return h.hexdigest()[:24]


def cache_key(path: Path, format: str | None, opts: dict) -> str:
    spec = json.dumps({"format": format, "opts": {k: repr(v) for k, v in sorted(opts.items())},
                       "v": READER_VERSION}, sort_keys=True)
    return f"{file_key(path)}-{hashlib.sha256(spec.encode()).hexdigest()[:12]}"


class StoredTrace:
    """A parsed trace in the cache: its length, name and meta, read whole (:meth:`load`) or in batches of
    whole requests (:meth:`batches`) without holding the rest in memory."""

    def __init__(self, folder: Path, source: str):
        self.folder, self.source = folder, source
        info = json.loads((folder / "meta.json").read_text())
        self.name, self.meta, self.n = info["name"], info["meta"], int(info["n"])
        self.columns = [c for c in COLUMNS if (folder / f"{c}.bin").is_file()]
        self.space = None if info.get("space") is None else AddressSpace.from_json(info["space"])

    def __len__(self) -> int:
        return self.n

    def _read(self, col: str, start: int, count: int) -> np.ndarray:
        """Rows [start, start + count) of a column. The whole column is the file mapped copy-on-write (writable;
        a write stays in this process): a load takes the page cache's pages instead of copying them into fresh
        memory (0.1 s of a 5M-line first run). A batch is copied: its memory is reused batch after batch."""
        dt = np.dtype(COLUMNS[col])
        if count <= 0:
            return np.zeros(0, dt)
        if start > 0 or count < self.n:
            return np.fromfile(self.folder / f"{col}.bin", dtype=dt, count=count, offset=start * dt.itemsize)
        with open(self.folder / f"{col}.bin", "rb") as f:
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        return np.frombuffer(mm, dtype=dt, count=count, offset=start * dt.itemsize)

    def slice(self, start: int, stop: int) -> Trace:
        stop = min(stop, self.n)
        cols = {c: self._read(c, start, stop - start) for c in self.columns}
        return Trace(**cols, name=self.name, source=self.source, meta=self.meta, space=self.space)

    def batches(self, size: int = 1 << 22) -> Iterator[Trace]:
        for start in range(0, self.n, size):
            yield self.slice(start, start + size)

    def load(self) -> Trace:
        return self.slice(0, self.n)


class MemoryTrace:
    """The same interface over a trace already in memory (folder formats, generated traces)."""

    def __init__(self, trace: Trace):
        self.trace, self.name, self.meta, self.n, self.source = trace, trace.name, trace.meta, len(trace), trace.source

    def __len__(self) -> int:
        return self.n

    def batches(self, size: int = 1 << 22) -> Iterator[Trace]:
        tr = self.trace
        for start in range(0, self.n, size):
            sl = slice(start, start + size)
            yield Trace(tr.time_s[sl], tr.op[sl], tr.offset_bytes[sl], tr.size_bytes[sl], name=tr.name,
                        source=tr.source, meta=tr.meta, file=None if tr.file is None else tr.file[sl],
                        device=None if tr.device is None else tr.device[sl], space=tr.address_space)

    def load(self) -> Trace:
        return self.trace


def _write_entry(target: Path, parts: Iterator[Trace]) -> None:
    """Append every batch's columns to a temporary folder, then rename it to ``target``. The meta.json written
    last holds the whole trace's :class:`AddressSpace` when its requests are on several devices (every batch
    read back is keyed in it)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep(target.parent)  # folders a killed parse left behind
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.pid{os.getpid()}.", dir=target.parent))
    try:
        files = {}
        n = 0
        last, space = None, None
        for tr in parts:
            for col in COLUMNS:
                a = getattr(tr, col)
                if a is None and col not in files:
                    continue
                if col not in files:  # a column the first batches lacked: theirs is all device 0 / no file
                    files[col] = open(tmp / f"{col}.bin", "wb")
                    if n:
                        np.full(n, FILL[col], COLUMNS[col]).tofile(files[col])
                np.ascontiguousarray(np.full(len(tr), FILL[col]) if a is None else a, COLUMNS[col]).tofile(files[col])
            if tr.device is not None:
                part = AddressSpace.of(tr.device, tr.op, tr.offset_bytes, tr.size_bytes)
                space = part if space is None else space.union(part)
            n += len(tr)
            last = tr
        for f in files.values():
            f.close()
        several = space is not None and len(space.devices) > 1
        meta = {**last.meta, "several_devices": True} if several else last.meta
        (tmp / "meta.json").write_text(json.dumps({"name": last.name, "meta": meta, "n": n,
                                                   "space": space.to_json() if several else None}))
        try:
            os.rename(tmp, target)
        except OSError:  # another process wrote the same entry first
            if not (target / "meta.json").is_file():
                raise
    finally:
        for f in locals().get("files", {}).values():
            f.close()
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def open_trace(path, format: str | None = None, *, cache: bool = True, **opts):
    """A trace file through the parse cache, not loaded: a :class:`StoredTrace` (or a :class:`MemoryTrace`
    for a folder format, or with ``cache=False``). The first call parses the file block by block into
    ``data/interim/traces/<key>/``; later calls on the same, unchanged file with the same options reuse it
    (the key: see the module)."""
    path = Path(path)
    if path.is_dir():  # a folder format (android-sql) caches its own result, keyed by every file in it
        return MemoryTrace(read_trace(path, format, **({"cache": cache} | opts)))
    if not path.is_file():
        raise FileNotFoundError(f"no trace file at {path}")
    if not cache:
        return MemoryTrace(concat(list(iter_trace(path, format, **opts))))
    target = paths.interim / "traces" / cache_key(path, format, opts)
    if not (target / "meta.json").is_file():
        _write_entry(target, iter_trace(path, format, **opts))
    return StoredTrace(target, str(path))


def load_trace(path, format: str | None = None, *, name: str | None = None, cache: bool = True,
               **opts) -> Trace:
    """Read a trace file through the parse cache (see :func:`~flashrepro.traces.read_trace` for formats).

    The first call parses and stores the columns in ``data/interim/traces/<key>/`` (written to a
    temporary folder, then renamed); later calls on the same, unchanged file with the same options load them."""
    tr = open_trace(path, format, cache=cache, **opts).load()
    return tr.renamed(name) if name else tr
