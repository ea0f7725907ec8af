"""Paper 4's experiment module: the improvement formula, scaled geometries and the paper's numbers."""

import numpy as np
import pytest

from flashrepro.ftl import FTL, POLICIES
from flashrepro.papers.twor import experiments as E
from flashrepro.papers.twor import workloads as W


@pytest.mark.parametrize("w", ["fio-zipf0.5", "fio-zipf0.9", "fio-zipf1.1"])
def test_equation_1_gives_table_3(w):
    ours = E.improvement(W.paper_value("waf", w, "2r"), W.paper_value("waf", w, "2r++"))
    assert ours == pytest.approx(W.paper_value("improvement", w), abs=0.15)  # the WAFs are rounded to 3 places


def test_equation_1_gives_sections_5_2_and_5_3():
    for w in ("tpcc", "linkbench"):
        waf = {p: W.paper_value("waf", w, p) for p in ("greedy", "2r", "2r++")}
        # Table 4 prints WAFs to at most three places (LinkBench 2R++: "1.19"); near WAF 1 that moves the rate
    # by up to 3% of itself (LinkBench: 14.2% from the printed WAFs, 13.836% in the text)
        assert E.improvement(waf["2r"], waf["2r++"]) == pytest.approx(W.paper_value("improvement", w), rel=0.03)
        assert E.improvement(waf["greedy"], waf["2r++"]) == pytest.approx(
            W.paper_value("improvement_vs_greedy", w), rel=0.03)


@pytest.mark.parametrize("scale", list(W.SCALES))
def test_scaled_geometries_keep_the_spare_share_and_fit(scale):
    for name in ("8GB", "10GB"):
        g, full = W.geometry(name, scale), W.GEOMETRIES[name]
        assert g.spare_fraction == pytest.approx(full.spare_fraction, rel=0.01)
        FTL(g, POLICIES["2r++"])  # raises if the logical space does not fit
    fio = W.fio_stream(0.9, scale)
    assert fio.n_writes / fio.n_blocks == pytest.approx(W.FIO_WRITES / W.GEOMETRIES["8GB"].logical_pages, rel=0.01)


def test_fitted_models_are_the_committed_ones():
    m = W.oltp_model("tpcc", "ci", model="stationary")
    fitted = W.load_models()[("stationary", "tpcc")]
    assert (m.skew, m.insert_only) == (fitted["skew"], fitted["insert_only"])
    assert abs(fitted["top20"] - 0.90) < 0.01 and abs(fitted["frozen60"] - 0.40) < 0.01
    m = W.oltp_model("tpcc", "ci")
    fitted = W.load_models()[("lifecycle", "tpcc")]
    assert isinstance(m, W.LifeCycleDB) and (m.skew, m.freeze) == (fitted["skew"], fitted["freeze"])
    assert abs(fitted["frozen60"] - 0.40) < 0.01


def lifecycle_reference(m):
    """LifeCycleDB one write at a time, from the same draws, with the rules spelled out."""
    frozen = m.frozen_pages()
    u = np.random.default_rng([m.seed, 4]).random(3 * m.n_writes)
    out, size = [], m.initial_pages
    for i in range(m.n_writes):
        if m.initial_pages + (m.final_pages - m.initial_pages) * (i + 1) // m.n_writes > size:
            out.append(size)  # insert the next page
            size += 1
            continue
        warm = [p for p in range(size) if not frozen[p]]  # pages that never freeze, oldest first
        page = None
        if u[3 * i] < m.hot_share or not warm:
            age = int(-np.log(1.0 - u[3 * i + 1]) * m.window * m.final_pages)
            if age < size:
                page = size - 1 - age  # the page inserted age insertions ago
        if page is None:
            page = warm[int(u[3 * i + 2] ** (1 + m.skew) * len(warm))] if warm else int(u[3 * i + 2] * size)
        out.append(page)
    return out


@pytest.mark.parametrize("hot,freeze,skew", [(0.05, 0.7, 2.0), (0.5, 0.3, 0.0), (1.0, 0.0, 1.0), (0.2, 0.99, 5.0)])
def test_lifecycle_model_matches_its_reference(hot, freeze, skew):
    m = W.LifeCycleDB("t", 400, 50, 300, 3000, skew, freeze, hot_share=hot, window=0.05, seed=3)
    got = np.concatenate(list(m.chunks(size=777))).tolist()
    assert got == lifecycle_reference(m)
    assert sorted(set(got) - set(range(50))) == list(range(50, 300))  # every page inserted once, in order


@pytest.mark.parametrize("initial,final,n_writes", [(50, 300, 250), (300, 300, 900), (1, 400, 401), (7, 390, 3001)])
def test_lifecycle_growth_schedule_matches_its_reference(initial, final, n_writes):
    # the growth at its edges: a page inserted by every write, none, and remainders that wrap at chunk boundaries
    m = W.LifeCycleDB("t", 400, initial, final, n_writes, 1.0, 0.5, hot_share=0.3, window=0.05, seed=5)
    for size in (1, 13, 1 << 20):
        assert np.concatenate(list(m.chunks(size=size))).tolist() == lifecycle_reference(m)


def test_lifecycle_pages_freeze_after_their_hot_period():
    m = W.LifeCycleDB("t", 20000, 2000, 20000, 200_000, 1.0, 0.6, hot_share=0.05, window=0.01)
    w = np.concatenate(list(m.chunks()))
    frozen = m.frozen_pages()
    last = np.full(m.final_pages, -1)
    last[w] = np.arange(len(w))
    born = np.full(m.final_pages, -1)
    born[w[::-1]] = np.arange(len(w))[::-1]
    young = np.flatnonzero(frozen & (np.arange(m.final_pages) >= m.initial_pages))
    # a frozen page's last write comes soon after its insertion; a warm page keeps being written
    assert np.median(last[young] - born[young]) < 0.05 * len(w)
    warm = np.flatnonzero(~frozen[: m.final_pages // 2])
    assert np.median(last[warm]) > 0.8 * len(w)


def test_setup_flows_into_the_runs():
    st = E.Setup(trigger="reserve", fallback="global", prefilled=False, spare=0.1, seed=2, threshold=0.3)
    r = E.run_fio("ci", st, ["2r", "greedy"], [1.1], threads=1, progress=False, extras=False)[0]
    assert r.geometry == W.geometry("8GB", "ci", 0.1) and r.geometry.spare_fraction == pytest.approx(0.1, abs=0.01)
    row = r.slices.row(0, named=True)
    assert (row["trigger"], row["fallback"], row["prefilled"], row["seed"]) == ("reserve", "global", False, 2)
    assert r.slices["first_writes"].max() > 0  # not prefilled: the first writes are measured
    pols = E.policies(["2r", "greedy"], "global", threshold=0.3)
    assert (pols[0].fallback, pols[0].threshold) == ("global", 0.3) and pols[1] == POLICIES["greedy"]


# --- the open choices, the oracle, the ledger's new rows and the generated text, on one tiny pipeline ---------
@pytest.fixture(scope="module")
def tiny():
    """The notebook's pipeline at tiny scale on two fio skews and both models (seconds), with LinkBench's model
    cut to twice TPC-C's writes (Table 2's is ten times, 1.2M writes at tiny scale for each grid setup that runs
    it): these tests check which runs the rows are, not the numbers."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(W.OLTP_WRITES, "linkbench", 2 * W.OLTP_WRITES["tpcc"])
        return _tiny()


def _tiny():
    import dataclasses

    import polars as pl

    from flashrepro.papers.twor import claims as C

    setup, thetas, oltp = E.Setup(), [0.9, 1.1], ["tpcc", "linkbench"]
    runs = []
    for t in E.TRIGGERS:
        st = dataclasses.replace(setup, trigger=t)
        runs += E.run_fio("tiny", st, E.PAPER_POLICIES, thetas, 1, progress=False, extras=t == "femu")
        runs += E.run_oltp("tiny", st, E.PAPER_POLICIES, oltp, W.MODELS[:1], 1, progress=False, extras=t == "femu")
    s, rw = E.summary(runs), E.running_waf(runs)
    _, _, fit = W.stats_tables(E.gathered_stats(runs))
    g, grw = E.run_grids("tiny", setup, E.grid_setups(setup, seeds=[0, 1]), E.PAPER_POLICIES, thetas, oltp, 1)
    o = pl.concat([E.run_oracles("tiny", setup, E.TRIGGERS, thetas, oltp, threads=1),
                   E.run_oracles("ci", setup, E.TRIGGERS, (), ["tpcc"], threads=1)])
    ot = E.oracle_table(o, s)
    amb = E.ambiguity(s, g, setup, "tiny", "tiny")
    claims = C.claims(s, fit, rw, "femu", g, grw, ot, "tiny")
    return {"s": s, "rw": rw, "fit": fit, "g": g, "grw": grw, "o": o, "ot": ot, "amb": amb, "claims": claims,
            "setup": setup, "reg": E.region_table(s), "check": E.scale_check(g, s, setup, "tiny", "tiny"),
            "seeds": E.seed_spread(g)}


def test_ambiguity_rows_are_the_runs_they_name(tiny):
    import polars as pl

    s, g, amb = tiny["s"], tiny["g"], tiny["amb"]
    for r in amb.filter(choice="GC trigger").iter_rows(named=True):
        t = r["setting"].split(" ")[0]
        if r["setting"].startswith("Fig. 7"):  # greedy FEMU's, 2R and 2R++ at one free line
            t = "femu" if r["policy"] == "greedy" else "reserve"
        assert r["waf"] == s.filter(workload=r["workload"], policy=r["policy"], trigger=t)["waf"][0]
        assert r["waf_default"] == s.filter(workload=r["workload"], policy=r["policy"], trigger="femu")["waf"][0]
    fb = amb.filter(choice="fallback rule", setting=E.FALLBACK_LABELS["global"])
    assert fb.height == 2 * 4 and set(fb["policy"]) == {"2r", "2r++"}
    for r in fb.iter_rows(named=True):
        assert r["waf"] == g.filter(grid="fallback", fallback="global", workload=r["workload"],
                                    policy=r["policy"])["waf"][0]
    cp = amb.filter(choice="copy destinations", default=False)
    assert set(cp["policy"]) == {"greedy"} and cp.height == 2 and (cp["change"] != 0).all()  # Table 4
    # every choice has its default, at zero change, and the change is the ratio to it
    for c in amb["choice"].unique():
        d = amb.filter(choice=c)
        if c not in ("stop rule", "fio's generator"):  # these are variants of the main runs' default
            assert d.filter(default=True).height > 0 and (d.filter(default=True)["change"] == 0).all()
    assert ((amb["waf"] / amb["waf_default"] - 1 - amb["change"]).abs() < 1e-12).all()
    assert amb.filter(pl.col("workload").str.starts_with("fio") & (pl.col("policy") == "greedy")).height == 0
    wide = E.ambiguity_wide(amb)
    assert wide.height == amb.select("choice", "setting").unique().height


def test_settled_rows_are_the_runs_they_name(tiny):
    """The points the clean-room review raised: the selection order, the write pointer and greedy's ties ran in
    the settled grid (their rows are those runs, against the default setup's); 2R++'s threshold at equality
    and the cursor did not run, and the setting indeed cannot change those runs."""
    import polars as pl

    from flashrepro.ftl import POLICIES, ArrayStream, run

    g, amb, s = tiny["g"], tiny["amb"], tiny["s"]
    settled = amb.filter(pl.col("settled_by") != E.OPEN)
    assert set(settled["choice"]) == set(E.SETTLED) and (amb.filter(settled_by=E.OPEN)["note"].is_null()).all()
    assert amb.filter(choice="the host's write pointer")["settled_by"][0].startswith("FEMU's code")
    gref = g.filter(grid="seed", seed=0)
    for choice, suffixes, n in (("multi-victim selection", ["/interleaved"], 8),
                                ("the host's write pointer", ["/other-pointer"], 10),
                                ("greedy's ties", ["/heap"], 2), ("FEMU's version of greedy", ["/heap-stale"], 2)):
        rows = amb.filter(choice=choice, default=False)
        assert rows.height == n and rows["note"].is_null().all()
        for r in rows.iter_rows(named=True):
            got = {g.filter(grid="settled", workload=r["workload"], policy=r["policy"] + x)["waf"][0] for x in suffixes}
            assert r["waf"] in got
            assert r["waf_default"] == gref.filter(workload=r["workload"], policy=r["policy"])["waf"][0]
    # the host's write pointer the other way is the package before: lazy under FEMU's trigger
    lazy = g.filter(grid="settled", policy="greedy/other-pointer", workload="tpcc")["waf"][0]
    assert lazy != gref.filter(workload="tpcc", policy="greedy")["waf"][0]
    # no runs: 40% of a line is never a whole page count here, and no run took a global fallback
    for choice, pols in (("2R++'s threshold at equality", {"2r++"}), ("2R's cursor after the newest line",
                                                                      {"2r", "2r++"})):
        rows = amb.filter(choice=choice, default=False)
        assert set(rows["policy"]) == pols and rows["note"].str.starts_with("not run").all()
        assert (rows["change"] == 0).all() and rows["scale"].to_list() == ["tiny"] * rows.height
        assert (rows["waf"] == s.filter(trigger="femu").join(rows.select("workload", "policy"), on=["workload",
                                                                                                     "policy"])["waf"]).all()
    st = E.fio_stream(1.1, "tiny")
    pols = [POLICIES["2r++"], POLICIES["2r++"].with_(name="le", strict_threshold=False),
            POLICIES["2r"], POLICIES["2r"].with_(name="resume", cursor="resume")]
    r = E.summary([run(ArrayStream(st.name, np.concatenate(list(st.chunks(1 << 20))), st.logical_pages, st.prefill),
                       pols, W.geometry("8GB", "tiny"), threads=1, trigger="femu", progress=False)])
    waf = dict(zip(r["policy"], r["waf"], strict=True))
    assert waf["le"] == waf["2r++"] and waf["resume"] == waf["2r"]
    assert waf["2r++"] == s.filter(workload="fio-zipf1.1", policy="2r++", trigger="femu")["waf"][0]


def test_oracle_table_names_its_witness(tiny):
    ot = tiny["ot"]
    assert set(ot["scale"]) == {"tiny", "ci"} and ot.filter(scale="ci")["workload"].to_list() == ["tpcc", "tpcc"]
    for r in ot.iter_rows(named=True):
        cands = {f"oracle/{v}": r[v] for v in ("greedy", "cost-benefit", "fifo_threshold")}
        assert r["oracle"] == min(cands.values()) and cands[f"oracle/{r['oracle_victim']}"] == r["oracle"]
        ours = {p: r[f"ours_{p}"] for p in E.PAPER_POLICIES}
        assert r["best"] == min(r["oracle"], *ours.values())
        assert r["best"] == (ours.get(r["best_by"]) if r["best_by"] in ours else r["oracle"])
    # the oracle on the life-cycle models under GC at one free line copies less than greedy on one stream
    lc = ot.filter(workload="tpcc", trigger="reserve", scale="ci").row(0, named=True)
    assert lc["greedy"] < lc["ours_greedy"]


def test_reachability_rows_follow_the_largest_scale(tiny):
    import polars as pl

    claims, ot = tiny["claims"], tiny["ot"]
    rr = claims.filter(pl.col("claim").str.starts_with("Reachability"))
    assert rr.height == 2 * 2 * 4  # 2R and 2R++, both triggers, four streams
    for r in rr.iter_rows(named=True):
        t = r["claim"].split("(")[-1].split(" ")[0]
        big = ot.filter(workload=r["workload"], trigger=t).sort(
            pl.col("scale").replace_strict({"tiny": 0, "ci": 1})).row(-1, named=True)
        assert r["our_value"] == big["best"] and r["expected"] == "at most"
        assert (r["verdict"] == "holds") == (big["best"] <= r["paper_value"])


def test_fig_11_early_gap_needs_every_seed(tiny):
    import polars as pl

    from flashrepro.papers.twor import claims as C

    grw = tiny["grw"]
    gaps = E.first_tenth_gaps(grw)
    assert gaps["seed"].to_list() == [0, 1]
    row = C.claims(tiny["s"], tiny["fit"], tiny["rw"], "femu", tiny["g"], grw, tiny["ot"], "tiny").filter(
        pl.col("claim").str.starts_with("Fig. 11: early")).row(0, named=True)
    main = tiny["rw"].filter(workload="linkbench", trigger="femu", slice=1)
    main_gap = main.filter(policy="2r")["running_waf"][0] - main.filter(policy="2r++")["running_waf"][0]
    assert row["our_value"] == min(main_gap, *gaps["gap"])
    # a seed where 2R++ is above 2R early decides the row against the claim
    worse = grw.with_columns(running_waf=pl.when((pl.col("policy") == "2r++") & (pl.col("seed") == 1)
                                                 & (pl.col("slice") == 1)).then(pl.col("running_waf") + 1)
                             .otherwise(pl.col("running_waf")))
    row = C.claims(tiny["s"], tiny["fit"], tiny["rw"], "femu", tiny["g"], worse, tiny["ot"], "tiny").filter(
        pl.col("claim").str.starts_with("Fig. 11: early")).row(0, named=True)
    assert row["verdict"] == "does not hold" and row["our_value"] < 0


def test_rows_a_control_meets_are_not_evidence(tiny):
    import polars as pl

    c = tiny["claims"]
    f10 = c.filter(pl.col("claim").str.starts_with("Fig. 10A"))
    assert f10.height == 2 and (f10["verdict"] == "not comparable").all()
    assert f10["note"].str.contains("a control meets it too").all()
    f9 = c.filter(pl.col("claim").str.starts_with("Fig. 9A: greedy's WAF is high")).row(0, named=True)
    assert f9["verdict"] == "not comparable" and "cannot fail under the model" in f9["note"]
    for r in c.filter(pl.col("claim").str.contains(r"^Table [34]: WAF of 2R")).iter_rows(named=True):
        assert "fallback victims:" in r["detail"]
    # 2R++ below 2R is checked against 2R with 2R++'s stop rule where that variant ran (zipf 0.9, TPC-C)
    s = tiny["s"]
    for w, table in (("fio-zipf0.9", "3"), ("tpcc", "4")):
        r = c.filter(claim=f"Table {table}: 2R++ has a lower WAF than 2R", workload=w).row(0, named=True)
        a, b = (s.filter(workload=w, policy=p, trigger="femu")["waf"][0] for p in ("2r", "2r/invalid-stop"))
        control_holds = E.improvement(a, b) > 0
        if control_holds and r["our_value"] > 0:
            assert r["verdict"] == "not comparable"
        else:
            assert "2R with 2R++'s stop rule" in (r["detail"] + r["note"])
    r = c.filter(claim="Table 3: 2R++ has a lower WAF than 2R", workload="fio-zipf1.1").row(0, named=True)
    assert "stop rule" not in r["detail"]  # no such variant ran there


def test_closing_text_is_built_from_the_tables(tiny):
    import polars as pl

    from flashrepro import prose
    from flashrepro.papers.twor import text as T

    t = tiny

    def render(claims):
        return T.closing(claims, t["s"], t["amb"], t["ot"], t["check"], t["seeds"], t["reg"], t["fit"],
                         trigger="femu", scale="tiny", grid_scale="tiny", real_present=False)

    md = render(t["claims"])
    assert prose.counts(t["claims"]) in md and "nan" not in md.lower()
    gt = prose.row(t["claims"], "Table 4: WAF of greedy", "tpcc")
    assert f"TPC-C {prose.num(gt['our_value'])} (paper {prose.num(gt['paper_value'])}: {T._said(gt['verdict'])})" in md
    flipped = t["claims"].with_columns(verdict=pl.when((pl.col("claim") == "Table 4: WAF of greedy")
                                                       & (pl.col("workload") == "tpcc"))
                                       .then(pl.lit("partly" if gt["verdict"] != "partly" else "holds"))
                                       .otherwise(pl.col("verdict")))
    assert render(flipped) != md  # the wording follows the verdict
    why = T.why_rows(t["claims"], t["s"], t["amb"], t["ot"], t["fit"], trigger="femu")
    kinds = [r["kind"] for r in why]
    assert {"stream", "choice", "mechanism"} <= set(kinds) and all(r["shown by"] for r in why)
    sec = T.why_section(why)
    assert sec.count("\n| ") == len(why) + 1  # the header and one line per cause


def test_the_oracle_takes_the_main_runs_record_of_last_writes():
    import dataclasses

    setup = E.Setup()
    runs = E.run_oltp("tiny", setup, ["greedy"], ["tpcc"], W.MODELS[:1], 1, progress=False, extras=True)
    lasts = E.main_lasts(runs)
    assert set(lasts) == {"tpcc"}
    a = E.run_oracles("tiny", setup, E.TRIGGERS, (), ["tpcc"], lasts=lasts, threads=1)
    b = E.run_oracles("tiny", setup, E.TRIGGERS, (), ["tpcc"], threads=1)  # its own first pass
    assert a.equals(b)
    other = E.run_oracles("tiny", dataclasses.replace(setup, seed=1), ["reserve"], (), ["tpcc"], threads=1)
    assert not other["waf"].equals(b.filter(trigger="reserve")["waf"])  # seeded: another seed, another stream


def test_run_main_shares_streams_and_gives_the_rows_of_separate_runs():
    """The notebook's runs with each stream shared by both triggers (E.run_main) against the same runs one
    trigger after another (the notebook's loop before): the same runs in the same order, byte-identical
    summary and running WAF, the same erase counts and Figs. 1-2 statistics; a setup at another scale runs
    on its own streams."""
    import dataclasses

    setup, thetas, oltp, models = E.Setup(), [0.9], ["tpcc"], W.MODELS  # with the extras: variants, stats, models
    setups = [dataclasses.replace(setup, trigger=t) for t in E.TRIGGERS]
    loop = []
    for st in setups:
        main = st is setups[0]
        loop += E.run_fio("tiny", st, E.PAPER_POLICIES, thetas, 1, progress=False, extras=main)
        loop += E.run_oltp("tiny", st, E.PAPER_POLICIES, oltp, models if main else models[:1], 1, progress=False,
                           extras=main)
    shared = E.run_main(setups, ["tiny", "tiny"], E.PAPER_POLICIES, thetas, oltp, models, 1, progress=False,
                        real=False)
    assert [(r.workload, r.slices["trigger"][0]) for r in shared] == [(r.workload, r.slices["trigger"][0])
                                                                      for r in loop]
    assert E.summary(shared).write_csv() == E.summary(loop).write_csv()
    assert E.running_waf(shared).write_csv() == E.running_waf(loop).write_csv()
    for a, b in zip(shared, loop, strict=True):
        assert a.erase_counts.keys() == b.erase_counts.keys()
        assert all(np.array_equal(a.erase_counts[k], b.erase_counts[k]) for k in a.erase_counts)
    assert [w for w, _ in E.gathered_stats(shared)] == [w for w, _ in E.gathered_stats(loop)]
    assert all(x.top_share(0.2) == y.top_share(0.2) for (_, x), (_, y) in zip(E.gathered_stats(shared),
                                                                               E.gathered_stats(loop), strict=True))
    assert {r.shares for r in shared if r.slices["trigger"][0] == "reserve"} == {2}
    t = E.timings(shared)
    assert t["sharing"].to_list() == [r.shares for r in shared]
    other = E.run_main(setups, ["tiny", "ci"], E.PAPER_POLICIES, [1.1], ["tpcc"], models[:1], 1, progress=False,
                       real=False)
    assert [r.shares for r in other] == [1, 1, 1, 1]
    assert E.summary(other[2:]).write_csv() == E.summary(
        E.run_fio("ci", setups[1], E.PAPER_POLICIES, [1.1], 1, progress=False, extras=False)
        + E.run_oltp("ci", setups[1], E.PAPER_POLICIES, ["tpcc"], models[:1], 1, progress=False, extras=False)
    ).write_csv()
