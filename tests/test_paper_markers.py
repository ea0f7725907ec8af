"""Figures that have printed paper values show them beside ours, as markers labelled "paper" (issue 15, part 3)."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from flashrepro.papers.bs_clock import experiments as E  # noqa: E402
from flashrepro.papers.bs_clock import figures as F  # noqa: E402
from flashrepro.papers.bs_clock.workloads import paper_value  # noqa: E402
from flashrepro.traces import catalog  # noqa: E402


def _paper_points(fig):
    return [(ax.get_title(), line.get_ydata()[0]) for ax in fig.axes for line in ax.get_lines()
            if line.get_gid() == "paper"]


def test_fig8_fig9_mark_the_papers_reduction_on_our_spatial_clock_time():
    traces = {"bsclock/web-browsing": catalog.get("bsclock/web-browsing", scale="ci")}
    cmp = E.compare(traces)
    points = dict(_paper_points(F.plot_policies(cmp)))
    assert set(points) == {"web-browsing (samsung)", "web-browsing (sandisk)"}
    for card in ("samsung", "sandisk"):
        sc = cmp.filter(cmp["policy"] == "spatial_clock")[f"{card}_io_s"][0]
        want = sc * (1 - paper_value("io_time_reduction", f"{card}/web-browsing"))
        assert points[f"web-browsing ({card})"] == pytest.approx(want, rel=1e-12)


def test_fig2_marks_the_printed_reductions():
    fig2 = E.fig2_model()
    points = _paper_points(F.plot_fig2(fig2))
    assert len(points) == 2  # one per card, at 1 MiB


def test_paper5_fig1_fig2_label_the_printed_range():
    import polars as pl

    from flashrepro.papers.write_once import figures as F5

    tab2 = pl.DataFrame({"workload": ["writeonce/Browser"], "origin": ["model"], "write_share": [0.7],
                         "written_once_share": [0.9]})
    fig = F5.plot_fig1_fig2(tab2)
    got = sorted(y for _, y in _paper_points(fig))
    assert got == [0.54, 0.95, 0.97]
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["paper: 54%-97%"]
