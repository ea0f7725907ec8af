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


def test_paper2_fig4_marks_model1s_printed_shape():
    from flashrepro.papers.ssd_prefetch import experiments as E2
    from flashrepro.papers.ssd_prefetch import figures as F2

    fig4 = E2.fig4_model()
    m = fig4.filter(fig4["curve"] == "U16-sqrt")
    t = dict(zip(m["size_kib"].to_list(), m["ms"].to_list(), strict=True))
    fig = F2.plot_fig4(fig4)
    (line,) = [ln for ln in fig.axes[0].get_lines() if ln.get_gid() == "paper"]
    assert list(line.get_xdata()) == [16, 256]
    assert list(line.get_ydata()) == pytest.approx([t[4], 2.0 * t[64]], rel=1e-12)
    assert line.get_label().startswith("paper")


def test_paper2_fig6_fig8_mark_the_printed_improvements_on_our_baselines():
    import polars as pl

    from flashrepro.papers.ssd_prefetch import figures as F2

    pols = ["seg_lru", "seg_prefetch", "seg_cull_fixed", "seg_cull_adaptive"]
    rows = pl.DataFrame([{"workload": f"pcmark/{w}", "policy": p, "front": "read-ahead", "capacity_pages": cap,
                          "segment_kib": s, "step": 1.0, "mb_s": 10.0 + i + s / 8}
                         for w in ("T1-general-usage", "T2-application-loading", "T4-virus-scan")
                         for cap in (32, 32768) for i, p in enumerate(pols) for s in (8, 32, 64, 128)])
    bare = rows.filter(pl.col("policy") == "seg_lru").with_columns(front=pl.lit("none"), mb_s=pl.col("mb_s") * 3)
    page = rows.filter((pl.col("policy") == "seg_lru") & (pl.col("segment_kib") == 8)).with_columns(
        policy=pl.lit("linux_readahead"), front=pl.lit("none"), segment_kib=pl.lit(None, pl.Int64))
    six = dict(_paper_points(F2.plot_fig6(pl.concat([rows, bare, page]).filter(pl.col("capacity_pages") == 32))))
    # the markers sit on the existing scheme behind the read-ahead (the paper's), not on the bare one
    assert six == pytest.approx({"T1-general-usage": (10 + 16) * 1.26, "T2-application-loading": (10 + 16) * 0.94})
    s0 = rows.filter(pl.col("policy") == "seg_cull_adaptive").with_columns(step=pl.lit(0.0))
    fig8 = F2.plot_fig8(pl.concat([rows, s0]).filter(pl.col("workload") == "pcmark/T1-general-usage"))
    assert any("S = 0" in ln.get_label() for ln in fig8.axes[0].get_lines())
    lines = [ln for ax in fig8.axes for ln in ax.get_lines() if ln.get_gid() == "paper"]
    assert len(lines) == 1 and lines[0].axes is fig8.axes[0]  # only the 128 KiB panel, as printed
    assert list(lines[0].get_xdata()) == [32, 128]
    assert list(lines[0].get_ydata()) == pytest.approx([(12 + 4) * 1.88, (11 + 16) * 2.6])


def test_paper3_figs_4_to_6_mark_the_printed_averages():
    from flashrepro.papers.clock_hbm import experiments as E3
    from flashrepro.papers.clock_hbm import figures as F3
    from flashrepro.papers.clock_hbm import workloads as W3

    traces = {k: v.head(3000) for k, v in W3.workloads("ci", 0).items() if k.endswith(("financial1", "mail-02"))}
    runs = E3.compare(traces, E3.VARIANTS)
    four = _paper_points(F3.plot_fig4(E3.fig4(runs)))
    assert [y for _, y in four] == pytest.approx([1 - 0.435] * 4)  # both swap readings x both read-cachings
    f56 = E3.fig56(runs)
    for op, want in (("writes", {"UMass": 0.4996, "FIU": 0.7054}), ("reads", {"UMass": 1.069, "FIU": 9.1158})):
        got = _paper_points(F3.plot_ops(f56, op))
        assert len(got) == 4  # both readings x both groups
        for title, y in got:
            grp = "UMass" if "UMass" in title else "FIU"
            assert y == pytest.approx(1 + want[grp])


def test_paper5_fig5_marks_the_printed_miss_ratio_range_on_lru_flushs_curve():
    import polars as pl

    from flashrepro.papers.write_once import figures as F5
    from flashrepro.papers.write_once.workloads import paper_value

    fractions = [0.01, 0.1, 0.5]
    rows = []
    for w, top in (("writeonce/Browser", 0.8), ("real/android_sql/map", 0.3)):
        for pol, gain in (("lru_flush", 1.0), ("write_once", 0.9)):
            for f, m in zip(fractions, (top, top * 0.8, top * 0.6), strict=True):
                rows.append({"workload": w, "policy": pol, "fraction": f, "miss_ratio": m * gain,
                             "flash_read_ratio": m / 4})
    curves = pl.DataFrame(rows)
    fig = F5.plot_fig5(curves)
    lo, hi = paper_value("miss_ratio_reduction_min"), paper_value("miss_ratio_reduction_max")
    assert (lo, hi) == (0.05, 0.33)
    for ax, top in zip(fig.axes[:2], (0.8, 0.3), strict=True):
        lines = [ln for ln in ax.get_lines() if ln.get_gid() == "paper"]
        assert len(lines) == 2  # the printed range's two ends, at every size
        base = [top, top * 0.8, top * 0.6]
        for line, r in zip(lines, (lo, hi), strict=True):
            assert list(line.get_xdata()) == fractions
            assert list(line.get_ydata()) == pytest.approx([b * (1 - r) for b in base], rel=1e-12)
            assert line.get_marker() not in {ln.get_marker() for ln in ax.get_lines() if ln.get_gid() != "paper"}
    texts = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    assert [t for t in texts if t.startswith("paper")] == ["paper: write_once 5%-33% below lru_flush"]
