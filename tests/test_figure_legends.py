"""A figure's legend covers none of its bars (issue 26, item 5): paper 3's Figs. 4-6 keep theirs below the
panels. Checked on the drawn figure: every legend's window extent against every drawn bar's."""

import math

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from flashrepro.papers.clock_hbm import experiments as E3  # noqa: E402
from flashrepro.papers.clock_hbm import figures as F3  # noqa: E402
from flashrepro.papers.clock_hbm import workloads as W3  # noqa: E402


def covered_bars(fig) -> list[str]:
    """The bars (``(title, label, x)``) some legend of ``fig`` overlaps once drawn (laid out at the figure's size
    and dpi, legends placed, as the Agg canvas draws it, without the pixels)."""
    fig.draw_without_rendering()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)]
    assert legends, "the figure has no legend"
    boxes = [lg.get_window_extent() for lg in legends]
    hit = []
    for ax in fig.axes:
        for bars in ax.containers:
            for bar in bars:
                if not isinstance(bar, Rectangle) or not all(map(math.isfinite, (bar.get_height(), bar.get_y()))):
                    continue  # a missing value (NaN) draws nothing
                box = bar.get_window_extent()
                if any(box.overlaps(lb) for lb in boxes):
                    hit.append((ax.get_title(), bars.get_label(), round(bar.get_x(), 2)))
    return hit


@pytest.fixture(scope="module")
def runs():
    traces = {k: v.head(3000) for k, v in W3.workloads("ci", 0).items()}
    return E3.compare(traces, E3.VARIANTS)


def test_paper3_fig4_legend_covers_no_bar(runs):
    import matplotlib.pyplot as plt

    fig = F3.plot_fig4(E3.fig4(runs))
    assert covered_bars(fig) == []
    plt.close(fig)


def _f56(spread: float):
    """A Figs. 5-6 table shaped like the paper-scale one (5 UMass and 10 FIU workloads, every label), each
    label's operations ``1 + spread * k`` times LRU's (k: its place in the legend), so bars rise across a panel."""
    import polars as pl

    wl = {"UMass": [f"u{i}" for i in range(5)], "FIU": [f"f{i}" for i in range(10)]}
    return pl.DataFrame([{"workload": w, "group": g, "label": lab,
                          **{f"{op}_{r}": 1000.0 * (1 + spread * k) for op in ("writes", "reads") for r in "ab"}}
                         for g, ws in wl.items() for w in ws for k, lab in enumerate(F3.ORDER)])


@pytest.mark.parametrize("op", ["writes", "reads"])
@pytest.mark.parametrize("spread", [None, 0.02, 0.15], ids=["ci-runs", "0.02", "0.15"])
def test_paper3_figs_5_6_legend_covers_no_bar(runs, op, spread):
    """The table of the ci runs (``spread`` None), and the paper-scale-shaped ones."""
    import matplotlib.pyplot as plt

    fig = F3.plot_ops(E3.fig56(runs) if spread is None else _f56(spread), op)
    assert covered_bars(fig) == []
    # one legend, below the panels, with every policy and each group's paper guide
    texts = {t.get_text() for lg in fig.legends for t in lg.get_texts()}
    assert set(F3.ORDER) <= texts and sum(t.startswith("paper") for t in texts) == 2
    plt.close(fig)
