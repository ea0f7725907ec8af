"""Notebook 06's heat maps take their colour scale from the data (issue 26, item 5): centred at 1 (as LRU) on a
log scale, limits from the spread of the cells that differ from LRU, so cells near 1 are told apart."""

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
import pytest  # noqa: E402

from flashrepro.papers.matrix import figures as F  # noqa: E402


def _rel(values, caps=(256, 2048)) -> pl.DataFrame:
    """A relative table: policy "lru" at 1 on every workload and size, "other" at ``values`` in turn."""
    rows = []
    it = iter(values)
    for cap in caps:
        for w in range(len(values) // len(caps)):
            rows.append({"workload": f"w{w}", "policy": "lru", "capacity_pages": cap, "relative": 1.0})
            rows.append({"workload": f"w{w}", "policy": "other", "capacity_pages": cap, "relative": next(it)})
    return pl.DataFrame(rows)


def _norm(fig):
    norms = {(im.norm.vmin, im.norm.vmax) for ax in fig.axes for im in ax.images}
    assert len(norms) == 1  # every panel on one scale
    return fig.axes[0].images[0].norm


@pytest.mark.parametrize("outliers", [[], [0.01, 100.0]])
def test_limits_come_from_the_data_not_from_decades(outliers):
    """Cells in [0.9, 1.1], with or without two cells 100 times off (as real runs have): the limits stay in
    that range; before, the two outliers set them to 10^-2..10^2 and everything else was near-white."""
    import matplotlib.pyplot as plt

    values = [*np.linspace(0.9, 1.1, 38 if outliers else 40), *outliers]
    fig = F.plot_heat(_rel(values), "device_writes")
    norm = _norm(fig)
    assert 0.9 <= norm.vmin < 1 < norm.vmax <= 1 / 0.9
    assert norm.vmin * norm.vmax == pytest.approx(1)  # centred at 1 (as LRU) on the log scale
    # a 5% difference either way is well away from white (the middle of the map), and on the proper side
    assert norm(0.95) < 0.3 and norm(1.05) > 0.7 and norm(1.0) == pytest.approx(0.5)
    plt.close(fig)


def test_a_few_extremes_saturate_instead_of_washing_out_the_rest():
    values = [*np.linspace(0.95, 1.05, 36), 0.01, 0.02, 50.0, math.inf]
    lo, hi = F.heat_limits(_rel(values)["relative"])
    assert 0.95 <= lo and hi <= 1 / 0.95 * 1.2  # the 90% quantile of the cells' spread, not 10^+-2
    # LRU's own column (exactly 1), 0/0 (NaN) and x/0 do not shrink or stretch the scale
    assert F.heat_limits([1.0] * 50 + [0.9, 1.1, math.nan, 0.0]) == pytest.approx((1 / 1.1, 1.1), rel=0.05)
    assert F.heat_limits([1.0, math.nan]) == pytest.approx((1 / 1.01, 1.01))
