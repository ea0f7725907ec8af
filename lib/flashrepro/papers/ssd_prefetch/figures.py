"""Paper 2 figures: Fig. 4 (read time by size), Fig. 6 (bandwidth by segment size), Fig. 7 (improvement by cache
size), Fig. 8 (culling at 128 KiB and 128 MiB), and adaptive culling's N1 over time."""

from __future__ import annotations

import polars as pl

from .experiments import FRONT, PAGE_LRU_RA
from .workloads import paper_value

COLORS = {"seg_lru": "tab:gray", "seg_cull_adaptive": "tab:red", "seg_cull_fixed": "tab:blue",
          "seg_prefetch": "tab:green", "linux_readahead": "tab:purple"}
LABELS = {"seg_lru": "existing (segment LRU)", "seg_cull_adaptive": "proposed (prefetch + adaptive culling)",
          "seg_cull_fixed": "prefetch + fixed culling", "seg_prefetch": "segment prefetch only",
          "linux_readahead": "page LRU + read-ahead (linux_readahead)"}


def _size(pages: int) -> str:
    kib = pages * 4
    return f"{kib} KiB" if kib < 1024 else f"{kib // 1024} MiB"


def _short(name: str) -> str:
    return name.split("/", 1)[-1]


def plot_fig4(df: pl.DataFrame):
    """Read time by size; the paper's two printed facts about model 1 (``gid="paper"``) placed on our model 1
    (U16-sqrt): flat up to 16 KiB (our 4 KiB time at 16 KiB) and 2x the 64 KiB time at 256 KiB."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    for (curve, source), d in df.group_by(["curve", "source"], maintain_order=True):
        ax.plot(d["size_kib"], d["ms"], "o-" if source == "model" else "s--", ms=3, label=f"{curve} ({source})")
    m = df.filter((pl.col("curve") == "U16-sqrt") & (pl.col("source") == "model"))
    t = dict(zip(m["size_kib"].to_list(), m["ms"].to_list(), strict=True))
    if {4, 64}.issubset(t):
        flat = paper_value("fig4_flat_up_to_kib", "model1")
        ax.plot([flat, 256], [t[4], t[64] * paper_value("fig4_time_ratio_256_64", "model1")], "kD", ms=6,
                mfc="none", gid="paper", label="paper (Fig. 4, model 1): flat to 16 KiB; 256 KiB = 2x 64 KiB")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set(xlabel="read size (KiB)", ylabel="time per read (ms)", title="Fig. 4: read time by request size")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_fig6(rows: pl.DataFrame, paper: dict | None = None):
    """Bandwidth against segment size, one panel per workload: the schemes behind the read-ahead (solid), the
    existing scheme and the proposal without it (dotted), and the page LRU with the read-ahead (a horizontal
    line: it has no segment). The paper's "up to" numbers for T1-T3 written in their panels (``paper``) and
    drawn as markers (``gid="paper"``) at our largest segment size, on our existing scheme's bandwidth times
    (1 + the printed improvement): the paper gives no segment size for its extreme, only that it comes "with
    larger segments"."""
    import matplotlib.pyplot as plt

    names = rows["workload"].unique(maintain_order=True).to_list()
    ncol = 4
    nrow = -(-len(names) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.1 * ncol, 2.5 * nrow), squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        d = rows.filter(pl.col("workload") == name)
        for (p, front), e in d.filter(pl.col("policy") != PAGE_LRU_RA).group_by(["policy", "front"],
                                                                               maintain_order=True):
            main = front == FRONT
            ax.plot(e["segment_kib"], e["mb_s"], "o-" if main else "o:", ms=3, color=COLORS[p],
                    alpha=1 if main else 0.6, label=LABELS[p] + ("" if main else " (no read-ahead)"))
        page = d.filter(pl.col("policy") == PAGE_LRU_RA)
        if page.height:
            ax.axhline(page["mb_s"][0], color=COLORS[PAGE_LRU_RA], lw=0.8, ls="--", label=LABELS[PAGE_LRU_RA])
        ax.set_xscale("log", base=2)
        ax.set_title(_short(name), fontsize=8)
        if paper and _short(name) in paper:
            ax.text(0.02, 0.04, f"paper: {paper[_short(name)]}", transform=ax.transAxes, fontsize=7)
        key = {"T1-general-usage": "max_improvement"}.get(_short(name), "min_improvement")
        base = d.filter((pl.col("policy") == "seg_lru") & (pl.col("front") == FRONT)).sort("segment_kib")
        if name.startswith("pcmark/") and _short(name) != "T4-virus-scan" and base.height:
            imp = paper_value(key, _short(name))
            ax.plot([base["segment_kib"][-1]], [base["mb_s"][-1] * (1 + imp)], "kD", ms=5, mfc="none", gid="paper",
                    label=f"paper: {imp:+.0%} over existing")
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("segment (KiB)")
    for ax in axes[:, 0]:
        ax.set_ylabel("MB/s (model)")
    axes[0, 0].legend(fontsize=6)
    fig.suptitle(f"Fig. 6: bandwidth against segment size, cache 512 MiB (Fig. 4 model 1, sqrt shape; front: {FRONT})")
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
    """Bandwidth of the three culling variants against segment size, one panel per cache size, and adaptive
    culling with S = 0 (dashed: its feedback off, the control of the adaptation). In the paper's 128 KiB
    panel, its two printed ratios as markers (``gid="paper"``): adaptive = 1.88x our fixed culling at 32 KiB
    segments, and 2.6x our segment prefetch alone at 128 KiB."""
    import matplotlib.pyplot as plt

    caps = rows["capacity_pages"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(1, len(caps), figsize=(5 * len(caps), 3.4), squeeze=False)
    for ax, cap in zip(axes[0], caps, strict=True):
        d = rows.filter(pl.col("capacity_pages") == cap)
        for (p, step), e in d.group_by(["policy", "step"], maintain_order=True):
            s0 = step == 0.0
            ax.plot(e["segment_kib"], e["mb_s"], "x--" if s0 else "o-", ms=3, color=COLORS[p],
                    label=LABELS[p] + (", S = 0 (control)" if s0 else ""))
        ax.set_xscale("log", base=2)
        if cap * 4 == paper_value("fig8_cache_kib", "T1-general-usage x5"):
            pts = [(32, "seg_cull_fixed", 1 + paper_value("fig8_adaptive_vs_fixed", "T1-general-usage x5")),
                   (128, "seg_prefetch", paper_value("fig8_adaptive_vs_prefetch_only", "T1-general-usage x5"))]
            xy = [(s, e["mb_s"][0] * k) for s, p, k in pts
                  if (e := d.filter((pl.col("policy") == p) & (pl.col("segment_kib") == s))).height]
            if xy:
                ax.plot(*zip(*xy, strict=True), "kD", ms=6, mfc="none", gid="paper",
                        label="paper: adaptive 1.88x fixed (32 KiB), 2.6x prefetch only (128 KiB)")
        ax.set(xlabel="segment (KiB)", ylabel="MB/s (model)", title=f"T1 x5, cache {_size(cap)}")
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
        a.plot(d["position"], d["n1"], label=f"{_short(w)}, {_size(cap)}, {s} KiB: N1")
        a.plot(d["position"], d["l1_segments"], ls=":", label="segments in L1")
        a.axhline(d["n1_start"][0], color="gray", lw=0.6, ls="--")
    a.set(xlabel="page references", ylabel="segments", title="Adaptive culling: N1 over time")
    a.legend(fontsize=7)
    for (w, cap), d in sweep.group_by(["workload", "capacity_pages"], maintain_order=True):
        b.plot(d["step"], d["mb_s"] / d["mb_s"].max(), "o-", label=f"{_short(w)}, {_size(cap)} cache")
    b.set_xscale("symlog", linthresh=0.25)
    b.set(xlabel="S (feedback gain)", ylabel="bandwidth / best", title="The S sweep (32 KiB segments)")
    b.legend(fontsize=7)
    fig.tight_layout()
    return fig
