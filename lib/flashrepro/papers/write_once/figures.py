"""Paper 5 figures: Figs. 1-2, the Figs. 3-4 timeline, Figs. 5-8, and the history and replay-setting sweeps."""

from __future__ import annotations

import numpy as np
import polars as pl

from .experiments import BASELINE, PROPOSED


def _short(name: str) -> str:
    return name.split("/", 1)[1] if name.startswith("writeonce/") else name.removeprefix("real/")


def plot_fig1_fig2(tab2: pl.DataFrame):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    names = [_short(w) for w in tab2["workload"]]
    colors = ["C0" if o == "model" else "C2" for o in tab2["origin"]]
    for ax, col, lines, title in ((axes[0], "write_share", (0.54, 0.97), "Fig. 1: writes / block references"),
                                  (axes[1], "written_once_share", (0.95,), "Fig. 2: written blocks written once")):
        ax.bar(range(len(names)), tab2[col], color=colors)
        for k, y in enumerate(lines):  # the paper's printed range / bound
            ax.axhline(y, color="gray", ls=":", gid="paper",
                       label="paper: " + "-".join(f"{v:.0%}" for v in lines) if k == 0 else "_paper")
        ax.legend(fontsize=7, loc="lower right")
        ax.set_xticks(range(len(names)), names, rotation=60, ha="right", fontsize=7)
        ax.set_ylim(0, 1)
        ax.set_title(title)
    axes[0].text(0.01, 0.02, "blue: models (Table 2), green: replays / syscall log", transform=axes[0].transAxes,
                 fontsize=7)
    fig.tight_layout()
    return fig


def plot_timeline(tl: pl.DataFrame, io: pl.DataFrame):
    """Figs. 3-4: each block's references, its flag after each one ('o' flagged, 'x' not), and the device
    writes (squares). The eviction of B after its 5 s write-back is not drawn; the timeline table shows it
    (B not resident at 7 s until its write)."""
    import matplotlib.pyplot as plt

    pols = tl["policy"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(len(pols), 1, figsize=(7, 1.9 * len(pols)), sharex=True, squeeze=False)
    for ax, pol in zip(axes[:, 0], pols, strict=True):
        d = tl.filter((pl.col("policy") == pol) & (pl.col("block") == pl.col("ref_block")))
        for r in d.iter_rows(named=True):
            y = r["block"]
            ax.plot(r["time_s"], y, "v" if r["op"] == "write" else "o", color="C0" if r["op"] == "write" else "C1",
                    ms=8)
            if pol == PROPOSED:
                ax.annotate("o" if r["flag"] else "x", (r["time_s"], y), textcoords="offset points", xytext=(0, 9),
                            ha="center", fontsize=9)
        w = io.filter((pl.col("policy") == pol) & (pl.col("op") == 1))
        ax.plot(w["time_s"], w["block"], "s", mfc="none", color="C3", ms=12, label="write-back")
        for t in (5.0, 10.0):
            ax.axvline(t, color="gray", ls=":")
        ax.set_yticks([0, 1], ["A", "B"])
        ax.set_ylim(-0.6, 1.8)
        ax.set_title(f"{pol}: writes (v), reads (o), write-backs (squares) at the 5 s flushes", fontsize=8)
    axes[-1, 0].set_xlabel("time (s)")
    fig.tight_layout()
    return fig


def plot_fig5(curves: pl.DataFrame):
    """Fig. 5: both policies' miss ratio (solid) and flash reads per reference (dashed) against cache size. The
    paper's printed range, write_once's miss ratio 5-33% below lru_flush's (abstract; Sec. III says 6-33%), is
    marked on every panel at each size, at lru_flush's miss ratio times 0.95 and 0.67 (black ticks on a grey
    band, ``gid="paper"``, legend entry "paper"): where write_once's solid line would fall if it did as printed."""
    import matplotlib.pyplot as plt

    from .workloads import paper_value

    lo, hi = paper_value("miss_ratio_reduction_min"), paper_value("miss_ratio_reduction_max")
    names = curves["workload"].unique(maintain_order=True).to_list()
    cols = 5
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.8 * cols, 2.3 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        for pol, color in ((BASELINE, "C0"), (PROPOSED, "C3")):
            d = curves.filter((pl.col("workload") == name) & (pl.col("policy") == pol)).sort("fraction")
            ax.plot(d["fraction"], d["miss_ratio"], "o-", color=color, ms=3, label=f"{pol}: miss ratio")
            ax.plot(d["fraction"], d["flash_read_ratio"], "s--", color=color, ms=2, lw=0.8,
                    label=f"{pol}: flash reads / refs")
            if pol == BASELINE:
                x, base = d["fraction"].to_numpy(), d["miss_ratio"].to_numpy()
        ax.fill_between(x, base * (1 - hi), base * (1 - lo), color="0.5", alpha=0.18, lw=0, gid="paper-band")
        for k, r in enumerate((lo, hi)):
            ax.plot(x, base * (1 - r), "_", color="black", ms=7, mew=1.2, gid="paper",
                    label=f"paper: {PROPOSED} {lo:.0%}-{hi:.0%} below {BASELINE}" if k == 0 else "_paper")
        ax.set_xscale("log")
        ax.set_title(_short(name), fontsize=8)
        ax.set_ylim(bottom=0)
    for ax in axes.flat[len(names):]:
        ax.axis("off")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    if len(names) < axes.size:  # the legend in the first empty slot, over no curve
        axes.flat[len(names)].legend(handles, labels, loc="center", fontsize=7, frameon=False)
    else:
        axes[0, 0].legend(fontsize=6)
    fig.supxlabel("cache size / footprint")
    fig.suptitle("Fig. 5: miss ratio (solid) and flash reads per reference (dashed) against cache size")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig


def plot_fig6(eq: pl.DataFrame):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    ax = axes[0]
    ax.plot(eq["capacity_blocks"], eq["miss_ratio"], "o-", ms=3, label=BASELINE)
    ax.plot(eq["capacity_blocks"], eq["write_once_same_size"], "s-", ms=3, color="C3", label=PROPOSED)
    ax.set_xscale("log")
    ax.set_xlabel("cache (blocks)")
    ax.set_ylabel("miss ratio")
    ax.legend(fontsize=7)
    ax.set_title(f"Fig. 6: {_short(eq['workload'][0])}")
    ax = axes[1]
    d = eq.filter(pl.col("size_ratio").is_not_null())
    ax.plot(d["capacity_blocks"], d["size_ratio"], "o-", ms=3)
    ax.axhline(0.25, color="gray", ls=":", label="paper: 1/4")
    ax.set_xscale("log")
    ax.set_xlabel("lru_flush cache (blocks)")
    ax.set_ylabel("write_once size for the same miss ratio / lru_flush's")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_fig7_fig8(pts: pl.DataFrame):
    import matplotlib.pyplot as plt

    names = [_short(w) for w in pts["workload"]]
    x = np.arange(len(names))
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.4))
    for ax, (a, b, label) in zip(axes, (("time_s", "time_wo_s", "Fig. 7: execution time (s)"),
                                        ("energy_j", "energy_wo_j", "Fig. 8: energy (J)")), strict=True):
        ax.bar(x - 0.27, pts[a], 0.27, label=f"{BASELINE}, cache C")
        ax.bar(x, pts[b], 0.27, color="C3", label=f"{PROPOSED}, C / 4")
        ax.bar(x + 0.27, pts[a] * (pts["time_ratio_lru_q"] if a == "time_s" else 1 - pts["energy_reduction_lru_q"]),
               0.27, color="C7", label=f"control: {BASELINE}, C / 4")
        ax.set_xticks(x, names, rotation=60, ha="right", fontsize=7)
        ax.set_yscale("log")
        ax.set_title(label)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_sweep(df: pl.DataFrame, x: str, y: str, group: str, title: str, logx: bool = False):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    for g, d in df.group_by(group, maintain_order=True):
        ax.plot(d[x], d[y], "o-", ms=3, label=_short(str(g[0])))
    ax.axhline(0, color="gray", lw=0.8)
    if logx:
        ax.set_xscale("symlog", linthresh=0.25)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    return fig


def plot_history(hs: pl.DataFrame):
    return plot_sweep(hs, "history_multiple", "miss_reduction", "workload",
                      "write_once against lru_flush as the history grows (H / cache size)", logx=True)


def plot_pragmas(ps: pl.DataFrame):
    import matplotlib.pyplot as plt

    settings = ps["setting"].unique(maintain_order=True).to_list()
    apps = ps["app"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.8))
    for ax, col in zip(axes, ("written_once_share", "miss_reduction"), strict=True):
        for k, app in enumerate(apps):
            d = ps.filter(pl.col("app") == app)
            ax.barh(np.arange(len(settings)) + 0.2 * k, d[col], 0.2, label=app)
        ax.set_yticks(np.arange(len(settings)) + 0.3, settings, fontsize=7)
        ax.axvline(0, color="gray", lw=0.8)
        ax.set_title(col, fontsize=9)
    axes[0].legend(fontsize=7)
    fig.suptitle("SQLite replay settings: written-once share and write_once's miss-ratio reduction")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig
