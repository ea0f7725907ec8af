"""Notebook 00 experiments: counts, footprint, request sizes and the LRU miss-ratio curve of each workload."""

from __future__ import annotations

import numpy as np
import polars as pl
from tqdm.auto import tqdm

from ...cache import lru_mrc
from ...traces import Trace, catalog
from ...traces.trace import references_pages

SIZE_BUCKETS_KIB = [4, 8, 16, 32, 64, 128, 256]  # upper bounds; the last bucket is "> 256 KiB"
MRC_POINTS = [256, 1024, 4096, 16384, 65536]  # pages (1 MiB .. 256 MiB at 4 KiB)


def summary(traces: dict[str, Trace]) -> pl.DataFrame:
    rows = []
    for name, tr in traces.items():
        s = tr.stats()
        rows.append({
            "workload": name, "origin": catalog.origin(name) if catalog.known(name) else "file",
            "requests": s["requests"], "reads": s["reads"], "writes": s["writes"],
            "write_share": s["writes"] / max(s["reads"] + s["writes"], 1),
            "read_MiB": s["read_bytes"] / 2**20, "written_MiB": s["write_bytes"] / 2**20,
            "footprint_MiB": s["footprint_bytes"] / 2**20, "mean_request_KiB": s["mean_request_bytes"] / 1024,
            "duration_s": s["duration_s"],
        })
    return pl.DataFrame(rows)


def size_histogram(traces: dict[str, Trace]) -> pl.DataFrame:
    """Share of read/write requests per size bucket (``<=4`` KiB, ..., ``>256`` KiB)."""
    labels = [f"<={b}K" for b in SIZE_BUCKETS_KIB] + [f">{SIZE_BUCKETS_KIB[-1]}K"]
    edges = np.array(SIZE_BUCKETS_KIB) * 1024
    rows = []
    for name, tr in traces.items():
        sizes = tr.size_bytes[references_pages(tr.op)]
        counts = np.bincount(np.searchsorted(edges, sizes, side="left"), minlength=len(labels))
        for lab, c in zip(labels, counts, strict=True):
            rows.append({"workload": name, "size": lab, "share": c / max(len(sizes), 1)})
    return pl.DataFrame(rows)


def mrc(traces: dict[str, Trace], points=MRC_POINTS, n_grid: int = 40) -> tuple[pl.DataFrame, pl.DataFrame]:
    """LRU hit ratio at ``points`` (a table) and on a log grid up to each footprint (for plotting)."""
    table, curve = [], []
    for name, tr in tqdm(traces.items(), desc="LRU MRC", leave=False):
        m = lru_mrc(tr)
        fp = len(m.hits_at_distance)
        for c, mr in zip(points, m.miss_ratio(points), strict=True):
            table.append({"workload": name, "capacity_pages": c, "lru_hit_ratio": 1 - float(mr)})
        grid = np.unique(np.geomspace(1, max(fp, 2) * 1.2, n_grid).astype(np.int64))
        for c, mr in zip(grid, m.miss_ratio(grid), strict=True):
            curve.append({"workload": name, "capacity_pages": int(c), "lru_hit_ratio": 1 - float(mr)})
    return pl.DataFrame(table), pl.DataFrame(curve)


