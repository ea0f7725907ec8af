"""Paper 3 figures: Fig. 4 (swaps), Figs. 5-6 (buffer write and read operations), the labelled extensions and
the assumption sweep, from the experiment tables."""

from __future__ import annotations

import numpy as np
import polars as pl

from . import experiments as E
from .workloads import paper_value

ORDER = [E.LABELS[v] for v in E.VARIANTS]
COLORS = {"LRU": "C0", "LRU, reads not cached": "C0", "CLOCK": "C1", "CLOCK, reads not cached": "C1",
          "CLOCK-DNV": "C2", "CLOCK-HBM": "C3", E.LABELS[(E.CONTROL, None)]: "C7"}


def _bars(ax, d: pl.DataFrame, col: str, labels: list[str], workloads: list[str]):
    width = 0.8 / len(labels)
    x = np.arange(len(workloads))
    for k, lab in enumerate(labels):
        sub = dict(zip(*d.filter(pl.col("label") == lab).select("workload", col), strict=True))
        y = [sub.get(w, np.nan) for w in workloads]
        ax.bar(x + (k - (len(labels) - 1) / 2) * width, y, width, label=lab, color=COLORS[lab],
               hatch="//" if "not cached" in lab else None, edgecolor="white" if "not cached" in lab else None)
    ax.set_xticks(x, workloads, rotation=60, fontsize=7, ha="right")


FIG4_COLUMNS = (("misses", "misses_vs_lru", "miss"), ("flash_reads", "flash_reads_vs_lru", "read_miss"))


def plot_fig4(f4: pl.DataFrame, swap: str = E.SWAP):
    """Fig. 4: swaps per workload normalised to LRU of the same reading (baselines caching reads or not, in
    rows), a swap read as every miss and as a miss read from flash (in columns; ``swap`` names the runs'
    definition). A workload where LRU has no swaps has no bar (0/0): it is annotated on the panel with the
    reason (``gid="no-swaps"``)."""
    import matplotlib.pyplot as plt

    workloads = f4["workload"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(2, 2, figsize=(15, 6.8), squeeze=False, sharey="row")
    r = paper_value("swap_reduction", "all")
    for i, (cr, title) in enumerate((("on", "baselines cache reads"), ("off", "baselines do not cache reads"))):
        d = f4.filter(pl.col("baselines_cache_reads") == cr)
        labels = [lab for lab in ORDER if lab in set(d["label"])]
        for j, (count, col, name) in enumerate(FIG4_COLUMNS):
            ax = axes[i, j]
            _bars(ax, d, col, labels, workloads)
            ax.axhline(1, color="gray", lw=0.8)
            ax.axhline(1 - r, color="C3", lw=0.8, ls=":", gid="paper",
                       label=f"paper: {r:.1%} fewer, averaged over LRU, CLOCK and CLOCK-DNV (a guide: not LRU alone)")
            for w in E.no_lru_swaps(d, count):
                ax.text(workloads.index(w), 0.5, "no swaps under LRU\n(no reads: 0/0)", rotation=90, ha="center",
                        va="center", fontsize=6, color="0.3", gid="no-swaps", transform=ax.get_xaxis_transform())
            used = " (the definition the runs use)" if name == swap else ""
            ax.set_title(f"swap = {E.SWAPS[name].split(' (')[0]}{used}; {title}", fontsize=8)
            if j == 0:
                ax.set_ylabel("swaps / LRU's")
    _legend_below(fig, axes[:, 0], ncol=4)
    fig.suptitle("Fig. 4: swaps normalised to LRU of the same reading", fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 0.96))
    return fig


def plot_ops(f56: pl.DataFrame, op: str):
    """Fig. 5 (``op="writes"``) or Fig. 6 (``"reads"``): buffer operations relative to LRU (reads cached), under
    reading (a) host hits and (b) every DRAM/NVM access, UMass and FIU. The paper's printed average increase
    of each group (CLOCK-HBM against the other policies, Sec. IV) is drawn at 1 + increase in both readings'
    panels (``gid="paper"``): a guide, as the paper averages over LRU, CLOCK and CLOCK-DNV, not LRU alone. The
    legend is below the panels (it covers no bar)."""
    import matplotlib.pyplot as plt

    lru = f56.filter(pl.col("label") == "LRU").select("workload", *[pl.col(f"{op}_{r}").alias(f"lru_{r}")
                                                                    for r in "ab"])
    d = f56.join(lru, on="workload").with_columns(
        *[(pl.col(f"{op}_{r}") / pl.col(f"lru_{r}")).alias(f"rel_{r}") for r in "ab"])
    fig, axes = plt.subplots(2, 2, figsize=(12, 6.4), squeeze=False, gridspec_kw={"width_ratios": [5, 10]})
    fig_no = "Fig. 5" if op == "writes" else "Fig. 6"
    for i, (r, what) in enumerate((("a", "host hits"), ("b", "every DRAM/NVM access, migrations included"))):
        for j, grp in enumerate(E.GROUPS):
            ax = axes[i, j]
            sub = d.filter(pl.col("group") == grp)
            _bars(ax, sub, f"rel_{r}", ORDER, sub["workload"].unique(maintain_order=True).to_list())
            ax.axhline(1, color="gray", lw=0.8)
            inc = paper_value(f"buffer_{op[:-1]}_increase", grp.lower())
            ax.axhline(1 + inc, color="C3", lw=0.8, ls=":", gid="paper",
                       label=f"paper: CLOCK-HBM {inc:+.2%}, {grp} average vs the other policies (a guide)")
            ax.set_title(f"{fig_no}({'ab'[j]}) {grp}: buffer {op[:-1]} operations, reading ({r}) {what}",
                         fontsize=8)
            if j == 0:
                ax.set_ylabel("relative to LRU")
    _legend_below(fig, axes[0, :], ncol=4)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig


def _legend_below(fig, axes, ncol: int):
    """One legend for the figure, below its panels, so it covers no bar: each label once, from ``axes``."""
    legend = {}
    for ax in axes:
        for h, name in zip(*ax.get_legend_handles_labels(), strict=True):
            legend.setdefault(name, h)
    return fig.legend(list(legend.values()), list(legend), loc="lower center", ncol=ncol, fontsize=7,
                      frameon=False)


def plot_extensions(lat: pl.DataFrame):
    """Extensions (not in the paper): time per page reference implied by Table 1, and the write-backs as a share
    of the host space of Table 3's SSD (under 1: its GC never runs)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 1, figsize=(11, 6.4), squeeze=False)
    workloads = lat["workload"].unique(maintain_order=True).to_list()
    _bars(axes[0, 0], lat, "latency_us_per_reference", ORDER, workloads)
    axes[0, 0].set_ylabel("us per page reference")
    axes[0, 0].set_title("Extension: buffer + flash time per page reference (Table 1, operations summed, no overlap)",
                         fontsize=9)
    axes[0, 0].legend(fontsize=7, ncol=3)
    _bars(axes[1, 0], lat, "host_space_written", ORDER, workloads)
    axes[1, 0].axhline(1, color="gray", lw=0.8)
    axes[1, 0].set_ylabel("write-backs / host space")
    axes[1, 0].set_title("Extension: pages written to the 20 GB SSD, as a share of its host space (under 1: no GC "
                         "runs, so no WAF is reported)", fontsize=9)
    fig.tight_layout()
    return fig


def plot_assumptions(sw: pl.DataFrame):
    """The declared workload assumptions swept: the headline numbers against footprint, and against skew with
    reads and writes sharing one hot set or each having its own."""
    import matplotlib.pyplot as plt

    from . import workloads as W

    swaps, writes, reads = (paper_value("swap_reduction", "all"), paper_value("buffer_write_increase", "all"),
                            paper_value("buffer_read_increase", "all"))
    panels = [("swap_reduction_on", "swap reduction, reads cached", swaps),
              ("swap_reduction_off", "swap reduction, reads not cached", swaps),
              ("writes_b_on", "writes (b), reads cached", writes),
              ("reads_a_off", "reads (a), reads not cached", reads),
              ("reads_b_off", "reads (b), reads not cached", reads)]
    fig, axes = plt.subplots(2, len(panels), figsize=(15, 5.4), squeeze=False)
    by_fp = sw.filter((pl.col("alpha") == W.ALPHA) & (pl.col("hot_sets") == W.HOT_SETS)).sort("footprint_pages")
    by_alpha = sw.filter(pl.col("footprint_pages") == W.FOOTPRINT_PAGES).sort("alpha")
    for j, (col, title, paper) in enumerate(panels):
        ax = axes[0, j]
        ax.plot(by_fp["footprint_mib"], by_fp[col], "o-", label=f"hot sets {W.HOT_SETS}, skew {W.ALPHA}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("footprint (MiB)")
        ax = axes[1, j]
        for k, (hot, d) in enumerate(by_alpha.group_by("hot_sets", maintain_order=True)):
            ax.plot(d["alpha"], d[col], "o-", color=f"C{k}", label=f"hot sets {hot[0]}")
            for ctl, style in ((f"control_{col}", "--"), (f"lru_cached_{col}", ":")):
                if ctl in d.columns:  # the same number with a control in CLOCK-HBM's place
                    ax.plot(d["alpha"], d[ctl], style, color=f"C{k}",
                            label=f"{'control' if style == '--' else 'LRU caching reads'}, {hot[0]}")
        ax.set_xlabel("Zipf skew (footprint 1 GiB)")
        for ax in axes[:, j]:
            ax.axhline(paper, color="C3", ls=":", lw=0.8, label="paper", gid="paper")
            ax.axhline(0, color="gray", lw=0.6)
            ax.set_title(title, fontsize=8)
    axes[0, 0].legend(fontsize=7)
    axes[1, 0].legend(fontsize=7)
    fig.suptitle("The declared workload assumptions swept (the paper states none): headline numbers, mean of UMass "
                 "and FIU")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig
