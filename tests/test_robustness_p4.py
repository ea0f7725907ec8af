"""Paper 4's robustness space (issue 23): the default point is the claims' point, other points move, reruns are
identical, and the stand-ins give an empty ledger frame without traces."""

import dataclasses
import re

import polars as pl
import pytest

from flashrepro import claims as L
from flashrepro import paths
from flashrepro.papers.twor import claims as C
from flashrepro.papers.twor import experiments as E
from flashrepro.papers.twor import robustness as R
from flashrepro.papers.twor import workloads as W

KEY = ["claim", "workload", "our_value", "verdict"]


@pytest.fixture(scope="module")
def tiny_default():
    return R.point("tiny")


def test_space_is_declared_as_the_contract_says():
    names = [a.name for a in R.SPACE.axes]
    assert R.SPACE.paper == 4 and 4 <= len(names) <= 8 and len(set(names)) == len(names)
    for a in R.SPACE.axes:
        assert a.why.endswith(".") and not re.search(r"[a-z)]\. [A-Z]", a.why), a.name  # one sentence
        if a.scale == "choice":
            assert a.default in a.choices
        else:
            assert a.low <= a.default <= a.high and a.low < a.high
    assert set(R.MAP_SCALE) == {"reduced", "full"} and set(R.MAP_SCALE.values()) <= set(W.SCALES)
    for v in R.SPACE.sample(16, 0):  # every sampled value is inside its axis
        for a in R.SPACE.axes:
            assert v[a.name] in a.choices if a.scale == "choice" else a.low <= v[a.name] <= a.high


def test_headline_claims_are_the_ledgers_and_never_not_comparable_by_construction(tiny_default):
    assert set(tiny_default["claim"]) == set(R.HEADLINE)
    assert not tiny_default.filter(pl.col("kind") == "calibration").height
    assert not tiny_default["note"].str.contains("cannot fail under the model").any()


def test_default_point_at_ci_is_the_notebooks_claims():
    """The notebook's own functions at ci (its parameters cell's defaults: the paper's three policies, extras, the
    life-cycle model judged) give the same headline rows as point() at the default point."""
    setup = E.Setup()
    runs = E.run_fio("ci", setup, E.PAPER_POLICIES, W.THETAS, threads=2, progress=False, extras=True)
    runs += E.run_oltp("ci", setup, E.PAPER_POLICIES, models=W.MODELS[:1], threads=2, progress=False, extras=True)
    s = E.summary(runs)
    _, _, fit = W.stats_tables(E.gathered_stats(runs))
    ref = R.headline(C.claims(s, fit, E.running_waf(runs), setup.trigger))
    got = R.point("ci", **R.SPACE.default())
    assert ref.height == 29
    assert got.select(KEY).equals(ref.select(KEY))
    assert got.columns == L.COLUMNS


def test_point_is_deterministic_and_a_non_default_point_moves(tiny_default):
    v = {"trigger": "reserve", "spare_factor": 1.2, "hot_share": 0.1}
    a, b = R.point("tiny", **v), R.point("tiny", **v)
    assert a.equals(b)
    assert R.point("tiny").select(KEY).equals(tiny_default.select(KEY))
    joined = a.join(tiny_default, on=["claim", "workload"], suffix="_default")
    assert joined.height == tiny_default.height
    assert (joined["our_value"] != joined["our_value_default"]).any()


def test_each_axis_reaches_its_runs():
    """Every axis changes the stream, geometry or policy it names (without running the FTL)."""
    d = R.SPACE.default()
    assert R._oltp("tpcc", "tiny", d) == W.oltp_model("tpcc", "tiny")
    assert R._fio(0.9, "tiny", d) == W.fio_stream(0.9, "tiny")
    assert R._geometry("10GB", "tiny", 1.0) == W.geometry("10GB", "tiny")
    m = R._oltp("tpcc", "tiny", {**d, "hot_share": 0.1, "window": 0.04, "footprint": 0.9})
    assert (m.hot_share, m.window) == (0.1, 0.04) and m.final_pages == round(0.9 * m.logical_pages)
    assert R._fio(0.9, "tiny", {**d, "footprint": 0.8, "prefilled": False}).prefilled is False
    assert R._fio(0.9, "tiny", {**d, "footprint": 0.8}).n_blocks == round(0.8 * W.fio_stream(0.9, "tiny").n_blocks)
    g = R._geometry("8GB", "tiny", 1.25)
    assert g.spare_fraction > W.geometry("8GB", "tiny").spare_fraction and g.pages_per_line == 36
    assert R._greedy("greedy-heap-stale").victim == "greedy-heap-stale"
    assert R._setup({**d, "fallback": "global"}) == dataclasses.replace(E.Setup(), fallback="global")
    with pytest.raises(TypeError, match="unknown axes"):
        R.point("tiny", skew=1.0)


def test_stand_ins_without_traces_are_an_empty_ledger_frame(tmp_path, monkeypatch):
    monkeypatch.setenv("FLASHREPRO_TRACE_DIRS", str(tmp_path))
    monkeypatch.setattr(paths, "raw", tmp_path / "raw")
    d = R.stand_ins("tiny")
    assert d.height == 0 and d.schema == pl.Schema(L.SCHEMA)


@pytest.mark.realtrace
def test_stand_ins_replay_each_trace_as_the_notebook_does():
    """With the traces: one block of headline rows per real stand-in present, whose WAFs are those of the
    notebook's own replay (:func:`experiments.run_real`) with the same passes."""
    from conftest import real_trace_dir

    if real_trace_dir() is None:
        pytest.skip("needs FLASHREPRO_TRACE_DIRS")
    d = R.stand_ins("tiny")
    if not d.height:
        pytest.skip("no paper-4 stand-in trace present")
    s = E.summary(E.run_real(min_passes=R.STANDIN_PASSES["tiny"], names=E.PAPER_POLICIES))
    assert set(d["workload"]) == set(s["workload"])
    assert set(d["claim"]) == {c for c in R.HEADLINE if not c.startswith("Table 3")}
    for (w, p), label in {(w, p): f"Table 4: WAF of {p.upper() if p != 'greedy' else p}"
                          for w in s["workload"].unique() for p in E.PAPER_POLICIES}.items():
        ours = d.filter(workload=w, claim=label)["our_value"].item()
        assert ours == pytest.approx(s.filter(workload=w, policy=p)["waf"].item(), rel=1e-12)
