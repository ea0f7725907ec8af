"""The theory figures: ours as points, the models as lines."""

from __future__ import annotations

import polars as pl

MARKERS = {0.6: "o", 0.8: "s", 1.0: "^", 1.2: "D"}
PANELS = [("lru", "LRU vs Che"), ("fifo", "FIFO vs characteristic time"), ("random", "RANDOM vs characteristic time"),
          ("clock", "CLOCK (textbook) between FIFO and LRU")]


def plot_cache(cases: pl.DataFrame):
    """Hit ratio against the cache size (share of the catalogue), one panel per policy, one colour per Zipf
    alpha: the model's line (for CLOCK the FIFO and LRU models, dashed and solid), our runs as points, and
    points outside their tolerance circled in red."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(PANELS), figsize=(3.4 * len(PANELS), 3.3), sharey=True)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    alphas = sorted(cases["alpha"].unique().to_list())
    for ax, (case, title) in zip(axes, PANELS, strict=True):
        d = cases.filter(case=case)
        for i, a in enumerate(alphas):
            e = d.filter(alpha=a).sort("cache_fraction")
            if not e.height:
                continue
            c = colors[i % len(colors)]
            x = e["cache_fraction"] * 100
            if case == "clock":
                ax.plot(x, e["model_lower"], "--", color=c, lw=0.9)
                ax.plot(x, e["model_upper"], "-", color=c, lw=0.9)
            else:
                ax.plot(x, e["theory"], "-", color=c, lw=0.9)
            ax.plot(x, e["ours"], MARKERS.get(a, "o"), color=c, ms=4, mfc="none", label=f"Zipf {a:g}")
            bad = e.filter(~pl.col("within"))
            if bad.height:
                ax.plot(bad["cache_fraction"] * 100, bad["ours"], "o", ms=9, mfc="none", mec="red")
        ax.set_xscale("log")
        ax.set(title=title, xlabel="cache (% of the catalogue)")
    axes[0].set_ylabel("hit ratio")
    axes[0].legend(fontsize=7, title="points: ours; lines: model", title_fontsize=7)
    fig.tight_layout()
    return fig


FTL_PANELS = ["fifo", "random-all", "random", "greedy", "d-choice"]


def plot_ftl(cases: pl.DataFrame):
    """WAF against alpha = physical / logical pages, one panel per victim rule, one colour per line size:
    the model as a line, ours as points with their tolerance as error bars."""
    import matplotlib.pyplot as plt

    rules = [r for r in FTL_PANELS if r in set(cases["rule"])]
    fig, axes = plt.subplots(1, len(rules), figsize=(3.2 * len(rules), 3.3), sharey=True, squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    sizes = sorted(cases["pages_per_line"].unique().to_list())
    for ax, rule in zip(axes[0], rules, strict=True):
        d = cases.filter(rule=rule)
        for i, p in enumerate(sizes):
            e = d.filter(pages_per_line=p).sort("alpha")
            c = colors[i % len(colors)]
            ax.plot(e["alpha"], e["theory"], "-", color=c, lw=0.9)
            ax.errorbar(e["alpha"], e["ours"], yerr=e["tolerance"], fmt="o", color=c, ms=3, mfc="none",
                        capsize=2, label=f"{p} pages per line")
        ax.set_yscale("log")
        ax.set(title=rule, xlabel="alpha (physical / logical)")
    axes[0][0].set_ylabel("WAF")
    axes[0][0].legend(fontsize=7, title="points: ours; lines: model", title_fontsize=7)
    fig.tight_layout()
    return fig
