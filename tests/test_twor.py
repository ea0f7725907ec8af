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
