"""Papers 2, 3 and 5: their grids run through the sweep runner (issue 15) and give exactly what one
simulation at a time gives (same rows, same order, same bytes when written as CSV)."""

import io

import polars as pl

from flashrepro.traces import catalog


def _csv(df: pl.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.write_csv(buf)
    return buf.getvalue()


def _same(a: pl.DataFrame, b: pl.DataFrame):
    assert a.columns == b.columns
    assert a.dtypes == b.dtypes
    assert a.height == b.height > 0
    assert _csv(a) == _csv(b)


def test_paper2_grid_through_the_sweep_equals_the_loop():
    from flashrepro.papers.ssd_prefetch import experiments as E

    t1 = catalog.get("pcmark/T1-general-usage", scale="ci", prefer="model").head(3000)
    t2 = catalog.get("pcmark/T2-application-loading", scale="ci", prefer="model").head(3000)
    cases = [(tr, p, cap, {"segment_kib": s}) for tr in (t1, t2) for cap in (64, 512) for s in (8, 32)
             for p in E.ALL_POLICIES]
    cases += [(t1, E.PROPOSED, 64, {"segment_kib": 32, "step": 4.0}), (t2, "linux_readahead", 512, {})]
    cases += [(tr, p, 64, {"segment_kib": 16, "front": "read-ahead"}) for tr in (t1, t2) for p in E.ALL_POLICIES]
    _same(E._grid(cases, "test"), E._grid_loop(cases, "test"))


def test_paper5_grids_through_the_sweep_equal_the_loop(monkeypatch):
    from flashrepro.papers.write_once import experiments as E
    from flashrepro.papers.write_once import workloads as W

    traces = {k: v.head(4000) for k, v in list(W.models("ci", 0, ["Facebook", "Mix1"]).items())}
    params = {"period_s": 5.0, "history_pages": None}
    swept = (E.miss_curves(traces, (0.02, 0.2), **params), E.quarter_cache(traces, (0.05, 0.5), **params),
             E.history_sweep(traces, 0.05, (0, 1, 4), period_s=5.0))

    def loop(cases, executor="local", workers=None):  # one E.run at a time, as before the sweep runner
        return [E.run(tr, p, cap, **kw) for tr, p, cap, kw in cases]

    monkeypatch.setattr(E, "runs", loop)
    looped = (E.miss_curves(traces, (0.02, 0.2), **params), E.quarter_cache(traces, (0.05, 0.5), **params),
              E.history_sweep(traces, 0.05, (0, 1, 4), period_s=5.0))
    for a, b in zip(swept, looped, strict=True):
        _same(a, b)


def test_paper3_compare_through_the_sweep_equals_the_loop():
    from flashrepro.papers.clock_hbm import experiments as E
    from flashrepro.papers.clock_hbm import workloads as W

    traces = {k: v.head(5000) for k, v in list(W.workloads("ci", 0).items())[:2]}
    small = {"dram_pages": 40, "nvm_pages": 160}
    for reading, hbm in (("binary", {}), (small, {"nvm_second_chance": False})):
        _same(E.compare(traces, E.VARIANTS, reading, {"padding": "none"}, **hbm),
              E._compare_loop(traces, E.VARIANTS, reading, {"padding": "none"}, **hbm))
