"""A toy paper for the robustness tests: its truth region and its dominant axis are known analytically.

* "toy: x0 + x1 at most 1" holds iff x0 + x1 <= 1: half of the unit square.
* "toy: planted value 5" is 4 + 2 x0 + 0.1 x1 (+0.01 at the claims' scale): x0 dominates; holds iff
  |ours - 5| <= 0.75.
* "toy: positive below z = 5" is NaN (not computable) where z > 5.
"""

from __future__ import annotations

import math

import polars as pl

from flashrepro import claims as L
from flashrepro.robustness import Axis, Space

SPACE = Space(paper=99, axes=(
    Axis("x0", 0.0, 1.0, 0.25, "the toy's first coordinate, the unit interval"),
    Axis("x1", 0.0, 1.0, 0.25, "the toy's second coordinate, the unit interval"),
    Axis("k", 1, 4, 2, "an integer setting that changes nothing", scale="int"),
    Axis("mode", 0, 0, "a", "a choice that changes nothing", scale="choice", choices=("a", "b", "c")),
    Axis("z", 0.1, 10.0, 1.0, "a log-uniform setting past which one claim cannot be computed", scale="log"),
))
HEADLINE = ("toy: x0 + x1 at most 1", "toy: planted value 5", "toy: positive below z = 5")
MAP_SCALE = {"reduced": "ci", "full": "quick"}
EXPLAIN = ("mode",)  # shown beside each claim's top axis in the text section
NOTEBOOK = "99_toy"  # its ledger and text: <results>/99_toy_claims.csv, 99_toy_text.md


def _rows(x0, x1, z, workload, bias):
    return [
        L.direction(99, HEADLINE[0], workload, "at most", x0 + x1, paper_value=1.0, unit="sum", source="Fig. 1"),
        L.value(99, HEADLINE[1], workload, 5.0, 4.0 + 2.0 * x0 + 0.1 * x1 + bias, L.PRINTED, "units",
                same_sign=True, source="Fig. 1, Sec. 2"),
        L.direction(99, HEADLINE[2], workload + "-z", "positive", math.nan if z > 5 else z, source="Table 2"),
        L.value(99, "toy: not a headline claim", workload, 1.0, 1.0, L.PRINTED, "units", source="Fig. 3"),
    ]


def point(scale: str = "ci", **values) -> pl.DataFrame:
    return _point(scale, **values)


def _point(scale: str = "ci", **values) -> pl.DataFrame:
    v = SPACE.default() | values
    return L.table(_rows(v["x0"], v["x1"], v["z"], "toy", 0.01 if scale == "paper" else 0.0))


def stand_ins(scale: str = "ci") -> pl.DataFrame:
    return L.table([L.direction(99, HEADLINE[0], "toytrace", "at most", 0.8, paper_value=1.0, unit="sum",
                                source="Fig. 1"),
                    L.value(99, HEADLINE[1], "toytrace", 5.0, 9.0, L.PRINTED, "units", same_sign=True,
                            source="Fig. 1, Sec. 2")])


def explode(**values) -> pl.DataFrame:
    if values.get("x", 0) > 0.5:
        raise RuntimeError("planted failure")
    return pl.DataFrame({"x": [values.get("x", 0)]})


def point_with_control(scale: str = "ci", **values) -> pl.DataFrame:
    """point(), with the planted value claim made "not comparable" by a control where x1 > 0.5."""
    t = _point(scale, **values)
    v = SPACE.default() | values
    if v["x1"] > 0.5:
        row = L.value(99, HEADLINE[1], "toy", 5.0, 4.0 + 2.0 * v["x0"] + 0.1 * v["x1"], L.PRINTED, "units",
                      same_sign=True, source="Fig. 1, Sec. 2")
        nc = L.against_control(row, row, "itself")
        t = pl.concat([t.filter(pl.col("claim") != HEADLINE[1]), L.table([nc])])
    return t
