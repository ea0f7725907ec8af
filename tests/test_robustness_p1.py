"""Paper 1 (BS-CLOCK) robustness space (issue 23): the default point is the ledger's, every axis moves the
headline rows, points are deterministic, and stand-ins without traces give an empty ledger frame."""

import numpy as np
import polars as pl
import pytest

from flashrepro import claims as L
from flashrepro import paths
from flashrepro.papers.bs_clock import claims as C
from flashrepro.papers.bs_clock import experiments as E
from flashrepro.papers.bs_clock import robustness as R
from flashrepro.papers.bs_clock import workloads as W
from flashrepro.traces import Op
from flashrepro.traces.sclock import TABLE2, generate

COLS = ["claim", "workload", "our_value", "verdict"]
NOTEBOOK_WORKLOADS = ["web-browsing", "web-browsing-hotset", "video-streaming", "mixed-apps"]


def _ledger_ci() -> pl.DataFrame:
    """The claims table as the notebook's own functions build it at ``ci`` (its default parameters)."""
    traces = W.workloads("ci", 0, real=True, names=NOTEBOOK_WORKLOADS, capacity=1024)
    models = {k: v for k, v in traces.items() if k.startswith("bsclock/")}
    sweep = E.bulk_sweep(traces, E.BULK_SWEEP, 1024)
    cmp = E.compare(traces, E.POLICIES, 1024, max_bulk_pages=16)
    readings = E.hand_readings(models, 1024, (min(E.BULK_SWEEP), 16, max(E.BULK_SWEEP)))
    return C.claims(cmp, sweep, traces, readings=readings, max_bulk_pages=16)


def _key(df: pl.DataFrame) -> pl.DataFrame:
    return df.select(COLS).sort("claim", "workload")


def test_space_is_the_contracts():
    names = [a.name for a in R.SPACE.axes]
    assert 4 <= len(names) <= 8 and len(set(names)) == len(names)
    for a in R.SPACE.axes:
        assert a.why
        if a.scale == "choice":
            assert a.default in a.choices
        else:
            assert a.low <= a.default <= a.high
    for v in R.SPACE.sample(8, 0):
        assert set(v) == set(names)


def test_default_point_is_the_ledger_at_ci():
    ledger = _ledger_ci().filter(pl.col("claim").is_in(R.HEADLINE)
                                 & pl.col("workload").is_in([*TABLE2, "all"]))
    ours = R.point("ci", **R.SPACE.default())
    assert set(ours["claim"]) == set(R.HEADLINE)
    assert "not comparable" not in set(ledger["verdict"])  # no headline row is "not comparable" at the default
    assert _key(ours).equals(_key(ledger))
    assert _key(R.point("ci")).equals(_key(ours))  # missing axes take their default


@pytest.mark.parametrize("axis,value", [("cache_pages", 2048), ("hot_scale", 2.0), ("seq_scale", 0.6),
                                        ("hot_alpha", 1.1), ("rw_overlap", 0.0), ("insert_referenced", False),
                                        ("hand_reading", "bulk/position"), ("flush_at_end", True)])
def test_every_axis_moves_a_headline_row(axis, value):
    base, moved = _key(R.point("ci")), _key(R.point("ci", **{axis: value}))
    assert moved["claim"].to_list() == base["claim"].to_list()
    assert not np.allclose(moved["our_value"].to_numpy(), base["our_value"].to_numpy(), rtol=0, atol=1e-12)


def test_point_is_deterministic():
    v = R.SPACE.sample(1, 7)[0]
    assert R.point("ci", **v).equals(R.point("ci", **v))


def test_unknown_axis_is_an_error():
    with pytest.raises(TypeError):
        R.point("ci", buffer_mb=8)


def test_overlap_one_is_the_models_generator():
    m = W.load_models()["mixed-apps"]
    a, b = generate(m, 3, "x", 5000), generate(m, 3, "x", 5000, rw_overlap=1.0)
    assert np.array_equal(a.offset_bytes, b.offset_bytes) and np.array_equal(a.op, b.op)
    c = generate(m, 3, "x", 5000, rw_overlap=0.0)
    assert np.array_equal(a.op, c.op) and not np.array_equal(a.offset_bytes, c.offset_bytes)
    reads = a.op == Op.READ
    assert np.array_equal(a.offset_bytes[reads], c.offset_bytes[reads])  # only writes move


def test_stand_ins_without_traces_is_an_empty_ledger_frame(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "raw", tmp_path / "raw")
    monkeypatch.setenv("FLASHREPRO_TRACE_DIRS", str(tmp_path / "none"))
    df = R.stand_ins("ci")
    assert df.height == 0 and df.schema == pl.Schema(L.SCHEMA)
