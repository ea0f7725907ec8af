"""Notebook 00: characterise every catalog workload (counts, footprint, request sizes, LRU MRC)."""

from __future__ import annotations

import numpy as np
import polars as pl
from tqdm.auto import tqdm

from ..cache import lru_mrc
from ..traces import Op, Trace, catalog

SIZE_BUCKETS_KIB = [4, 8, 16, 32, 64, 128, 256]  # upper bounds; the last bucket is "> 256 KiB"
MRC_POINTS = [256, 1024, 4096, 16384, 65536]  # pages (1 MiB .. 256 MiB at 4 KiB)


def select(workloads, scale: str) -> list[str]:
    """``"auto"``: the synthetic workloads at ``scale="ci"`` (so checked outputs are the same on every
    machine), every available workload otherwise. A list is checked against the catalog."""
    if workloads == "auto":
        return catalog.names("synthetic/") if scale == "ci" else catalog.names(available_only=True)
    names = [workloads] if isinstance(workloads, str) else list(workloads)
    missing = [n for n in names if not catalog.available(n)]
    if missing:
        raise ValueError(f"not available here: {missing} (see `flashrepro workloads`)")
    return names


def load(names: list[str], scale: str, seed: int) -> dict[str, Trace]:
    return {n: catalog.get(n, scale=scale, seed=seed) for n in tqdm(names, desc="load workloads", leave=False)}


def summary(traces: dict[str, Trace]) -> pl.DataFrame:
    rows = []
    for name, tr in traces.items():
        s = tr.stats()
        rows.append({
            "workload": name, "origin": catalog.origin(name) if name in catalog.CATALOG else "file",
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
        sizes = tr.size_bytes[(tr.op == Op.READ) | (tr.op == Op.WRITE)]
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


def plot_mrc(curve: pl.DataFrame, page_bytes: int = 4096, ncols: int = 4):
    import matplotlib.pyplot as plt

    names = curve["workload"].unique(maintain_order=True).to_list()
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.2 * ncols, 2.4 * nrows), squeeze=False, sharey=True)
    for ax, name in zip(axes.flat, names, strict=False):
        d = curve.filter(pl.col("workload") == name)
        ax.plot(d["capacity_pages"] * page_bytes / 2**20, d["lru_hit_ratio"], lw=1.5)
        ax.set_xscale("log")
        ax.set_title(name, fontsize=8)
        ax.set_ylim(0, 1)
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("LRU cache (MiB)")
    for ax in axes[:, 0]:
        ax.set_ylabel("hit ratio")
    fig.suptitle("LRU hit ratio vs cache size (one-pass Mattson stack distances)")
    fig.tight_layout()
    return fig


def plot_sizes(hist: pl.DataFrame):
    import matplotlib.pyplot as plt

    names = hist["workload"].unique(maintain_order=True).to_list()
    labels = hist["size"].unique(maintain_order=True).to_list()
    grid = hist["share"].to_numpy().reshape(len(names), len(labels))
    fig, ax = plt.subplots(figsize=(1.0 * len(labels) + 3, 0.32 * len(names) + 1.2))
    im = ax.imshow(grid, cmap="Blues", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(labels)), labels)
    ax.set_yticks(range(len(names)), names)
    ax.grid(False)
    for i in range(len(names)):
        for j in range(len(labels)):
            if grid[i, j] >= 0.005:
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if grid[i, j] > 0.6 else "black")
    fig.colorbar(im, ax=ax, label="share of requests")
    ax.set_title("Request size distribution")
    fig.tight_layout()
    return fig
