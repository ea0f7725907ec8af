"""The claims ledger: one verdict rule for every kind of claim, numbers stored as numbers, one file for all."""

import math

import polars as pl
import pytest

from flashrepro import claims as L
from flashrepro import paths


@pytest.mark.parametrize("paper,ours,tol,same_sign,verdict", [
    (3.29, 3.10, 0.10, False, "holds"),
    (3.29, 1.87, 0.15, False, "does not hold"),  # a WAF of 1.87 against 3.29 is not "partly"
    (0.856, 0.14, 0.15, False, "does not hold"),
    (0.856, 0.14, 0.15, True, "does not hold"),  # the right sign, 6x too small: not "much of the effect"
    (0.856, 0.30, 0.15, True, "partly"),  # the right sign, within a factor of 3
    (0.3, 0.9, 0.15, True, "partly"),  # 3x too large: still partly (the bound is inside)
    (0.3, 0.91, 0.15, True, "does not hold"),  # beyond 3x too large
    (-0.6, -0.2, 0.15, True, "partly"),  # a reduction a third as large (the bound is inside)
    (-0.6, -0.19, 0.15, True, "does not hold"),
    (0.856, -0.05, 0.15, True, "does not hold"),
    (-0.2, -0.21, 0.1, True, "holds"),
    (10.0, 11.0, 0.1, False, "holds"),  # the boundary is inside
    (10.0, 11.01, 0.1, False, "does not hold"),
    (0.5, float("nan"), 0.1, False, "does not hold"),
])
def test_value_claims(paper, ours, tol, same_sign, verdict):
    c = L.value(1, "x", "w", paper, ours, tol, "u", same_sign=same_sign)
    assert c.verdict == verdict


def test_partly_beyond_the_factor_shows_the_ratio():
    far = L.value(3, "x", "w", 0.4350, -0.001, 0.15, "fraction", same_sign=True)
    assert far.verdict == "does not hold" and "ours / paper" not in far.detail  # wrong sign: no ratio to give
    small = L.value(3, "x", "w", 0.4350, 0.0015, 0.15, "fraction", same_sign=True, detail="curve")
    assert small.verdict == "does not hold" and small.detail == "curve; ours / paper = 0.00345"
    near = L.value(3, "x", "w", 0.4350, 0.30, 0.15, "fraction", same_sign=True)
    assert near.verdict == "partly" and "ours / paper = 0.69" in near.detail


def test_a_control_that_meets_the_claim_makes_it_no_evidence():
    row = L.value(2, "gain", "T1", 0.26, 0.25, 0.25, "fraction", same_sign=True)
    assert row.verdict == "holds"
    same = L.against_control(row, L.value(2, "gain", "T1", 0.26, 0.24, 0.25, "fraction", same_sign=True), "S = 0")
    assert same.verdict == "not comparable" and "S = 0: 0.24 (holds)" in same.note and same.our_value == 0.25
    weaker = L.against_control(row, L.value(2, "gain", "T1", 0.26, 0.1, 0.25, "fraction", same_sign=True), "S = 0")
    assert weaker.verdict == "holds" and "S = 0: 0.1 (partly)" in weaker.detail
    fails = L.value(2, "gain", "T1", 0.26, -0.1, 0.25, "fraction", same_sign=True)
    assert L.against_control(fails, row, "baseline").verdict == "does not hold"  # a failure stays a failure
    assert L.against_control(row, None, "none") is row


def test_a_row_true_by_construction_is_not_comparable():
    row = L.direction(2, "8 KiB never loses", "T1", "at least", 0.07, paper_value=0.0)
    nc = L.by_construction(row, "the model fits in the cache")
    assert nc.verdict == "not comparable" and nc.our_value == 0.07 and nc.paper_value == 0.0
    assert "the model fits in the cache" in nc.note and "holds" in nc.note


def test_trends_are_judged_on_the_whole_curve():
    # falls from end to end but is U-shaped: 2.02 s -> 1.63 s -> 1.98 s
    u = L.direction(1, "falls", "web", "decreasing", [2.02, 1.8, 1.63, 1.75, 1.98])
    assert u.verdict == "does not hold" and u.our_value == pytest.approx(0.35 / 2.02)
    assert "1.63" in u.detail
    assert L.direction(1, "falls", "web", "decreasing", [3, 2, 2, 1]).verdict == "holds"
    assert L.direction(1, "rises", "web", "increasing", [1, 2, 1.99, 3], tolerance=0.01).verdict == "holds"
    assert L.direction(1, "rises", "web", "increasing", [1, 2, 1.9, 3], tolerance=0.01).verdict == "does not hold"
    with pytest.raises(ValueError, match="two points"):
        L.direction(1, "x", "w", "increasing", [1.0])
    flat = L.direction(1, "rises", "web", "increasing", [2.0, 2.0, 2.0])  # no move back, but no rise either
    assert flat.verdict == "does not hold" and flat.our_value == 0 and "never moves up" in flat.detail
    assert L.direction(1, "falls", "web", "decreasing", [2.0, 2.0, 1.5]).verdict == "holds"
    assert L.direction(1, "falls", "web", "decreasing", [2.0, 2.5, 2.5], tolerance=0.5).verdict == "does not hold"


@pytest.mark.parametrize("expected,ours,paper,verdict", [
    ("positive", 0.01, None, "holds"), ("positive", 0.0, None, "does not hold"), ("negative", -1, None, "holds"),
    ("at most", 0.003, 0.003, "holds"), ("at most", 0.0031, 0.003, "does not hold"),
    ("at least", 5, 4, "holds"), ("at least", 3, 4, "does not hold"),
])
def test_signs_and_bounds(expected, ours, paper, verdict):
    assert L.direction(2, "x", "w", expected, ours, paper_value=paper).verdict == verdict


def test_calibration_inputs_are_never_evidence():
    c = L.calibration(4, "Fig. 1 share", "tpcc", 0.90, 0.90, "fraction")
    assert c.verdict == "not comparable" and c.kind == "calibration" and c.paper_value == c.our_value
    n = L.not_comparable(1, "measured here", "ssd", "not a microSD card", our_value=0.97)
    assert n.verdict == "not comparable" and n.note == "not a microSD card"


def test_unknown_kinds_and_strings_are_refused():
    with pytest.raises(ValueError, match="expected"):
        L.direction(1, "x", "w", "sideways", 1.0)
    with pytest.raises(TypeError, match="number"):
        L.Claim(1, "x", "w", "value", "within tolerance", "35%", 0.3, "u", 0.1, "holds")
    with pytest.raises(ValueError, match="verdict"):
        L.Claim(1, "x", "w", "value", "within tolerance", 0.35, 0.3, "u", 0.1, "mostly")


def test_write_and_collect(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "results", tmp_path)
    L.write([L.value(1, "a", "w", 1.0, 1.05, 0.1, "u"), L.direction(1, "b", "w", "positive", -1.0)], "01_x")
    L.write([L.calibration(4, "c", "w", 0.9, 0.9, "u")], "04_y")
    df = L.collect()
    assert (tmp_path / "claims.csv").exists()
    back = pl.read_csv(tmp_path / "claims.csv", schema=L.SCHEMA)
    assert back.columns == L.COLUMNS and back.height == 3
    assert back["paper_value"].dtype == pl.Float64 and back["our_value"].dtype == pl.Float64
    n = L.counts(df)
    assert n.filter(pl.col("paper") == 1).row(0, named=True)["holds"] == 1
    assert n.filter(pl.col("paper") == 4).row(0, named=True)["not comparable"] == 1
    assert math.isclose(back["our_value"][0], 1.05)


def test_measured_rows_have_their_own_ledger(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "results", tmp_path)
    L.write([L.value(1, "a", "w", 1.0, 1.05, 0.1, "u")], "01_x")
    L.collect()
    assert not (tmp_path / "claims_measured.csv").exists() and L.collect_measured() is None
    L.write([L.value(1, "replay: 60.8% less time", "web", 0.608, 0.25, 0.25, "fraction", same_sign=True)], "01_x",
            measured=True)
    df = L.collect()
    assert df.height == 1  # the measured row stays out of claims.csv (it differs between runs)
    m = L.collect_measured()
    assert m.height == 1 and m["verdict"][0] == "partly" and (tmp_path / "01_x_claims_measured.csv").exists()
    (tmp_path / "01_x_claims_measured.csv").unlink()
    L.collect()
    assert not (tmp_path / "claims_measured.csv").exists()
