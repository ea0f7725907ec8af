"""Notebook 06 figures: one heat map per metric, workloads x policies, a panel per buffer size."""

from __future__ import annotations

import numpy as np
import polars as pl

SPREAD_QUANTILE = 0.9  # the colour scale spans this quantile of the cells' distance from the baseline


def heat_limits(relative, quantile: float = SPREAD_QUANTILE) -> tuple[float, float]:
    """The colour limits of a heat map of ratios to a baseline: ``(1 / s, s)``, centred at 1 on a log scale,
    with ``s`` the ``quantile`` of ``|log10(ratio)|`` over the cells that differ from the baseline (finite,
    positive, not exactly 1: the baseline's own column and the policies that act as it say nothing about the
    spread). So the colours are spent where the data are, not on the extremes; the cells beyond (about one in
    ten of those) saturate, as the colour bar's arrows say. With no cell differing, ``s`` is 1.01."""
    v = np.asarray(relative, dtype=float)
    v = v[np.isfinite(v) & (v > 0) & (v != 1)]
    if not v.size:
        return 1 / 1.01, 1.01
    s = 10 ** float(np.quantile(np.abs(np.log10(v)), quantile))
    s = max(s, 1.001)
    return 1 / s, s


def plot_heat(rel: pl.DataFrame, metric: str, page_bytes: int = 4096):
    """``rel`` from :func:`~.experiments.relative`: colour = the metric relative to LRU on the same workload
    and size (log scale centred at 1 = as LRU, limits from the data: :func:`heat_limits`; cells beyond them
    saturate), the number printed in each cell is the ratio."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm

    caps = sorted(rel["capacity_pages"].unique().to_list())
    pols = rel["policy"].unique(maintain_order=True).to_list()
    works = rel["workload"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(1, len(caps), figsize=(0.36 * len(pols) * len(caps) + 4, 0.17 * len(works) + 2.4),
                             squeeze=False, sharey=True)
    lo, hi = heat_limits(rel["relative"].to_numpy())
    norm = LogNorm(lo, hi)
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
    bar = fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8, extend="both",
                       label=f"{metric} / LRU's (beyond {lo:.3g}-{hi:.3g}: the end colours)")
    ticks = [lo, lo ** 0.5, 1.0, hi ** 0.5, hi]
    bar.ax.yaxis.set_minor_locator(plt.NullLocator())
    bar.set_ticks(ticks, labels=[f"{t:.3g}" for t in ticks])
    fig.suptitle(f"{metric.replace('_', ' ')} relative to LRU (blue = better)")
    return fig
