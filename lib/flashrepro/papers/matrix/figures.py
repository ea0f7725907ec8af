"""Notebook 06 figures: one heat map per metric, workloads x policies, a panel per buffer size."""

from __future__ import annotations

import numpy as np
import polars as pl


def plot_heat(rel: pl.DataFrame, metric: str, page_bytes: int = 4096):
    """``rel`` from :func:`~.experiments.relative`: colour = the metric relative to LRU on the same workload
    and size (log scale, 1 = as LRU), the number printed in each cell is the ratio."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm

    caps = sorted(rel["capacity_pages"].unique().to_list())
    pols = rel["policy"].unique(maintain_order=True).to_list()
    works = rel["workload"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(1, len(caps), figsize=(0.36 * len(pols) * len(caps) + 4, 0.17 * len(works) + 2.4),
                             squeeze=False, sharey=True)
    vals = rel["relative"].to_numpy()
    finite = vals[np.isfinite(vals) & (vals > 0)]
    span = max(float(np.max(np.abs(np.log10(finite)))) if finite.size else 0.1, 0.05)
    norm = LogNorm(10 ** -span, 10 ** span)
    for ax, cap in zip(axes[0], caps, strict=True):
        d = rel.filter(pl.col("capacity_pages") == cap)
        grid = np.full((len(works), len(pols)), np.nan)  # a row per workload, a column per policy
        for w, p, v in d.select("workload", "policy", "relative").iter_rows():
            grid[works.index(w), pols.index(p)] = v if v is not None else np.nan
        im = ax.imshow(np.where(grid > 0, grid, np.nan), cmap="RdBu_r" if metric != "hit_ratio" else "RdBu",
                       norm=norm, aspect="auto", interpolation="nearest")
        ax.set_xticks(range(len(pols)), pols, rotation=90, fontsize=7)
        ax.set_yticks(range(len(works)), works, fontsize=6)
        ax.set_title(f"{cap * page_bytes / 2**20:g} MiB", fontsize=9)
        ax.grid(False)
        if len(works) <= 12:
            for (i, j), v in np.ndenumerate(grid):
                if np.isfinite(v):
                    ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=5)
    fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8, label=f"{metric} / LRU's")
    fig.suptitle(f"{metric.replace('_', ' ')} relative to LRU (blue = better)")
    return fig
