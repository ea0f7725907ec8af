"""The robustness maps (issue 23) on a toy paper whose truth region and dominant axis are known analytically
(tests/toy_robustness.py)."""

import math
import os
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import toy_robustness as toy

from flashrepro import claims as L
from flashrepro import robustness as R
from flashrepro import sweep

FILES = list(R.FILES)


def _bytes(d: Path) -> dict:
    return {f: (d / f).read_bytes() for f in FILES}


def test_lhs_is_seeded_and_stratified():
    n = 16
    u = toy.SPACE.unit_sample(n, seed=3)
    assert u.shape == (n, len(toy.SPACE.axes))
    assert np.array_equal(u, toy.SPACE.unit_sample(n, seed=3))
    assert not np.array_equal(u, toy.SPACE.unit_sample(n, seed=4))
    assert ((u >= 0) & (u < 1)).all()
    for j in range(u.shape[1]):  # each axis hits every 1/n stratum exactly once
        assert sorted(np.floor(u[:, j] * n).astype(int)) == list(range(n))
    pts = toy.SPACE.sample(n, seed=3)
    assert pts == toy.SPACE.values(u) and set(pts[0]) == set(toy.SPACE.names)


def test_axis_values_per_scale_kind():
    lin = R.Axis("a", 2.0, 4.0, 3.0, "w")
    assert lin.value(0.0) == 2.0 and lin.value(0.5) == 3.0
    log = R.Axis("b", 1.0, 100.0, 10.0, "w", scale="log")
    assert log.value(0.0) == pytest.approx(1.0) and log.value(0.5) == pytest.approx(10.0)
    assert log.value(0.75) == pytest.approx(10 ** 1.5)
    ints = R.Axis("c", 1, 4, 2, "w", scale="int")
    got = [ints.value((i + 0.5) / 8) for i in range(8)]
    assert got == [1, 1, 2, 2, 3, 3, 4, 4] and all(isinstance(v, int) for v in got)
    assert ints.value(0.999999) == 4
    ch = R.Axis("d", 0, 0, "y", "w", scale="choice", choices=("x", "y", True))
    assert [ch.value(u) for u in (0.0, 0.34, 0.99)] == ["x", "y", True]
    assert R.Space(1, (lin, log, ints, ch)).default() == {"a": 3.0, "b": 10.0, "c": 2, "d": "y"}


@pytest.mark.parametrize("kwargs, message", [
    ({"low": 1.0, "high": 1.0}, "low < high"),
    ({"default": 5.0}, "not inside"),
    ({"why": " "}, "why"),
    ({"scale": "log", "low": 0.0}, "low > 0"),
    ({"scale": "int", "high": 1.5}, "integer bounds"),
    ({"scale": "cubic"}, "scale must be one of"),
    ({"scale": "choice", "choices": ("p", "q"), "default": "r"}, "not among"),
    ({"scale": "choice", "choices": ()}, "needs choices"),
])
def test_axis_validation(kwargs, message):
    args = {"name": "a", "low": 0.0, "high": 1.0, "default": 0.5, "why": "w"} | kwargs
    with pytest.raises(ValueError, match=message):
        R.Axis(**args)


def test_space_validation():
    a = R.Axis("a", 0.0, 1.0, 0.5, "w")
    with pytest.raises(ValueError, match="repeat"):
        R.Space(1, (a, a))
    with pytest.raises(ValueError, match="at least one axis"):
        R.Space(1, ())
    with pytest.raises(ValueError, match="scale"):
        R.Space(1, (R.Axis("scale", 0.0, 1.0, 0.5, "w"),))


@pytest.fixture(scope="module")
def toy_map(tmp_path_factory):
    d = tmp_path_factory.mktemp("map")
    res = R.run_map(["toy_robustness"], n=128, seed=1, out_dir=d, progress=False, figures=True,
                    figures_dir=d / "fig", log=lambda m: None)
    return res, d


def _row(res, claim):
    return next(r for r in res.headline.iter_rows(named=True) if r["claim"] == claim)


def test_toy_truth_region_is_recovered(toy_map):
    res, _ = toy_map
    r = _row(res, toy.HEADLINE[0])  # holds iff x0 + x1 <= 1: half the square
    assert r["n_points"] == 128 and r["n_failed"] == 0 and r["n_nan"] == 0
    assert r["holds_ci_low"] <= 0.5 <= r["holds_ci_high"] and abs(r["holds_share"] - 0.5) < 0.08
    from scipy.stats import binomtest

    ci = binomtest(round(r["holds_share"] * 128), 128).proportion_ci(method="wilson")
    assert (r["holds_ci_low"], r["holds_ci_high"]) == pytest.approx((ci.low, ci.high))
    # every verdict is the ledger's (the toy's own claims calls), never re-derived
    long = res.long.filter(pl.col("claim") == toy.HEADLINE[0])
    pts = res.points.filter(pl.col("axis").is_in(["x0", "x1"])).pivot("axis", index="point", values="value")
    s = pts["x0"].cast(float) + pts["x1"].cast(float)
    assert long["our_value"].to_numpy() == pytest.approx(s.to_numpy(), rel=1e-8)
    assert ((long["verdict"] == "holds").to_numpy() == (long["our_value"] <= 1).to_numpy()).all()
    assert r["default_verdict"] == "holds" and r["default_value"] == pytest.approx(0.5)
    assert r["stand_in_verdicts"] == "toytrace: holds"
    assert r["nearest_distance"] < 0 and r["nearest_value"] == long["our_value"].min()  # the widest margin
    assert "toy: not a headline claim" not in res.headline["claim"].to_list()


def test_planted_value_claim_nearest_bias_and_dominant_axis(toy_map):
    res, _ = toy_map
    r = _row(res, toy.HEADLINE[1])  # 4 + 2 x0 + 0.1 x1 against 5 (15%): holds iff x0 within about 0.125..0.875
    assert r["top_axis"] == "x0" and r["sensitivity_method"] == "rbd_fast"
    assert r["bias"] == pytest.approx(-0.01)  # ours at the map's scale minus ours at the claims' scale
    assert r["default_verdict"] == "holds" and r["map_scale"] == "ci" and r["claims_scale"] == "paper"
    assert 0.6 < r["holds_share"] < 0.9 and r["partly_share"] == pytest.approx(1 - r["holds_share"])
    vals = res.long.filter(pl.col("claim") == toy.HEADLINE[1])["our_value"].to_numpy()
    assert r["nearest_distance"] == pytest.approx(np.min(np.abs(vals - 5) / 5))
    assert r["stand_in_verdicts"] == "toytrace: partly"
    s = res.sensitivity.filter(pl.col("claim") == toy.HEADLINE[1])
    assert s["axis"][int(np.argmax(s["rbd_fast_s1"].to_numpy()))] == "x0"
    assert s["axis"][int(np.argmax(np.abs(s["spearman_rho"].to_numpy())))] == "x0"


def test_nan_values_do_not_hold_and_leave_the_sensitivity(toy_map):
    res, _ = toy_map
    r = _row(res, toy.HEADLINE[2])
    z = res.points.filter(pl.col("axis") == "z")["value"].cast(float).to_numpy()
    long = res.long.filter(pl.col("claim") == toy.HEADLINE[2])
    assert r["n_nan"] == int((z > 5).sum()) > 0
    assert (long.filter(pl.col("our_value").is_null() | pl.col("our_value").is_nan())["verdict"]
            == "does not hold").all()
    assert r["holds_share"] == pytest.approx(1 - r["n_nan"] / 128) and r["top_axis"] == "z"


def test_csvs_figures_and_byte_identical_rerun(toy_map, tmp_path):
    res, d = toy_map
    head = pl.read_csv(d / "headline.csv")
    assert tuple(head.columns) == R.HEADLINE_COLUMNS and head.height == 3 and "holds_share" in head.columns
    assert tuple(pl.read_csv(d / "robustness.csv").columns) == R.LONG_COLUMNS
    assert pl.read_csv(d / "robustness.csv").height == 3 * 128
    pts = pl.read_csv(d / "robustness_points.csv", infer_schema_length=0)
    assert set(pts.filter(pl.col("axis") == "mode")["value"]) <= {"a", "b", "c"}
    assert sorted(p.name for p in (d / "fig").iterdir()) == ["robustness_99_fig1.png", "robustness_99_table2.png"]
    again = R.run_map(["toy_robustness"], n=128, seed=1, out_dir=tmp_path, progress=False, log=lambda m: None)
    assert _bytes(tmp_path) == _bytes(d)
    assert again.headline.height == 3


def test_another_seed_gives_another_sample(tmp_path):
    a = R.run_map(["toy_robustness"], n=8, seed=1, out_dir=tmp_path / "a", progress=False, bias=False,
                  log=lambda m: None)
    b = R.run_map(["toy_robustness"], n=8, seed=2, out_dir=tmp_path / "b", progress=False, bias=False,
                  log=lambda m: None)
    assert not a.points.equals(b.points)
    assert math.isnan(a.headline["bias"][0]) and a.headline["claims_scale"][0] == "ci"


def test_missing_paper_module_is_skipped(tmp_path, monkeypatch):
    monkeypatch.setitem(R.PAPERS, 8, "no_such_paper")
    logged = []
    res = R.run_map([8, "toy_robustness"], n=4, out_dir=tmp_path, progress=False, bias=False, log=logged.append)
    assert res.skipped == ["8"] and any("skipped paper 8" in m for m in logged)
    assert set(res.headline["paper"].to_list()) == {99}
    assert R.headline_claims(8) == frozenset()
    with pytest.raises(ValueError, match="no paper 9"):
        R.module_name(9)


def test_run_points_input_order_and_failures():
    pts = [{"x": 0.9}, {"x": 0.1}, {"x": 0.7}, {"x": 0.2}]
    res = sweep.run_points("toy_robustness:explode", pts, progress=False)
    frames, failures = res
    assert frames[0] is None and frames[2] is None
    assert frames[1]["x"].to_list() == [0.1] and frames[3]["x"].to_list() == [0.2]
    assert [f.task["kwargs"] for f in failures] == [{"x": 0.9}, {"x": 0.7}]
    assert all("planted failure" in f.error and "RuntimeError" in f.traceback for f in failures)
    with pytest.raises(ValueError, match="module:function"):
        sweep.run_points("no_colon", pts)


def test_process_executor_gives_the_same_csvs(toy_map, tmp_path):
    _, d = toy_map
    R.run_map(["toy_robustness"], n=128, seed=1, out_dir=tmp_path, progress=False, executor="process", workers=2,
              log=lambda m: None)
    assert _bytes(tmp_path) == _bytes(d)


def test_dask_local_cluster_gives_the_same_csvs(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    here = Path(__file__).parent
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(here), str(here.parent / "lib"),
                                                      os.environ.get("PYTHONPATH", "")]))
    local = R.run_map(["toy_robustness"], n=24, seed=5, out_dir=tmp_path / "local", progress=False,
                      log=lambda m: None)
    # one worker process with two threads: the points still cross a process boundary and finish out of input
    # order (a map that kept them in completion order fails here), without a second process's start and imports
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        res = R.run_map(["toy_robustness"], n=24, seed=5, out_dir=tmp_path / "dask", progress=False, client=client,
                        log=lambda m: None)
    assert res.failures == [] and local.failures == []
    assert _bytes(tmp_path / "dask") == _bytes(tmp_path / "local")


def test_a_paper_run_alone_keeps_the_others_rows(tmp_path):
    R.run_map(["toy_robustness"], n=4, out_dir=tmp_path, progress=False, bias=False, log=lambda m: None)
    fake = pl.read_csv(tmp_path / "robustness.csv", infer_schema_length=0).with_columns(pl.lit("1").alias("paper"))
    both = pl.concat([fake, pl.read_csv(tmp_path / "robustness.csv", infer_schema_length=0)])
    both.write_csv(tmp_path / "robustness.csv")
    R.run_map(["toy_robustness"], n=4, out_dir=tmp_path, progress=False, bias=False, log=lambda m: None)
    back = pl.read_csv(tmp_path / "robustness.csv", infer_schema_length=0)
    assert back["paper"].to_list() == ["1"] * fake.height + ["99"] * fake.height


def test_figure_slug():
    assert R.figure_slug("Fig. 10A, Sec. 5.2") == "fig10a"
    assert R.figure_slug("Figs. 4-5") == "fig4"
    assert R.figure_slug("Table 4") == "table4"
    assert R.figure_slug("Sec. IV") == "other"


def test_cli(tmp_path, capsys):
    from flashrepro import cli

    rc = cli.main(["robustness", "--paper", "toy_robustness", "--points", "8", "--out", str(tmp_path),
                   "--no-figures", "--no-bias"])
    assert rc == 0 and (tmp_path / "headline.csv").exists()
    out, err = capsys.readouterr()
    assert "holds on" in out
    assert "task/s" not in err and "\r" not in err  # no progress bar where stderr is no terminal (make's logs)


def test_headline_column_of_the_ledger(monkeypatch, tmp_path):
    monkeypatch.setitem(R._HEADLINE_MEMO, 1, frozenset({"Table 4: a remembered number"}))
    t = L.table([L.value(1, "Table 4: a remembered number", "w", 1.0, 1.0, L.PRINTED, "x"),
                 L.value(1, "Table 5: another", "w", 1.0, 1.0, L.PRINTED, "x"),
                 L.value(0, "theory row", "w", 1.0, 1.0, L.PRINTED, "x")])
    assert t.columns == L.COLUMNS and t.schema["headline"] == pl.Boolean
    assert t["headline"].to_list() == [True, False, False]
    old = tmp_path / "x_claims.csv"  # a ledger written before the column: read and tagged
    t.drop("headline").write_csv(old)
    assert L.read(old).equals(t)
    assert L.collect(tmp_path)["headline"].to_list() == [True, False, False]


def test_sensitivity_falls_back_to_delta(monkeypatch):
    from SALib.analyze import rbd_fast

    u = toy.SPACE.unit_sample(64, seed=2)
    y = 3 * u[:, 4] + 0.1 * u[:, 0]
    rows, method, n_nan = R.sensitivity(toy.SPACE.names, u, y, seed=0)
    assert method == "rbd_fast" and n_nan == 0 and R._top(rows, method) == "z"

    def broken(*a, **k):
        raise ValueError("planted")

    monkeypatch.setattr(rbd_fast, "analyze", broken)
    rows, method, _ = R.sensitivity(toy.SPACE.names, u, y, seed=0)
    assert method == "delta" and R._top(rows, method) == "z"
    assert all(math.isnan(r["rbd_fast_s1"]) for r in rows)
    rows, method, n_nan = R.sensitivity(toy.SPACE.names, u, np.full(64, 2.0), seed=0)
    assert method == "none" and R._top(rows, method) == ""


def test_rows_a_control_makes_not_comparable_keep_their_claim(monkeypatch, tmp_path):
    monkeypatch.setattr(toy, "point", toy.point_with_control)
    res = R.run_map(["toy_robustness"], n=64, seed=1, out_dir=tmp_path, progress=False, bias=False,
                    log=lambda m: None)
    r = _row(res, toy.HEADLINE[1])
    x1 = res.points.filter(pl.col("axis") == "x1")["value"].cast(float).to_numpy()
    long = res.long.filter(pl.col("claim") == toy.HEADLINE[1])
    nc = (long["verdict"] == "not comparable").to_numpy()
    assert nc.any() and (x1[nc] > 0.5).all()
    assert r["kind"] == "value" and r["not_comparable_share"] == pytest.approx(nc.mean())
    assert r["holds_share"] + r["partly_share"] + r["not_comparable_share"] <= 1 + 1e-12
    assert r["nearest_distance"] < 0.1 and r["top_axis"] == "x0"


def test_headline_text(toy_map, tmp_path):
    _, d = toy_map
    text = R.headline_text("toy_robustness", d)
    assert "| toy: x0 + x1 at most 1 | toy | holds |" in text and "128 Latin hypercube points" in text
    assert R.headline_rows(99, d).height == 3
    assert "has not been run" in R.headline_text(99, tmp_path)


def test_effects_split_the_points_by_one_axis(toy_map, tmp_path, monkeypatch):
    res, d = toy_map
    e = R.effects("toy_robustness", out_dir=d)
    planted = e.filter(pl.col("claim") == toy.HEADLINE[1])
    x0 = planted.filter(pl.col("axis") == "x0")  # its top axis: 4 equal strata of x0, 32 points each
    assert x0["part"].to_list() == ["0-0.25", "0.25-0.5", "0.5-0.75", "0.75-1"] and x0["n"].to_list() == [32] * 4
    med = x0["median_value"].to_numpy()  # 4 + 2 x0 + 0.1 x1: about 4.3, 4.8, 5.3, 5.8
    assert np.all(np.diff(med) > 0.4) and med == pytest.approx([4.3, 4.8, 5.3, 5.8], abs=0.06)
    held = x0["holds_share"].to_list()  # holds iff x0 within about 0.125..0.875
    assert held[1] == held[2] == 1.0 and 0.2 < held[0] < 0.8 and 0.2 < held[3] < 0.8
    long = res.long.filter(pl.col("claim") == toy.HEADLINE[1])
    x = res.points.filter(pl.col("axis") == "x0").join(long, on=["paper", "point"])
    first = x.filter(pl.col("value").cast(float) < 0.25)
    assert x0["median_value"][0] == pytest.approx(float(first["our_value"].median()))
    mode = planted.filter(pl.col("axis") == "mode")  # EXPLAIN: a choice axis, one part per choice
    assert mode["part"].to_list() == ["a", "b", "c"] and sum(mode["n"]) == 128
    assert np.ptp(mode["median_value"].to_numpy()) < 0.3  # it changes nothing
    sumclaim = e.filter((pl.col("claim") == toy.HEADLINE[0]) & (pl.col("axis") != "mode"))
    assert sumclaim["axis"][0] in ("x0", "x1") and sumclaim["holds_share"].to_list() == sorted(
        sumclaim["holds_share"].to_list(), reverse=True)  # the larger the coordinate, the fewer hold
    assert "0.25-0.5: 4.79 (100%)" in R.effects_text("toy_robustness", d)
    assert R.effects("toy_robustness", out_dir=tmp_path) is None
    monkeypatch.setattr(toy, "EXPLAIN", ("nope",))
    with pytest.raises(ValueError, match="EXPLAIN names axes not in its SPACE"):
        R.effects("toy_robustness", out_dir=d)


def test_default_at_the_claims_scale_read_from_the_ledger(tmp_path, monkeypatch):
    """With ``ledger``, the default point at the claims' scale comes from <ledger>/<notebook>_claims.csv, not a run."""
    ledger = toy.point(scale="paper").with_columns(pl.col("our_value") + 0.5)  # a ledger the point cannot give
    standin = ledger.filter(pl.col("claim") == toy.HEADLINE[1]).with_columns(workload=pl.lit("a real trace"))
    pl.concat([ledger, standin]).write_csv(tmp_path / "99_toy_claims.csv")  # its stand-in rows are not the map's
    ran = []
    real = toy._point
    monkeypatch.setattr(toy, "_point", lambda scale="ci", **v: ran.append(scale) or real(scale, **v))
    res = R.run_map(["toy_robustness"], n=4, out_dir=tmp_path / "m", progress=False, ledger=tmp_path,
                    log=lambda m: None)
    assert "paper" not in ran and ran  # the map's points ran, the claims-scale default did not
    planted = _row(res, "toy: planted value 5")
    assert planted["default_value"] == pytest.approx(4.0 + 2 * 0.25 + 0.1 * 0.25 + 0.01 + 0.5)
    assert planted["bias"] == pytest.approx(-0.51)
    assert "a real trace" not in res.headline["workload"].to_list()
    res = R.run_map(["toy_robustness"], n=4, out_dir=tmp_path / "n", progress=False, ledger=tmp_path / "none",
                    log=lambda m: None)  # no ledger there: the point runs
    assert "paper" in ran and _row(res, "toy: planted value 5")["bias"] == pytest.approx(-0.01)


def test_headline_rows_added_to_the_notebook_text(toy_map, tmp_path):
    _, d = toy_map
    text = tmp_path / "99_toy_text.md"
    text.write_text("# What holds\n\nthe notebook's text\n")
    for _ in range(2):  # a second map replaces the section instead of adding another
        assert R.add_to_texts(["toy_robustness"], tmp_path, d) == [text]
    t = text.read_text()
    assert t.startswith("# What holds\n\nthe notebook's text\n")
    assert t.count(R.TEXT_BEGIN) == 1 and t.count(R.TEXT_END) == 1 and t.endswith(R.TEXT_END + "\n")
    assert "| toy: x0 + x1 at most 1 | toy | holds |" in t and "How single axes move each claim" in t
    assert R.add_to_texts(["toy_robustness"], tmp_path / "absent", d) == []


def test_map_at_the_claims_scale_takes_its_default_verdict_from_its_own_default(tmp_path):
    """A paper whose map runs at the claims' scale has its default verdict (and a zero bias) from the map's own
    default point, which is then not run twice."""
    res = R.run_map(["toy_robustness"], n=4, out_dir=tmp_path, progress=False, claims_scale="ci",
                    log=lambda m: None)
    planted = _row(res, "toy: planted value 5")
    assert planted["default_verdict"] == "holds" and planted["bias"] == 0.0
    assert planted["default_value"] == planted["map_default_value"] == pytest.approx(4.525)


def _map_one(args) -> None:
    """One paper's map into ``out`` (a spawned process, as make runs it beside another)."""
    import sys

    paper, out, tests = args
    sys.path.insert(0, tests)
    from flashrepro import robustness

    robustness.run_map([paper], n=6, seed=2, out_dir=Path(out), progress=False, log=lambda m: None)


def _waited_for(folder: Path, other, timeout_s: float = 60) -> bool:
    """Whether a process came to wait for a lock on ``folder`` before ``other`` (an AsyncResult) was ready: Linux
    lists each process waiting for a lock in /proc/locks (marked "->", with the locked file's device and inode).
    Elsewhere: whether ``other`` is still not ready after 6 s, long enough to start and finish were it not waiting."""
    locks = Path("/proc/locks")
    if not locks.exists():
        other.wait(timeout=6)
        return not other.ready()
    st = folder.stat()
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    deadline = time.monotonic() + timeout_s
    while not other.ready() and time.monotonic() < deadline:
        if any(f[1] == "->" and f[6] == inode for f in map(str.split, locks.read_text().splitlines())):
            return True
        time.sleep(0.05)
    return False


def test_maps_one_paper_at_a_time_give_the_files_of_one_map_of_all(tmp_path):
    """make runs each paper's map as soon as its notebook is done: the papers' maps one after another, in either
    order, write the same bytes as one map of both papers; a map's merge waits while another holds the lock on
    the folder (make runs two at once)."""
    import fcntl
    import multiprocessing

    papers = ["toy_robustness", "toy_robustness_b"]
    R.run_map(papers, n=6, seed=2, out_dir=tmp_path / "all", progress=False, log=lambda m: None)
    for order in (papers, papers[::-1]):
        d = tmp_path / "-".join(order)
        for p in order:
            R.run_map([p], n=6, seed=2, out_dir=d, progress=False, log=lambda m: None)
        assert _bytes(d) == _bytes(tmp_path / "all"), order
    d = tmp_path / "together"
    R.run_map(papers[:1], n=6, seed=2, out_dir=d, progress=False, log=lambda m: None)
    lock = os.open(d, os.O_RDONLY)
    fcntl.flock(lock, fcntl.LOCK_EX)  # another map merging its rows
    with multiprocessing.get_context("spawn").Pool(1) as pool:  # spawn: polars' threads make fork unsafe
        other = pool.apply_async(_map_one, ((papers[1], str(d), str(Path(__file__).parent)),))
        assert _waited_for(d, other) and not other.ready()  # the second map waits for the lock
        os.close(lock)
        other.get(timeout=60)
    assert _bytes(d) == _bytes(tmp_path / "all")


def test_cli_notebook_selects_its_papers_map(tmp_path, capsys):
    from flashrepro import cli

    args = ["robustness", "--paper", "toy_robustness", "toy_robustness_b", "--points", "4", "--out", str(tmp_path),
            "--no-figures", "--no-bias"]
    assert cli.main([*args, "--notebook", "98_toy"]) == 0
    assert set(pl.read_csv(tmp_path / "headline.csv")["paper"].to_list()) == {98}
    assert cli.main([*args, "--notebook", "06_matrix"]) == 0  # no map: nothing written, not an error
    assert "no paper's map belongs to notebook 06_matrix" in capsys.readouterr().err
    assert set(pl.read_csv(tmp_path / "headline.csv")["paper"].to_list()) == {98}
