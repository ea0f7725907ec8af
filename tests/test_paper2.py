"""Paper 2's ledger logic: rows true by construction, the S = 0 control, the measured Fig. 4 rows, and the
read-ahead front's accounting (the trace's own requests, not the front's, are what bandwidth counts)."""

import polars as pl
import pytest

from flashrepro.papers.ssd_prefetch import claims as C
from flashrepro.papers.ssd_prefetch import experiments as E
from flashrepro.traces import catalog


def _f6(evictions: int, largest: int) -> pl.DataFrame:
    return pl.DataFrame([{"workload": C.T1, "segment_kib": 8, "front": E.FRONT, "policy": p, "evictions": evictions,
                          "largest_read_kib": largest} for p in (E.PROPOSED, E.EXISTING)])


def test_no_loss_at_8_kib_cannot_fail_only_without_eviction_within_the_flat_region():
    assert "no eviction" in C._cannot_lose(_f6(0, 8), C.T1, 8)
    assert C._cannot_lose(_f6(3, 8), C.T1, 8) is None  # an eviction: culling can cost hits
    assert C._cannot_lose(_f6(0, 32), C.T1, 8) is None  # a read beyond the flat 16 KiB costs more
    assert C._cannot_lose(_f6(0, 8), C.T2, 8) is None  # no runs for that workload: judged


def test_measured_fig4_rows_are_judged_by_the_rule():
    replay = pl.DataFrame({"curve": ["disk"] * 4, "size_kib": [4, 16, 64, 256], "ms": [0.10, 0.11, 0.20, 0.42],
                           "source": ["replay"] * 4})
    m = C.measured_claims(replay)
    assert m["verdict"].to_list() == ["holds", "holds"]
    assert m["our_value"].to_list() == pytest.approx([1.1, 2.1])
    flat = C.measured_claims(replay.with_columns(ms=pl.Series([0.10, 0.30, 0.50, 2.0])))
    assert flat["verdict"].to_list() == ["does not hold", "does not hold"]


def test_the_front_costs_device_time_but_is_not_requested():
    t2 = catalog.get("pcmark/T2-application-loading", scale="ci", prefer="model").head(2000)
    bare = E.run(t2, E.EXISTING, 4096, 16, "none")
    behind = E.run(t2, E.EXISTING, 4096, 16, "read-ahead")
    assert bare["own_references"] == behind["own_references"] == bare["references"]
    assert behind["references"] == behind["own_references"] + behind["readahead_pages"] > bare["references"]
    assert behind["readahead_pages"] > 0 and bare["readahead_pages"] == 0
    # the front's reads make the trace's own sequential reads hits
    assert behind["read_hit_ratio"] > bare["read_hit_ratio"]


def test_fig8_ratios_carry_the_s0_control():
    t1 = catalog.get("pcmark/T1-general-usage", scale="ci", prefer="model").head(3000)
    rows = E.fig8(t1, 32, segments=[16, 32])
    r = E.fig8_ratios(rows)
    assert {"adaptive_over_fixed_s0", "adaptive_over_prefetch_only_s0"} <= set(r.columns)
    # with S = 0 and M/2k whole (32 blocks: 4 and 2 segments), adaptive culling is fixed culling exactly
    assert r["adaptive_over_fixed_s0"].to_list() == [1.0, 1.0]
