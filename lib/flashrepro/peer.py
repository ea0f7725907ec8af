"""Running the same page stream through libCacheSim, the peer our LRU and CLOCK are checked against.

libCacheSim reads its ``oracleGeneral`` binary format: packed little-endian records of
``(uint32 time, uint64 obj_id, uint32 obj_size, int64 next_access_vtime)``. We write page ids + 1
(0 is not a valid id there) with size 1, so a cache of ``capacity`` bytes holds ``capacity`` pages.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ._io import atomic_path
from .traces.trace import PageRefs

ORACLE_GENERAL = np.dtype([("t", "<u4"), ("id", "<u8"), ("sz", "<u4"), ("nv", "<i8")])


def write_oracle_general(refs: PageRefs, path) -> Path:
    rec = np.zeros(len(refs), ORACLE_GENERAL)
    rec["t"] = np.arange(len(refs), dtype=np.uint64) & 0xFFFFFFFF
    rec["id"] = refs.dense + 1
    rec["sz"] = 1
    rec["nv"] = -1
    with atomic_path(path) as tmp:
        rec.tofile(tmp)
    return Path(path)


def libcachesim_cache(policy: str, capacity_pages: int, hashpower: int = 18):
    import libcachesim

    return getattr(libcachesim, policy)(capacity_pages, hashpower=hashpower)


def libcachesim_reader(path):
    import libcachesim

    return libcachesim.TraceReader(str(path), libcachesim.TraceType.ORACLE_GENERAL_TRACE)


def libcachesim_misses(refs: PageRefs, policy: str, capacity_pages: int, workdir, hashpower: int = 18) -> int:
    """Misses of libcachesim.<policy> (e.g. ``"LRU"``, ``"Clock"``) on the page stream ``refs``."""
    path = Path(workdir) / f"peer-{refs.name.replace('/', '_')}-{len(refs)}.oracleGeneral"
    if not path.exists():
        write_oracle_general(refs, path)
    miss_ratio, _ = libcachesim_cache(policy, capacity_pages, hashpower).process_trace(libcachesim_reader(path))
    return int(round(miss_ratio * len(refs)))
