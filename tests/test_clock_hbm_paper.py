"""Paper 3's package (review 3): the control that decides whether a row is evidence, the ledger's tolerance
class, the notebook's knobs, and the closing section's quoted numbers."""

import json

import polars as pl
import pytest

from flashrepro import claims as L
from flashrepro import paths
from flashrepro.papers.clock_hbm import claims as C
from flashrepro.papers.clock_hbm import experiments as E
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
    assert f"control {ctl:+.3f}" in (got.note + got.detail)


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
    for knob in ("workloads", "policies", "tier_reading", "dram_pages", "nvm_pages", "hbm_params", "dnv_params"):
        assert f"\n{knob} = " in params, knob
    load = _notebook_cell("W.workloads(")
    assert "names=workloads" in load and "select_variants(policies)" in load and "hbm_params" in load


def test_every_quoted_number_is_in_the_closing_section():
    section = _notebook_cell("### What holds, under which reading, and why")
    for key, (_, text) in T.QUOTED.items():
        assert text in section, (key, text)


def test_the_quote_check_fails_on_a_drifted_number():
    quoted = {"a": ("{:+.1%}", "+58.7%"), "b": ("{:d}", "75")}
    ok = T.check({"a": 0.5871, "b": 75}, quoted)
    assert ok["agrees"].all()
    T.enforce(ok, "paper", True)
    bad = T.check({"a": 0.5849, "b": 75}, quoted)
    assert bad["agrees"].to_list() == [False, True]
    with pytest.raises(AssertionError):
        T.enforce(bad, "paper", True)
    T.enforce(bad, "ci", True)  # the text is about paper scale
    T.enforce(bad, "paper", False)  # and the default knobs


def test_measured_covers_every_quoted_quantity():
    tr = {f"clockhbm/{w}": W.generate(W.model(w, footprint_pages=4096), 2000, 0) for w in ("financial1", "mail-02",
                                                                                          "mail-03", "home2")}
    small = {"dram_pages": 40, "nvm_pages": 160}
    runs = E.compare(tr, E.VARIANTS, small)
    claims = C.claims(runs)
    amb = pl.DataFrame([{"choice": "default", "swap_reduction_on": 0.0, "swap_reduction_off": 0.0},
                        {"choice": "CLOCK-HBM nvm_second_chance=False (x)", "swap_reduction_on": 0.1,
                         "swap_reduction_off": 0.1}])
    sweep = pl.DataFrame([{"footprint_pages": W.FOOTPRINT_PAGES, "alpha": max(W.ALPHAS), "hot_sets": "separate",
                           **{c: 0.0 for c in ("swap_reduction_off", "reads_a_off", "control_swap_reduction_off",
                                                "control_reads_a_off", "lru_cached_swap_reduction_off",
                                                "lru_cached_reads_a_off", "swap_reduction_on")}}])
    got = T.measured(claims, runs, amb, sweep, pl.DataFrame({"waf": [1.0]}))
    # the ambiguity rows this toy table lacks and the real stand-ins aside, every quantity is measured
    missing = [k for k in T.QUOTED if k not in got and not k.startswith(("ambiguity", "mayun2"))]
    assert not missing
    assert {"ambiguity default swap_reduction_on", "ambiguity ignores writes swap_reduction_on"} <= set(got)


def test_quotes_from_an_absent_real_trace_are_not_checked(monkeypatch, capsys):
    quoted = {"mayun2 swaps LRU": ("{:,}", "102,378"), "b": ("{:d}", "75")}
    table = T.check({"b": 75}, quoted)  # no trace folder: mayun2 was not run
    monkeypatch.setattr(T.catalog, "available", lambda name: False)
    T.enforce(table, "paper", True)
    assert "not checked: 1 quoted numbers" in capsys.readouterr().out
    monkeypatch.setattr(T.catalog, "available", lambda name: True)  # present but missing from the run: an error
    with pytest.raises(AssertionError):
        T.enforce(table, "paper", True)
    drifted = T.check({"b": 74}, quoted)  # the other quotes are still checked without the trace
    monkeypatch.setattr(T.catalog, "available", lambda name: False)
    with pytest.raises(AssertionError):
        T.enforce(drifted, "paper", True)
