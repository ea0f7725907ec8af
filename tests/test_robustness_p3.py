"""Paper 3's robustness space (issue 23): the default point is the ci ledger's, other points move, the runs are
deterministic, the generator draws exactly as the models' and the stand-ins degrade to an empty ledger frame."""

import pickle

import numpy as np
import polars as pl
import pytest

from flashrepro import claims as L
from flashrepro.papers.clock_hbm import claims as C
from flashrepro.papers.clock_hbm import experiments as E
from flashrepro.papers.clock_hbm import robustness as R
from flashrepro.papers.clock_hbm import workloads as W

KEY = ["claim", "workload", "our_value", "verdict"]


@pytest.fixture(scope="module")
def ledger_ci():
    """The headline rows of the ledger the notebook's own functions build at ci (no stand-ins at ci)."""
    traces = W.workloads("ci", 0)
    led = C.claims(E.compare(traces), traces, "ci")
    return led.filter(pl.col("claim").is_in(R.HEADLINE))


@pytest.fixture(scope="module")
def default_ci():
    return R.point("ci", **R.SPACE.default())


def test_space_shape_and_default_is_the_claims_point():
    names = [a.name for a in R.SPACE.axes]
    assert 4 <= len(names) <= 8 and len(set(names)) == len(names)
    assert all(a.why.strip() for a in R.SPACE.axes)
    d = R.SPACE.default()
    assert R._tiers(d["dram_share"]) == W.TIERS[W.TIER_READING]
    assert int(round(d["footprint_mib"] * 2**20 / W.PAGE)) == W.FOOTPRINT_PAGES
    assert d["alpha"] == W.ALPHA and d["hot_overlap"] == 1.0 and W.HOT_SETS == "shared"
    assert R.OPEN_CHOICES[d["open_choice"]] == ({}, {}, {})
    for u in (0.0, 0.37, 0.999):  # every sampled value lies in its axis' range
        for a in R.SPACE.axes:
            v = a.value(u)
            if a.scale == "choice":
                assert v in a.choices
            else:  # a log axis' ends up to rounding
                assert a.low - 1e-9 * abs(a.low) <= v <= a.high + 1e-9 * abs(a.high)


def test_open_choices_are_the_ambiguity_tables_both_allowed_rows():
    rows = {(p, tuple(sorted(params.items()))): right
            for p, table in (("hbm", E.HBM_CHOICES[1:]), ("dnv", E.DNV_CHOICES), ("clock", E.BASELINE_CHOICES))
            for _, params, right in table}
    for key, (hbm, dnv, clk) in R.OPEN_CHOICES.items():
        if key == "default":
            continue
        prefix = key.split(":")[0]
        params = {"hbm": hbm, "dnv": dnv, "clock": clk}[prefix]
        assert rows[(prefix, tuple(sorted(params.items())))] == E.BOTH
        assert not set(params) <= E.LOG_ONLY


def test_headline_rows_exist_and_are_judged(ledger_ci):
    assert set(ledger_ci["claim"]) == set(R.HEADLINE)
    assert ledger_ci.height == len(R.HEADLINE)
    assert set(ledger_ci["kind"]) <= {"value", "direction"}  # never a row not comparable by construction


def test_default_point_equals_the_ci_ledger(ledger_ci, default_ci):
    order = {h: i for i, h in enumerate(R.HEADLINE)}
    want = ledger_ci.sort(pl.col("claim").replace_strict(order, return_dtype=pl.Int64))
    assert default_ci.select(KEY).equals(want.select(KEY))
    assert default_ci.columns == L.COLUMNS


def test_point_is_deterministic_and_picklable(default_ci):
    assert R.point("ci").equals(default_ci)
    assert pickle.loads(pickle.dumps(R.point)) is R.point
    with pytest.raises(TypeError):
        R.point("ci", footprint=1)


@pytest.mark.parametrize("change", [{"alpha": 1.2}, {"hot_overlap": 0.0, "seq_share": 0.3},
                                    {"open_choice": "dnv:padding=nvm"}, {"open_choice": "clock:insert_referenced=True"},
                                    {"dram_share": 0.4, "write_shift": -1.5, "websearch": "corrected"}])
def test_a_non_default_point_changes_something(default_ci, change):
    p = R.point("ci", **change)
    assert p["claim"].to_list() == default_ci["claim"].to_list()
    assert not p["our_value"].equals(default_ci["our_value"])


def _same(a, b):
    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("time_s", "op", "offset_bytes", "size_bytes"))


@pytest.mark.parametrize("w", ["financial1", "mail-02", "home2"])
def test_generator_draws_as_the_models(w):
    m = W.model(w)
    assert _same(R.generate(m, 3000, 5), W.generate(m, 3000, 5))
    assert _same(R.generate(m, 3000, 5, hot_overlap=0.0), W.generate(m.with_(hot_sets="separate"), 3000, 5))
    half = R.generate(m, 3000, 5, hot_overlap=0.5)
    shared, sep = W.generate(m, 3000, 5), W.generate(m.with_(hot_sets="separate"), 3000, 5)
    from_shared = half.offset_bytes == shared.offset_bytes
    from_sep = half.offset_bytes == sep.offset_bytes
    assert (from_shared | from_sep).all() and (~from_shared).any() and (~from_sep).any()


def test_sequential_share_continues_the_previous_request():
    m = W.model("mail-02")
    base = R.generate(m, 4000, 1)
    seq = R.generate(m, 4000, 1, seq_share=0.4)
    assert np.array_equal(seq.size_bytes, base.size_bytes) and np.array_equal(seq.op, base.op)
    cont = seq.offset_bytes[1:] == seq.offset_bytes[:-1] + seq.size_bytes[:-1]
    assert 0.35 < cont.mean() < 0.45
    assert (base.offset_bytes[1:] == base.offset_bytes[:-1] + base.size_bytes[:-1]).mean() < 0.01


def test_write_shift():
    assert R._write_share(0.17, 0.0) == 0.17
    assert R._write_share(0.0, 1.5) == 0.0 and R._write_share(1.0, -1.5) == 1.0
    assert R._write_share(0.17, 1.0) < 0.17 < R._write_share(0.17, -1.0)
    assert R._write_share(0.5, np.log(3)) == pytest.approx(0.25)


def test_stand_ins_without_traces_is_an_empty_ledger_frame(monkeypatch):
    monkeypatch.setattr(R.catalog, "real_path", lambda name: None)
    s = R.stand_ins("ci")
    assert s.height == 0 and s.schema == pl.Schema(L.SCHEMA) and s.columns == L.COLUMNS


def test_stand_ins_on_a_present_trace(monkeypatch):
    name = "real/personal_pc/p2pdownload"  # the smallest stand-in
    if R.catalog.real_path(name) is None:
        pytest.skip("no stand-in trace here (set FLASHREPRO_TRACE_DIRS)")
    monkeypatch.setattr(W, "REAL_STANDINS", [name])
    s = R.stand_ins("ci")
    assert s["claim"].to_list() == list(R.HEADLINE) and set(s["workload"]) == {name}
    assert s.columns == L.COLUMNS and s["our_value"].is_not_null().all()
