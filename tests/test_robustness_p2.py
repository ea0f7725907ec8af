"""Paper 2's robustness space (issue 23): the default point is the claims' point (the same headline rows as the
ledger the notebook's own functions build at ci), every axis moves something, points are deterministic, and
the stand-ins give an empty ledger frame without a trace folder."""

import numpy as np
import polars as pl
import pytest

from flashrepro import claims as L
from flashrepro import paths
from flashrepro.papers.ssd_prefetch import claims as C
from flashrepro.papers.ssd_prefetch import experiments as E
from flashrepro.papers.ssd_prefetch import robustness as R
from flashrepro.papers.ssd_prefetch import workloads as W
from flashrepro.traces import Op

KEY = ["claim", "workload", "our_value", "verdict"]


def _clear():
    R._t1.cache_clear()
    R._t1x5.cache_clear()
    R._sequential.cache_clear()


@pytest.fixture(scope="module")
def ledger_ci() -> pl.DataFrame:
    """The notebook's ledger at ci, built by its own functions (notebooks/02_ssd_prefetch.ipynb's cells with
    their default parameters: no real stand-ins at ci)."""
    traces = W.workloads("ci", 0, real=False)
    t1 = traces[C.T1]
    t1x5 = W.t1_repeated(traces)
    f6 = E.fig6(traces, E.FIG6_SEGMENTS_KIB, E.CACHE_PAGES, front=E.FRONT)
    imp6 = E.baselines(f6, ["workload", "segment_kib"])
    imp7 = E.baselines(E.fig7(t1, segments=E.FIG6_SEGMENTS_KIB, front=E.FRONT), ["capacity_pages", "segment_kib"])
    f8 = pl.concat([E.fig8(t1x5, 128 // 4, front=E.FRONT), E.fig8(t1x5, E.FIG8_SENSITIVITY_PAGES, front=E.FRONT)])
    ratios8 = E.fig8_ratios(f8)
    return C.claims(E.fig4_model(), f6, imp6, imp7, ratios8.filter(pl.col("capacity_pages") == 32),
                    ratios8.filter(pl.col("capacity_pages") == E.FIG8_SENSITIVITY_PAGES), E.overhead(f8))


@pytest.fixture(scope="module")
def default_ci() -> pl.DataFrame:
    _clear()
    return R.point("ci")


def test_default_point_gives_the_ledgers_headline_rows_at_ci(ledger_ci, default_ci):
    claims = [*R.HEADLINE, R.EIGHT_KIB]  # point() also gives the 8 KiB rows (not headline: see R.EIGHT_KIB)
    ours = default_ci.select(KEY).sort("claim", "workload")
    theirs = ledger_ci.filter(pl.col("claim").is_in(claims)).select(KEY).sort("claim", "workload")
    assert theirs.height == 12
    assert ours.to_dicts() == theirs.to_dicts()
    assert set(default_ci["claim"]) == set(claims)


def test_point_rows_have_the_ledger_schema(default_ci):
    assert default_ci.schema == pl.Schema(L.SCHEMA)
    L.check(default_ci)


def _values(df: pl.DataFrame) -> dict:
    return {(r["claim"], r["workload"]): (r["our_value"], r["verdict"]) for r in df.iter_rows(named=True)}


OFF_DEFAULT = {"cache_mib": 64, "zipf_s": 1.2, "p_continue": 0.5, "write_overlap": 0.0, "seq_requests": "64-128",
               "write_into": "l1", "partial_windows": "skip", "step": 4.0}


@pytest.mark.parametrize("axis", list(OFF_DEFAULT))
def test_every_axis_moves_a_headline_row(default_ci, axis):
    assert set(OFF_DEFAULT) == set(R.SPACE.default())
    moved = R.point("ci", **{axis: OFF_DEFAULT[axis]})
    base, new = _values(default_ci), _values(moved)
    assert base.keys() == new.keys()
    assert any(base[k] != new[k] for k in base), f"{axis} changed no headline row"


def test_points_are_deterministic():
    p = R.SPACE.sample(1, seed=7)[0]
    _clear()
    a = R.point("ci", **p)
    _clear()
    b = R.point("ci", **p)
    assert a.equals(b)
    assert R.point("ci", **p).equals(a)  # from the trace caches too


def test_unknown_axis_is_an_error():
    with pytest.raises(ValueError, match="unknown axes"):
        R.point("ci", cache_size=3)


def test_space_is_declared_per_the_contract():
    assert R.SPACE.paper == 2 and 4 <= len(R.SPACE.axes) <= 8
    for a in R.SPACE.axes:
        assert a.why and a.name in R.SPACE.default()
        if a.scale == "choice":
            assert a.default in a.choices
        else:
            assert a.low <= a.default <= a.high
    assert set(R.MAP_SCALE) == {"reduced", "full"}
    pts = R.SPACE.sample(16, seed=1)
    assert pts == R.SPACE.sample(16, seed=1) and len(pts) == 16


def test_stand_ins_without_traces_is_an_empty_ledger_frame(monkeypatch):
    monkeypatch.setattr(paths, "trace_dirs", lambda: [])
    df = R.stand_ins("ci")
    assert df.height == 0 and df.schema == pl.Schema(L.SCHEMA)


def test_writes_apart_moves_only_writes_away_from_read_blocks():
    t1 = W.variant_trace("T1-general-usage", 5000, 0)
    assert W.writes_apart(t1, 1.0, 0) is t1
    apart = W.writes_apart(t1, 0.0, 0)
    reads = t1.op == Op.READ
    assert np.array_equal(apart.offset_bytes[reads], t1.offset_bytes[reads])
    assert np.array_equal(apart.size_bytes, t1.size_bytes) and np.array_equal(apart.op, t1.op)
    top = int((t1.offset_bytes + t1.size_bytes).max())
    assert (apart.offset_bytes[~reads] >= top).all()
    half = W.writes_apart(t1, 0.5, 0)
    moved_half, moved_all = half.offset_bytes != t1.offset_bytes, apart.offset_bytes != t1.offset_bytes
    assert 0 < moved_half.sum() < moved_all.sum() and not (moved_half & ~moved_all).any()
