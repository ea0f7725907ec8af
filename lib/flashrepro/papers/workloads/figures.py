"""Notebook 00 figures: miss-ratio curves and request-size shares."""

from __future__ import annotations

import polars as pl


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
