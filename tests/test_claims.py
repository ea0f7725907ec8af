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
    (0.856, 0.14, 0.15, True, "partly"),  # the right sign, far from the number
    (0.856, -0.05, 0.15, True, "does not hold"),
    (-0.2, -0.21, 0.1, True, "holds"),
    (10.0, 11.0, 0.1, False, "holds"),  # the boundary is inside
    (10.0, 11.01, 0.1, False, "does not hold"),
    (0.5, float("nan"), 0.1, False, "does not hold"),
])
def test_value_claims(paper, ours, tol, same_sign, verdict):
    c = L.value(1, "x", "w", paper, ours, tol, "u", same_sign=same_sign)
    assert c.verdict == verdict


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
