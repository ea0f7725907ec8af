"""Paper 5's robustness map (issue 23): the space, the default point against the notebook's own ledger at ci,
the non-default axes, determinism and the stand-ins without traces."""

import json
import re

import numpy as np
import polars as pl
import pytest

from flashrepro import claims as L
from flashrepro import paths
from flashrepro.papers.write_once import claims as C
from flashrepro.papers.write_once import experiments as E
from flashrepro.papers.write_once import robustness as R
from flashrepro.papers.write_once import workloads as W

KEY = ["claim", "workload", "our_value", "verdict"]


def _notebook_parameters() -> dict:
    """The notebook's parameter cell, executed."""
    nb = json.loads((paths.notebooks / "05_write_once.ipynb").read_text())
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and "# Parameters" in "".join(c["source"]))
    ns: dict = {}
    exec("".join(cell["source"]), ns)  # noqa: S102 - the repository's own notebook
    return ns


def _notebook_ledger(scale: str = "ci") -> pl.DataFrame:
    """The headline rows of the ledger the notebook's own functions build (the notebook's code path at ci:
    the models only, the notebook's parameters)."""
    nb = _notebook_parameters()
    params = {k: nb[k] for k in ("period_s", "sync_scope", "on_delete", "write_miss_read", "history_pages",
                                 "history_all_written", "consume_history", "evict_at_sync", "evict_clean_flagged")}
    traces = W.models(scale, nb["seed"], nb["workloads"])
    red = E.reductions(E.miss_curves(traces, nb["fractions"], **params))
    eq6 = E.equal_miss_sizes(traces[f"writeonce/{nb['fig6_workload']}"], **params)
    q78 = E.quarter_cache(traces, nb["fractions"], nb["shrink"], **params)
    rows = C.claims(W.table2(traces), red, pl.concat([eq6, eq6.clear()], how="vertical_relaxed"), q78)
    return R.headline(rows)


@pytest.fixture(scope="module")
def default_ci():
    return R.point("ci")


def test_space_is_the_contract():
    names = [a.name for a in R.SPACE.axes]
    assert 4 <= len(names) <= 8 and len(set(names)) == len(names)
    assert R.SPACE.paper == 5
    for a in R.SPACE.axes:
        assert a.why.endswith(".") and not re.search(r"(?<!Figs)(?<!Fig)(?<!Sec)\.\s+[A-Z]", a.why)  # one sentence
        if a.scale == "choice":
            assert a.default in a.choices
        else:
            assert a.low <= a.default <= a.high
    nb = _notebook_parameters()  # the defaults are the notebook's settings
    assert R.NOTEBOOK_PARAMS == {k: nb[k] for k in R.NOTEBOOK_PARAMS}
    assert (nb["shrink"], nb["fig6_workload"], nb["seed"]) == (R.SHRINK, R.FIG6_WORKLOAD, R.SEED)
    assert tuple(nb["fractions"]) == E.FRACTIONS and nb["workloads"] == list(W.TABLE2)
    assert nb["once_share"] == R.SPACE.default()["once_share"] == W.AppModel.once_share
    assert set(R.MAP_SCALE) == {"reduced", "full"}
    pts = R.SPACE.sample(16, 3)
    assert pts == R.SPACE.sample(16, 3) and len(pts) == 16
    with pytest.raises(TypeError):
        R.point("ci", not_an_axis=1.0)
    with pytest.raises(ValueError):
        R.point("ci", once_share=0.99)


def test_default_point_is_the_notebooks_ledger_at_ci(default_ci):
    ours = default_ci.select(KEY)
    theirs = _notebook_ledger("ci").select(KEY)
    assert ours.height == theirs.height == 2 * 9 + 2 + 2 + 9
    assert ours.equals(theirs)
    assert set(ours["claim"]) == set(R.HEADLINE)
    assert "not comparable" not in set(ours["verdict"])
    assert default_ci.columns == L.COLUMNS


def test_non_default_point_changes_and_is_deterministic(default_ci):
    v = {"once_share": 0.6, "write_hot_overlap": 0.5, "syncs_per_write": 0.25, "evict_at_sync": False,
         "cache_scale": 0.7, "alpha": 0.7, "hot_per_ref": 0.1, "history_multiple": 3.0}
    a = R.point("ci", **v)
    assert a.select("claim", "workload").equals(default_ci.select("claim", "workload"))
    assert not np.allclose(a["our_value"].to_numpy(), default_ci["our_value"].to_numpy(), equal_nan=True)
    assert R.point("ci", **v).equals(a)


def test_each_model_axis_moves_the_traces():
    m = W.model("Worldwar")
    base = R.models("ci", R.SPACE.default())["writeonce/Worldwar"]
    for k, x in (("hot_per_ref", 0.1), ("alpha", 0.7), ("once_share", 0.6), ("syncs_per_write", 0.3),
                 ("write_hot_overlap", 0.5)):
        tr = R.models("ci", {**R.SPACE.default(), k: x})["writeonce/Worldwar"]
        assert len(tr) != len(base) or not np.array_equal(tr.offset_bytes, base.offset_bytes), k
    assert m.references == W.TABLE2["Worldwar"][0]


def test_overlap_one_is_the_models_trace_and_overlap_moves_only_writes():
    m = W.model("Facebook", syncs_per_write=0.3)
    a, b = R.generate(m, 5000, 0, 1.0), W.generate(m, 5000, 0)
    for col in ("time_s", "op", "offset_bytes", "size_bytes", "file"):
        assert np.array_equal(getattr(a, col), getattr(b, col)), col
    c = R.generate(m, 5000, 0, 0.0)
    reads = b.op == 0
    assert np.array_equal(c.offset_bytes[reads], b.offset_bytes[reads])
    assert not np.array_equal(c.offset_bytes[~reads], b.offset_bytes[~reads])
    assert W.characterise(c)["written_once_share"] == pytest.approx(0.95, abs=0.005)  # still fitted


def test_history_multiple_matches_the_notebooks_history_sweep():
    """The history path against the notebook's own history sweep (write_once at 5% of the footprint, H = 4
    caches): Fig. 5's curve at a cache scale that puts a grid size at 5%."""
    traces = W.models("ci", 0, ["Worldwar", "Mix1"])
    v = {**R.SPACE.default(), "history_multiple": 4.0, "cache_scale": 0.5}  # 0.1 x 0.5 = 5%
    red, _, _ = R.tables(traces, v)
    params = {k: x for k, x in R.NOTEBOOK_PARAMS.items() if k != "history_pages"}
    hs = E.history_sweep(traces, 0.05, (4,), **params)
    ours = red.filter(pl.col("fraction") == 0.05).sort("workload")
    theirs = hs.sort("workload")
    assert ours["capacity_blocks"].to_list() == theirs["capacity_blocks"].to_list()
    assert ours["miss_ratio_wo"].to_list() == theirs["miss_ratio"].to_list()
    assert ours["miss_ratio"].to_list() == theirs["miss_ratio_lru_flush"].to_list()


def test_stand_ins_without_traces_is_an_empty_ledger_frame(monkeypatch, tmp_path):
    monkeypatch.delenv("FLASHREPRO_TRACE_DIRS", raising=False)
    monkeypatch.setattr(paths, "raw", tmp_path)
    df = R.stand_ins("ci")
    assert df.height == 0
    assert df.schema == L.table([]).schema
