"""Paper 1 figures: Fig. 2, Figs. 6-7, Figs. 8-9 and the buffer sweep, from the experiment tables."""

from __future__ import annotations

import polars as pl

from ...devices import CARDS
from .workloads import paper_value


def _short(name: str) -> str:
    return name.split("/", 1)[1]


def plot_fig2(df: pl.DataFrame):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    for (card, source), d in df.group_by(["card", "source"], maintain_order=True):
        style = "o-" if source == "model" else "s--"
        ax.plot(d["request_bytes"] / 1024, d["seconds"], style, label=f"{card} ({source})")
    # the paper's printed reductions (1 MB against 4 KB requests), placed on our 4 KB time
    labelled = False
    for card in CARDS:
        d = df.filter((pl.col("card") == card) & (pl.col("source") == "model") & (pl.col("request_bytes") == 4096))
        if d.height:
            t = d["seconds"][0] * (1 - paper_value("fig2_reduction", card))
            ax.plot([1024], [t], "kD", ms=6, mfc="none", gid="paper", label="_paper" if labelled else "paper (Fig. 2)")
            labelled = True
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("request size (KiB)")
    ax.set_ylabel("time to write 64 MB (s)")
    ax.set_title("Fig. 2: writing 64 MB in requests of each size")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_bulk_sweep(sweep: pl.DataFrame):
    """Figs. 6 and 7 in one figure: hit ratio, I/O time per card, mean pages per write."""
    import matplotlib.pyplot as plt

    bs = sweep.filter(pl.col("policy") == "bs_clock")
    names = bs["workload"].unique(maintain_order=True).to_list()
    panels = [("hit_ratio", "hit ratio (Fig. 6)"), ("samsung_io_s", "I/O time, Samsung model (s)"),
              ("sandisk_io_s", "I/O time, SanDisk model (s)"), ("mean_pages_per_write", "mean pages per write")]
    fig, axes = plt.subplots(len(names), len(panels), figsize=(3.2 * len(panels), 2.3 * len(names)), squeeze=False)
    for i, name in enumerate(names):
        d = bs.filter(pl.col("workload") == name)
        sc = sweep.filter((pl.col("workload") == name) & (pl.col("policy") == "spatial_clock")).row(0, named=True)
        for j, (col, label) in enumerate(panels):
            ax = axes[i, j]
            ax.plot(d["max_bulk_pages"] * 4, d[col], "o-", ms=3, label="BS-CLOCK")
            ax.axhline(sc[col], color="gray", ls=":", label="Spatial Clock")
            ax.set_xscale("log", base=2)
            ax.set_title(f"{_short(name)}: {label}", fontsize=8)
            if i == len(names) - 1:
                ax.set_xlabel("max bulk write (KiB)")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("Figs. 6-7: BS-CLOCK at 4 MB as the maximum bulk size grows")
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    return fig


def plot_policies(cmp: pl.DataFrame):
    """Figs. 8-9: I/O time per policy, workload and card; on the paper's workloads a marker labelled "paper"
    where BS-CLOCK's bar would be with the paper's printed reduction against Spatial Clock."""
    import matplotlib.pyplot as plt

    names = cmp["workload"].unique(maintain_order=True).to_list()
    pols = cmp["policy"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(2, len(names), figsize=(2.6 * len(names), 5.2), squeeze=False)
    for j, name in enumerate(names):
        d = cmp.filter(pl.col("workload") == name)
        for i, card in enumerate(CARDS):
            ax = axes[i, j]
            t = [d.filter(pl.col("policy") == p)[f"{card}_io_s"][0] for p in pols]
            ax.bar(range(len(pols)), t, color=[f"C{k}" for k in range(len(pols))])
            short = _short(name)
            if name.startswith("bsclock/") and "bs_clock" in pols and "spatial_clock" in pols:
                # the paper's reduction against Spatial Clock (Figs. 8-9), placed on our Spatial Clock time
                red = paper_value("io_time_reduction", f"{card}/{short}")
                ax.plot([pols.index("bs_clock")], [t[pols.index("spatial_clock")] * (1 - red)], "kD", ms=6,
                        mfc="none", gid="paper", label="paper")
                ax.legend(fontsize=6, loc="upper right")
            ax.set_xticks(range(len(pols)), pols, rotation=60, fontsize=7)
            ax.set_title(f"{_short(name)} ({card})", fontsize=8)
            if j == 0:
                ax.set_ylabel("I/O time (s)")
    fig.suptitle("Figs. 8-9: I/O time of the after-cache trace on the card models, buffer 4 MB")
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    return fig


def plot_buffer_sweep(bsw: pl.DataFrame):
    import matplotlib.pyplot as plt

    names = bsw["workload"].unique(maintain_order=True).to_list()
    cols = [("hit_ratio", "hit ratio"), ("samsung_io_s", "I/O time Samsung (s)"),
            ("sandisk_io_s", "I/O time SanDisk (s)")]
    fig, axes = plt.subplots(len(names), 3, figsize=(10, 2.3 * len(names)), squeeze=False)
    for i, name in enumerate(names):
        for j, (col, label) in enumerate(cols):
            ax = axes[i, j]
            for p, d in bsw.filter(pl.col("workload") == name).group_by("policy", maintain_order=True):
                ax.plot(d["capacity_pages"] * 4 / 1024, d[col], "o-", ms=3, label=p[0])
            ax.set_xscale("log", base=2)
            ax.set_title(f"{_short(name)}: {label}", fontsize=8)
            if i == len(names) - 1:
                ax.set_xlabel("buffer (MiB)")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("All five policies over buffer sizes")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig
