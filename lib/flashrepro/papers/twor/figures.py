"""Paper 4 figures: skew and frozen pages (Figs. 1-2), running WAF (Figs. 9-11), the cold region (Figs. 4/5/12/13)."""

from __future__ import annotations

import numpy as np
import polars as pl

from .experiments import FEMU_POLICIES

# --- figures -----------------------------------------------------------------------------------------------
COLORS = {"greedy": "tab:gray", "2r": "tab:blue", "2r++": "tab:red", "2r/invalid-stop": "tab:cyan",
          "2r++/valid-stop": "tab:orange", "cost-benefit": "tab:green", "fifo": "tab:brown", "random": "tab:pink",
          "d-choice": "tab:olive"}


def plot_skew_frozen(cdf: pl.DataFrame, frozen: pl.DataFrame):
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.4))
    for w in cdf["workload"].unique(maintain_order=True):
        d = cdf.filter(workload=w)
        a.plot(d["page_share"], d["write_share"], label=w)
    a.axvline(0.2, color="k", lw=0.6, ls=":")
    a.set(xlabel="share of pages (most written first)", ylabel="share of writes", title="Fig. 1: skew")
    a.legend(fontsize=7)
    for w in frozen["workload"].unique(maintain_order=True):
        d = frozen.filter(workload=w)
        b.plot(d["progress"], d["frozen_share"], marker=".", label=w)
    b.scatter([0.6], [0.4], color="k", marker="x", zorder=5, label="paper: 40% at 60%")
    b.set(xlabel="benchmark progress", ylabel="share of space frozen", title="Fig. 2: frozen pages")
    b.legend(fontsize=7)
    fig.tight_layout()
    return fig


def fallback_labels(s: pl.DataFrame, trigger: str) -> dict[tuple[str, str], str]:
    """Legend labels for 2R and 2R++ under ``trigger``: ``"2r (fallback 99.9%)"``, the share of their GC passes
    whose first victim a fallback chose (the paper gives no rule for it), so a figure says what it measures."""
    d = s.filter(trigger=trigger).filter(pl.col("policy").is_in(["2r", "2r++"]) & (pl.col("gc_passes") > 0))
    share = (d["fallbacks"] + d["global_fallbacks"]) / d["gc_passes"]
    return {(w, p): f"{p} (fallback {x:.1%})" for w, p, x in zip(d["workload"], d["policy"], share, strict=True)}


def plot_running_waf(rw: pl.DataFrame, workloads: list[str], title: str,
                     labels: dict[tuple[str, str], str] | None = None):
    """Running WAF per tenth of each run of ``workloads``, one panel each; ``labels`` names a (workload,
    policy) line in the legend (e.g. :func:`fallback_labels`)."""
    import matplotlib.pyplot as plt

    labels = labels or {}
    fig, axes = plt.subplots(1, len(workloads), figsize=(3.3 * len(workloads), 3.2), squeeze=False)
    for ax, w in zip(axes[0], workloads, strict=False):
        d = rw.filter(workload=w)
        for p in d["policy"].unique(maintain_order=True):
            e = d.filter(policy=p)
            femu = p in FEMU_POLICIES  # FEMU's policies, for comparison: thinner, dashed
            ax.plot(e["progress"], e["running_waf"], marker="" if femu else ".", ls="--" if femu else "-",
                    lw=1 if femu else 1.5, color=COLORS.get(p), label=labels.get((w, p), p))
        ax.set(xlabel="progress", ylabel="running WAF", title=w)
        ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_regions(reg: pl.DataFrame):
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.2))
    labels = [f"{w}\n{p}" for w, p in zip(reg["workload"], reg["policy"], strict=False)]
    x = np.arange(reg.height)
    a.bar(x - 0.2, reg["returned_share"], 0.4, label="ours", color=[COLORS[p] for p in reg["policy"]])
    a.bar(x + 0.2, reg["paper_returned_share"], 0.4, label="paper", color="none", edgecolor="k")
    a.set_xticks(x, labels, fontsize=7)
    a.set(ylabel="share", title="Figs. 4/12: cold pages returned to normal")
    a.legend(fontsize=7)
    b.bar(x, reg["normal_share"], label="from normal", color="tab:green")
    b.bar(x, reg["cold_to_cold_share"], bottom=reg["normal_share"], label="cold -> cold", color="tab:purple")
    b.set_xticks(x, labels, fontsize=7)
    b.set(ylabel="share of copybacks", title="Figs. 5/13: copybacks by region")
    b.legend(fontsize=7)
    fig.tight_layout()
    return fig
