"""Paper 3's package (review 3, issue 21): the control that decides whether a row is evidence, the ledger's
tolerance class, the notebook's knobs, the swap definitions and the baselines' pricing, Fig. 4's blank
workloads, the real stand-ins' rows, and the closing text generated from the tables."""

import json

import polars as pl
import pytest

from flashrepro import claims as L
from flashrepro import paths, prose
from flashrepro.papers.clock_hbm import claims as C
from flashrepro.papers.clock_hbm import experiments as E
from flashrepro.papers.clock_hbm import figures as F
from flashrepro.papers.clock_hbm import text as T
from flashrepro.papers.clock_hbm import workloads as W


def _row(ours, paper=0.5, claim="x"):
    return L.value(3, claim, "UMass", paper, ours, C.TOL, "fraction", same_sign=True)


def test_claims_use_the_ledger_class():
    assert C.TOL == L.PRINTED


@pytest.mark.parametrize(("hbm", "ctl", "verdict"), [
    (0.52, 0.49, "not comparable"),  # both hold: the structure gives it
    (0.52, 0.30, "holds"),  # the control is only partly: CLOCK-HBM's rules bring it to the paper's number
    (0.30, 0.31, "not comparable"),  # both partly
    (0.30, -0.1, "partly"),  # the control does not even have the sign
    (-0.1, 0.52, "does not hold"),  # a failure stays one
])
def test_a_row_the_control_also_reaches_is_not_evidence(hbm, ctl, verdict):
    got = C.against_control(_row(hbm), _row(ctl))
    assert got.verdict == verdict
    assert f"control, {C.CONTROL_NAME}: {ctl:.4g}" in (got.note + got.detail)
    # the shared rule, named for the paper's control
    assert got == L.against_control(_row(hbm), _row(ctl), C.CONTROL_NAME)


def test_control_runs_clock_hbm_with_both_mechanisms_off():
    tr = W.generate(W.model("financial1", footprint_pages=4096), 3000, 0)
    small = {"dram_pages": 40, "nvm_pages": 160}
    row, _ = E.run(tr, E.CONTROL, None, small)
    ref, _ = E.run(tr, "clock_hbm", None, small, **E.CONTROL_PARAMS)
    hbm, _ = E.run(tr, "clock_hbm", None, small)
    assert row["swaps"] == ref["swaps"] and row["writes_b"] == ref["writes_b"]
    assert row["migrations_nvm_dram"] == 0 and hbm["migrations_nvm_dram"] > 0


def test_knobs_flow_into_the_runs():
    tr = {"clockhbm/financial1": W.generate(W.model("financial1", footprint_pages=4096), 3000, 0)}
    assert [v[0] for v in E.select_variants(["lru", "clock_hbm"])] == ["lru", "lru", "clock_hbm"]
    with pytest.raises(ValueError):
        E.select_variants(["arc"])
    a = E.compare(tr, (("clock_hbm", None),), {"dram_pages": 40, "nvm_pages": 160})
    b = E.compare(tr, (("clock_hbm", None),), {"dram_pages": 40, "nvm_pages": 160}, nvm_second_chance=False)
    c = E.compare(tr, (("clock_hbm", None),), {"dram_pages": 20, "nvm_pages": 80})
    assert a["swaps"][0] != b["swaps"][0] and a["swaps"][0] != c["swaps"][0]
    d1 = E.compare(tr, (("clock_dnv", None),), {"dram_pages": 40, "nvm_pages": 160})
    d2 = E.compare(tr, (("clock_dnv", None),), {"dram_pages": 40, "nvm_pages": 160}, {"padding": "none"})
    assert d1["device_writes"][0] != d2["device_writes"][0]
    assert list(W.workloads("ci", names=["websearch1", "mail-02"])) == [
        "clockhbm/websearch1", "clockhbm/mail-02", "clockhbm/websearch1-corrected"]
    with pytest.raises(ValueError):
        W.workloads("ci", names=["tpcc"])


def _notebook_cell(marker: str) -> str:
    nb = json.loads((paths.notebooks / "03_clock_hbm.ipynb").read_text())
    cells = ["".join(c["source"]) for c in nb["cells"]]
    return next(c for c in cells if marker in c)


def test_the_notebook_knobs_are_parameters_used_by_the_code():
    params = _notebook_cell("# Parameters")
    for knob in ("workloads", "policies", "tier_reading", "dram_pages", "nvm_pages", "hbm_params", "dnv_params",
                 "swap", "baseline_pricing"):
        assert f"\n{knob} = " in params, knob
    load = _notebook_cell("W.workloads(")
    assert "names=workloads" in load and "select_variants(policies)" in load and "hbm_params" in load
    assert "swap=swap" in load and "pricing=baseline_pricing" in load
    closing = _notebook_cell('PAPER.make("text.md"')
    assert "claims, runs, interp, amb, sweep, lat, swap, scale" in closing



def _small_runs(variants=E.VARIANTS, **knobs):
    tr = {f"clockhbm/{w}": W.generate(W.model(w, footprint_pages=4096), 2000, 0)
          for w in ("financial1", "websearch1", "mail-02", "mail-03", "home2")}
    return E.compare(tr, variants, {"dram_pages": 40, "nvm_pages": 160}, **knobs)


def test_swap_definitions_and_pricing_reach_the_runs():
    runs = _small_runs()
    assert (runs["swaps"] == runs["misses"]).all()  # the default: every miss (the text's reading)
    rm = _small_runs(swap="read_miss")
    assert (rm["swaps"] == rm["device_reads"]).all()
    fio = E.costed(runs, "flash_io")
    assert (fio["swaps"] == fio["device_reads"] + fio["device_writes"]).all()
    share = E.dram_share({"dram_pages": 40, "nvm_pages": 160})
    assert E.costed(runs, "read_miss", share=share).equals(rm)  # re-reading a table = running under the definition
    # under "read_miss" the write-only WebSearch model has no swaps under any policy; under "miss" it has
    ws = rm.filter(pl.col("workload") == "websearch1")
    assert (ws["swaps"] == 0).all() and (runs.filter(pl.col("workload") == "websearch1")["swaps"] > 0).all()
    one = pl.col("policy").is_in(E.ONE_POOL)
    dram = E.costed(runs, pricing="dram").filter(one)
    assert (dram["dram_writes"] == dram["writes_b"]).all() and (dram["nvm_reads"] == 0).all()
    hyb = runs.filter(one)
    assert (hyb["dram_writes"] == hyb["writes_b"] * share).all()
    assert ((hyb["dram_writes"] + hyb["nvm_writes"] - hyb["writes_b"]).abs() < 1e-6).all()
    assert (hyb["nvm_writes"] > hyb["dram_writes"]).all()  # 80% of the frames are NVM
    assert (dram["latency_us_per_reference"] < hyb["latency_us_per_reference"]).all()  # NVM writes cost 350 ns
    two = runs.filter(~one).drop("latency_us_per_reference", "buffer_ms")
    assert two.equals(E.costed(runs, pricing="dram").filter(~one).drop("latency_us_per_reference", "buffer_ms"))
    with pytest.raises(ValueError, match="swap"):
        E.costed(runs, "every")


def test_fig4_annotates_the_workloads_without_swaps():
    f4 = E.fig4(_small_runs())
    assert E.no_lru_swaps(f4, "flash_reads") == ["websearch1"]  # no reads, so no read misses: 0/0
    assert E.no_lru_swaps(f4, "misses") == []
    fig = F.plot_fig4(f4)
    notes = [[t for t in ax.texts if t.get_gid() == "no-swaps"] for ax in fig.axes]
    # one note per read-caching reading, on the read-miss panels only
    assert [len(n) for n in notes] == [0, 1, 0, 1]
    assert "no swaps under LRU" in notes[1][0].get_text()
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_every_printed_tolerance_says_why():
    claims = C.claims(_small_runs())
    rows = claims.filter((pl.col("kind") == "value") & (pl.col("tolerance") == C.TOL))
    assert rows.height and rows["note"].str.contains("PRINTED", literal=True).all()


def test_real_standins_are_rows_and_not_comparable():
    runs = _small_runs()
    real = runs.filter(pl.col("workload") == "home2").with_columns(workload=pl.lit("real/x/y"), group=pl.lit("real"))
    claims = C.claims(pl.concat([runs, real]))
    st = claims.filter(pl.col("claim").str.starts_with("Real stand-in"))
    assert st.height == 7 and set(st["workload"]) == {"real/x/y"}  # mean, LRU and CLOCK each reading; DNV once
    assert (st["verdict"] == "not comparable").all() and st["note"].str.contains("not like for like").all()
    want = E.standins(real).filter((pl.col("baseline") == "lru") & (pl.col("baselines_cache_reads") == "on"))
    got = st.filter(pl.col("claim").str.contains("vs LRU [", literal=True)
                    & pl.col("claim").str.contains("reads: on", literal=True))
    assert got["our_value"][0] == pytest.approx(want["swap_reduction"][0])
    assert C.claims(runs).filter(pl.col("claim").str.starts_with("Real stand-in")).height == 0


def _tables():
    runs = _small_runs()
    claims = C.claims(runs)
    def row(choice, right, on, hbm, dnv, note=""):
        return {"choice": choice, "who_is_right": right, "swap_reduction_on": on, "swap_reduction_off": 0.0,
                "hit_clock_hbm": hbm, "hit_clock_dnv": dnv, "note": note}

    amb = pl.DataFrame([row("default", "", 0.01, 0.3, 0.2),
                        row("CLOCK-HBM small move (x)", E.BOTH, 0.02, 0.31, 0.2),
                        row("CLOCK-HBM big move (y)", E.BOTH, -0.2, 0.25, 0.2),
                        row("CLOCK-HBM mechanism off (z)", E.TEXT, 0.5, 0.1, 0.2),
                        row("CLOCK-HBM log order (w)", E.TEXT, 0.01, 0.3, 0.2, E.LOG_NOTE),
                        row(E.DNV_CLEAN_CHOICE, E.TEXT, 0.0, 0.3, 0.2345),
                        row("CLOCK-DNV other (v)", E.BOTH, 0.0, 0.3, 0.1987)])
    pt = {"footprint_mib": 1024, "hot_sets": "separate", "alpha": max(W.ALPHAS), "footprint_pages": W.FOOTPRINT_PAGES,
          **{c: 0.1 for c in ("swap_reduction_on", "swap_reduction_off", "reads_a_off", "control_swap_reduction_off",
                              "control_reads_a_off", "lru_cached_swap_reduction_off", "lru_cached_reads_a_off")},
          "hit_spread_on": 0.2}
    sweep = pl.DataFrame([pt, {**pt, "hot_sets": W.HOT_SETS, "alpha": W.ALPHA, "hit_spread_on": 0.01}])
    return claims, runs, E.interpretation(runs), amb, sweep, E.latency(runs)


def test_the_closing_text_is_read_from_the_tables():
    claims, runs, interp, amb, sweep, lat = _tables()
    md = T.text(claims, runs, interp, amb, sweep, lat, scale="ci")
    row = claims.filter(pl.col("claim") == T._swap_claim(E.SWAP, "on")).row(0, named=True)
    assert f"swap reduction is {prose.pct(row['our_value'])} on average" in md
    assert prose.counts(claims) in md
    # a changed ledger value changes the text: nothing is typed
    moved = claims.with_columns(our_value=pl.when(pl.col("claim") == row["claim"]).then(0.4321)
                                .otherwise(pl.col("our_value")))
    assert "swap reduction is +43.2% on average" in T.text(moved, runs, interp, amb, sweep, lat, scale="ci")
    # the verdict words follow the verdict
    held = claims.with_columns(verdict=pl.when(pl.col("claim").str.starts_with("Fig. 4: CLOCK-HBM cuts"))
                               .then(pl.lit("holds")).otherwise(pl.col("verdict")))
    assert "(Fig. 4, abstract, conclusion) holds under either" in T.closing(held, runs, interp, amb, sweep, lat)
    # without the real traces, the text names the rows that need them
    for name in W.REAL_STANDINS:
        assert name in md
    # the largest moves are among the readings the text allows: not the bigger one of a reading it rules out
    largest = md.split("The largest moves")[1].split("\n")[0]
    assert "big move" in largest.split(";")[0] and "mechanism off" not in largest
    # who is right on each row, and the review's readings' hit ratios, from the table
    assert "Of the 6 rows, 3 are readings the paper's text rules out" in md and "3 readings it allows" in md
    assert "1 only order the I/O log" in md
    assert "CLOCK-DNV's mean hit ratio is 0.234 against the default's 0.200" in md
    assert "its hit ratio moves most under CLOCK-DNV other (0.199 against 0.200" in md
    assert "its hit ratio moves most under CLOCK-HBM big move (0.250 against 0.300" in md


def test_why_it_does_not_reproduce_has_one_line_per_cause_with_its_run():
    claims, runs, interp, amb, sweep, lat = _tables()
    md = T.why_not(claims, runs, interp, amb, sweep)
    table = [line for line in md.splitlines() if line.startswith("| ") and "---" not in line][1:]
    kinds = [line.split(" | ")[1] for line in table]
    assert {"workload", "choice", "mechanism"} == set(kinds)
    assert all(line.split(" | ")[2].strip() for line in table)  # every line names its run
    assert any("CLOCK-HBM big move" in line for line in table)  # the choice that moves the result most
    assert not any("mechanism off" in line for line in table)  # a reading the text rules out is no cause
    hr = T.hit_ratios(runs)
    assert f"{hr['CLOCK-HBM']:.3f}" in md and f"{hr[E.LABELS[(E.CONTROL, None)]]:.3f}" in md
