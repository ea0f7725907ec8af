"""Paper 3 (CLOCK-HBM) outside the kernels: the FIU reader's merge option, the Table 4 workload models, the
readings of the paper's figures, the flash extension's device, and the claims."""

import numpy as np
import polars as pl
import pytest
from conftest import random_trace

from flashrepro.papers.clock_hbm import claims as C
from flashrepro.papers.clock_hbm import experiments as E
from flashrepro.papers.clock_hbm import workloads as W
from flashrepro.traces import Op, load_trace, read_trace

RD, WR = Op.READ, Op.WRITE
S = 512


def test_fiu_merge_contiguous(data_dir, isolated_interim):
    """Runs of consecutive records with one op, each starting where the last ended, become one request; a
    change of op, a gap, or a record contiguous with an earlier but not the previous one starts a new one."""
    path = data_dir / "formats" / "sample.fiu-merge.blkparse"
    plain = read_trace(path, "fiu")
    assert len(plain) == 7 and set(plain.size_bytes.tolist()) == {8 * S}
    merged = read_trace(path, "fiu", merge_contiguous=True)
    assert merged.op.tolist() == [WR, RD, RD, RD]
    assert merged.offset_bytes.tolist() == [1000 * S, 1024 * S, 5000 * S, 1040 * S]
    assert merged.size_bytes.tolist() == [24 * S, 16 * S, 8 * S, 8 * S]
    np.testing.assert_allclose(merged.time_s, [0, 300e-9, 500e-9, 600e-9], atol=1e-12)
    assert merged.meta["merged_records"] == 3 and merged.meta["records"] == 7
    assert int(merged.size_bytes.sum()) == int(plain.size_bytes.sum())
    # the parse cache keys on reader options: both readings are stored and come back as parsed
    assert len(load_trace(path, "fiu")) == 7
    assert len(load_trace(path, "fiu", merge_contiguous=True)) == 4
    assert len(list((isolated_interim / "traces").glob("*/meta.json"))) == 2
    assert load_trace(path, "fiu", merge_contiguous=True).size_bytes.tolist() == merged.size_bytes.tolist()


# --- Table 4 and the models ----------------------------------------------------------------------------------
def test_table4_as_printed_and_its_errors():
    t = W.table4()
    assert t.height == 15 and t["group"].value_counts().sort("group")["count"].to_list() == [10, 5]
    off = t.filter(pl.col("sum_pct") != 100)["workload"].to_list()
    assert off == ["financial1", "home3"]  # they add to 99%
    assert W.model("financial1").read_share == pytest.approx(23 / 99)
    assert W.model("websearch1").read_share == 0 and W.model("websearch1-corrected").read_share == 1


@pytest.mark.parametrize("workload", ["financial1", "financial2", "websearch2-corrected", "mail-08", "home1"])
def test_models_meet_their_two_targets(workload):
    m = W.model(workload)
    tr = W.generate(m, 40_000, seed=3)
    s = tr.stats()
    assert s["reads"] == round(m.read_share * 40_000)
    assert s["mean_request_bytes"] == pytest.approx(m.mean_request_bytes, rel=0.03)
    assert (tr.offset_bytes % m.unit_bytes == 0).all() and (tr.size_bytes % m.unit_bytes == 0).all()
    assert tr.to_pages().unique_pages.max() < m.footprint_pages + 256
    same = W.generate(m, 40_000, seed=3)
    assert np.array_equal(same.offset_bytes, tr.offset_bytes) and np.array_equal(same.op, tr.op)


def test_separate_hot_sets_move_only_the_reads():
    shared = W.generate(W.model("financial2"), 20_000, seed=1)
    sep = W.generate(W.model("financial2", hot_sets="separate"), 20_000, seed=1)
    w = shared.op == WR
    assert np.array_equal(shared.offset_bytes[w], sep.offset_bytes[w])
    assert np.array_equal(shared.size_bytes, sep.size_bytes)
    assert not np.array_equal(shared.offset_bytes[~w], sep.offset_bytes[~w])
    with pytest.raises(ValueError, match="hot_sets"):
        W.generate(W.model("financial2", hot_sets="both"), 10, seed=1)


def test_the_catalog_serves_the_originals_when_a_user_has_them(tmp_path, monkeypatch, data_dir, isolated_interim):
    from flashrepro.traces import catalog

    (tmp_path / "umass").mkdir()
    (tmp_path / "umass" / "Financial1.spc").write_text((data_dir / "formats" / "sample.spc").read_text())
    monkeypatch.setenv("FLASHREPRO_TRACE_DIRS", str(tmp_path))
    assert catalog.origin("clockhbm/financial1") == "real"
    assert len(catalog.get("clockhbm/financial1", scale="quick")) == 4  # the file's four records
    assert catalog.origin("clockhbm/websearch1") == "model"  # as printed: a model only
    assert catalog.real_path("clockhbm/websearch1-corrected") is None
    # at ci the notebook never reads them: its checked outputs cannot depend on the machine
    assert len(W.workloads("ci")["clockhbm/financial1"]) == 20_000


# --- the readings -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("policy,cache_reads", E.VARIANTS)
def test_operation_counts_add_up(policy, cache_reads):
    """Reading (b) is every DRAM and NVM access: host writes, fills, read hits, both sides of each migration,
    and the dirty pages read out for flash."""
    tr = random_trace(7, write_fraction=0.5)
    row, res = E.run(tr, policy, cache_reads)
    c = res.counters
    migrations = row["migrations_dram_nvm"] + row["migrations_nvm_dram"]
    fills = c["read_misses"] if cache_reads is not False else 0
    assert row["writes_b"] == c["write_references"] + fills + migrations
    assert row["reads_b"] == c["read_hits"] + migrations + c["device_writes"]
    assert row["writes_b"] == pytest.approx(row["dram_writes"] + row["nvm_writes"])
    assert (row["writes_a"], row["reads_a"], row["swaps"]) == (c["write_hits"], c["read_hits"], c["misses"])
    assert row["device_reads"] == c["device_reads"]
    # the one-pool baselines' operations are priced at the hybrid buffer's frames (Table 3's one buffer)
    share = E.dram_share()
    if policy in E.ONE_POOL:
        assert row["dram_writes"] == pytest.approx(share * row["writes_b"])
        assert row["nvm_reads"] == pytest.approx((1 - share) * row["reads_b"])
    if policy in ("clock_dnv", "clock_hbm"):
        assert c["writes_dram"] + c["writes_nvm"] == c["write_references"]
        assert c["fills_dram"] == c["read_misses"] and c["fills_nvm"] == 0


def _row(workload, group, policy, cr, **v):
    base = dict.fromkeys(["swaps", "misses", "device_reads", "writes_a", "writes_b", "reads_a", "reads_b",
                          "latency_us_per_reference"], 10)
    return {"workload": workload, "group": group, "policy": policy, "cache_reads": cr, **base, **v}


def test_averages_are_means_over_workloads_and_baselines():
    rows = []
    for w, g, hbm_w in (("u1", "UMass", 20), ("u2", "UMass", 10), ("f1", "FIU", 40)):
        rows.append(_row(w, g, "clock_hbm", "n/a", writes_a=hbm_w, swaps=5))
        rows.append(_row(w, g, "clock_dnv", "n/a"))
        for p in ("lru", "clock"):
            rows.append(_row(w, g, p, "on"))
            rows.append(_row(w, g, p, "off", swaps=0))  # no swaps: this pair drops out of the swap average
    a = E.averages(E.pairs(pl.DataFrame(rows)))
    on, off = a[("on", "a")], a[("off", "a")]
    assert on["writes_umass"] == pytest.approx(0.5) and on["writes_fiu"] == pytest.approx(3.0)
    assert on["writes_mean_of_groups"] == pytest.approx(1.75)
    assert on["writes_workload_weighted"] == pytest.approx((1 + 0 + 3) / 3)
    assert on["swap_reduction"] == pytest.approx(0.5) and off["swap_reduction"] == pytest.approx(0.5)


def test_flash_geometry_is_table3():
    from flashrepro.ftl import FTL

    g, trig = E.flash_geometry()
    assert g.pages_per_line == 64 and g.physical_pages * 4096 == 20 * 2**30
    reserve, forced, _, _ = trig.lines(g)
    assert forced == int(np.ceil(0.2 * g.n_lines)) - 1  # GC while free blocks < 20%
    FTL(g, "greedy", trig)  # the logical space fits what the reserve leaves


def test_claims_cover_every_number_under_every_reading():
    traces = {f"clockhbm/{w}": W.generate(W.model(w), 2_000, 0) for w in W.TABLE4}
    df = C.claims(E.compare(traces), traces, "ci")
    assert df.height >= 15
    for key in ("+49.96%", "+70.54%", "+106.90%", "+911.58%", "+60.25%", "+509.24%"):
        rows = df.filter(pl.col("claim").str.contains(key, literal=True))
        assert rows.height == 4, key  # one per reading
    assert df.filter(pl.col("claim").str.contains("43.5%")).height == 4
    assert df.filter(pl.col("kind") == "calibration").height == 30
    assert set(df["verdict"]) <= {"holds", "partly", "does not hold", "not comparable"}


def test_hbm_beats_baselines_that_do_not_cache_reads_when_reads_have_their_own_hot_set():
    """The reading under which the paper's swap reduction becomes plausible: skewed reads on pages of their own,
    baselines that do not keep them."""
    tr = {"clockhbm/financial2": W.generate(W.model("financial2", alpha=1.2, hot_sets="separate"), 60_000, 0)}
    a = E.averages(E.pairs(E.compare(tr)))
    assert a[("off", "a")]["swap_reduction"] > 0.2
    assert a[("off", "a")]["reads_umass"] > 1.0
    assert a[("on", "a")]["swap_reduction"] < 0.1  # against baselines that keep reads, no such gain
