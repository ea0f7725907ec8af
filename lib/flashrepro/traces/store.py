"""Parse once: parsed trace arrays cached under data/interim/traces, keyed by the file's content hash."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from .. import paths
from .._io import atomic_path
from .readers import read_trace
from .trace import Trace

# Bump when a reader's output changes, so old cache entries are not reused.
READER_VERSION = 1


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


def load_trace(path, format: str | None = None, *, name: str | None = None, cache: bool = True,
               **opts) -> Trace:
    """Read a trace file through the parse cache (see :func:`~flashrepro.traces.read_trace` for formats).

    The first call parses and stores the arrays in ``data/interim/traces/<hash>.npz`` (written to a
    temporary name, then renamed); later calls with the same file content and options load them.
    """
    path = Path(path)
    if path.is_dir():  # a folder format (android-sql) caches its own result, keyed by every file in it
        tr = read_trace(path, format, **({"cache": cache} | opts))
        return tr.renamed(name) if name else tr
    if not path.is_file():
        raise FileNotFoundError(f"no trace file at {path}")
    if not cache:
        tr = read_trace(path, format, **opts)
    else:
        target = paths.interim / "traces" / f"{cache_key(path, format, opts)}.npz"
        if target.is_file():
            with np.load(target, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                tr = Trace(z["time_s"], z["op"], z["offset_bytes"], z["size_bytes"], name=meta["name"],
                           source=str(path), meta=meta["meta"], file=z["file_id"] if "file_id" in z.files else None)
        else:
            tr = read_trace(path, format, **opts)
            meta = json.dumps({"name": tr.name, "meta": tr.meta})
            with atomic_path(target) as tmp, open(tmp, "wb") as f:
                files = {} if tr.file is None else {"file_id": tr.file}  # file-level traces (savez takes file=)
                np.savez(f, time_s=tr.time_s, op=tr.op, offset_bytes=tr.offset_bytes,
                         size_bytes=tr.size_bytes, meta=np.array(meta), **files)
    return tr.renamed(name) if name else tr
