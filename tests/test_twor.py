"""Paper 4's experiment module: the improvement formula, scaled geometries and the paper's numbers."""

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
    m = W.oltp_model("tpcc", "ci")
    fitted = W.load_models()["tpcc"]
    assert (m.skew, m.insert_only) == (fitted["skew"], fitted["insert_only"])
    assert abs(fitted["top20"] - 0.90) < 0.01 and abs(fitted["frozen60"] - 0.40) < 0.01
