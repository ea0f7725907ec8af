"""Parse once: parsed trace columns cached under data/interim/traces, keyed by the file's content hash.

A cache entry is a folder ``<key>/`` of raw column files (``time_s.bin``, ``op.bin``, ``offset_bytes.bin``,
``size_bytes.bin`` and, for file-level traces, ``file.bin``) and ``meta.json``. A file is parsed block by
block straight into the entry (a temporary folder, renamed when complete), so parsing takes bounded memory
whatever the file's length; :class:`StoredTrace` reads the entry back whole or in batches.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .. import paths
from ..tempfiles import sweep
from .readers import concat, iter_trace, read_trace
from .trace import Trace

# Bump when a reader's output changes, so old cache entries are not reused.
READER_VERSION = 2
COLUMNS = {"time_s": np.float64, "op": np.int8, "offset_bytes": np.int64, "size_bytes": np.int64, "file": np.int32}


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()[:24]


def cache_key(path: Path, format: str | None, opts: dict) -> str:
    spec = json.dumps({"format": format, "opts": {k: repr(v) for k, v in sorted(opts.items())},
                       "v": READER_VERSION}, sort_keys=True)
    return f"{_digest(path)}-{hashlib.sha256(spec.encode()).hexdigest()[:12]}"


class StoredTrace:
    """A parsed trace in the cache: its length, name and meta, read whole (:meth:`load`) or in batches of
    whole requests (:meth:`batches`) without holding the rest in memory."""

    def __init__(self, folder: Path, source: str):
        self.folder, self.source = folder, source
        info = json.loads((folder / "meta.json").read_text())
        self.name, self.meta, self.n = info["name"], info["meta"], int(info["n"])
        self.has_file = (folder / "file.bin").is_file()

    def __len__(self) -> int:
        return self.n

    def _read(self, col: str, start: int, count: int) -> np.ndarray:
        dt = np.dtype(COLUMNS[col])
        return np.fromfile(self.folder / f"{col}.bin", dtype=dt, count=count, offset=start * dt.itemsize)

    def slice(self, start: int, stop: int) -> Trace:
        stop = min(stop, self.n)
        cols = {c: self._read(c, start, stop - start) for c in COLUMNS if c != "file" or self.has_file}
        return Trace(**cols, name=self.name, source=self.source, meta=self.meta)

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
                        source=tr.source, meta=tr.meta, file=None if tr.file is None else tr.file[sl])

    def load(self) -> Trace:
        return self.trace


def _write_entry(target: Path, parts: Iterator[Trace]) -> None:
    """Append every batch's columns to a temporary folder, then rename it to ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep(target.parent)  # folders a killed parse left behind
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.pid{os.getpid()}.", dir=target.parent))
    try:
        files = {}
        n = 0
        last = None
        for tr in parts:
            for col in COLUMNS:
                a = getattr(tr, col)
                if a is None:
                    continue
                if col not in files:
                    files[col] = open(tmp / f"{col}.bin", "wb")
                np.ascontiguousarray(a, COLUMNS[col]).tofile(files[col])
            n += len(tr)
            last = tr
        for f in files.values():
            f.close()
        (tmp / "meta.json").write_text(json.dumps({"name": last.name, "meta": last.meta, "n": n}))
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
    ``data/interim/traces/<hash>/``; later calls with the same content and options reuse it."""
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

    The first call parses and stores the columns in ``data/interim/traces/<hash>/`` (written to a
    temporary folder, then renamed); later calls with the same file content and options load them."""
    tr = open_trace(path, format, cache=cache, **opts).load()
    return tr.renamed(name) if name else tr
