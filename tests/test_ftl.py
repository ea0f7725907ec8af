"""The FTL kernel against tests/reference.py, write by write, plus invariants hypothesis draws."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import FTLReference

from flashrepro.ftl import FTL, POLICIES, ArrayStream, Geometry, run, running_waf
from flashrepro.ftl import _kernel as K


def skewed_writes(seed, n, logical, hot=0.1, hot_share=0.8):
    rng = np.random.default_rng(seed)
    is_hot = rng.random(n) < hot_share
    n_hot = max(1, int(logical * hot))
    return np.where(is_hot, rng.integers(0, n_hot, n), rng.integers(0, logical, n)).astype(np.int32)


def reference_for(ftl: FTL) -> FTLReference:
    g, p, prm = ftl.geometry, ftl.policy, ftl.prm
    return FTLReference(g.pages_per_line, g.n_lines, g.logical_pages, p.victim, p.copy_dest, int(prm[K.LIMIT]),
                        int(prm[K.RECENT]), p.stop, int(prm[K.RESERVE]), p.max_victims)


VARIANTS = [POLICIES["greedy"], POLICIES["2r"], POLICIES["2r++"],
            POLICIES["2r"].with_(stop="invalid"), POLICIES["2r++"].with_(stop="valid"),
            POLICIES["2r++"].with_(stop="one", threshold=0.9, recent_fraction=0.0),
            POLICIES["2r"].with_(threshold=0.1, max_victims=2), POLICIES["2r++"].with_(threshold=0.0)]


@pytest.mark.parametrize("policy", VARIANTS, ids=lambda p: f"{p.name}-{p.stop}-{p.threshold}-{p.max_victims}")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kernel_matches_reference_write_by_write(policy, seed):
    g = Geometry(8 + 4 * seed, 20 + seed, 8 * (20 + seed) * 3 // 4)
    ftl, ref = FTL(g, policy), None
    ref = reference_for(ftl)
    fill = np.arange(g.logical_pages, dtype=np.int32)
    w = np.concatenate([fill, skewed_writes(seed, 4000, g.logical_pages)])
    log = np.zeros(len(w), np.int32)
    victims = np.zeros(20000, np.int32)
    # in three chunks, so the state carried between calls is exercised too
    for part in np.array_split(np.arange(len(w)), 3):
        ftl.write(w[part], log[part[0]:part[-1] + 1], victims)
        ftl.check()
    for lpn in w:
        ref.write(int(lpn))
    assert log.tolist() == ref.copies_before
    n_v = int(ftl.state["sc"][K.NLOG_V])
    assert victims[:n_v].tolist() == ref.victims
    assert ftl.counters == ref.counters()
    assert ftl.state["erase_count"].tolist() == ref.erases
    l2p = ftl.state["l2p"]
    P = g.pages_per_line
    assert {lpn: (int(l2p[lpn]) // P, int(l2p[lpn]) % P) for lpn in range(g.logical_pages) if l2p[lpn] >= 0} == ref.l2p
    assert ftl.counters["gc_passes"] > 20  # the comparison covered garbage collection


def test_policies_differ_where_they_should():
    g = Geometry(16, 40, 16 * 40 * 4 // 5)
    w = np.concatenate([np.arange(g.logical_pages), skewed_writes(5, 20000, g.logical_pages)]).astype(np.int32)
    c = {}
    for name in POLICIES:
        f = FTL(g, name)
        f.write(w)
        c[name] = f.copies()
    assert c["greedy"][0, 0] > 0 and c["greedy"][:, 1:].sum() == 0  # greedy copies stay in one stream
    assert c["2r"][:, :2].sum() == 0 and c["2r"][0, 2] > 0 and c["2r"][2, 2] > 0  # every 2R copy goes cold
    assert c["2r++"][0, 1] > 0 and c["2r++"][1, 2] > 0 and c["2r++"][0, 2] == 0  # 00 -> 01 -> 10


@settings(max_examples=40, deadline=None)
@given(P=st.integers(2, 12), L=st.integers(8, 24), fill=st.floats(0.3, 0.85), policy=st.sampled_from(VARIANTS),
       seed=st.integers(0, 2**16), n=st.integers(0, 3000), reserve=st.integers(1, 3))
def test_invariants(P, L, fill, policy, seed, n, reserve):
    logical = max(1, min(int(P * L * fill), (L - reserve - 4) * P))
    g = Geometry(P, L, logical)
    ftl = FTL(g, policy, reserve_lines=reserve)
    w = np.random.default_rng(seed).integers(0, logical, n).astype(np.int32)
    log = np.zeros(n, np.int32)
    ftl.write(w, log)
    ftl.check()
    c = ftl.counters
    copies = int(ftl.copies().sum())
    assert c["host_writes"] == n and log.sum() == copies
    assert c["first_writes"] == len(np.unique(w))
    assert c["erases"] == c["victims"] == ftl.state["erase_count"].sum()
    # what was written is what is mapped: valid pages = distinct logical pages written
    assert ftl.state["valid"].sum() == len(np.unique(w))
    assert n == 0 or ftl.waf() >= 1.0
    assert c["returned_from_cold"] <= c["host_writes"] - c["first_writes"]


def test_out_of_range_and_bad_geometry_are_errors():
    g = Geometry(8, 10, 40)
    with pytest.raises(ValueError, match="logical page 40"):
        FTL(g, "greedy").write(np.array([1, 40], np.int32))
    with pytest.raises(ValueError, match="spare"):
        Geometry(8, 10, 70)
    with pytest.raises(ValueError, match="do not fit"):
        FTL(Geometry(8, 10, 48), "greedy", reserve_lines=2)
    with pytest.raises(ValueError, match="unknown FTL policy"):
        FTL(g, "lru")
    with pytest.raises(ValueError, match="stop"):
        POLICIES["2r"].with_(stop="never")


def test_run_slices_match_one_ftl_and_chunking():
    g = Geometry(16, 48, 600)
    w = skewed_writes(3, 30000, 600)
    stream = ArrayStream("s", w, 600, prefill=600)
    a = run(stream, list(POLICIES), g, slices=10, chunk=777, threads=2, progress=False)
    b = run(stream, list(POLICIES), g, slices=10, chunk=1 << 20, threads=1, progress=False)
    assert a.slices.equals(b.slices)
    for name in POLICIES:
        f = FTL(g, name)
        f.write(np.arange(600, dtype=np.int32))
        f.reset_counters()
        f.write(w)
        last = a.slices.filter(policy=name, slice=10).row(0, named=True)
        assert all(last[k] == v for k, v in f.counters.items())
        assert np.array_equal(a.erase_counts[name], f.state["erase_count"])
    rw = running_waf(a.slices)
    assert rw.height == 30 and (rw["running_waf"] >= 1).all()
    # the mean of per-slice WAFs weighted by slice writes is the cumulative WAF
    for name in POLICIES:
        r = rw.filter(policy=name)
        assert r["cumulative_waf"][-1] == pytest.approx(r["running_waf"].mean(), rel=1e-9)
