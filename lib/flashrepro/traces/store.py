"""Parse once: parsed trace columns cached under data/interim/traces, keyed by the file's identity.

The key (:func:`file_key`) is the file's device, inode, size, modification and status-change times (ns) and
a hash of its first and last MiB, not a hash of the whole content (0.13 s on a 245 MB file, on every run).
Any write through the file system changes the size or the modification time, and
setting the modification time back (``touch -d``, ``cp -p``, ``rsync -t``) changes the status-change time,
which no user call can set; so an edited file is parsed again. What this key cannot see: a file system that
keeps coarse timestamps (FAT: 2 s) with a same-size rewrite inside one tick that leaves the first and last
MiB alone, or a disk image edited outside the running system. A copy of the file elsewhere is parsed again
(its inode differs).

A cache entry is a folder ``<key>/`` of column files in numpy's ``.npy`` format (``time_s.npy``, ``op.npy``,
``offset_bytes.npy``, ``size_bytes.npy`` and, where the trace has them, ``file.npy`` and ``device.npy``) and
``meta.json``: the trace's name, meta and length, each column's dtype, the
:class:`~flashrepro.traces.trace.AddressSpace` of a trace on several devices, and a checksum of all that. A
file is parsed block by block straight into the entry (a temporary folder, renamed when complete), so parsing
takes bounded memory whatever the file's length; :class:`StoredTrace` reads the entry back whole or in
batches. An entry is used only if ``meta.json`` matches its checksum and every column file's ``.npy`` header
(dtype, length) and size match ``meta.json`` (the headers are read, not the arrays); any other entry, such as
a hand-edited ``meta.json``, a truncated column or one of an older layout, is parsed again.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import shutil
import struct
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .. import paths
from .._io import TraceWarning
from ..tempfiles import sweep, temp_name
from .readers import MAX_REQUEST_BYTES, concat, iter_trace, read_trace
from .trace import AddressSpace, Trace

# Bump when a reader's output or the entry's layout changes, so old cache entries are not reused.
# 3: a device column (offsets no longer carry the device); 4: .npy columns and a checksummed meta.json.
READER_VERSION = 4
COLUMNS = {"time_s": np.float64, "op": np.int8, "offset_bytes": np.int64, "size_bytes": np.int64, "file": np.int32,
           "device": np.int64}
REQUIRED = ("time_s", "op", "offset_bytes", "size_bytes")
FILL = {"file": -1, "device": 0}  # an optional column's value for rows of batches that lack it
HEADER_BYTES = 128  # every column file's .npy header, padded to this length (so it can be written last)


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
    if opts.get("max_request_bytes") == MAX_REQUEST_BYTES:  # the default, spelt out or not: one entry
        opts = {k: v for k, v in opts.items() if k != "max_request_bytes"}
    spec = json.dumps({"format": format, "opts": {k: repr(v) for k, v in sorted(opts.items())},
                       "v": READER_VERSION}, sort_keys=True)
    return f"{file_key(path)}-{hashlib.sha256(spec.encode()).hexdigest()[:12]}"


class StoredTrace:
    """A parsed trace in the cache: its length, name and meta, read whole (:meth:`load`) or in batches of
    whole requests (:meth:`batches`) without holding the rest in memory."""

    def __init__(self, folder: Path, source: str, info: dict | None = None):
        self.folder, self.source = folder, source
        info = info if info is not None else entry_info(folder)
        if info is None:
            raise ValueError(f"{folder} is not a complete, unedited parse-cache entry")
        self.name, self.meta, self.n = info["name"], info["meta"], int(info["n"])
        self.columns = list(info["columns"])
        self.space = None if info["space"] is None else AddressSpace.from_json(info["space"])

    def __len__(self) -> int:
        return self.n

    def _read(self, col: str, start: int, count: int) -> np.ndarray:
        """Rows [start, start + count) of a column. The whole column is the file mapped copy-on-write (writable;
        a write stays in this process): a load takes the page cache's pages instead of copying them into fresh
        memory (0.1 s of a 5M-line first run). A batch is copied: its memory is reused batch after batch."""
        dt = np.dtype(COLUMNS[col])
        if count <= 0:
            return np.zeros(0, dt)
        at = HEADER_BYTES + start * dt.itemsize
        if start > 0 or count < self.n:
            return np.fromfile(self.folder / f"{col}.npy", dtype=dt, count=count, offset=at)
        with open(self.folder / f"{col}.npy", "rb") as f:
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        return np.frombuffer(mm, dtype=dt, count=count, offset=at)

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


def _npy_header(dtype, n: int) -> bytes:
    """A ``.npy`` (format 1.0) header for ``n`` values of ``dtype``, padded to :data:`HEADER_BYTES`: numpy reads
    the file as any other, and the header can be written once the length is known."""
    fields = {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False, "shape": (int(n),)}
    magic = np.lib.format.magic(1, 0)
    room = HEADER_BYTES - len(magic) - 2
    return magic + struct.pack("<H", room) + repr(fields).encode("latin1").ljust(room - 1) + b"\n"


def _column_ok(path: Path, dtype, n: int) -> bool:
    """Whether ``path`` is a .npy file of ``n`` values of ``dtype`` (its header and its size; not its values)."""
    try:
        with open(path, "rb") as f:
            if np.lib.format.read_magic(f) != (1, 0):
                return False
            shape, fortran, dt = np.lib.format.read_array_header_1_0(f)
            at = f.tell()
        size = path.stat().st_size
    except (OSError, ValueError):
        return False
    return dt == np.dtype(dtype) and shape == (n,) and not fortran and at == HEADER_BYTES and \
        size == at + n * dt.itemsize


def _checksum(info: dict) -> str:
    """A sha256 of meta.json's content (all but the checksum itself)."""
    body = {k: v for k, v in info.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def entry_info(folder: Path) -> dict | None:
    """The content of ``folder/meta.json`` if the entry can be trusted, else None: the checksum matches, the
    columns are those of a trace with their dtypes, and every column file (and no other) has a header and a
    size that match."""
    try:
        info = json.loads((folder / "meta.json").read_text())
        if not isinstance(info, dict) or info.get("checksum") != _checksum(info):
            return None
        n, columns = int(info["n"]), info["columns"]
        if info["space"] is not None:
            AddressSpace.from_json(info["space"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(columns, dict) or not set(REQUIRED) <= set(columns) <= set(COLUMNS) or n < 1:
        return None
    if any(columns[c] != np.dtype(COLUMNS[c]).str for c in columns):
        return None
    if {p.stem for p in folder.glob("*.npy")} != set(columns):
        return None
    return info if all(_column_ok(folder / f"{c}.npy", COLUMNS[c], n) for c in columns) else None


def _discard(target: Path) -> None:
    """Move an untrusted entry out of the way (a rename, so no process reads half of it) and delete it."""
    trash = temp_name(target)
    try:
        trash.mkdir()
        os.replace(target, trash)
    except FileNotFoundError:  # another process discarded it first
        pass
    finally:
        shutil.rmtree(trash, ignore_errors=True)


class _ColumnFiles:
    """The column files of an entry being written: each batch's columns appended, a column that appears late
    (or goes missing) filled with its :data:`FILL` value, the .npy headers written at the end."""

    def __init__(self, folder: Path):
        self.folder, self.files, self.n = folder, {}, 0

    def append(self, tr: Trace) -> None:
        for col, dtype in COLUMNS.items():
            a = getattr(tr, col)
            if a is None and col not in self.files:
                continue
            if col not in self.files:
                self.files[col] = open(self.folder / f"{col}.npy", "wb")
                self.files[col].write(b"\0" * HEADER_BYTES)
                if self.n:
                    np.full(self.n, FILL[col], dtype).tofile(self.files[col])
            np.ascontiguousarray(np.full(len(tr), FILL[col]) if a is None else a, dtype).tofile(self.files[col])
        self.n += len(tr)

    def finish(self) -> dict:
        """Write the headers, close the files; each column's dtype (for meta.json)."""
        for col, f in self.files.items():
            f.seek(0)
            f.write(_npy_header(COLUMNS[col], self.n))
            f.close()
        return {col: np.dtype(COLUMNS[col]).str for col in self.files}

    def close(self) -> None:
        for f in self.files.values():
            f.close()


def _write_entry(target: Path, parts: Iterator[Trace], progress=None) -> None:
    """Append every batch's columns to a temporary folder, then rename it to ``target``. The meta.json written
    last holds the whole trace's :class:`AddressSpace` when its requests are on several devices (every batch
    read back is keyed in it), and the reader's :class:`TraceWarning` messages, which :func:`open_trace` gives
    (every other warning the parse raises passes as it was raised). ``progress(requests_parsed)`` is called after
    each batch."""
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep(target.parent)  # folders a killed parse left behind
    tmp = temp_name(target)
    columns = _ColumnFiles(tmp)
    try:
        tmp.mkdir()
        space, last = None, None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", TraceWarning)
            for tr in parts:
                columns.append(tr)
                if progress is not None:
                    progress(columns.n)
                if tr.device is not None:
                    part = AddressSpace.of(tr.device, tr.op, tr.offset_bytes, tr.size_bytes)
                    space = part if space is None else space.union(part)
                last = tr
        notes = []
        for w in caught:
            if issubclass(w.category, TraceWarning):
                notes.append(str(w.message))
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
        several = space is not None and len(space.devices) > 1
        meta = {**last.meta, "several_devices": True} if several else last.meta
        info = {"name": last.name, "meta": meta, "n": columns.n, "columns": columns.finish(),
                "space": space.to_json() if several else None, "warnings": notes}
        info["checksum"] = _checksum(info)
        (tmp / "meta.json").write_text(json.dumps(info))
        try:
            os.rename(tmp, target)
        except OSError:  # another process wrote the same entry first
            if not (target / "meta.json").is_file():
                raise
    finally:
        columns.close()
        shutil.rmtree(tmp, ignore_errors=True)  # gone if it became the entry


def open_trace(path, format: str | None = None, *, cache: bool = True, progress=None, **opts):
    """A trace file through the parse cache, not loaded: a :class:`StoredTrace` (or a :class:`MemoryTrace`
    for a folder format, or with ``cache=False``). The first call parses the file block by block into
    ``data/interim/traces/<key>/``; later calls on the same, unchanged file with the same options reuse it
    (the key: see the module), unless the entry is not to be trusted (:func:`entry_info`): then it is parsed
    again. The reader's :class:`TraceWarning` messages (lines skipped, records dropped) are kept with the entry
    and given on every call, the first or a cached one. ``progress(requests_parsed)``, if given, is called after
    each block a parse reads."""
    path = Path(path)
    if path.is_dir():  # a folder format (android-sql) caches its own result, keyed by every file in it
        opts.pop("max_request_bytes", None)  # its requests are the pages SQLite writes, never one huge line
        return MemoryTrace(read_trace(path, format, **({"cache": cache} | opts)))
    if not path.is_file():
        raise FileNotFoundError(f"no trace file at {path}")
    if not cache:
        return MemoryTrace(concat(list(iter_trace(path, format, **opts))))
    target = paths.interim / "traces" / cache_key(path, format, opts)
    info = entry_info(target)
    if info is None:
        if target.exists():
            _discard(target)
        _write_entry(target, iter_trace(path, format, **opts), progress)
        info = entry_info(target)
        if info is None:  # only if something else keeps spoiling the folder
            raise OSError(f"the parse cache entry {target} is not readable after writing it")
    # What the reader said when it parsed the file. An entry made before the warnings were kept has none; it is
    # not parsed again for them: processes opening it at once would each discard the entry another just wrote.
    for note in info.get("warnings", ()):
        warnings.warn(note, TraceWarning, stacklevel=2)
    return StoredTrace(target, str(path), info)


def load_trace(path, format: str | None = None, *, name: str | None = None, cache: bool = True,
               **opts) -> Trace:
    """Read a trace file through the parse cache (see :func:`~flashrepro.traces.read_trace` for formats).

    The first call parses and stores the columns in ``data/interim/traces/<key>/`` (written to a
    temporary folder, then renamed); later calls on the same, unchanged file with the same options load them."""
    tr = open_trace(path, format, cache=cache, **opts).load()
    return tr.renamed(name) if name else tr
