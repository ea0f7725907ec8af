"""Paper 2 figures: Fig. 4 (read time by size), Fig. 6 (bandwidth by segment size), Fig. 7 (improvement by cache
size), Fig. 8 (culling at 128 KiB and 128 MiB), and adaptive culling's N1 over time."""

from __future__ import annotations

import polars as pl

COLORS = {"seg_lru": "tab:gray", "seg_cull_adaptive": "tab:red", "seg_cull_fixed": "tab:blue",
          "seg_prefetch": "tab:green", "linux_readahead": "tab:purple"}
LABELS = {"seg_lru": "existing (segment LRU)", "seg_cull_adaptive": "proposed (prefetch + adaptive culling)",
          "seg_cull_fixed": "prefetch + fixed culling", "seg_prefetch": "segment prefetch only"}


def _short(name: str) -> str:
    return name.split("/", 1)[-1]


def plot_fig4(df: pl.DataFrame):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    for (curve, source), d in df.group_by(["curve", "source"], maintain_order=True):
        ax.plot(d["size_kib"], d["ms"], "o-" if source == "model" else "s--", ms=3, label=f"{curve} ({source})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set(xlabel="read size (KiB)", ylabel="time per read (ms)", title="Fig. 4: read time by request size")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_fig6(rows: pl.DataFrame, paper: dict | None = None):
    """Bandwidth against segment size, proposed and existing, one panel per workload; the paper's "up to"
    numbers for T1-T3 marked on the improvement axis."""
    import matplotlib.pyplot as plt

    names = rows["workload"].unique(maintain_order=True).to_list()
    ncol = 4
    nrow = -(-len(names) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.1 * ncol, 2.5 * nrow), squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        d = rows.filter(pl.col("workload") == name)
        for p, e in d.group_by("policy", maintain_order=True):
            ax.plot(e["segment_kib"], e["mb_s"], "o-", ms=3, color=COLORS[p[0]], label=LABELS[p[0]])
        ax.set_xscale("log", base=2)
        ax.set_title(_short(name), fontsize=8)
        if paper and _short(name) in paper:
            ax.text(0.02, 0.04, f"paper: {paper[_short(name)]}", transform=ax.transAxes, fontsize=7)
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("segment (KiB)")
    for ax in axes[:, 0]:
        ax.set_ylabel("MB/s (model)")
    axes[0, 0].legend(fontsize=6)
    fig.suptitle("Fig. 6: bandwidth against segment size, cache 512 MiB (Fig. 4 model 1, sqrt shape)")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig


def plot_fig7(imp: pl.DataFrame):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    for s, d in imp.sort("capacity_pages").group_by("segment_kib", maintain_order=True):
        ax.plot(d["capacity_pages"] / 256, d["improvement"] * 100, "o-", ms=3, label=f"{s[0]} KiB segments")
    ax.axhline(0, color="k", lw=0.6)
    ax.axvspan(32, 64, color="tab:orange", alpha=0.08, label="paper: poor at 32 MiB, good from 64 MiB")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="cache (MiB)", ylabel="improvement (%)", title="Fig. 7: T1, improvement against cache size")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_fig8(rows: pl.DataFrame, paper: dict | None = None):
    """Bandwidth of the three culling variants against segment size, one panel per cache size."""
    import matplotlib.pyplot as plt

    caps = rows["capacity_pages"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(1, len(caps), figsize=(5 * len(caps), 3.4), squeeze=False)
    for ax, cap in zip(axes[0], caps, strict=True):
        d = rows.filter(pl.col("capacity_pages") == cap)
        for p, e in d.group_by("policy", maintain_order=True):
            ax.plot(e["segment_kib"], e["mb_s"], "o-", ms=3, color=COLORS[p[0]], label=LABELS[p[0]])
        ax.set_xscale("log", base=2)
        size = f"{cap * 4} KiB" if cap * 4 < 1024 else f"{cap * 4 // 1024} MiB"
        ax.set(xlabel="segment (KiB)", ylabel="MB/s (model)", title=f"T1 x5, cache {size}")
        ax.legend(fontsize=7)
    if paper:
        axes[0, 0].text(0.02, 0.04, paper["text"], transform=axes[0, 0].transAxes, fontsize=7)
    fig.suptitle("Fig. 8: adaptive vs fixed culling vs segment prefetch only")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig


def plot_n1(traj: pl.DataFrame, sweep: pl.DataFrame):
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.4))
    for (w, cap, s), d in traj.group_by(["workload", "capacity_pages", "segment_kib"], maintain_order=True):
        a.plot(d["position"], d["n1"], label=f"{_short(w)}, {cap * 4 // 1024} MiB, {s} KiB: N1")
        a.plot(d["position"], d["l1_segments"], ls=":", label="segments in L1")
        a.axhline(d["n1_start"][0], color="gray", lw=0.6, ls="--")
    a.set(xlabel="page references", ylabel="segments", title="Adaptive culling: N1 over time")
    a.legend(fontsize=7)
    for (w, cap), d in sweep.group_by(["workload", "capacity_pages"], maintain_order=True):
        b.plot(d["step"], d["mb_s"] / d["mb_s"].max(), "o-", label=f"{_short(w)}, {cap * 4} KiB cache")
    b.set_xscale("symlog", linthresh=0.25)
    b.set(xlabel="S (feedback gain)", ylabel="bandwidth / best", title="The S sweep (32 KiB segments)")
    b.legend(fontsize=7)
    fig.tight_layout()
    return fig
